// NodeAffinity plugin tests.
#include <gtest/gtest.h>

#include "scheduler/plugins/nodeaffinity/node_affinity.h"
#include "scheduler/testing/builders.h"
#include "scheduler/testing/filter_cases.h"

namespace allot::scheduler {
namespace {

using testing::MakeNodeInfo;
using testing::NodeBuilder;
using testing::PodBuilder;
using testing::RunFilterCases;

TEST(NodeAffinity, Filter) {
  NodeAffinity plugin;
  const std::string reason = "node(s) didn't match Pod's node affinity/selector";
  auto node = NodeBuilder("n1").Label("zone", "a").Label("gen", "5");
  RunFilterCases(
      plugin,
      {
          {"nothing asked: skipped", PodBuilder("p"), node, Code::kSuccess, ""},
          {"nodeSelector matches", PodBuilder("p").NodeSelector("zone", "a"), node, Code::kSuccess,
           ""},
          {"nodeSelector mismatch", PodBuilder("p").NodeSelector("zone", "b"), node,
           Code::kUnschedulableAndUnresolvable, reason},
          {"required In", PodBuilder("p").RequiredAffinity("zone", "In", {"a", "b"}), node,
           Code::kSuccess, ""},
          {"required NotIn", PodBuilder("p").RequiredAffinity("zone", "NotIn", {"a"}), node,
           Code::kUnschedulableAndUnresolvable, reason},
          {"required Exists", PodBuilder("p").RequiredAffinity("gen", "Exists", {}), node,
           Code::kSuccess, ""},
          {"required DoesNotExist", PodBuilder("p").RequiredAffinity("gpu", "DoesNotExist", {}),
           node, Code::kSuccess, ""},
          {"required Gt", PodBuilder("p").RequiredAffinity("gen", "Gt", {"4"}), node,
           Code::kSuccess, ""},
          {"required Lt", PodBuilder("p").RequiredAffinity("gen", "Lt", {"4"}), node,
           Code::kUnschedulableAndUnresolvable, reason},
          {"terms are ORed",
           PodBuilder("p")
               .RequiredAffinity("zone", "In", {"x"})
               .RequiredAffinity("gen", "In", {"5"}),
           node, Code::kSuccess, ""},
          {"selector and affinity both needed",
           PodBuilder("p").NodeSelector("zone", "a").RequiredAffinity("gen", "In", {"6"}), node,
           Code::kUnschedulableAndUnresolvable, reason},
          {"matchFields metadata.name", PodBuilder("p").RequiredNodeNames({"n1"}), node,
           Code::kSuccess, ""},
      });
}

TEST(NodeAffinity, PreFilterNarrowsToPinnedNames) {
  NodeAffinity plugin;
  CycleState state;
  PreFilterResult r;
  auto pod = PodBuilder("p").RequiredNodeNames({"b", "a"}).RequiredNodeNames({"c"}).Info();
  ASSERT_TRUE(plugin.PreFilter(state, *pod, r).IsSuccess());
  EXPECT_EQ(*r.node_names, (std::vector<std::string>{"a", "b", "c"}));
  PreFilterResult open;
  auto mixed =
      PodBuilder("p").RequiredNodeNames({"a"}).RequiredAffinity("zone", "In", {"x"}).Info();
  ASSERT_TRUE(plugin.PreFilter(state, *mixed, open).IsSuccess());
  EXPECT_TRUE(open.AllNodes());
}

TEST(NodeAffinity, ScoreSumsMatchingPreferredWeights) {
  NodeAffinity plugin;
  auto pod = PodBuilder("p")
                 .PreferredAffinity(80, "zone", "In", {"a"})
                 .PreferredAffinity(20, "disk", "In", {"ssd"})
                 .Info();
  std::vector<NodeInfo> nodes = {
      MakeNodeInfo(NodeBuilder("both").Label("zone", "a").Label("disk", "ssd").Build()),
      MakeNodeInfo(NodeBuilder("zone").Label("zone", "a").Build()),
      MakeNodeInfo(NodeBuilder("disk").Label("disk", "ssd").Build()),
      MakeNodeInfo(NodeBuilder("none").Build()),
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
  EXPECT_EQ(scores[0].score, 100);
  ASSERT_TRUE(plugin.NormalizeScore(state, *pod, scores).IsSuccess());
  std::vector<int64_t> got;
  for (const NodeScore& s : scores) got.push_back(s.score);
  EXPECT_EQ(got, (std::vector<int64_t>{100, 80, 20, 0}));
  EXPECT_TRUE(plugin.PreScore(state, *PodBuilder("q").Info(), ptrs).IsSkip());
}

TEST(NodeAffinity, QueueingHintOnlyForNodesThatNowMatch) {
  NodeAffinity plugin;
  auto events = plugin.EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  auto pod = PodBuilder("p").NodeSelector("zone", "a").Build();
  auto a = NodeBuilder("n").Label("zone", "a").Build();
  auto b = NodeBuilder("n").Label("zone", "b").Build();
  EXPECT_EQ(events[0].hint(*pod, nullptr, a.get()), QueueingHint::kQueue);
  EXPECT_EQ(events[0].hint(*pod, nullptr, b.get()), QueueingHint::kQueueSkip);
  EXPECT_EQ(events[0].hint(*pod, b.get(), a.get()), QueueingHint::kQueue);
  EXPECT_EQ(events[0].hint(*pod, a.get(), a.get()), QueueingHint::kQueueSkip);
}

}  // namespace
}  // namespace allot::scheduler
