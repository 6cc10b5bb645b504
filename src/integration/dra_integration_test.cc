// DRA end to end in one process: a memory store, the scheduler with DynamicResources, the
// resourceclaim controller, per-node ResourceSlices. Pods get claims from templates or share
// claims; devices freed by deleted pods go to waiting pods at once; and an auditor watching
// every claim write checks that no device is ever held by two claims.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "api/resources.h"
#include "cli/control_plane.h"
#include "client/inprocess_client.h"
#include "integration/dra_invariants.h"
#include "scheduler/scheduler.h"
#include "store/backend.h"
#include "store/store.h"

namespace allot::integration {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const api::ResourceInfo& Res(std::string_view group, std::string_view plural) {
  return *api::ResourceRegistry::Default().Find(group, "v1", plural);
}

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

constexpr char kDriver[] = "gpu.example.com";

class DraIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_unique<store::Store>(store::NewMemoryBackend(), RealClock::Instance());
    ASSERT_TRUE(store_->Open().ok());
    client_ = std::make_unique<client::InProcessClient>(*store_, RealClock::Instance());
    // The auditor sees every claim write from the beginning.
    auto w = client_->Watch(Res("resource.k8s.io", "resourceclaims"), {});
    ASSERT_TRUE(w.ok());
    watcher_ = std::move(w).value();
    audit_thread_ = std::thread([this] {
      store::WatchEvent ev;
      while (!stop_) {
        if (!watcher_->WaitNext(ev, milliseconds(50)) || !ev.object) continue;
        if (const auto* c = api::As<api::ResourceClaim>(*ev.object)) {
          std::lock_guard<std::mutex> lock(audit_mu_);
          audit_.OnClaim(*c, ev.type == store::EventType::kDeleted);
        }
      }
    });
  }
  void TearDown() override {
    if (sched_) sched_->Stop();
    if (controllers_) controllers_->Stop();
    stop_ = true;
    audit_thread_.join();
    watcher_.reset();
    store_->Close();
  }

  void Start() {
    auto c = cli::StartControllers(*client_, nullptr, dra::Features{});
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    controllers_ = std::move(c).value();
    scheduler::SchedulerOptions opts;
    opts.config.pod_initial_backoff = milliseconds(10);
    opts.config.pod_max_backoff = milliseconds(100);
    opts.tick = milliseconds(10);
    opts.seed = 1;
    auto s = scheduler::Scheduler::Create(*client_, std::move(opts));
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    sched_ = std::move(s).value();
    ASSERT_TRUE(sched_->Start(seconds(30)).ok());
  }

  void Create(const api::ResourceInfo& r, std::unique_ptr<api::Object> obj) {
    auto res = client_->Create(r, std::move(obj));
    ASSERT_TRUE(res.ok()) << res.status().ToString();
  }

  void Cluster(int nodes, int devices) {
    auto cls = std::make_unique<api::DeviceClass>();
    cls->metadata.name = kDriver;
    cls->spec.selectors.push_back({api::CELDeviceSelector{"device.driver == 'gpu.example.com'"}});
    Create(Res("resource.k8s.io", "deviceclasses"), std::move(cls));
    for (int i = 0; i < nodes; ++i) {
      std::string name = "node-" + std::to_string(i);
      auto n = std::make_unique<api::Node>();
      n->metadata.name = name;
      n->metadata.labels["kubernetes.io/hostname"] = name;
      for (auto* list : {&n->status.capacity, &n->status.allocatable}) {
        (*list)["cpu"] = *api::Quantity::Parse("64");
        (*list)["memory"] = *api::Quantity::Parse("256Gi");
        (*list)["pods"] = *api::Quantity::Parse("110");
      }
      Create(Res("", "nodes"), std::move(n));
      auto with_status = std::make_unique<api::Node>();
      with_status->metadata.name = name;
      for (auto* list : {&with_status->status.capacity, &with_status->status.allocatable}) {
        (*list)["cpu"] = *api::Quantity::Parse("64");
        (*list)["memory"] = *api::Quantity::Parse("256Gi");
        (*list)["pods"] = *api::Quantity::Parse("110");
      }
      ASSERT_TRUE(client_->UpdateStatus(Res("", "nodes"), std::move(with_status)).ok());
      auto s = std::make_unique<api::ResourceSlice>();
      s->metadata.name = name + "-gpu";
      s->spec.driver = kDriver;
      s->spec.pool = {name, 1, 1};
      s->spec.nodeName = name;
      for (int d = 0; d < devices; ++d) {
        api::Device dev;
        dev.name = "gpu-" + std::to_string(d);
        dev.attributes["index"].intValue = d;
        dev.attributes["model"].stringValue = "LATEST-GPU-MODEL";
        dev.capacity["memory"].value = *api::Quantity::Parse("80Gi");
        s->spec.devices.push_back(std::move(dev));
      }
      Create(Res("resource.k8s.io", "resourceslices"), std::move(s));
    }
  }

  static api::ResourceClaimSpec OneGpu() {
    api::ResourceClaimSpec spec;
    api::DeviceRequest r;
    r.name = "gpu";
    r.exactly.emplace();
    r.exactly->deviceClassName = kDriver;
    r.exactly->count = 1;
    r.exactly->allocationMode = "ExactCount";
    r.exactly->selectors.push_back({api::CELDeviceSelector{
        "device.capacity['gpu.example.com'].memory.compareTo(quantity('4Gi')) >= 0"}});
    spec.devices.requests.push_back(std::move(r));
    return spec;
  }

  void Template(const std::string& name) {
    auto t = std::make_unique<api::ResourceClaimTemplate>();
    t->metadata.name = name;
    t->metadata.namespace_ = "default";
    t->spec.spec = OneGpu();
    Create(Res("resource.k8s.io", "resourceclaimtemplates"), std::move(t));
  }

  void Claim(const std::string& name) {
    auto c = std::make_unique<api::ResourceClaim>();
    c->metadata.name = name;
    c->metadata.namespace_ = "default";
    c->spec = OneGpu();
    Create(Res("resource.k8s.io", "resourceclaims"), std::move(c));
  }

  // A pod with one claim: from `tmpl`, or the existing claim `claim`.
  void Pod(const std::string& name, const std::string& tmpl, const std::string& claim = "") {
    auto p = std::make_unique<api::Pod>();
    p->metadata.name = name;
    p->metadata.namespace_ = "default";
    api::PodResourceClaim ref;
    ref.name = "gpu";
    if (claim.empty()) {
      ref.resourceClaimTemplateName = tmpl;
    } else {
      ref.resourceClaimName = claim;
    }
    p->spec.resourceClaims.push_back(ref);
    api::Container c;
    c.name = "main";
    c.image = "registry.k8s.io/pause:3.10";
    c.resources.claims.push_back({"gpu", ""});
    p->spec.containers.push_back(std::move(c));
    Create(Res("", "pods"), std::move(p));
  }

  std::vector<std::shared_ptr<const api::Pod>> Pods() {
    return ListAll<api::Pod>(*store_, Res("", "pods"));
  }
  int Bound() {
    int n = 0;
    for (const auto& p : Pods()) n += !p->spec.nodeName.empty();
    return n;
  }
  bool WaitFor(const std::function<bool()>& done, seconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (done()) return true;
      std::this_thread::sleep_for(milliseconds(20));
    }
    return false;
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
  void ExpectInvariants() {
    auto claims = ListAll<api::ResourceClaim>(*store_, Res("resource.k8s.io", "resourceclaims"));
    auto nodes = ListAll<api::Node>(*store_, Res("", "nodes"));
    std::vector<std::string> v = CheckFinalState(claims, Pods(), nodes);
    EXPECT_TRUE(v.empty()) << v.size() << " violations, first: " << v.front();
    // Let the auditor catch up with the last writes.
    std::this_thread::sleep_for(milliseconds(200));
    std::lock_guard<std::mutex> lock(audit_mu_);
    EXPECT_TRUE(audit_.violations().empty()) << audit_.violations().front();
  }

  std::unique_ptr<store::Store> store_;
  std::unique_ptr<client::InProcessClient> client_;
  std::unique_ptr<cli::Controllers> controllers_;
  std::unique_ptr<scheduler::Scheduler> sched_;
  std::unique_ptr<store::Watcher> watcher_;
  std::thread audit_thread_;
  std::atomic<bool> stop_{false};
  std::mutex audit_mu_;
  AllocationAuditor audit_;
};

TEST_F(DraIntegrationTest, ClaimsFromTemplatesAndSharedClaims) {
  Cluster(4, 4);
  Template("one-gpu");
  Claim("shared");
  Start();
  for (int i = 0; i < 12; ++i) Pod("worker-" + std::to_string(i), "one-gpu");
  for (int i = 0; i < 3; ++i) Pod("sharer-" + std::to_string(i), "", "shared");
  ASSERT_TRUE(WaitFor([&] { return Bound() == 15; }, seconds(30))) << Bound() << " bound";
  // The three pods sharing a claim run where its device is.
  std::set<std::string> sharer_nodes;
  for (const auto& p : Pods()) {
    if (p->metadata.name.rfind("sharer-", 0) == 0) sharer_nodes.insert(p->spec.nodeName);
  }
  EXPECT_EQ(sharer_nodes.size(), 1u);
  // 16 devices, 13 claims: the rest cannot fit and says why.
  Pod("extra-0", "one-gpu");
  Pod("extra-1", "one-gpu");
  Pod("extra-2", "one-gpu");
  Pod("extra-3", "one-gpu");
  ASSERT_TRUE(WaitFor([&] { return Bound() == 18; }, seconds(30)));
  ASSERT_TRUE(
      WaitFor([&] { return !PodMessage("extra-3").empty() || Bound() == 19; }, seconds(30)));
  int unbound = 0;
  for (const auto& p : Pods()) {
    if (p->spec.nodeName.empty()) {
      ++unbound;
      EXPECT_TRUE(WaitFor(
          [&] {
            return PodMessage(p->metadata.name) ==
                   "Unschedulable: 0/4 nodes are available: 4 cannot allocate all claims. "
                   "still not schedulable";
          },
          seconds(10)))
          << PodMessage(p->metadata.name);
    }
  }
  EXPECT_EQ(unbound, 1);
  ExpectInvariants();
}

TEST_F(DraIntegrationTest, FreedDevicesGoToTheWaitingPodAtOnce) {
  Cluster(1, 1);
  Template("one-gpu");
  Start();
  Pod("first", "one-gpu");
  ASSERT_TRUE(WaitFor([&] { return Bound() == 1; }, seconds(30)));
  Pod("second", "one-gpu");
  ASSERT_TRUE(WaitFor([&] { return !PodMessage("second").empty(); }, seconds(30)));
  EXPECT_EQ(PodMessage("second"),
            "Unschedulable: 0/1 nodes are available: 1 cannot allocate all claims. still not "
            "schedulable");
  auto deleted_at = std::chrono::steady_clock::now();
  ASSERT_TRUE(client_->Delete(Res("", "pods"), "default", "first").ok());
  // The claim controller releases the claim; the claim event requeues "second" — long before
  // the periodic flush of unschedulable pods (30 s here, 5 min in Kubernetes) would.
  ASSERT_TRUE(WaitFor(
      [&] {
        for (const auto& p : Pods()) {
          if (p->metadata.name == "second" && !p->spec.nodeName.empty()) return true;
        }
        return false;
      },
      seconds(20)));
  EXPECT_LT(std::chrono::steady_clock::now() - deleted_at, seconds(10));
  ExpectInvariants();
}

// 10,000 pods on 1,000 nodes with 8 devices each, all through templates: 8,000 get a device,
// 2,000 stay pending with the DRA reason; then the invariants.
TEST_F(DraIntegrationTest, TenThousandPodsOnAThousandNodes) {
  Cluster(1000, 8);
  Template("one-gpu");
  Start();
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 10000; ++i) Pod("p-" + std::to_string(i), "one-gpu");
  ASSERT_TRUE(WaitFor([&] { return Bound() == 8000; }, seconds(240))) << Bound() << " bound";
  auto bound_at = std::chrono::steady_clock::now();
  auto pending_reported = [&] {
    int n = 0;
    for (const auto& p : Pods()) {
      if (!p->spec.nodeName.empty()) continue;
      for (const auto& c : p->status.conditions) {
        n += c.type == "PodScheduled" && c.status == "False" &&
             c.message.rfind("0/1000 nodes are available: 1000 cannot allocate all claims.", 0) ==
                 0;
      }
    }
    return n;
  };
  ASSERT_TRUE(WaitFor([&] { return pending_reported() == 2000; }, seconds(120)))
      << pending_reported() << " pending pods report the DRA reason";
  std::printf("8,000 pods bound in %.1f s\n",
              std::chrono::duration<double>(bound_at - start).count());
  EXPECT_EQ(Bound(), 8000);
  ExpectInvariants();
  std::lock_guard<std::mutex> lock(audit_mu_);
  EXPECT_GE(audit_.allocations_seen(), 8000u);
}

}  // namespace
}  // namespace allot::integration
