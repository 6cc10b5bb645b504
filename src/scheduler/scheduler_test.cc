// The Scheduler with a fake client and a fake clock, fed events directly (no informers).
#include "scheduler/scheduler.h"

#include <gtest/gtest.h>

#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "scheduler/testing/builders.h"
#include "scheduler/testing/fake_client.h"
#include "scheduler/testing/fakes.h"
#include "testing/wait.h"

namespace allot::scheduler {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::FakeClient;
using testing::NodeBuilder;
using testing::PodBuilder;

class SchedulerTest : public ::testing::Test {
 protected:
  void Make(SchedulerOptions opts = {}) {
    opts.clock = &clock_;
    opts.seed = 7;
    auto s = Scheduler::Create(client_, std::move(opts));
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    sched_ = std::move(s).value();
  }
  void AddNode(NodeBuilder b) { sched_->OnNodeAdd(b.Build()); }
  std::shared_ptr<api::Pod> AddPod(PodBuilder b) {
    auto pod = b.Build();
    sched_->OnPodAdd(pod);
    return pod;
  }
  // Runs scheduling cycles until the queue has nothing ready.
  int Drain() {
    int n = 0;
    while (sched_->ScheduleOne(milliseconds(0))) ++n;
    return n;
  }
  double Attempts(const std::string& result, const std::string& profile = "default-scheduler") {
    return sched_->metrics_registry()
        .AddCounter("scheduler_schedule_attempts_total", "", metrics::Stability::kStable,
                    {"result", "profile"})
        .With({result, profile})
        .value();
  }
  std::string Where(const std::string& name) {
    return sched_->queue().Where("uid-default-" + name);
  }
  // Registers a FakePlugin named `name` with `hooks` among `opts`' out-of-tree plugins.
  static void RegisterFake(SchedulerOptions& opts, const std::string& name,
                           testing::FakeHooks hooks) {
    auto log = std::make_shared<std::vector<std::string>>();
    auto log_mu = std::make_shared<std::mutex>();
    allot::Status reg = opts.out_of_tree.Register(
        name, [=](std::string_view, Handle&) -> Result<std::unique_ptr<Plugin>> {
          return std::unique_ptr<Plugin>(
              std::make_unique<testing::FakePlugin>(name, hooks, log, log_mu));
        });
    ASSERT_TRUE(reg.ok()) << reg.ToString();
  }
  // Waits until no binding is in flight (a failed one ends on a binding worker); false after 5 s.
  bool WaitForBindings() {
    return allot::testing::WaitUntil([&] { return sched_->bindings_in_flight() == 0; });
  }

  FakeClock clock_;
  FakeClient client_;
  std::unique_ptr<Scheduler> sched_;
};

TEST_F(SchedulerTest, BindsAPendingPodAndReportsIt) {
  Make();
  AddNode(NodeBuilder("n1").Cap("4", "8Gi"));
  AddPod(PodBuilder("p").Req("1", "1Gi"));
  EXPECT_EQ(Drain(), 1);
  ASSERT_EQ(client_.bindings().size(), 1u);
  EXPECT_EQ(client_.bindings()[0].node, "n1");
  EXPECT_EQ(client_.bindings()[0].uid, "uid-default-p");
  ASSERT_EQ(client_.events().size(), 1u);
  EXPECT_EQ(client_.events()[0].reason, "Scheduled");
  EXPECT_EQ(client_.events()[0].type, "Normal");
  EXPECT_EQ(client_.events()[0].message, "Successfully assigned default/p to n1");
  EXPECT_EQ(client_.events()[0].source.component, "default-scheduler");
  EXPECT_EQ(Attempts("scheduled"), 1);
  EXPECT_TRUE(sched_->cache().IsAssumed("uid-default-p"));
  EXPECT_EQ(sched_->bindings_in_flight(), 0u);
  EXPECT_EQ(Where("p"), "");

  // The informer confirms the binding.
  auto bound = PodBuilder("p").Req("1", "1Gi").NodeName("n1").Build();
  sched_->OnPodUpdate(PodBuilder("p").Req("1", "1Gi").Build(), bound);
  EXPECT_FALSE(sched_->cache().IsAssumed("uid-default-p"));
  EXPECT_EQ(sched_->cache().PodCount(), 1u);
}

TEST_F(SchedulerTest, UnschedulablePodGetsConditionEventAndComesBackOnANodeAdd) {
  Make();
  for (int i = 0; i < 3; ++i) AddNode(NodeBuilder("small" + std::to_string(i)).Cap("1", "8Gi"));
  for (int i = 0; i < 2; ++i) {
    AddNode(NodeBuilder("gpu" + std::to_string(i))
                .Cap("8", "8Gi")
                .Taint("dedicated", "gpu", "NoSchedule"));
  }
  AddPod(PodBuilder("big").Req("2", "1Gi"));
  EXPECT_EQ(Drain(), 1);
  const std::string msg =
      "0/5 nodes are available: 2 node(s) had untolerated taint {dedicated: gpu}, 3 Insufficient "
      "cpu. preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.";
  EXPECT_TRUE(client_.bindings().empty());
  ASSERT_EQ(client_.events().size(), 1u);
  EXPECT_EQ(client_.events()[0].reason, "FailedScheduling");
  EXPECT_EQ(client_.events()[0].type, "Warning");
  EXPECT_EQ(client_.events()[0].message, msg);
  ASSERT_EQ(client_.patches().size(), 1u);
  const FakeClient::Patch patch = client_.patches()[0];  // patches() returns a copy
  EXPECT_TRUE(patch.status);
  EXPECT_NE(patch.body.find(R"("type":"PodScheduled","status":"False")"), std::string::npos);
  EXPECT_NE(patch.body.find(R"("reason":"Unschedulable")"), std::string::npos);
  EXPECT_NE(patch.body.find(msg), std::string::npos);
  EXPECT_EQ(Where("big"), "unschedulable");
  EXPECT_EQ(Attempts("unschedulable"), 1);
  auto gauge = [&](const std::string& plugin) {
    return sched_->metrics_registry()
        .AddGauge("scheduler_unschedulable_pods", "", metrics::Stability::kAlpha,
                  {"plugin", "profile"})
        .With({plugin, "default-scheduler"})
        .value();
  };
  EXPECT_EQ(gauge("NodeResourcesFit"), 1);
  EXPECT_EQ(gauge("TaintToleration"), 1);

  // A node that is too small (and tainted) does not wake the pod; a big enough one does.
  AddNode(NodeBuilder("small3").Cap("1", "8Gi").Taint("dedicated", "gpu", "NoSchedule"));
  EXPECT_EQ(Where("big"), "unschedulable");
  AddNode(NodeBuilder("large").Cap("4", "8Gi"));
  EXPECT_EQ(Where("big"), "backoff");
  EXPECT_EQ(Drain(), 0);
  clock_.Advance(seconds(1));
  sched_->Housekeeping();
  EXPECT_EQ(Drain(), 1);
  ASSERT_EQ(client_.bindings().size(), 1u);
  EXPECT_EQ(client_.bindings()[0].node, "large");
}

TEST_F(SchedulerTest, AssumedPodsPreventOverCommitWhileBindingsAreInFlight) {
  Make();
  client_.defer_binds = true;
  AddNode(NodeBuilder("n").Cap("2", "8Gi"));
  for (const char* name : {"a", "b", "c"}) {
    AddPod(PodBuilder(name).Req("1"));
    clock_.Advance(milliseconds(1));  // queue order: a, b, c
  }
  EXPECT_EQ(Drain(), 3);
  EXPECT_EQ(sched_->bindings_in_flight(), 2u);
  EXPECT_EQ(Where("c"), "unschedulable");
  EXPECT_EQ(client_.events().back().message,
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 "
            "No preemption victims found for incoming pod.");
  client_.CompleteBinds();
  EXPECT_EQ(client_.bindings().size(), 2u);
  EXPECT_TRUE(sched_->WaitForBindings(seconds(1)));
}

TEST_F(SchedulerTest, BindingFailureUnreservesForgetsAndBacksOff) {
  Make();
  client_.bind_hook = [](const FakeClient::Binding&) {
    return allot::Status(StatusCode::kConflict, "Operation cannot be fulfilled");
  };
  AddNode(NodeBuilder("n").Cap("2", "8Gi"));
  AddPod(PodBuilder("p").Req("1"));
  EXPECT_EQ(Drain(), 1);
  ASSERT_TRUE(WaitForBindings());
  EXPECT_FALSE(sched_->cache().IsAssumed("uid-default-p"));
  EXPECT_EQ(sched_->cache().PodCount(), 0u);
  EXPECT_EQ(Where("p"), "backoff");
  EXPECT_EQ(Attempts("error"), 1);
  ASSERT_FALSE(client_.patches().empty());
  EXPECT_NE(client_.patches()[0].body.find(R"("reason":"SchedulerError")"), std::string::npos);
  EXPECT_EQ(client_.events().back().reason, "FailedScheduling");
  EXPECT_NE(client_.events().back().message.find("running Bind plugin \"DefaultBinder\""),
            std::string::npos);
  // The backoff passes and binding works this time.
  client_.bind_hook = nullptr;
  clock_.Advance(seconds(1));
  EXPECT_EQ(Drain(), 1);
  EXPECT_EQ(client_.bindings().size(), 1u);
}

TEST_F(SchedulerTest, OtherSchedulerNamesAreIgnoredAndProfilesApply) {
  SchedulerOptions opts;
  ProfileConfig packer = DefaultProfile();
  packer.scheduler_name = "packer";
  packer.plugin_config.push_back(
      {"NodeResourcesFit", R"({"scoringStrategy":{"type":"MostAllocated"}})"});
  packer.plugins.score.disabled.push_back({"NodeResourcesBalancedAllocation", 0});
  opts.config.profiles.push_back(packer);
  Make(std::move(opts));
  AddNode(NodeBuilder("busy").Cap("4", "8Gi"));
  AddNode(NodeBuilder("idle").Cap("4", "8Gi"));
  sched_->OnPodAdd(PodBuilder("existing").Req("3", "1Gi").NodeName("busy").Build());
  AddPod(PodBuilder("theirs").Req("100m").SchedulerName("kube-scheduler-2"));
  AddPod(PodBuilder("spread").Req("500m", "1Gi"));
  AddPod(PodBuilder("pack").Req("500m", "1Gi").SchedulerName("packer"));
  EXPECT_EQ(Drain(), 2);
  std::map<std::string, std::string> placed;
  for (const auto& b : client_.bindings()) placed[b.pod] = b.node;
  EXPECT_EQ(placed.count("theirs"), 0u);
  EXPECT_EQ(placed["spread"], "idle");
  EXPECT_EQ(placed["pack"], "busy");
  EXPECT_EQ(Attempts("scheduled", "packer"), 1);
}

// A Permit plugin that holds every pod until released.
TEST_F(SchedulerTest, PermitWaitHoldsTheBindingUntilAllowed) {
  SchedulerOptions opts;
  auto hold = [](const PodInfo&, const std::string&, std::chrono::milliseconds& t) {
    t = seconds(30);
    return Status(Code::kWait, "");
  };
  RegisterFake(opts, "Hold", {.permit = hold});
  opts.config.profiles[0].plugins.permit.enabled.push_back({"Hold", 0});
  Make(std::move(opts));
  AddNode(NodeBuilder("n").Cap("4", "8Gi"));
  AddPod(PodBuilder("p").Req("1"));
  AddPod(PodBuilder("q").Req("1"));
  EXPECT_EQ(Drain(), 2);
  EXPECT_TRUE(client_.bindings().empty());
  EXPECT_EQ(sched_->bindings_in_flight(), 2u);
  Framework* fw = sched_->FrameworkFor("default-scheduler");
  fw->waiting_pods().Get("uid-default-p")->Allow("Hold");
  ASSERT_EQ(client_.bindings().size(), 1u);
  EXPECT_EQ(client_.bindings()[0].pod, "p");
  // q times out: unreserved, forgotten and requeued as unschedulable.
  clock_.Advance(seconds(31));
  sched_->Housekeeping();
  EXPECT_EQ(sched_->bindings_in_flight(), 0u);
  EXPECT_EQ(Where("q"), "unschedulable");
  EXPECT_FALSE(sched_->cache().IsAssumed("uid-default-q"));
  EXPECT_EQ(client_.events().back().message,
            "0/1 nodes are available: rejected due to timeout after waiting 30s at plugin Hold.");
}

// A PreBind that says it cannot block runs on the scheduling thread (no binding worker is woken
// for it); one that may block runs on a binding worker.
TEST_F(SchedulerTest, APreBindThatCannotBlockRunsOnTheThreadThatEndedPermit) {
  SchedulerOptions opts;
  std::mutex mu;
  std::map<std::string, std::thread::id> ran_on;  // pod name -> the thread PreBind ran on
  std::promise<void> worker_ran;
  testing::FakeHooks hooks;
  hooks.pre_bind_may_block = [](const PodInfo& pod) { return pod.name() == "slow"; };
  hooks.pre_bind = [&](const PodInfo& pod, const std::string&) {
    std::lock_guard<std::mutex> lock(mu);
    ran_on[pod.name()] = std::this_thread::get_id();
    if (pod.name() == "slow") worker_ran.set_value();
    return Status();
  };
  RegisterFake(opts, "Writer", std::move(hooks));
  opts.config.profiles[0].plugins.pre_bind.enabled.push_back({"Writer", 0});
  Make(std::move(opts));
  AddNode(NodeBuilder("n").Cap("4", "8Gi"));

  AddPod(PodBuilder("fast").Req("1"));
  EXPECT_EQ(Drain(), 1);
  {
    std::lock_guard<std::mutex> lock(mu);
    ASSERT_EQ(ran_on.count("fast"), 1u);
    EXPECT_EQ(ran_on["fast"], std::this_thread::get_id());
  }
  // Bound before the cycle returned: nothing was handed to another thread.
  ASSERT_EQ(client_.bindings().size(), 1u);
  EXPECT_EQ(client_.bindings()[0].pod, "fast");

  AddPod(PodBuilder("slow").Req("1"));
  EXPECT_EQ(Drain(), 1);
  worker_ran.get_future().wait();
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_NE(ran_on["slow"], std::this_thread::get_id());
}

// A Bind answers on the client's thread (the store's committer, in-process), where a
// synchronous API write would wait for itself: a failure's Unreserve, which may write, runs on a
// binding worker.
TEST_F(SchedulerTest, AFailedBindUnreservesOnABindingWorker) {
  SchedulerOptions opts;
  std::mutex mu;
  BindCallback answer;  // the Bind plugin's pending answer
  std::promise<std::thread::id> unreserved_on;
  testing::FakeHooks hooks;
  hooks.bind = [&](const PodInfo&, const std::string&, BindCallback done) {
    std::lock_guard<std::mutex> lock(mu);
    answer = std::move(done);
  };
  hooks.unreserve = [&](const PodInfo&, const std::string&) {
    unreserved_on.set_value(std::this_thread::get_id());
  };
  RegisterFake(opts, "Binder", std::move(hooks));
  opts.config.profiles[0].plugins.reserve.enabled.push_back({"Binder", 0});
  opts.config.profiles[0].plugins.bind.enabled.push_back({"Binder", 0});
  Make(std::move(opts));
  AddNode(NodeBuilder("n").Cap("4", "8Gi"));
  AddPod(PodBuilder("p").Req("1"));
  EXPECT_EQ(Drain(), 1);
  BindCallback done;
  {
    std::lock_guard<std::mutex> lock(mu);
    ASSERT_TRUE(answer);
    done = std::move(answer);
  }
  done(Status::Error("pods \"p\" not found"));  // this thread plays the committer
  EXPECT_NE(unreserved_on.get_future().get(), std::this_thread::get_id());
  ASSERT_TRUE(WaitForBindings());
  EXPECT_EQ(Where("p"), "backoff");
}

TEST_F(SchedulerTest, DeletedAndTerminalPodsLeaveTheCacheAndWakeWaitingPods) {
  Make();
  AddNode(NodeBuilder("n").Cap("1", "8Gi"));
  auto running = PodBuilder("running").Req("1").NodeName("n").Build();
  sched_->OnPodAdd(running);
  AddPod(PodBuilder("waiting").Req("1"));
  EXPECT_EQ(Drain(), 1);
  EXPECT_EQ(Where("waiting"), "unschedulable");
  auto done = std::make_shared<api::Pod>(*running);
  done->status.phase = "Succeeded";
  sched_->OnPodUpdate(running, done);
  EXPECT_EQ(sched_->cache().PodCount(), 0u);
  EXPECT_EQ(Where("waiting"), "backoff");
  clock_.Advance(seconds(1));
  EXPECT_EQ(Drain(), 1);
  EXPECT_EQ(client_.bindings().size(), 1u);
}

TEST_F(SchedulerTest, MetricsAreExposed) {
  Make();
  AddNode(NodeBuilder("n").Cap("1", "8Gi"));
  AddPod(PodBuilder("p").Req("100m"));
  Drain();
  sched_->Housekeeping();
  std::string text = sched_->metrics_registry().Expose();
  for (const char* want :
       {"scheduler_schedule_attempts_total{result=\"scheduled\",profile=\"default-scheduler\"} 1",
        "allot_scheduler_parallel_helpers 0", "scheduler_pending_pods{queue=\"active\"} 0",
        "scheduler_scheduling_attempt_duration_seconds_count{result=\"scheduled\",profile="
        "\"default-scheduler\"} 1",
        "scheduler_framework_extension_point_duration_seconds_count{extension_point=\"Filter\","
        "status=\"Success\",profile=\"default-scheduler\"} 1"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  }
}

}  // namespace
}  // namespace allot::scheduler
