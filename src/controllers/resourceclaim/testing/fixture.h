// Shared fixture of the resourceclaim controller tests: a memory Store, an InProcessClient
// wrapped in a FaultClient (counts writes, can fail claim creates or race a claim status write
// with a competing writer), a shared InformerFactory, and a FakeClock. Retry backoffs only
// elapse when a test moves the clock; the only real-time waits are bounded polls for the
// asynchronous parts (informer delivery, the controller's workers).
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
#include "api/resource/types.h"
#include "client/informer_factory.h"
#include "client/inprocess/inprocess_client.h"
#include "client/testing/forwarding_client.h"
#include "common/metrics.h"
#include "common/time.h"
#include "controllers/resourceclaim/controller.h"
#include "controllers/resourceclaim/rules.h"
#include "store/backend.h"
#include "store/store.h"
#include "testing/objects.h"
#include "testing/wait.h"

namespace allot::controllers {

// Forwards to another Client. Thread-safe.
class FaultClient final : public client::ForwardingClient {
 public:
  explicit FaultClient(client::Client& inner) : ForwardingClient(inner) {}

  // The next `n` claim creates fail with 500.
  void FailClaimCreates(int n) {
    std::lock_guard<std::mutex> lock(mu_);
    fail_creates_ = n;
  }
  // Before the next claim status update is forwarded, `race` runs (it may write the claim
  // through the inner client, so the forwarded write carries a stale resourceVersion).
  void RaceNextClaimStatusUpdate(std::function<void()> race) {
    std::lock_guard<std::mutex> lock(mu_);
    race_ = std::move(race);
  }
  // Claim creates are held back (not forwarded, not answered) until ReleaseClaimCreates.
  void HoldClaimCreates() {
    std::lock_guard<std::mutex> lock(mu_);
    hold_creates_ = true;
  }
  size_t HeldClaimCreates() const {
    std::lock_guard<std::mutex> lock(mu_);
    return held_creates_.size();
  }
  // Forwards the held creates, and those that follow.
  void ReleaseClaimCreates() {
    std::vector<std::function<void()>> held;
    {
      std::lock_guard<std::mutex> lock(mu_);
      hold_creates_ = false;
      held.swap(held_creates_);
    }
    for (auto& forward : held) forward();
  }
  int Count(const std::string& method, const std::string& resource) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = counts_.find(method + " " + resource);
    return it == counts_.end() ? 0 : it->second;
  }
  int Conflicts() const {
    std::lock_guard<std::mutex> lock(mu_);
    return conflicts_;
  }

  Result<api::ObjectPtr> Get(const api::ResourceInfo& r, std::string_view ns,
                             std::string_view name) override {
    Add("get", r);
    return inner().Get(r, ns, name);
  }
  void CreateAsync(const api::ResourceInfo& r, std::unique_ptr<api::Object> obj,
                   client::Callback<api::ObjectPtr> done) override {
    Add("create", r);
    if (r.resource == "resourceclaims" && TakeCreateFailure()) {
      done(InternalError("injected by the test"));
      return;
    }
    if (r.resource == "resourceclaims") {
      std::lock_guard<std::mutex> lock(mu_);
      if (hold_creates_) {
        held_creates_.push_back(
            [this, &r, o = std::shared_ptr<api::Object>(std::move(obj)), done]() mutable {
              inner().CreateAsync(r, o->Clone(), std::move(done));
            });
        return;
      }
    }
    inner().CreateAsync(r, std::move(obj), std::move(done));
  }
  void UpdateAsync(const api::ResourceInfo& r, std::unique_ptr<api::Object> obj,
                   client::Callback<api::ObjectPtr> done) override {
    Add("update", r);
    inner().UpdateAsync(r, std::move(obj), CountConflicts(std::move(done)));
  }
  void UpdateStatusAsync(const api::ResourceInfo& r, std::unique_ptr<api::Object> obj,
                         client::Callback<api::ObjectPtr> done) override {
    Add("status", r);
    std::function<void()> race;
    if (r.resource == "resourceclaims") {
      std::lock_guard<std::mutex> lock(mu_);
      race.swap(race_);
    }
    if (race) race();
    inner().UpdateStatusAsync(r, std::move(obj), CountConflicts(std::move(done)));
  }
  void PatchAsync(const api::ResourceInfo& r, std::string ns, std::string name,
                  client::PatchKind kind, std::string patch, bool status,
                  client::Callback<api::ObjectPtr> done) override {
    Add(status ? "patch-status" : "patch", r);
    inner().PatchAsync(r, std::move(ns), std::move(name), kind, std::move(patch), status,
                       std::move(done));
  }
  void DeleteAsync(const api::ResourceInfo& r, std::string ns, std::string name,
                   api::DeleteOptions opts, client::Callback<api::DeleteResult> done) override {
    Add("delete", r);
    inner().DeleteAsync(r, std::move(ns), std::move(name), std::move(opts), std::move(done));
  }

 private:
  void Add(const std::string& method, const api::ResourceInfo& r) {
    std::lock_guard<std::mutex> lock(mu_);
    ++counts_[method + " " + r.resource];
  }
  bool TakeCreateFailure() {
    std::lock_guard<std::mutex> lock(mu_);
    if (fail_creates_ == 0) return false;
    --fail_creates_;
    return true;
  }
  client::Callback<api::ObjectPtr> CountConflicts(client::Callback<api::ObjectPtr> done) {
    return [this, done = std::move(done)](Result<api::ObjectPtr> r) {
      if (!r.ok() && r.status().code() == StatusCode::kConflict) {
        std::lock_guard<std::mutex> lock(mu_);
        ++conflicts_;
      }
      done(std::move(r));
    };
  }

  mutable std::mutex mu_;
  std::map<std::string, int> counts_;
  int fail_creates_ = 0;
  bool hold_creates_ = false;
  std::vector<std::function<void()>> held_creates_;
  int conflicts_ = 0;
  std::function<void()> race_;
};

class ResourceClaimControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_unique<store::Store>(store::NewMemoryBackend(), clock_);
    ASSERT_TRUE(store_->Open().ok());
    inner_ = std::make_unique<client::InProcessClient>(*store_, clock_);
    client_ = std::make_unique<FaultClient>(*inner_);
  }
  void TearDown() override {
    StopController();
    store_->Close();
  }

  // Starts a controller (and a fresh informer factory) with `registry` for its metrics.
  void StartController(metrics::Registry& registry, ResourceClaimControllerOptions opts = {}) {
    factory_ = std::make_unique<client::InformerFactory>(*client_);
    opts.clock = &clock_;
    opts.metrics = &registry;
    opts.on_sync = [this](const std::string& key, const Status& st) {
      std::lock_guard<std::mutex> lock(sync_mu_);
      ++syncs_[key];
      if (!st.ok()) last_error_[key] = st.message();
    };
    controller_ = std::make_unique<ResourceClaimController>(*client_, *factory_, std::move(opts));
    ASSERT_TRUE(controller_->Start().ok());
    ASSERT_TRUE(factory_->StartAll().ok());
    ASSERT_TRUE(factory_->WaitForCacheSync(std::chrono::seconds(10)));
  }
  void StartController() { StartController(registry_); }
  void StopController() {
    if (controller_) controller_->Stop();
    controller_.reset();
    factory_.reset();
  }

  // --- waiting -------------------------------------------------------------------------------

  // Polls `pred` (informer delivery and workers are asynchronous); false after `timeout`.
  int Syncs(const std::string& key) {
    std::lock_guard<std::mutex> lock(sync_mu_);
    auto it = syncs_.find(key);
    return it == syncs_.end() ? 0 : it->second;
  }
  std::string LastError(const std::string& key) {
    std::lock_guard<std::mutex> lock(sync_mu_);
    return last_error_[key];
  }
  // Waits until `key` was synced more than `before` times.
  bool WaitForSync(const std::string& key, int before) {
    return testing::WaitUntil([&] { return Syncs(key) > before; });
  }

  // --- objects -------------------------------------------------------------------------------

  static const api::ResourceInfo& Pods() { return testing::Resource("", "pods"); }
  static const api::ResourceInfo& Claims() {
    return testing::Resource("resource.k8s.io", "resourceclaims");
  }
  static const api::ResourceInfo& Templates() {
    return testing::Resource("resource.k8s.io", "resourceclaimtemplates");
  }

  api::ObjectPtr Create(const api::ResourceInfo& r, const std::string& json) {
    auto res = inner_->Create(r, testing::ObjectFromJson(json));
    EXPECT_TRUE(res.ok()) << res.status().ToString();
    return res.ok() ? *res : nullptr;
  }
  api::ObjectPtr CreateTemplate(const std::string& name, const std::string& metadata = "{}",
                                bool admin_access = false) {
    std::string request = R"({"name":"req-0","exactly":{"deviceClassName":"gpu.example.com")";
    if (admin_access) request += R"(,"adminAccess":true)";
    request += "}}";
    return Create(Templates(),
                  R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate",)"
                  R"("metadata":{"name":")" +
                      name + R"(","namespace":"default"},"spec":{"metadata":)" + metadata +
                      R"(,"spec":{"devices":{"requests":[)" + request + "]}}}}");
  }
  // A pod whose resourceClaims entry `claim` uses template `tmpl` (or names a claim directly
  // when `direct`), optionally bound to `node`.
  api::ObjectPtr CreatePod(const std::string& name, const std::string& claim,
                           const std::string& tmpl, const std::string& node = "",
                           bool direct = false) {
    std::string extra = R"("resourceClaims":[{"name":")" + claim + R"(",")" +
                        (direct ? "resourceClaimName" : "resourceClaimTemplateName") + R"(":")" +
                        tmpl + R"("}])";
    if (!node.empty()) extra += R"(,"nodeName":")" + node + R"(")";
    auto res = inner_->Create(Pods(), testing::PodManifest("default", name, extra));
    EXPECT_TRUE(res.ok()) << res.status().ToString();
    return res.ok() ? *res : nullptr;
  }
  // A claim; `owner_pod` (non-null) makes it generated for that pod's entry `pod_claim`.
  api::ObjectPtr CreateClaim(const std::string& name, bool finalizer = true,
                             const std::string& controller_name = "",
                             const api::Object* owner_pod = nullptr,
                             const std::string& pod_claim = "",
                             const std::string& allocation_mode = "") {
    auto claim = std::make_unique<api::ResourceClaim>();
    claim->metadata.name = name;
    claim->metadata.namespace_ = "default";
    if (finalizer) claim->metadata.finalizers = {std::string(api::kResourceClaimFinalizer)};
    if (owner_pod) {
      claim->metadata.annotations[std::string(kPodClaimNameAnnotation)] = pod_claim;
      claim->metadata.ownerReferences.push_back(
          {"v1", "Pod", owner_pod->metadata.name, owner_pod->metadata.uid, true, true});
    }
    api::DeviceRequest req;
    req.name = "req-0";
    req.exactly.emplace();
    req.exactly->deviceClassName = "gpu.example.com";
    claim->spec.devices.requests.push_back(req);
    claim->spec.controllerName = controller_name;
    claim->spec.allocationMode = allocation_mode;
    auto res = inner_->Create(Claims(), std::move(claim));
    EXPECT_TRUE(res.ok()) << res.status().ToString();
    return res.ok() ? *res : nullptr;
  }
  // Writes an allocation and reserves the claim for `pods` (as the scheduler's PreBind does).
  api::ObjectPtr AllocateAndReserve(const std::string& claim_name,
                                    const std::vector<api::ObjectPtr>& pods,
                                    const std::string& controller_name = "") {
    auto claim = std::make_unique<api::ResourceClaim>(*GetClaim(claim_name));
    api::AllocationResult alloc;
    api::DeviceRequestAllocationResult r;
    r.request = "req-0";
    r.driver = "gpu.example.com";
    r.pool = "node-1";
    r.device = "gpu-0";
    alloc.devices.results.push_back(r);
    alloc.controllerName = controller_name;
    claim->status.allocation = alloc;
    for (const api::ObjectPtr& pod : pods) {
      claim->status.reservedFor.push_back({"", "pods", pod->metadata.name, pod->metadata.uid});
    }
    auto res = inner_->UpdateStatus(Claims(), std::move(claim));
    EXPECT_TRUE(res.ok()) << res.status().ToString();
    return res.ok() ? *res : nullptr;
  }
  void SetPodPhase(const std::string& name, const std::string& phase) {
    auto res = inner_->Patch(Pods(), "default", name, client::PatchKind::kMerge,
                             R"({"status":{"phase":")" + phase + R"("}})", /*status=*/true);
    ASSERT_TRUE(res.ok()) << res.status().ToString();
  }
  void DeletePod(const std::string& name) {
    auto res = inner_->Delete(Pods(), "default", name);
    ASSERT_TRUE(res.ok()) << res.status().ToString();
  }

  const api::Pod* GetPod(const std::string& name) {
    auto r = store_->Get(Pods(), "default", name);
    if (!r.ok()) return nullptr;
    held_.push_back(*r);
    return api::As<api::Pod>(**r);
  }
  const api::ResourceClaim* GetClaim(const std::string& name) {
    auto r = store_->Get(Claims(), "default", name);
    if (!r.ok()) return nullptr;
    held_.push_back(*r);
    return api::As<api::ResourceClaim>(**r);
  }
  std::vector<const api::ResourceClaim*> AllClaims() {
    std::vector<const api::ResourceClaim*> out;
    auto r = store_->List(Claims(), {});
    if (!r.ok()) return out;
    for (const api::ObjectPtr& obj : r->items) {
      held_.push_back(obj);
      out.push_back(api::As<api::ResourceClaim>(*obj));
    }
    return out;
  }
  // The claim name recorded for `pod_claim` in the pod's status ("" when none).
  std::string RecordedClaim(const std::string& pod, const std::string& pod_claim) {
    const api::Pod* p = GetPod(pod);
    if (!p) return "";
    for (const auto& s : p->status.resourceClaimStatuses) {
      if (s.name == pod_claim) return s.resourceClaimName.value_or("");
    }
    return "";
  }
  std::vector<const api::Event*> EventsFor(const std::string& pod) {
    std::vector<const api::Event*> out;
    auto r = store_->List(testing::Resource("", "events"), {});
    if (!r.ok()) return out;
    for (const api::ObjectPtr& obj : r->items) {
      const auto* ev = api::As<api::Event>(*obj);
      if (ev && ev->involvedObject.name == pod) {
        held_.push_back(obj);
        out.push_back(ev);
      }
    }
    return out;
  }

  FakeClock clock_;
  metrics::Registry registry_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<client::InProcessClient> inner_;
  std::unique_ptr<FaultClient> client_;
  std::unique_ptr<client::InformerFactory> factory_;
  std::unique_ptr<ResourceClaimController> controller_;
  std::vector<api::ObjectPtr> held_;
  std::mutex sync_mu_;
  std::map<std::string, int> syncs_;
  std::map<std::string, std::string> last_error_;
};

}  // namespace allot::controllers
