#include "node/pod_status.h"

#include <gtest/gtest.h>

#include "api/core/pod_state.h"
#include "testing/objects.h"

namespace allot::node {
namespace {

std::unique_ptr<api::Pod> PodFromJson(std::string_view json) {
  std::unique_ptr<api::Object> o = testing::ObjectFromJson(json);
  return std::unique_ptr<api::Pod>(static_cast<api::Pod*>(o.release()));
}

const api::PodCondition* Find(const api::Pod& pod, std::string_view type) {
  for (const auto& c : pod.status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

constexpr char kPod[] = R"({"apiVersion":"v1","kind":"Pod",
  "metadata":{"name":"p","namespace":"default","uid":"u1","resourceVersion":"5",
              "annotations":{"allot.dev/run-duration":"1m30s"}},
  "spec":{"nodeName":"n-0","initContainers":[{"name":"init","image":"i"},
          {"name":"side","image":"s","restartPolicy":"Always"}],
          "containers":[{"name":"a","image":"img-a"},{"name":"b","image":"img-b"}]},
  "status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"True",
            "lastTransitionTime":"2023-11-14T22:00:00Z"}]}})";

TEST(PodStatusTest, RunningHasKubeletsConditionsAndContainers) {
  auto pod = PodFromJson(kPod);
  Time now = Time::FromUnixSeconds(1700000000);
  auto run = RunningPod(*pod, "172.16.0.1", "10.0.0.5", now);
  const api::PodStatus& st = run->status;
  EXPECT_EQ(run->metadata.resourceVersion, "5");
  EXPECT_EQ(st.phase, "Running");
  EXPECT_EQ(st.startTime, now);
  EXPECT_EQ(st.hostIP, "172.16.0.1");
  EXPECT_EQ(st.podIP, "10.0.0.5");
  ASSERT_EQ(st.podIPs.size(), 1u);
  for (const char* type :
       {"PodReadyToStartContainers", "Initialized", "ContainersReady", "Ready", "PodScheduled"}) {
    const api::PodCondition* c = Find(*run, type);
    ASSERT_NE(c, nullptr) << type;
    EXPECT_EQ(c->status, "True") << type;
  }
  // PodScheduled was already True: its transition time is the scheduler's.
  EXPECT_EQ(Find(*run, "PodScheduled")->lastTransitionTime, Time::Parse("2023-11-14T22:00:00Z"));
  ASSERT_EQ(st.containerStatuses.size(), 2u);
  EXPECT_EQ(st.containerStatuses[1].name, "b");
  EXPECT_EQ(st.containerStatuses[1].image, "img-b");
  EXPECT_TRUE(st.containerStatuses[1].ready);
  ASSERT_TRUE(st.containerStatuses[1].state.running);
  EXPECT_EQ(st.containerStatuses[1].state.running->startedAt, now);
  ASSERT_EQ(st.rare->initContainerStatuses.size(), 2u);
  EXPECT_TRUE(st.rare->initContainerStatuses[0].state.terminated);
  EXPECT_TRUE(st.rare->initContainerStatuses[1].state.running);  // sidecar
}

TEST(PodStatusTest, HostNetworkPodsUseTheNodeIp) {
  auto pod = PodFromJson(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
      "spec":{"hostNetwork":true,"containers":[{"name":"a","image":"i"}]}})");
  auto run = RunningPod(*pod, "172.16.0.1", "", Time::FromUnixSeconds(1));
  EXPECT_EQ(run->status.podIP, "172.16.0.1");
}

TEST(PodStatusTest, ReadinessGatesHoldReady) {
  auto pod = PodFromJson(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
      "spec":{"readinessGates":[{"conditionType":"example.com/lb"}],
              "containers":[{"name":"a","image":"i"}]}})");
  auto run = RunningPod(*pod, "172.16.0.1", "10.0.0.1", Time::FromUnixSeconds(1));
  EXPECT_EQ(Find(*run, "Ready")->status, "False");
  EXPECT_EQ(Find(*run, "Ready")->reason, "ReadinessGatesNotReady");
  EXPECT_EQ(Find(*run, "ContainersReady")->status, "True");
}

TEST(PodStatusTest, SucceededTerminatesEveryContainer) {
  auto pod = PodFromJson(kPod);
  Time t0 = Time::FromUnixSeconds(1700000000), t1 = Time::FromUnixSeconds(1700000090);
  auto done = SucceededPod(*RunningPod(*pod, "172.16.0.1", "10.0.0.5", t0), t1);
  EXPECT_EQ(done->status.phase, "Succeeded");
  EXPECT_EQ(Find(*done, "Ready")->status, "False");
  EXPECT_EQ(Find(*done, "Ready")->reason, "PodCompleted");
  EXPECT_EQ(Find(*done, "Initialized")->status, "True");
  for (const auto& c : done->status.containerStatuses) {
    ASSERT_TRUE(c.state.terminated) << c.name;
    EXPECT_EQ(c.state.terminated->exitCode, 0);
    EXPECT_EQ(c.state.terminated->reason, "Completed");
    EXPECT_EQ(c.state.terminated->startedAt, t0);
    EXPECT_EQ(c.state.terminated->finishedAt, t1);
    EXPECT_FALSE(c.ready);
  }
  EXPECT_TRUE(api::IsPodTerminal(*done));
}

TEST(PodStatusTest, RunDurationAndGracePeriod) {
  auto pod = PodFromJson(kPod);
  auto d = RunDuration(*pod);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(**d, std::chrono::seconds(90));
  pod->metadata.annotations[kRunDurationAnnotation] = "soon";
  EXPECT_FALSE(RunDuration(*pod).ok());
  pod->metadata.annotations[kRunDurationAnnotation] = "-1s";
  EXPECT_FALSE(RunDuration(*pod).ok());
  pod->metadata.annotations.clear();
  EXPECT_FALSE(*RunDuration(*pod));

  EXPECT_EQ(GracePeriod(*pod), std::chrono::seconds(30));
  pod->spec.terminationGracePeriodSeconds = 5;
  EXPECT_EQ(GracePeriod(*pod), std::chrono::seconds(5));
  pod->metadata.rare.edit().deletionGracePeriodSeconds = 2;
  EXPECT_EQ(GracePeriod(*pod), std::chrono::seconds(2));
}

}  // namespace
}  // namespace allot::node
