#include "scheduler/plugins/noderesources/node_resources.h"

#include <gtest/gtest.h>

#include "api/koordinator/reservation.h"
#include "scheduler/testing/builders.h"
#include "testing/objects.h"

namespace allot::scheduler {
namespace {

using testing::MakeNodeInfo;
using testing::NodeBuilder;
using testing::PodBuilder;

struct FitCase {
  std::string name;
  PodBuilder pod;
  NodeBuilder node;
  std::vector<std::shared_ptr<api::Pod>> existing;
  Code code;
  std::vector<std::string> reasons;
  std::string args = "";
};

TEST(NodeResourcesFit, Filter) {
  std::vector<FitCase> cases = {
      {"fits",
       PodBuilder("p").Req("1", "1Gi"),
       NodeBuilder("n").Cap("2", "2Gi"),
       {},
       Code::kSuccess,
       {}},
      {"no requests fit anywhere with a pod slot",
       PodBuilder("p").Container({}),
       NodeBuilder("n").Cap("0", "0"),
       {},
       Code::kSuccess,
       {}},
      {"insufficient cpu because of existing pods",
       PodBuilder("p").Req("1"),
       NodeBuilder("n").Cap("2", "2Gi"),
       {PodBuilder("e").Req("1500m").Build()},
       Code::kUnschedulable,
       {"Insufficient cpu"}},
      {"cpu and memory",
       PodBuilder("p").Req("1", "2Gi"),
       NodeBuilder("n").Cap("2", "2Gi"),
       {PodBuilder("e").Req("1500m", "1Gi").Build()},
       Code::kUnschedulable,
       {"Insufficient cpu", "Insufficient memory"}},
      {"bigger than the node: unresolvable",
       PodBuilder("p").Req("3"),
       NodeBuilder("n").Cap("2", "2Gi"),
       {},
       Code::kUnschedulableAndUnresolvable,
       {"Insufficient cpu"}},
      {"too many pods",
       PodBuilder("p").Req("100m"),
       NodeBuilder("n").Cap("2", "2Gi", 1),
       {PodBuilder("e").Build()},
       Code::kUnschedulable,
       {"Too many pods"}},
      {"extended resource",
       PodBuilder("p").Container({{"example.com/gpu", "2"}}),
       NodeBuilder("n").Cap("2", "2Gi").Resource("example.com/gpu", "1"),
       {},
       Code::kUnschedulableAndUnresolvable,
       {"Insufficient example.com/gpu"}},
      {"extended resource the node lacks",
       PodBuilder("p").Container({{"example.com/gpu", "1"}}),
       NodeBuilder("n").Cap("2", "2Gi"),
       {},
       Code::kUnschedulableAndUnresolvable,
       {"Insufficient example.com/gpu"}},
      {"ignored extended resource",
       PodBuilder("p").Container({{"example.com/gpu", "1"}}),
       NodeBuilder("n").Cap("2", "2Gi"),
       {},
       Code::kSuccess,
       {},
       R"({"ignoredResources":["example.com/gpu"]})"},
      {"ignored resource group",
       PodBuilder("p").Container({{"example.com/gpu", "1"}}),
       NodeBuilder("n").Cap("2", "2Gi"),
       {},
       Code::kSuccess,
       {},
       R"({"ignoredResourceGroups":["example.com"]})"},
      {"ephemeral storage",
       PodBuilder("p").Container({{"ephemeral-storage", "2Gi"}}),
       NodeBuilder("n").Cap("2", "2Gi").Resource("ephemeral-storage", "1Gi"),
       {},
       Code::kUnschedulableAndUnresolvable,
       {"Insufficient ephemeral-storage"}},
      {"init container peak counts",
       PodBuilder("p").InitContainer({{"cpu", "3"}}).Req("1"),
       NodeBuilder("n").Cap("2", "2Gi"),
       {},
       Code::kUnschedulableAndUnresolvable,
       {"Insufficient cpu"}},
      {"overhead counts",
       PodBuilder("p").Req("1").Overhead({{"cpu", "1500m"}}),
       NodeBuilder("n").Cap("2", "2Gi"),
       {},
       Code::kUnschedulableAndUnresolvable,
       {"Insufficient cpu"}},
  };
  for (const FitCase& c : cases) {
    auto args = ParseNodeResourcesFitArgs(c.args);
    ASSERT_TRUE(args.ok()) << c.name;
    NodeResourcesFit fit(*args);
    NodeInfo node = MakeNodeInfo(c.node.Build(), c.existing);
    CycleState state;
    Status st = fit.Filter(state, *c.pod.Info(), node);
    EXPECT_EQ(st.code(), c.code) << c.name;
    EXPECT_EQ(std::vector<std::string>(st.reasons().begin(), st.reasons().end()), c.reasons)
        << c.name;
  }
}

struct ScoreCase {
  std::string name;
  std::string args;
  PodBuilder pod;
  std::vector<std::pair<NodeBuilder, std::vector<std::shared_ptr<api::Pod>>>> nodes;
  std::vector<int64_t> want;
};

TEST(NodeResourcesFit, ScoringStrategies) {
  auto n1 = NodeBuilder("n1").Cap("4", "10000");
  auto n2 = NodeBuilder("n2").Cap("6", "10000");
  auto pod = PodBuilder("p").Req("3", "5000");
  std::vector<ScoreCase> cases = {
      {"least allocated, differently sized nodes", "", pod, {{n1, {}}, {n2, {}}}, {37, 50}},
      {"most allocated",
       R"({"scoringStrategy":{"type":"MostAllocated"}})",
       pod,
       {{n1, {}}, {n2, {}}},
       {62, 50}},
      {"requested to capacity ratio (spread shape)",
       R"({"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":
           {"shape":[{"utilization":0,"score":10},{"utilization":100,"score":0}]}}})",
       pod,
       {{n1, {}}, {n2, {}}},
       {38, 50}},
      {"requested to capacity ratio (bin packing shape)",
       R"({"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":
           {"shape":[{"utilization":0,"score":0},{"utilization":100,"score":10}]}}})",
       pod,
       {{n1, {}}, {n2, {}}},
       {63, 50}},
      {"existing pods count; best-effort pods count as 100m/200Mi",
       "",
       PodBuilder("p").Container({}),
       {{NodeBuilder("n").Cap("1", "1Gi"), {PodBuilder("e").Req("500m", "512Mi").Build()}}},
       {(40 + 30) / 2}},
      {"weights",
       R"({"scoringStrategy":{"resources":[{"name":"cpu","weight":3},
           {"name":"memory","weight":1}]}})",
       pod,
       {{n1, {}}},
       {(25 * 3 + 50) / 4}},
      {"over-committed node scores 0",
       "",
       PodBuilder("p").Req("8", "5000"),
       {{n1, {}}},
       {(0 + 50) / 2}},
  };
  for (const ScoreCase& c : cases) {
    auto args = ParseNodeResourcesFitArgs(c.args);
    ASSERT_TRUE(args.ok()) << c.name << ": " << args.status().ToString();
    NodeResourcesFit fit(*args);
    CycleState state;
    for (size_t i = 0; i < c.nodes.size(); ++i) {
      NodeInfo node = MakeNodeInfo(c.nodes[i].first.Build(), c.nodes[i].second);
      int64_t score = -1;
      ASSERT_TRUE(fit.Score(state, *c.pod.Info(), node, score).IsSuccess());
      EXPECT_EQ(score, c.want[i]) << c.name << " node " << i;
    }
  }
}

TEST(NodeResourcesFit, ArgsValidation) {
  std::vector<std::pair<std::string, std::string>> bad = {
      {R"({"scoringStrategy":{"resources":[{"name":"cpu","weight":0}]}})",
       "scoringStrategy.resources[0].weight: Invalid value: must be in the range [1, 100]"},
      {R"({"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":
          {"shape":[{"utilization":50,"score":1},{"utilization":10,"score":2}]}}})",
       "scoringStrategy.requestedToCapacityRatio.shape[1].utilization: Invalid value: "
       "utilization values must be sorted in increasing order"},
      {R"({"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":
          {"shape":[{"utilization":50,"score":11}]}}})",
       "scoringStrategy.requestedToCapacityRatio.shape[0].score: Invalid value: not in valid "
       "range [0, 10]"},
      {R"({"bogus":1})", "unknown field \"bogus\""},
  };
  for (const auto& [json, msg] : bad) {
    auto r = ParseNodeResourcesFitArgs(json);
    ASSERT_FALSE(r.ok()) << json;
    EXPECT_EQ(r.status().message(), msg);
  }
}

TEST(BalancedAllocation, ScoresEvenUseHigher) {
  BalancedAllocation ba({{"cpu", 1}, {"memory", 1}});
  auto pod = PodBuilder("p").Req("3", "5000").Info();
  CycleState state;
  std::vector<const NodeInfo*> none;
  ASSERT_TRUE(ba.PreScore(state, *pod, none).IsSuccess());
  struct Case {
    NodeBuilder node;
    std::vector<std::shared_ptr<api::Pod>> existing;
    int64_t want;
  };
  std::vector<Case> cases = {
      {NodeBuilder("n1").Cap("4", "10000"), {}, 87},                                  // 0.75 vs 0.5
      {NodeBuilder("n2").Cap("6", "10000"), {}, 100},                                 // 0.5 vs 0.5
      {NodeBuilder("n3").Cap("6", "10000"), {PodBuilder("e").Req("3").Build()}, 75},  // 1 vs .5
  };
  for (const Case& c : cases) {
    NodeInfo node = MakeNodeInfo(c.node.Build(), c.existing);
    int64_t score = -1;
    ASSERT_TRUE(ba.Score(state, *pod, node, score).IsSuccess());
    EXPECT_EQ(score, c.want) << node.name();
  }
  auto best_effort = PodBuilder("be").Container({}).Info();
  EXPECT_TRUE(ba.PreScore(state, *best_effort, none).IsSkip());
  auto three = ParseBalancedAllocationArgs(
      R"({"resources":[{"name":"cpu"},{"name":"memory"},{"name":"example.com/gpu"}]})");
  ASSERT_TRUE(three.ok());
  EXPECT_EQ(three->size(), 3u);
}

TEST(ResourceScoring, BrokenLinearFunction) {
  std::vector<UtilizationShapePoint> shape = {{10, 20}, {50, 100}, {80, 0}};
  struct Case {
    int64_t p, want;
  };
  for (Case c : std::vector<Case>{{0, 20}, {10, 20}, {30, 60}, {50, 100}, {65, 50}, {90, 0}}) {
    EXPECT_EQ(BrokenLinear(shape, c.p), c.want) << c.p;
  }
  EXPECT_EQ(LeastRequestedScore(5, 0), 0);
  EXPECT_EQ(MostRequestedScore(15, 10), 100);
}

// A reservation that becomes Available frees, for its owners only, what its reserve pod held:
// an owner that NodeResourcesFit rejected before is tried again.
TEST(NodeResourcesFit, AReservationPlacedRequeuesItsOwners) {
  auto args = ParseNodeResourcesFitArgs("");
  ASSERT_TRUE(args.ok());
  NodeResourcesFit fit(*args);
  const QueueingHintFn* hint = nullptr;
  auto events = fit.EventsToRegister();
  for (const ClusterEventWithHint& e : events) {
    if (e.event.resource == EventResource::kReservation) hint = &e.hint;
  }
  ASSERT_NE(hint, nullptr);
  auto reservation = [](const std::string& phase, const std::string& node) {
    auto r = allot::testing::MakeReservation(
        "r", R"({"template":{"spec":{"containers":[{"name":"c","image":"i"}]}},)"
             R"("owners":[{"labelSelector":{"matchLabels":{"app":"train"}}}]})");
    auto* typed = api::As<api::Reservation>(*r);
    typed->status.phase = phase;
    typed->status.nodeName = node;
    return r;
  };
  auto pending = reservation("Pending", "");
  auto available = reservation("Available", "n1");
  auto owner = PodBuilder("owner").Label("app", "train").Build();
  auto other = PodBuilder("other").Label("app", "web").Build();
  EXPECT_EQ((*hint)(*owner, pending.get(), available.get()), QueueingHint::kQueue);
  EXPECT_EQ((*hint)(*owner, nullptr, available.get()), QueueingHint::kQueue);
  EXPECT_EQ((*hint)(*other, pending.get(), available.get()), QueueingHint::kQueueSkip);
  EXPECT_EQ((*hint)(*owner, available.get(), available.get()), QueueingHint::kQueueSkip);
  EXPECT_EQ((*hint)(*owner, nullptr, pending.get()), QueueingHint::kQueueSkip);
}

}  // namespace
}  // namespace allot::scheduler
