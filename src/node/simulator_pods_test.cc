// NodeSimulator, pod side: start, run duration, conflicts, deletion, hooks, restart.
#include <gtest/gtest.h>

#include <atomic>
#include <set>

#include "api/core/pod.h"
#include "node/addresses.h"
#include "node/testing/simulator.h"
#include "testing/wait.h"

namespace allot::node {
namespace {

using std::chrono::seconds;

const api::PodCondition* Condition(const api::Pod& pod, std::string_view type) {
  for (const auto& c : pod.status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

class SimulatorPodsTest : public SimulatorTest {
 protected:
  bool WaitPhase(const std::string& name, const std::string& phase) {
    return TickUntil([&] { return Phase(name) == phase; });
  }
  NodeSimulator::Stats Stats() { return sim_->GetStats(); }
};

TEST_F(SimulatorPodsTest, BoundPodBecomesRunning) {
  Start(Options(2));
  Time now = clock_.Now();
  CreatePod("p", "n-1");
  ASSERT_TRUE(WaitPhase("p", "Running"));
  const api::Pod* pod = GetPod("p");
  for (const char* type :
       {"PodReadyToStartContainers", "Initialized", "ContainersReady", "Ready", "PodScheduled"}) {
    const api::PodCondition* c = Condition(*pod, type);
    ASSERT_NE(c, nullptr) << type;
    EXPECT_EQ(c->status, "True") << type;
  }
  EXPECT_EQ(pod->status.startTime, now);
  EXPECT_EQ(pod->status.hostIP, NodeInternalIp(1));
  EXPECT_EQ(pod->status.podIP.rfind("10.0.1.", 0), 0u) << pod->status.podIP;
  ASSERT_EQ(pod->status.containerStatuses.size(), 1u);
  const api::ContainerStatus& c = pod->status.containerStatuses[0];
  EXPECT_TRUE(c.ready);
  ASSERT_TRUE(c.state.running);
  EXPECT_EQ(c.state.running->startedAt, now);
  EXPECT_EQ(Stats().pods_running, 1);
  EXPECT_EQ(Stats().pods_started, 1u);
  EXPECT_EQ(client_->Count("status", "pods"), 1);  // one write per transition
}

TEST_F(SimulatorPodsTest, PodsOnOtherNodesAreIgnored) {
  Start(Options(1));
  api::ObjectPtr other = CreatePod("other", "someone-elses-node");
  api::ObjectPtr unbound = CreatePod("unbound", "");
  CreatePod("mine", "n-0");
  ASSERT_TRUE(WaitPhase("mine", "Running"));
  EXPECT_EQ(GetPod("other")->metadata.resourceVersion, other->metadata.resourceVersion);
  EXPECT_EQ(GetPod("unbound")->metadata.resourceVersion, unbound->metadata.resourceVersion);
  EXPECT_EQ(Stats().pods_tracked, 1);
  for (const RecordingClient::Call& call : client_->Calls()) {
    if (call.resource == "pods") {
      EXPECT_EQ(call.name, "mine");
    }
  }
}

TEST_F(SimulatorPodsTest, EachPodGetsItsOwnIpFromTheNodesCidr) {
  Start(Options(2));
  for (int i = 0; i < 5; ++i) CreatePod("p" + std::to_string(i), "n-0");
  ASSERT_TRUE(TickUntil([&] { return Stats().pods_running == 5; }));
  std::set<std::string> ips;
  for (int i = 0; i < 5; ++i) {
    const api::Pod* p = GetPod("p" + std::to_string(i));
    EXPECT_EQ(p->status.podIP.rfind("10.0.0.", 0), 0u) << p->status.podIP;
    ips.insert(p->status.podIP);
  }
  EXPECT_EQ(ips.size(), 5u);
}

TEST_F(SimulatorPodsTest, StartupDelayIsCountedOnTheClock) {
  NodeSimulatorOptions opts = Options(1);
  opts.pod_startup_delay = seconds(5);
  Start(std::move(opts));
  CreatePod("p", "n-0");
  ASSERT_TRUE(TickUntil([&] { return Stats().pods_tracked == 1; }));
  Advance(seconds(4));
  TickAndWait();
  EXPECT_EQ(Phase("p"), "Pending");
  Advance(seconds(1));
  TickAndWait();
  EXPECT_EQ(Phase("p"), "Running");
}

TEST_F(SimulatorPodsTest, RunDurationEndsInSucceeded) {
  Start(Options(1));
  CreatePod("job", "n-0", R"("annotations":{"allot.dev/run-duration":"30s"})");
  ASSERT_TRUE(WaitPhase("job", "Running"));
  Time started = clock_.Now();
  Advance(seconds(29));
  TickAndWait();
  EXPECT_EQ(Phase("job"), "Running");
  Advance(seconds(1));
  TickAndWait();
  ASSERT_EQ(Phase("job"), "Succeeded");
  const api::Pod* pod = GetPod("job");
  const api::ContainerStatus& c = pod->status.containerStatuses.at(0);
  ASSERT_TRUE(c.state.terminated);
  EXPECT_EQ(c.state.terminated->exitCode, 0);
  EXPECT_EQ(c.state.terminated->reason, "Completed");
  EXPECT_EQ(c.state.terminated->startedAt, started);
  EXPECT_EQ(c.state.terminated->finishedAt, clock_.Now());
  EXPECT_EQ(Condition(*pod, "Ready")->status, "False");
  EXPECT_EQ(Stats().pods_succeeded, 1u);
  EXPECT_EQ(Stats().pods_running, 0);
}

TEST_F(SimulatorPodsTest, AnInvalidRunDurationRunsForever) {
  Start(Options(1));
  CreatePod("p", "n-0", R"("annotations":{"allot.dev/run-duration":"a while"})");
  ASSERT_TRUE(WaitPhase("p", "Running"));
  EXPECT_NE(Stats().last_error.find("invalid duration"), std::string::npos) << Stats().last_error;
  Advance(std::chrono::hours(1));
  TickAndWait();
  EXPECT_EQ(Phase("p"), "Running");
}

TEST_F(SimulatorPodsTest, ConflictIsRetriedAfterBackoff) {
  Start(Options(1));
  client_->FailNextPodStatusUpdates(1);
  CreatePod("p", "n-0");
  ASSERT_TRUE(TickUntil([&] { return Stats().write_conflicts == 1; }));
  TickAndWait();
  EXPECT_EQ(Phase("p"), "Pending");
  Advance(seconds(1));
  TickAndWait();
  EXPECT_EQ(Phase("p"), "Running");
  EXPECT_EQ(client_->Count("status", "pods"), 2);
}

// The store removes pods without finalizers at once: the simulator just forgets them.
TEST_F(SimulatorPodsTest, PodRemovedAtOnceIsForgotten) {
  Start(Options(1));
  CreatePod("p", "n-0");
  ASSERT_TRUE(WaitPhase("p", "Running"));
  ASSERT_TRUE(store_->Delete(api::ResourceFor<api::Pod>(), "default", "p").ok());
  ASSERT_TRUE(TickUntil([&] { return Stats().pods_tracked == 0; }));
  EXPECT_EQ(Stats().pods_running, 0);
  EXPECT_EQ(client_->Count("delete", "pods"), 0);
}

// With a finalizer the store only sets deletionTimestamp: the simulator stops the containers
// and deletes the pod with gracePeriodSeconds=0; it goes once the finalizer does.
TEST_F(SimulatorPodsTest, GracefulDeletionStopsContainersThenDeletes) {
  Start(Options(1));
  api::ObjectPtr created = CreatePod("p", "n-0", R"("finalizers":["example.com/hold"])");
  ASSERT_TRUE(WaitPhase("p", "Running"));
  ASSERT_TRUE(store_->Delete(api::ResourceFor<api::Pod>(), "default", "p").ok());
  ASSERT_TRUE(TickUntil([&] { return client_->Count("delete", "pods") == 1; }));
  const api::Pod* pod = GetPod("p");
  ASSERT_NE(pod, nullptr);  // the finalizer holds it
  EXPECT_TRUE(pod->metadata.rare->deletionTimestamp);
  EXPECT_EQ(pod->status.phase, "Succeeded");
  ASSERT_TRUE(pod->status.containerStatuses.at(0).state.terminated);
  for (const RecordingClient::Call& call : client_->Calls()) {
    if (call.method != "delete") continue;
    EXPECT_EQ(call.del.grace_period_seconds, 0);
    EXPECT_EQ(call.del.precondition_uid, created->metadata.uid);
  }
  EXPECT_EQ(Stats().pods_running, 0);

  auto drop_finalizers = [](const api::Object& cur) -> Result<std::unique_ptr<api::Object>> {
    auto next = cur.Clone();
    next->metadata.finalizers.clear();
    return next;
  };
  ASSERT_TRUE(store_->Update(api::ResourceFor<api::Pod>(), "default", "p", drop_finalizers).ok());
  ASSERT_TRUE(TickUntil([&] { return Stats().pods_tracked == 0; }));
  EXPECT_EQ(GetPod("p"), nullptr);
}

// The grace period is honoured up to max_grace_period. The store always writes
// deletionGracePeriodSeconds=0 today, so this test feeds the simulator the pod a
// kube-apiserver would produce (grace from the pod) through its event entry point.
TEST_F(SimulatorPodsTest, GracePeriodIsCappedOnTheClock) {
  NodeSimulatorOptions opts = Options(1);
  opts.max_grace_period = seconds(5);
  Start(std::move(opts), /*watch=*/false);
  std::map<std::string, int64_t> grace = {{"slow", 20}, {"quick", 2}};
  for (const auto& [name, g] : grace) {
    sim_->OnPodChanged(CreatePod(name, "n-0", R"("finalizers":["example.com/hold"])"));
  }
  TickAndWait();
  ASSERT_EQ(Phase("slow"), "Running");
  for (const auto& [name, g] : grace) {
    ASSERT_TRUE(store_->Delete(api::ResourceFor<api::Pod>(), "default", name).ok());
    auto deleting = GetPod(name)->Clone();
    deleting->metadata.rare.edit().deletionGracePeriodSeconds = g;
    sim_->OnPodChanged(api::ObjectPtr(std::move(deleting)));
  }
  TickAndWait();
  EXPECT_EQ(Phase("slow"), "Succeeded");  // containers stopped at once
  EXPECT_EQ(client_->Count("delete", "pods"), 0);
  Advance(seconds(2));
  TickAndWait();
  ASSERT_EQ(client_->Count("delete", "pods"), 1);
  EXPECT_EQ(client_->Calls().back().name, "quick");
  Advance(seconds(2));
  TickAndWait();
  EXPECT_EQ(client_->Count("delete", "pods"), 1);
  Advance(seconds(1));  // 5 s: the cap, not the pod's 20 s
  TickAndWait();
  EXPECT_EQ(client_->Count("delete", "pods"), 2);
  EXPECT_EQ(client_->Calls().back().name, "slow");
}

// Deleted while its Running write is in flight: the terminate step waits for the write's
// answer, then stops the containers it started and deletes the pod.
TEST_F(SimulatorPodsTest, DeletionWhileTheStartWriteIsInFlight) {
  Start(Options(1), /*watch=*/false);
  api::ObjectPtr created = CreatePod("p", "n-0", R"("finalizers":["example.com/hold"])");
  sim_->OnPodChanged(created);
  client_->HoldPodStatusAnswers(true);
  sim_->Tick();
  testing::WaitUntil([&] { return client_->HeldCount() > 0; });
  ASSERT_EQ(client_->HeldCount(), 1u);
  ASSERT_EQ(Phase("p"), "Running");  // written, but the simulator has not heard back
  ASSERT_TRUE(store_->Delete(api::ResourceFor<api::Pod>(), "default", "p").ok());
  sim_->OnPodChanged(Get("", "pods", "default", "p"));
  sim_->Tick();  // the terminate step is deferred: the pod's write is in flight
  EXPECT_EQ(client_->Count("delete", "pods"), 0);
  client_->HoldPodStatusAnswers(false);
  client_->ReleaseHeld();
  TickAndWait();
  EXPECT_EQ(Phase("p"), "Succeeded");
  EXPECT_TRUE(GetPod("p")->status.containerStatuses.at(0).state.terminated);
  EXPECT_EQ(client_->Count("delete", "pods"), 1);
}

// --- hooks ----------------------------------------------------------------------------------

struct Gate : PodStartRule {
  std::atomic<bool> open{false};
  std::string WhyNotStart(const api::Pod& pod, std::string_view) override {
    if (open || !pod.metadata.labels.count("gated")) return "";
    return "claims not reserved";
  }
};

struct CountingPreparer : ClaimPreparer {
  std::atomic<int> prepared{0}, unprepared{0}, failures_left{0};
  Status Prepare(const api::Pod&, std::string_view) override {
    if (failures_left > 0) {
      --failures_left;
      return Status(StatusCode::kServiceUnavailable, "driver busy");
    }
    ++prepared;
    return Status::Ok();
  }
  void Unprepare(const api::Pod&, std::string_view) override { ++unprepared; }
};

TEST_F(SimulatorPodsTest, StartRuleHoldsThePodUntilItAllows) {
  sim_ = std::make_unique<NodeSimulator>(*client_, clock_, Options(1));
  auto gate = std::make_unique<Gate>();
  Gate* g = gate.get();
  sim_->AddStartRule(std::move(gate));
  ASSERT_TRUE(sim_->Register().ok());
  ASSERT_TRUE(sim_->Watch().ok());
  CreatePod("held", "n-0", R"("labels":{"gated":"yes"})");
  CreatePod("free", "n-0");
  ASSERT_TRUE(WaitPhase("free", "Running"));
  ASSERT_TRUE(TickUntil([&] { return Stats().start_refusals >= 1; }));
  EXPECT_EQ(Phase("held"), "Pending");
  EXPECT_NE(Stats().last_error.find("claims not reserved"), std::string::npos);
  g->open = true;
  Advance(seconds(1));  // the backoff
  TickAndWait();
  EXPECT_EQ(Phase("held"), "Running");
}

TEST_F(SimulatorPodsTest, PreparerRunsBeforeStartAndUnpreparesOnDeletion) {
  sim_ = std::make_unique<NodeSimulator>(*client_, clock_, Options(1));
  auto preparer = std::make_unique<CountingPreparer>();
  CountingPreparer* prep = preparer.get();
  prep->failures_left = 1;
  sim_->SetClaimPreparer(std::move(preparer));
  ASSERT_TRUE(sim_->Register().ok());
  ASSERT_TRUE(sim_->Watch().ok());
  CreatePod("p", "n-0");
  ASSERT_TRUE(TickUntil([&] { return Stats().start_refusals == 1; }));
  EXPECT_EQ(Phase("p"), "Pending");
  Advance(seconds(1));
  TickAndWait();
  EXPECT_EQ(Phase("p"), "Running");
  EXPECT_EQ(prep->prepared, 1);
  // The failed prepare was reported as a kubelet reports it.
  api::ListOptions opts;
  auto events = store_->List(api::ResourceFor<api::Event>(), opts);
  ASSERT_TRUE(events.ok());
  bool reported = false;
  for (const api::ObjectPtr& obj : events->items) {
    const auto& e = static_cast<const api::Event&>(*obj);
    reported = reported || (e.reason == "FailedPrepareDynamicResources" && e.type == "Warning" &&
                            e.involvedObject.name == "p" &&
                            e.message == "Failed to prepare dynamic resources: driver busy" &&
                            e.source.component == "kubelet");
  }
  EXPECT_TRUE(reported);
  ASSERT_TRUE(store_->Delete(api::ResourceFor<api::Pod>(), "default", "p").ok());
  ASSERT_TRUE(TickUntil([&] { return prep->unprepared == 1; }));
  EXPECT_EQ(Stats().pods_tracked, 0);
}

// --- restart and the background thread --------------------------------------------------------

TEST_F(SimulatorPodsTest, ARestartedSimulatorAdoptsRunningPods) {
  Start(Options(1));
  CreatePod("job", "n-0", R"("annotations":{"allot.dev/run-duration":"30s"})");
  ASSERT_TRUE(WaitPhase("job", "Running"));
  sim_.reset();
  Advance(seconds(10));
  Start(Options(1));
  ASSERT_TRUE(TickUntil([&] { return Stats().pods_running == 1; }));
  EXPECT_EQ(Stats().nodes_adopted, 1);
  EXPECT_EQ(client_->Count("status", "pods"), 1);  // no second Running write
  Advance(seconds(19));
  TickAndWait();
  EXPECT_EQ(Phase("job"), "Running");
  Advance(seconds(1));  // 30 s after the pod's startTime
  TickAndWait();
  EXPECT_EQ(Phase("job"), "Succeeded");
}

TEST_F(SimulatorPodsTest, RunTicksOnItsOwnThread) {
  sim_ = std::make_unique<NodeSimulator>(*client_, clock_, Options(2));
  ASSERT_TRUE(sim_->Run().ok());
  CreatePod("p", "n-1");
  EXPECT_TRUE(testing::WaitUntil([&] { return Phase("p") == "Running"; }));
  sim_->Stop();
  sim_->Stop();  // idempotent
}

}  // namespace
}  // namespace allot::node
