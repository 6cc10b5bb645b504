// Shared fixture of the NodeSimulator tests: a memory Store, an InProcessClient wrapped in a
// RecordingClient (counts calls, can inject conflicts), and a FakeClock. Timers only fire when
// a test moves the clock and calls Tick(); the only real-time waits are bounded waits for the
// asynchronous parts (the informer delivering a store event, a write being answered).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/core/types.h"
#include "client/inprocess/inprocess_client.h"
#include "client/testing/forwarding_client.h"
#include "common/time.h"
#include "node/simulator.h"
#include "store/backend.h"
#include "store/store.h"
#include "testing/objects.h"

namespace allot::node {

// Forwards to another Client, recording every write; optionally fails pod status updates with
// 409 Conflict before they reach the store. Thread-safe.
class RecordingClient final : public client::ForwardingClient {
 public:
  explicit RecordingClient(client::Client& inner) : ForwardingClient(inner) {}

  struct Call {
    std::string method;  // create | update | status | patch | delete | bind
    std::string resource;
    std::string ns;
    std::string name;
    api::DeleteOptions del;
  };

  std::vector<Call> Calls() const {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  int Count(const std::string& method, const std::string& resource) const {
    std::lock_guard<std::mutex> lock(mu_);
    int n = 0;
    for (const Call& c : calls_) n += c.method == method && c.resource == resource;
    return n;
  }
  void FailNextPodStatusUpdates(int n) {
    std::lock_guard<std::mutex> lock(mu_);
    fail_pod_status_ = n;
  }
  // While held, pod status updates reach the store but their answers wait for ReleaseHeld():
  // a test can act while a write is "in flight".
  void HoldPodStatusAnswers(bool hold) {
    std::lock_guard<std::mutex> lock(mu_);
    hold_ = hold;
  }
  size_t HeldCount() const {
    std::lock_guard<std::mutex> lock(mu_);
    return held_.size();
  }
  void ReleaseHeld() {
    std::vector<std::function<void()>> held;
    {
      std::lock_guard<std::mutex> lock(mu_);
      held.swap(held_);
    }
    for (auto& answer : held) answer();
  }

  void CreateAsync(const api::ResourceInfo& r, std::unique_ptr<api::Object> obj,
                   client::Callback<api::ObjectPtr> done) override {
    Record("create", r, *obj);
    inner().CreateAsync(r, std::move(obj), std::move(done));
  }
  void UpdateAsync(const api::ResourceInfo& r, std::unique_ptr<api::Object> obj,
                   client::Callback<api::ObjectPtr> done) override {
    Record("update", r, *obj);
    inner().UpdateAsync(r, std::move(obj), std::move(done));
  }
  void UpdateStatusAsync(const api::ResourceInfo& r, std::unique_ptr<api::Object> obj,
                         client::Callback<api::ObjectPtr> done) override {
    Record("status", r, *obj);
    if (r.resource == "pods" && TakeFailure()) {
      done(ConflictError("pods", obj->metadata.name, "injected by the test"));
      return;
    }
    bool hold;
    {
      std::lock_guard<std::mutex> lock(mu_);
      hold = hold_ && r.resource == "pods";
    }
    if (hold) {
      inner().UpdateStatusAsync(r, std::move(obj), [this, done](Result<api::ObjectPtr> res) {
        std::lock_guard<std::mutex> lock(mu_);
        held_.push_back([done, res] { done(res); });
      });
      return;
    }
    inner().UpdateStatusAsync(r, std::move(obj), std::move(done));
  }
  void PatchAsync(const api::ResourceInfo& r, std::string ns, std::string name,
                  client::PatchKind kind, std::string patch, bool status,
                  client::Callback<api::ObjectPtr> done) override {
    Add({"patch", r.resource, ns, name, {}});
    inner().PatchAsync(r, std::move(ns), std::move(name), kind, std::move(patch), status,
                      std::move(done));
  }
  void DeleteAsync(const api::ResourceInfo& r, std::string ns, std::string name,
                   api::DeleteOptions opts, client::Callback<api::DeleteResult> done) override {
    Add({"delete", r.resource, ns, name, opts});
    inner().DeleteAsync(r, std::move(ns), std::move(name), std::move(opts), std::move(done));
  }
  void BindAsync(std::string ns, std::string pod, std::string uid, std::string node,
                 client::Annotations annotations, client::Callback<bool> done) override {
    Add({"bind", "pods", ns, pod, {}});
    inner().BindAsync(std::move(ns), std::move(pod), std::move(uid), std::move(node),
                      std::move(annotations), std::move(done));
  }

 private:
  void Record(const char* method, const api::ResourceInfo& r, const api::Object& obj) {
    Add({method, r.resource, obj.metadata.namespace_, obj.metadata.name, {}});
  }
  void Add(Call c) {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.push_back(std::move(c));
  }
  bool TakeFailure() {
    std::lock_guard<std::mutex> lock(mu_);
    if (fail_pod_status_ == 0) return false;
    --fail_pod_status_;
    return true;
  }

  mutable std::mutex mu_;
  std::vector<Call> calls_;
  int fail_pod_status_ = 0;
  bool hold_ = false;
  std::vector<std::function<void()>> held_;
};

class SimulatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_unique<store::Store>(store::NewMemoryBackend(), clock_);
    ASSERT_TRUE(store_->Open().ok());
    inner_ = std::make_unique<client::InProcessClient>(*store_, clock_);
    client_ = std::make_unique<RecordingClient>(*inner_);
  }
  void TearDown() override {
    sim_.reset();
    store_->Close();
  }

  static NodeSimulatorOptions Options(int64_t nodes) {
    NodeSimulatorOptions o;
    o.name_prefix = "n";
    o.node_count = nodes;
    return o;
  }

  // Creates the simulator, registers its nodes and (when `watch`) starts its informer.
  NodeSimulator& Start(NodeSimulatorOptions opts, bool watch = true) {
    sim_ = std::make_unique<NodeSimulator>(*client_, clock_, std::move(opts));
    Status st = sim_->Register();
    EXPECT_TRUE(st.ok()) << st.ToString();
    if (watch) {
      st = sim_->Watch(std::chrono::seconds(10));
      EXPECT_TRUE(st.ok()) << st.ToString();
    }
    return *sim_;
  }

  void Advance(std::chrono::microseconds d) { clock_.Advance(d); }

  // One Tick, then waits for its writes to be answered.
  void TickAndWait() {
    sim_->Tick();
    ASSERT_TRUE(sim_->WaitForWrites(std::chrono::seconds(10)));
  }

  // Ticks (without moving the clock) until `done` holds: events reach the simulator through
  // the informer's thread, so a test waits for them, boundedly, instead of sleeping a guess.
  bool TickUntil(const std::function<bool()>& done,
                 std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      sim_->Tick();
      sim_->WaitForWrites(std::chrono::seconds(10));
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
  }

  const api::ResourceInfo& Res(std::string_view group, std::string_view resource) {
    return testing::Resource(group, resource);
  }
  api::ObjectPtr Get(std::string_view group, std::string_view resource, std::string_view ns,
                     std::string_view name) {
    Result<api::ObjectPtr> r = store_->Get(Res(group, resource), ns, name);
    if (!r.ok()) return nullptr;
    held_.push_back(*r);  // raw pointers taken from the result stay valid for the test
    return *r;
  }
  const api::Pod* GetPod(std::string_view name, std::string_view ns = "default") {
    api::ObjectPtr pod = Get("", "pods", ns, name);
    return pod ? api::As<api::Pod>(*pod) : nullptr;
  }
  std::string Phase(std::string_view name) {
    const api::Pod* p = GetPod(name);
    return p ? p->status.phase : "<gone>";
  }

  // A pod bound to `node` (spec.nodeName set at creation, as a scheduler's binding would).
  // `metadata_extra` is spliced into metadata, e.g. R"("annotations":{...})".
  api::ObjectPtr CreatePod(const std::string& name, const std::string& node,
                           const std::string& metadata_extra = {},
                           const std::string& spec_extra = {}) {
    std::string json = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                       R"(","namespace":"default")" +
                       (metadata_extra.empty() ? "" : "," + metadata_extra) +
                       R"(},"spec":{"containers":[{"name":"c","image":"busybox"}])" +
                       (node.empty() ? "" : R"(,"nodeName":")" + node + "\"") +
                       (spec_extra.empty() ? "" : "," + spec_extra) + "}}";
    Result<api::ObjectPtr> r = store_->Create(api::ResourceFor<api::Pod>(), testing::ObjectFromJson(json));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : nullptr;
  }

  FakeClock clock_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<client::InProcessClient> inner_;
  std::unique_ptr<RecordingClient> client_;
  std::unique_ptr<NodeSimulator> sim_;
  std::vector<api::ObjectPtr> held_;
};

}  // namespace allot::node
