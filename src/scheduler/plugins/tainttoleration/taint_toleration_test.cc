// TaintToleration plugin tests.
#include <gtest/gtest.h>

#include "scheduler/plugins/tainttoleration/taint_toleration.h"
#include "scheduler/testing/builders.h"
#include "scheduler/testing/filter_cases.h"

namespace allot::scheduler {
namespace {

using testing::MakeNodeInfo;
using testing::NodeBuilder;
using testing::PodBuilder;
using testing::RunFilterCases;

TEST(TaintToleration, Filter) {
  TaintToleration plugin;
  RunFilterCases(
      plugin,
      {
          {"no taints", PodBuilder("p"), NodeBuilder("n"), Code::kSuccess, ""},
          {"untolerated NoSchedule", PodBuilder("p"),
           NodeBuilder("n").Taint("dedicated", "gpu", "NoSchedule"),
           Code::kUnschedulableAndUnresolvable, "node(s) had untolerated taint {dedicated: gpu}"},
          {"untolerated NoExecute", PodBuilder("p"), NodeBuilder("n").Taint("k", "", "NoExecute"),
           Code::kUnschedulableAndUnresolvable, "node(s) had untolerated taint {k: }"},
          {"PreferNoSchedule does not filter", PodBuilder("p"),
           NodeBuilder("n").Taint("k", "v", "PreferNoSchedule"), Code::kSuccess, ""},
          {"tolerated with Equal",
           PodBuilder("p").Toleration("dedicated", "Equal", "gpu", "NoSchedule"),
           NodeBuilder("n").Taint("dedicated", "gpu", "NoSchedule"), Code::kSuccess, ""},
          {"Equal with another value",
           PodBuilder("p").Toleration("dedicated", "", "cpu", "NoSchedule"),
           NodeBuilder("n").Taint("dedicated", "gpu", "NoSchedule"),
           Code::kUnschedulableAndUnresolvable, "node(s) had untolerated taint {dedicated: gpu}"},
          {"Exists ignores the value", PodBuilder("p").Toleration("dedicated", "Exists", "", ""),
           NodeBuilder("n").Taint("dedicated", "gpu", "NoExecute"), Code::kSuccess, ""},
          {"effect must match", PodBuilder("p").Toleration("dedicated", "Exists", "", "NoExecute"),
           NodeBuilder("n").Taint("dedicated", "gpu", "NoSchedule"),
           Code::kUnschedulableAndUnresolvable, "node(s) had untolerated taint {dedicated: gpu}"},
          {"first untolerated taint is reported", PodBuilder("p").Toleration("a", "Exists", "", ""),
           NodeBuilder("n")
               .Taint("a", "1", "NoSchedule")
               .Taint("b", "2", "NoSchedule")
               .Taint("c", "3", "NoSchedule"),
           Code::kUnschedulableAndUnresolvable, "node(s) had untolerated taint {b: 2}"},
      });
}

TEST(TaintToleration, ScorePrefersFewerIntolerablePreferNoScheduleTaints) {
  TaintToleration plugin;
  auto pod = PodBuilder("p").Toleration("ok", "Exists", "", "PreferNoSchedule").Info();
  std::vector<NodeInfo> nodes = {
      MakeNodeInfo(NodeBuilder("clean").Build()),
      MakeNodeInfo(NodeBuilder("one").Taint("x", "", "PreferNoSchedule").Build()),
      MakeNodeInfo(NodeBuilder("two")
                       .Taint("x", "", "PreferNoSchedule")
                       .Taint("y", "", "PreferNoSchedule")
                       .Build()),
      MakeNodeInfo(NodeBuilder("tolerated")
                       .Taint("ok", "", "PreferNoSchedule")
                       .Taint("z", "", "NoSchedule")
                       .Build()),
  };
  CycleState state;
  std::vector<const NodeInfo*> ptrs;
  for (const NodeInfo& n : nodes) ptrs.push_back(&n);
  ASSERT_TRUE(plugin.PreScore(state, *pod, ptrs).IsSuccess());
  std::vector<NodeScore> scores;
  for (const NodeInfo& n : nodes) {
    int64_t s = 0;
    ASSERT_TRUE(plugin.Score(state, *pod, n, s).IsSuccess());
    scores.push_back({&n, s});
  }
  ASSERT_TRUE(plugin.NormalizeScore(state, *pod, scores).IsSuccess());
  std::vector<int64_t> got;
  for (const NodeScore& s : scores) got.push_back(s.score);
  EXPECT_EQ(got, (std::vector<int64_t>{100, 50, 0, 100}));
}

}  // namespace
}  // namespace allot::scheduler
