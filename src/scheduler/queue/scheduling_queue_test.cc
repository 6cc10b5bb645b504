#include "scheduler/queue/scheduling_queue.h"

#include <gtest/gtest.h>

#include "api/resource/types.h"
#include "scheduler/testing/builders.h"
#include "scheduler/testing/fakes.h"

namespace allot::scheduler {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::FakeHooks;
using testing::FrameworkHarness;
using testing::NodeBuilder;
using testing::PodBuilder;

// "NodeWatcher" rejects pods until a node labelled ready=true is added.
QueueingHint ReadyNodeHint(const api::Pod&, const api::Object*, const api::Object* new_obj) {
  const api::Node* n = new_obj ? api::As<api::Node>(*new_obj) : nullptr;
  return n && n->metadata.labels.count("ready") ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
}

class QueueTest : public ::testing::Test {
 protected:
  QueueTest() {
    h_.Add("NodeWatcher", {.events = {{{EventResource::kNode, kAdd}, ReadyNodeHint}}});
    h_.Add("PodWatcher", {.events = {{{EventResource::kAssignedPod, kDelete}, {}}}});
    h_.Enable("filter", "NodeWatcher");
    h_.Enable("filter", "PodWatcher");
    h_.Enable("preEnqueue", "SchedulingGates");
    h_.Enable("bind", "DefaultBinder");
    auto fw = h_.Build();
    EXPECT_TRUE(fw.ok()) << fw.status().ToString();
    fw_ = std::move(fw).value();
    metrics_ = std::make_unique<SchedulerMetrics>(registry_);
    queue_ = std::make_unique<SchedulingQueue>(
        h_.clock(), QueueOptions{},
        std::map<std::string, Framework*>{{"default-scheduler", fw_.get()}}, metrics_.get());
  }

  std::unique_ptr<QueuedPodInfo> PopNow() { return queue_->Pop(milliseconds(0)); }
  // Pops `name` and fails it with the given rejecting plugins.
  void Fail(const std::string& name, std::vector<std::string> plugins, bool error = false) {
    auto p = PopNow();
    ASSERT_NE(p, nullptr);
    ASSERT_EQ(p->pod_info->name(), name);
    p->unschedulable_plugins = std::move(plugins);
    queue_->AddUnschedulableIfNotPresent(std::move(p), error);
  }
  std::string Where(const std::string& name) { return queue_->Where("uid-default-" + name); }
  double Gauge(const std::string& q) { return metrics_->pending_pods.With({q}).value(); }

  FrameworkHarness h_;
  std::unique_ptr<Framework> fw_;
  metrics::Registry registry_;
  std::unique_ptr<SchedulerMetrics> metrics_;
  std::unique_ptr<SchedulingQueue> queue_;
};

TEST_F(QueueTest, ActiveQueueOrdersByPriorityThenAge) {
  queue_->Add(PodBuilder("low-old").Priority(1).Info());
  h_.clock().Advance(seconds(1));
  queue_->Add(PodBuilder("high").Priority(10).Info());
  h_.clock().Advance(seconds(1));
  queue_->Add(PodBuilder("low-new").Priority(1).Info());
  EXPECT_EQ(Gauge("active"), 3);
  std::vector<std::string> order;
  while (auto p = PopNow()) order.push_back(p->pod_info->name());
  EXPECT_EQ(order, (std::vector<std::string>{"high", "low-old", "low-new"}));
  EXPECT_EQ(queue_->InFlightSize(), 3u);
}

TEST_F(QueueTest, BackoffGrowsExponentiallyToTheCap) {
  std::vector<std::pair<int, milliseconds>> cases = {
      {0, milliseconds(0)}, {1, seconds(1)},  {2, seconds(2)},  {3, seconds(4)},
      {4, seconds(8)},      {5, seconds(10)}, {6, seconds(10)}, {100, seconds(10)}};
  for (const auto& [attempts, want] : cases) {
    EXPECT_EQ(queue_->BackoffDuration(attempts), want) << attempts;
  }
}

TEST_F(QueueTest, ErrorsGoToBackoffAndComeBackWhenItEnds) {
  queue_->Add(PodBuilder("p").Info());
  Fail("p", {}, /*error=*/true);
  EXPECT_EQ(Where("p"), "backoff");
  EXPECT_EQ(Gauge("backoff"), 1);
  EXPECT_EQ(PopNow(), nullptr);
  h_.clock().Advance(milliseconds(999));
  EXPECT_EQ(PopNow(), nullptr);
  h_.clock().Advance(milliseconds(2));
  Fail("p", {}, true);  // second failure: 2 s
  h_.clock().Advance(milliseconds(1500));
  queue_->FlushBackoffQCompleted();
  EXPECT_EQ(Where("p"), "backoff");
  h_.clock().Advance(milliseconds(600));
  queue_->FlushBackoffQCompleted();
  EXPECT_EQ(Where("p"), "active");
}

TEST_F(QueueTest, EventsMovePodsOnlyWhenARejectingPluginCares) {
  queue_->Add(PodBuilder("waits-node").Info());
  queue_->Add(PodBuilder("waits-pod").Info());
  Fail("waits-node", {"NodeWatcher"});
  Fail("waits-pod", {"PodWatcher"});
  EXPECT_EQ(Where("waits-node"), "unschedulable");
  EXPECT_EQ(Gauge("unschedulable"), 2);
  EXPECT_EQ(metrics_->unschedulable_pods.With({"NodeWatcher", "default-scheduler"}).value(), 1);

  // A node without the label: the hint says skip.
  api::ObjectPtr plain = NodeBuilder("n1").Build();
  queue_->OnEvent({EventResource::kNode, kAdd}, nullptr, plain);
  EXPECT_EQ(Where("waits-node"), "unschedulable");
  // Node updates are not registered at all.
  api::ObjectPtr ready = NodeBuilder("n2").Label("ready", "true").Build();
  queue_->OnEvent({EventResource::kNode, kUpdateNodeLabel}, plain, ready);
  EXPECT_EQ(Where("waits-node"), "unschedulable");
  // The right event; the pod is still backing off (1 s), so it goes to backoffQ.
  queue_->OnEvent({EventResource::kNode, kAdd}, nullptr, ready);
  EXPECT_EQ(Where("waits-node"), "backoff");
  EXPECT_EQ(Where("waits-pod"), "unschedulable");
  // An assigned pod is deleted after the backoff ended: straight to activeQ.
  h_.clock().Advance(seconds(2));
  api::ObjectPtr gone = PodBuilder("other").NodeName("n1").Build();
  queue_->OnEvent({EventResource::kAssignedPod, kDelete}, gone, nullptr);
  EXPECT_EQ(Where("waits-pod"), "active");
  EXPECT_EQ(metrics_->unschedulable_pods.With({"NodeWatcher", "default-scheduler"}).value(), 0);
}

TEST_F(QueueTest, PodsWithoutRejectingPluginsMoveOnAnyRegisteredEvent) {
  queue_->Add(PodBuilder("p").Info());
  Fail("p", {});
  EXPECT_EQ(Where("p"), "unschedulable");
  h_.clock().Advance(seconds(5));
  queue_->OnEvent({EventResource::kAssignedPod, kDelete}, PodBuilder("x").NodeName("n").Build(),
                  nullptr);
  EXPECT_EQ(Where("p"), "active");
}

TEST_F(QueueTest, EventDuringTheAttemptIsNotLost) {
  queue_->Add(PodBuilder("p").Info());
  auto p = PopNow();
  // While p is being scheduled, the node it will wait for arrives.
  queue_->OnEvent({EventResource::kNode, kAdd}, nullptr,
                  NodeBuilder("n").Label("ready", "yes").Build());
  p->unschedulable_plugins = {"NodeWatcher"};
  queue_->AddUnschedulableIfNotPresent(std::move(p), false);
  EXPECT_EQ(Where("p"), "backoff");

  // Without a relevant event it waits among the unschedulable pods.
  queue_->Add(PodBuilder("q").Info());
  auto q = PopNow();
  queue_->OnEvent({EventResource::kNode, kAdd}, nullptr, NodeBuilder("m").Build());
  q->unschedulable_plugins = {"NodeWatcher"};
  queue_->AddUnschedulableIfNotPresent(std::move(q), false);
  EXPECT_EQ(Where("q"), "unschedulable");
}

TEST_F(QueueTest, LeftoverFlushAfterFiveMinutes) {
  queue_->Add(PodBuilder("p").Info());
  Fail("p", {"NodeWatcher"});
  h_.clock().Advance(seconds(299));
  queue_->FlushUnschedulablePodsLeftover();
  EXPECT_EQ(Where("p"), "unschedulable");
  h_.clock().Advance(seconds(2));
  queue_->FlushUnschedulablePodsLeftover();
  EXPECT_EQ(Where("p"), "active");
}

TEST_F(QueueTest, SchedulingGatesHoldPodsUntilRemoved) {
  auto gated = PodBuilder("g").Gate("example.com/wait").Build();
  queue_->Add(PodInfo::Make(gated));
  EXPECT_EQ(Where("g"), "gated");
  EXPECT_EQ(Gauge("gated"), 1);
  EXPECT_EQ(Gauge("unschedulable"), 0);
  EXPECT_EQ(PopNow(), nullptr);
  // Flushes and unrelated events do not release it.
  h_.clock().Advance(seconds(600));
  queue_->FlushUnschedulablePodsLeftover();
  queue_->MoveAllToActiveOrBackoff(kEventForceActivate);
  EXPECT_EQ(Where("g"), "gated");
  // Another label change keeps it gated; removing the gate releases it.
  auto relabelled = std::make_shared<api::Pod>(*gated);
  relabelled->metadata.labels["x"] = "y";
  queue_->Update(gated, PodInfo::Make(relabelled));
  EXPECT_EQ(Where("g"), "gated");
  auto ungated = std::make_shared<api::Pod>(*relabelled);
  ungated->spec.schedulingGates.clear();
  queue_->Update(relabelled, PodInfo::Make(ungated));
  EXPECT_EQ(Where("g"), "active");
  EXPECT_EQ(Gauge("gated"), 0);
}

TEST_F(QueueTest, DeleteAndUpdatesWhileInFlight) {
  auto pod = PodBuilder("p").Build();
  queue_->Add(PodInfo::Make(pod));
  auto p = PopNow();
  auto newer = std::make_shared<api::Pod>(*pod);
  newer->metadata.labels["v"] = "2";
  queue_->Update(pod, PodInfo::Make(newer));
  p->unschedulable_plugins = {"NodeWatcher"};
  queue_->AddUnschedulableIfNotPresent(std::move(p), false);
  EXPECT_EQ(Where("p"), "unschedulable");
  queue_->Delete(*newer);
  EXPECT_EQ(Where("p"), "");
  EXPECT_EQ(Gauge("unschedulable"), 0);

  // Deleted while in flight: not requeued.
  queue_->Add(PodBuilder("d").Info());
  auto d = PopNow();
  queue_->Delete(d->pod());
  queue_->AddUnschedulableIfNotPresent(std::move(d), true);
  EXPECT_EQ(Where("d"), "");
  EXPECT_EQ(queue_->InFlightSize(), 0u);
}

TEST_F(QueueTest, OtherSchedulerNamesAreIgnored) {
  queue_->Add(PodBuilder("theirs").SchedulerName("other-scheduler").Info());
  EXPECT_EQ(Where("theirs"), "");
  EXPECT_EQ(queue_->ActiveSize(), 0u);
}

TEST_F(QueueTest, PopWaitsForAnAddFromAnotherThread) {
  std::thread t([this] { queue_->Add(PodBuilder("late").Info()); });
  auto p = queue_->Pop(seconds(10));
  t.join();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->pod_info->name(), "late");
  queue_->Close();
  EXPECT_EQ(queue_->Pop(seconds(10)), nullptr);
}

// A targeted registration: an event on claim "x" looks only at the pods that name "x" (here
// through the label "wants"), and the hint runs for no other pod.
TEST(QueueTargeting, EventsReachOnlyThePodsThatNameTheObject) {
  FrameworkHarness h;
  int hint_calls = 0;
  ClusterEventWithHint claims{{EventResource::kResourceClaim, kAdd | kUpdate}};
  claims.hint = [&](const api::Pod&, const api::Object*, const api::Object*) {
    ++hint_calls;
    return QueueingHint::kQueue;
  };
  claims.targets = [](const api::Pod& pod, std::vector<std::string>& out) {
    auto it = pod.metadata.labels.find("wants");
    if (it != pod.metadata.labels.end()) out.push_back(pod.metadata.namespace_ + "/" + it->second);
  };
  h.Add("ClaimWatcher", {.events = {claims}});
  h.Enable("filter", "ClaimWatcher");
  h.Enable("bind", "DefaultBinder");
  auto fw = h.Build();
  ASSERT_TRUE(fw.ok()) << fw.status().ToString();
  SchedulingQueue queue(h.clock(), QueueOptions{},
                        std::map<std::string, Framework*>{{"default-scheduler", fw.value().get()}},
                        nullptr);
  for (const char* name : {"a", "b", "c"}) {
    queue.Add(PodBuilder(name).Label("wants", name[0] == 'c' ? "x" : name).Info());
  }
  for (int i = 0; i < 3; ++i) {
    auto p = queue.Pop(milliseconds(0));
    ASSERT_NE(p, nullptr);
    p->unschedulable_plugins = {"ClaimWatcher"};
    queue.AddUnschedulableIfNotPresent(std::move(p), false);
  }
  ASSERT_EQ(queue.UnschedulableSize(), 3u);
  h.clock().Advance(seconds(60));  // past every backoff

  auto claim = [](const std::string& name) {
    auto c = std::make_shared<api::ResourceClaim>();
    c->metadata.namespace_ = "default";
    c->metadata.name = name;
    return api::ObjectPtr(c);
  };
  queue.OnEvent({EventResource::kResourceClaim, kAdd}, nullptr, claim("x"));
  EXPECT_EQ(hint_calls, 1);  // only "c" names "x"
  EXPECT_EQ(queue.Where("uid-default-c"), "active");
  EXPECT_EQ(queue.Where("uid-default-a"), "unschedulable");
  EXPECT_EQ(queue.Where("uid-default-b"), "unschedulable");
  queue.OnEvent({EventResource::kResourceClaim, kAdd}, nullptr, claim("other"));
  EXPECT_EQ(queue.UnschedulableSize(), 2u);
  // Another namespace's claim of the same name is another object.
  auto elsewhere = std::make_shared<api::ResourceClaim>();
  elsewhere->metadata.namespace_ = "ns2";
  elsewhere->metadata.name = "b";
  queue.OnEvent({EventResource::kResourceClaim, kAdd}, nullptr, elsewhere);
  EXPECT_EQ(queue.UnschedulableSize(), 2u);
  queue.OnEvent({EventResource::kResourceClaim, kAdd}, nullptr, claim("b"));
  EXPECT_EQ(queue.Where("uid-default-b"), "active");
  EXPECT_EQ(queue.Where("uid-default-a"), "unschedulable");
  EXPECT_EQ(hint_calls, 2);  // once for "c", once for "b"

  // A pod update re-indexes the pod under its new targets.
  auto old_a = PodBuilder("a").Label("wants", "a").Info();
  queue.Update(old_a->pod, PodBuilder("a").Label("wants", "z").Info());
  EXPECT_EQ(queue.Where("uid-default-a"), "unschedulable");
  queue.OnEvent({EventResource::kResourceClaim, kUpdate}, claim("a"), claim("a"));
  EXPECT_EQ(queue.Where("uid-default-a"), "unschedulable");
  queue.OnEvent({EventResource::kResourceClaim, kUpdate}, claim("z"), claim("z"));
  EXPECT_EQ(queue.Where("uid-default-a"), "active");
  EXPECT_EQ(hint_calls, 3);
}

}  // namespace
}  // namespace allot::scheduler
