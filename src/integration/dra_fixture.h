// The DRA integration fixture: a memory store, the resourceclaim controller and the scheduler
// with DynamicResources in one process, per-node ResourceSlices, and an AllocationAuditor fed by
// a claim watch from the first write on (dra_invariants.h). Shared by the DRA integration tests.
//
//   class MyTest : public DraFixture {};
//   TEST_F(MyTest, X) { Cluster(2, 4); Template("one-gpu"); Start(); Pod("p", "one-gpu"); ... }
//
// Start() starts the controllers and a scheduler; StartScheduler / StopScheduler alone let a
// test replace the scheduler (a restart) over the same store, client and controllers.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/core/types.h"
#include "api/machinery/resources.h"
#include "api/resource/types.h"
#include "client/informer_factory.h"
#include "client/inprocess/inprocess_client.h"
#include "cluster/components.h"
#include "integration/dra_invariants.h"
#include "scheduler/scheduler.h"
#include "store/backend.h"
#include "store/store.h"
#include "testing/wait.h"
#include "workloads/objects.h"

namespace allot::integration {

template <class T>
std::vector<std::shared_ptr<const T>> ListAll(store::Store& store, const api::ResourceInfo& r) {
  std::vector<std::shared_ptr<const T>> out;
  auto l = store.List(r, {});
  if (!l.ok()) return out;
  for (const api::ObjectPtr& o : l->items) {
    if (api::As<T>(*o)) out.push_back(std::static_pointer_cast<const T>(o));
  }
  return out;
}

inline constexpr char kDriver[] = "gpu.example.com";

class DraFixture : public ::testing::Test {
 protected:
  using SchedulerCustomizer = std::function<void(scheduler::SchedulerOptions&)>;

  void SetUp() override {
    store_ = std::make_unique<store::Store>(store::NewMemoryBackend(), RealClock::Instance(),
                                            cluster::DefaultStoreOptions());
    ASSERT_TRUE(store_->Open().ok());
    client_ = std::make_unique<client::InProcessClient>(*store_, RealClock::Instance());
    // The auditor sees every claim write from the beginning.
    auto w = client_->Watch(api::ResourceFor<api::ResourceClaim>(), {});
    ASSERT_TRUE(w.ok());
    watcher_ = std::move(w).value();
    audit_thread_ = std::thread([this] {
      api::WatchEvent ev;
      while (!stop_) {
        // Every event up to `progress` is queued by now; once the queue is found empty, all of
        // them have been audited.
        const uint64_t progress = watcher_->Progress();
        if (!watcher_->WaitNext(ev, std::chrono::milliseconds(50))) {
          {
            std::lock_guard<std::mutex> lock(audit_mu_);
            audited_rv_ = std::max(audited_rv_, progress);
          }
          audit_cv_.notify_all();
          continue;
        }
        if (!ev.object) continue;
        if (const auto* c = api::As<api::ResourceClaim>(*ev.object)) {
          std::lock_guard<std::mutex> lock(audit_mu_);
          audit_.OnClaim(*c, ev.type == api::EventType::kDeleted);
        }
      }
    });
  }
  void TearDown() override {
    StopScheduler();
    if (controllers_) controllers_->Stop();
    stop_ = true;
    audit_thread_.join();
    watcher_.reset();
    store_->Close();
  }

  void Start(const SchedulerCustomizer& customize = nullptr) {
    StartControllers();
    StartScheduler(customize);
  }
  void StartControllers() {
    auto c = cluster::StartControllers(*client_, nullptr, dra::Features{});
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    controllers_ = std::move(c).value();
  }
  // Fast backoff, a 10 ms housekeeping tick, a fixed seed; `customize` may change any of it.
  void StartScheduler(const SchedulerCustomizer& customize = nullptr) {
    scheduler_informers_ = std::make_unique<client::InformerFactory>(*client_);
    scheduler::SchedulerOptions opts;
    opts.informers = scheduler_informers_.get();
    opts.config.pod_initial_backoff = std::chrono::milliseconds(10);
    opts.config.pod_max_backoff = std::chrono::milliseconds(100);
    opts.tick = std::chrono::milliseconds(10);
    opts.seed = 1;
    if (customize) customize(opts);
    auto s = scheduler::Scheduler::Create(*client_, std::move(opts));
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    sched_ = std::move(s).value();
    ASSERT_TRUE(sched_->Start(std::chrono::seconds(30)).ok());
    // Registered after the scheduler's own claim handlers, so it sees each claim change after
    // them (an informer calls its handlers in order, one event at a time): see Fence().
    scheduler_informers_->For(api::ResourceFor<api::ResourceClaim>())
        .AddHandler({.on_update = [this](const api::ObjectPtr&, const api::ObjectPtr& now) {
          auto it = now->metadata.annotations.find(kFenceAnnotation);
          if (it == now->metadata.annotations.end()) return;
          std::lock_guard<std::mutex> lock(fence_mu_);
          fence_seen_ = std::max<int64_t>(fence_seen_, std::stoll(it->second));
          fence_cv_.notify_all();
        }});
  }
  void StopScheduler() {
    if (sched_) sched_->Stop();
    if (scheduler_informers_) scheduler_informers_->StopAll();  // before the plugins go
    sched_.reset();
    scheduler_informers_.reset();
  }

  // Waits until the scheduler has handled every claim change made so far: annotates `claim`
  // and waits until the handler registered after the scheduler's sees that write. An
  // observable barrier, instead of sleeping and hoping the scheduler got to it.
  bool Fence(const std::string& claim) {
    int64_t n;
    {
      std::lock_guard<std::mutex> lock(fence_mu_);
      n = ++fence_sent_;
    }
    auto cur = client_->Get(api::ResourceFor<api::ResourceClaim>(), "default", claim);
    if (!cur.ok()) return false;
    auto copy = (*cur)->Clone();
    copy->metadata.annotations[kFenceAnnotation] = std::to_string(n);
    if (!client_->Update(api::ResourceFor<api::ResourceClaim>(), std::move(copy)).ok()) {
      return false;
    }
    std::unique_lock<std::mutex> lock(fence_mu_);
    return fence_cv_.wait_for(lock, std::chrono::seconds(10), [&] { return fence_seen_ >= n; });
  }

  void Create(const api::ResourceInfo& r, std::unique_ptr<api::Object> obj) {
    auto res = client_->Create(r, std::move(obj));
    ASSERT_TRUE(res.ok()) << res.status().ToString();
  }

  // `nodes` nodes "node-<i>" with `devices` node-local devices "gpu-<d>" each (pool = node
  // name), and the device class kDriver selecting every device of the driver.
  void Cluster(int nodes, int devices) {
    Create(api::ResourceFor<api::DeviceClass>(), workloads::MakeDriverClass(kDriver, kDriver));
    const workloads::NodeShape shape{.cpu = "64", .memory = "256Gi", .ready_condition = false};
    for (int i = 0; i < nodes; ++i) {
      std::string name = "node-" + std::to_string(i);
      // Node create drops status here (as for kubelets: create, then the status subresource).
      Create(api::ResourceFor<api::Node>(), workloads::MakeNode(name, shape));
      ASSERT_TRUE(
          client_->UpdateStatus(api::ResourceFor<api::Node>(), workloads::MakeNode(name, shape))
              .ok());
      if (devices == 0) continue;
      Create(api::ResourceFor<api::ResourceSlice>(),
             workloads::MakeNodeLocalSlice(name + "-gpu", kDriver, name, devices));
    }
  }

  static api::ResourceClaimSpec OneGpu() {
    return workloads::ClaimSpec(
        kDriver, 1, "device.capacity['gpu.example.com'].memory.compareTo(quantity('4Gi')) >= 0");
  }

  void Template(const std::string& name) {
    Create(api::ResourceFor<api::ResourceClaimTemplate>(),
           workloads::MakeClaimTemplate("default", name, OneGpu()));
  }

  void Claim(const std::string& name) {
    Create(api::ResourceFor<api::ResourceClaim>(), workloads::MakeClaim("default", name, OneGpu()));
  }

  // A pod with one claim: from `tmpl`, or the existing claim `claim`.
  void Pod(const std::string& name, const std::string& tmpl, const std::string& claim = "") {
    if (claim.empty()) {
      PodWithClaims(name, {{"gpu", tmpl, ""}});
    } else {
      PodWithClaims(name, {{"gpu", "", claim}});
    }
  }
  struct PodClaim {
    std::string name;   // pod.spec.resourceClaims[].name
    std::string tmpl;   // resourceClaimTemplateName, or
    std::string claim;  // resourceClaimName
  };
  // A pod with several claims; its one container uses all of them.
  void PodWithClaims(const std::string& name, const std::vector<PodClaim>& claims) {
    auto p = workloads::MakePod("default", name);
    for (const PodClaim& pc : claims) {
      if (pc.claim.empty()) {
        workloads::AddTemplateClaim(*p, pc.name, pc.tmpl);
      } else {
        workloads::AddExistingClaim(*p, pc.name, pc.claim);
      }
    }
    Create(api::ResourceFor<api::Pod>(), std::move(p));
  }

  std::vector<std::shared_ptr<const api::Pod>> Pods() {
    return ListAll<api::Pod>(*store_, api::ResourceFor<api::Pod>());
  }
  std::vector<std::shared_ptr<const api::ResourceClaim>> Claims() {
    return ListAll<api::ResourceClaim>(*store_, api::ResourceFor<api::ResourceClaim>());
  }
  // The pod / claim in namespace "default"; null when missing.
  std::shared_ptr<const api::Pod> GetPod(const std::string& name) {
    auto r = client_->Get(api::ResourceFor<api::Pod>(), "default", name);
    if (!r.ok() || !api::As<api::Pod>(**r)) return nullptr;
    return std::static_pointer_cast<const api::Pod>(*r);
  }
  std::shared_ptr<const api::ResourceClaim> GetClaim(const std::string& name) {
    auto r = client_->Get(api::ResourceFor<api::ResourceClaim>(), "default", name);
    if (!r.ok() || !api::As<api::ResourceClaim>(**r)) return nullptr;
    return std::static_pointer_cast<const api::ResourceClaim>(*r);
  }
  int Bound() {
    int n = 0;
    for (const auto& p : Pods()) n += !p->spec.nodeName.empty();
    return n;
  }
  std::string PodMessage(const std::string& name) {
    for (const auto& p : Pods()) {
      if (p->metadata.name != name) continue;
      for (const auto& c : p->status.conditions) {
        if (c.type == "PodScheduled") return c.reason + ": " + c.message;
      }
    }
    return "";
  }
  // The claim generated for the pod's claim `ref`, once the controller made it.
  std::string ClaimOf(const std::string& pod, const std::string& ref = "gpu") {
    std::string name;
    testing::WaitUntil(
        [&] {
          auto p = GetPod(pod);
          if (!p) return false;
          for (const auto& s : p->status.resourceClaimStatuses) {
            if (s.name == ref && s.resourceClaimName) name = *s.resourceClaimName;
          }
          return !name.empty();
        },
        std::chrono::seconds(10));
    EXPECT_FALSE(name.empty()) << "no claim for " << pod << "/" << ref;
    return name;
  }
  // The messages of the Events about the pod with this reason.
  std::vector<std::string> EventMessages(const std::string& pod, const std::string& reason) {
    std::vector<std::string> out;
    for (const auto& e : ListAll<api::Event>(*store_, api::ResourceFor<api::Event>())) {
      if (e->involvedObject.name == pod && e->reason == reason) out.push_back(e->message);
    }
    return out;
  }
  bool HasEvent(const std::string& pod, const std::string& reason, const std::string& part = "") {
    for (const std::string& m : EventMessages(pod, reason)) {
      if (m.find(part) != std::string::npos) return true;
    }
    return false;
  }
  // Events are written asynchronously by the recorders: wait for one to appear.
  bool WaitEvent(const std::string& pod, const std::string& reason, const std::string& part = "") {
    return testing::WaitUntil([&] { return HasEvent(pod, reason, part); }, std::chrono::seconds(5));
  }
  void ExpectInvariants() {
    auto claims = Claims();
    auto nodes = ListAll<api::Node>(*store_, api::ResourceFor<api::Node>());
    std::vector<std::string> v = CheckFinalState(claims, Pods(), nodes);
    EXPECT_TRUE(v.empty()) << v.size() << " violations, first: " << v.front();
    // Wait until the auditor has seen every write made so far.
    const uint64_t written = store_->CurrentResourceVersion();
    std::unique_lock<std::mutex> lock(audit_mu_);
    EXPECT_TRUE(
        audit_cv_.wait_for(lock, std::chrono::seconds(10), [&] { return audited_rv_ >= written; }));
    EXPECT_TRUE(audit_.violations().empty()) << audit_.violations().front();
  }

  static constexpr char kFenceAnnotation[] = "allot.test/fence";
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<client::InProcessClient> client_;
  std::unique_ptr<cluster::Controllers> controllers_;
  std::unique_ptr<client::InformerFactory> scheduler_informers_;  // the scheduler's; see Fence()
  std::unique_ptr<scheduler::Scheduler> sched_;
  std::mutex fence_mu_;
  std::condition_variable fence_cv_;
  int64_t fence_sent_ = 0;  // guarded by fence_mu_
  int64_t fence_seen_ = 0;  // guarded by fence_mu_
  std::unique_ptr<api::Watcher> watcher_;
  std::thread audit_thread_;
  std::atomic<bool> stop_{false};
  std::mutex audit_mu_;
  AllocationAuditor audit_;  // guarded by audit_mu_
  std::condition_variable audit_cv_;
  uint64_t audited_rv_ = 0;  // guarded by audit_mu_: every claim event up to it was audited
};

}  // namespace allot::integration
