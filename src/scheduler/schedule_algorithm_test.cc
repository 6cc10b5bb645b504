#include "scheduler/schedule_algorithm.h"

#include <gtest/gtest.h>

#include <set>

#include "scheduler/testing/builders.h"
#include "scheduler/testing/fakes.h"

namespace allot::scheduler {
namespace {

using testing::FrameworkHarness;
using testing::NodeBuilder;
using testing::PodBuilder;

TEST(NumFeasibleNodesToFind, AdaptiveAndConfigured) {
  struct Case {
    int32_t percentage, nodes, want;
  };
  std::vector<Case> cases = {
      {0, 10, 10},    {0, 99, 99},       {0, 100, 100},   {0, 500, 230},    {0, 1000, 420},
      {0, 5000, 500}, {0, 6000, 300},    {0, 10000, 500}, {0, 20000, 1000}, {50, 1000, 500},
      {10, 500, 100}, {100, 5000, 5000}, {30, 50, 50},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(NumFeasibleNodesToFind(c.percentage, c.nodes), c.want)
        << c.percentage << "% of " << c.nodes;
  }
}

Diagnosis MakeDiagnosis(const std::vector<std::pair<std::string, std::vector<std::string>>>& v,
                        std::vector<NodeInfo>& storage) {
  Diagnosis d;
  storage.reserve(v.size());
  for (const auto& [node, reasons] : v) {
    storage.push_back(testing::MakeNodeInfo(NodeBuilder(node).Cap("1", "1Gi").Build()));
    d.node_to_status.Set(&storage.back(), Status(Code::kUnschedulable, reasons));
  }
  return d;
}

TEST(FitErrorMessage, CountsAndSortsReasons) {
  std::vector<NodeInfo> storage;
  Diagnosis d = MakeDiagnosis({{"n1", {"Insufficient cpu"}},
                               {"n2", {"Insufficient cpu", "Insufficient memory"}},
                               {"n3", {"node(s) had untolerated taint {dedicated: gpu}"}},
                               {"n4", {"Insufficient cpu"}},
                               {"n5", {"node(s) had untolerated taint {dedicated: gpu}"}}},
                              storage);
  EXPECT_EQ(FitErrorMessage(5, d),
            "0/5 nodes are available: 1 Insufficient memory, 2 node(s) had untolerated taint "
            "{dedicated: gpu}, 3 Insufficient cpu.");
  d.post_filter_msg =
      "preemption: 0/5 nodes are available: 5 No preemption victims found for "
      "incoming pod.";
  EXPECT_EQ(FitErrorMessage(5, d),
            "0/5 nodes are available: 1 Insufficient memory, 2 node(s) had untolerated taint "
            "{dedicated: gpu}, 3 Insufficient cpu. preemption: 0/5 nodes are available: 5 No "
            "preemption victims found for incoming pod.");

  Diagnosis pre;
  pre.pre_filter_msg = "waiting for something";
  EXPECT_EQ(FitErrorMessage(3, pre), "0/3 nodes are available: waiting for something.");

  std::vector<NodeInfo> s2;
  Diagnosis absent =
      MakeDiagnosis({{"n1", {"node(s) didn't match Pod's node affinity/selector"}}}, s2);
  absent.node_to_status.set_absent(
      Status(Code::kUnschedulableAndUnresolvable, "node(s) didn't satisfy plugin(s) [NodeName]"));
  EXPECT_EQ(FitErrorMessage(4, absent),
            "0/4 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 3 "
            "node(s) didn't satisfy plugin(s) [NodeName].");
}

struct Cluster {
  std::vector<std::shared_ptr<const api::Node>> nodes;
  std::unique_ptr<Snapshot> snapshot;
};

Cluster MakeCluster(int n) {
  Cluster c;
  for (int i = 0; i < n; ++i) {
    c.nodes.push_back(NodeBuilder("n" + std::to_string(i)).Cap("4", "8Gi").Build());
  }
  c.snapshot = Snapshot::FromObjects(c.nodes, {});
  return c;
}

TEST(ScheduleAlgorithm, StopsAfterEnoughFeasibleNodesAndRotates) {
  Cluster c = MakeCluster(1000);
  FrameworkHarness h;
  h.Add("AllFit", {});
  h.Enable("filter", "AllFit");
  h.Enable("bind", "DefaultBinder");
  h.SetSnapshot(std::move(c.snapshot));
  auto fw = h.Build();
  ASSERT_TRUE(fw.ok());
  ScheduleAlgorithm algo(0, 1);
  CycleState state;
  ScheduleResult r;
  Diagnosis d;
  auto pod = PodBuilder("p").Info();
  ASSERT_TRUE(algo.SchedulePod(**fw, state, *pod, h.snapshot(), r, d).IsSuccess());
  EXPECT_EQ(r.feasible_nodes, 420u);
  EXPECT_EQ(r.evaluated_nodes, 420u);
  EXPECT_EQ(algo.last_feasible().front()->name(), "n0");
  // The next cycle starts where this one stopped.
  ASSERT_TRUE(algo.SchedulePod(**fw, state, *pod, h.snapshot(), r, d).IsSuccess());
  EXPECT_EQ(algo.last_feasible().front()->name(), "n420");
}

TEST(ScheduleAlgorithm, UnschedulableDiagnosisNamesEveryNode) {
  Cluster c = MakeCluster(5);
  FrameworkHarness h;
  h.Add("Odd", {.filter = [](const PodInfo&, const NodeInfo& n) {
          int i = std::stoi(n.name().substr(1));
          if (i < 3) return Status(Code::kUnschedulable, "Insufficient cpu");
          return Status(Code::kUnschedulableAndUnresolvable,
                        "node(s) had untolerated taint {k: v}");
        }});
  h.Enable("filter", "Odd");
  h.Enable("bind", "DefaultBinder");
  h.SetSnapshot(std::move(c.snapshot));
  auto fw = h.Build();
  ASSERT_TRUE(fw.ok());
  ScheduleAlgorithm algo(0, 1);
  CycleState state;
  ScheduleResult r;
  Diagnosis d;
  auto pod = PodBuilder("p").Info();
  Status st = algo.SchedulePod(**fw, state, *pod, h.snapshot(), r, d);
  EXPECT_EQ(st.code(), Code::kUnschedulable);
  EXPECT_EQ(d.unschedulable_plugins, std::vector<std::string>{"Odd"});
  EXPECT_EQ(FitErrorMessage(5, d),
            "0/5 nodes are available: 2 node(s) had untolerated taint {k: v}, 3 Insufficient "
            "cpu.");
}

TEST(ScheduleAlgorithm, NoNodesIsAnError) {
  FrameworkHarness h;
  h.Enable("bind", "DefaultBinder");
  auto fw = h.Build();
  ASSERT_TRUE(fw.ok());
  ScheduleAlgorithm algo(0, 1);
  CycleState state;
  ScheduleResult r;
  Diagnosis d;
  auto pod = PodBuilder("p").Info();
  Status st = algo.SchedulePod(**fw, state, *pod, h.snapshot(), r, d);
  EXPECT_TRUE(st.IsError());
  EXPECT_EQ(st.Message(), "no nodes available to schedule pods");
}

TEST(ScheduleAlgorithm, PicksHighestScoreAndBreaksTiesRandomly) {
  Cluster c = MakeCluster(6);
  FrameworkHarness h;
  h.Add("Prefer", {.score = [](const PodInfo&, const NodeInfo& n) -> int64_t {
          return n.name() == "n1" || n.name() == "n4" ? 90 : 10;
        }});
  h.Enable("score", "Prefer");
  h.Enable("bind", "DefaultBinder");
  h.SetSnapshot(std::move(c.snapshot));
  auto fw = h.Build();
  ASSERT_TRUE(fw.ok());
  ScheduleAlgorithm algo(0, 42);
  std::set<std::string> chosen;
  for (int i = 0; i < 50; ++i) {
    CycleState state;
    ScheduleResult r;
    Diagnosis d;
    auto pod = PodBuilder("p").Info();
    ASSERT_TRUE(algo.SchedulePod(**fw, state, *pod, h.snapshot(), r, d).IsSuccess());
    chosen.insert(r.suggested_host);
  }
  EXPECT_EQ(chosen, (std::set<std::string>{"n1", "n4"}));
}

// kube-scheduler's evaluateNominatedNode: the node preemption nominated the pod to is filtered
// first, alone, and taken when the pod fits there.
TEST(ScheduleAlgorithm, TriesTheNominatedNodeFirst) {
  Cluster c = MakeCluster(6);
  FrameworkHarness h;
  h.Add("Prefer", {.filter =
                       [](const PodInfo&, const NodeInfo& n) {
                         if (n.name() == "n5") return Status(Code::kUnschedulable, "Full");
                         return Status();
                       },
                   .score = [](const PodInfo&, const NodeInfo& n) -> int64_t {
                     return n.name() == "n1" ? 90 : 10;
                   }});
  h.Enable("filter", "Prefer");
  h.Enable("score", "Prefer");
  h.Enable("bind", "DefaultBinder");
  h.SetSnapshot(std::move(c.snapshot));
  auto fw = h.Build();
  ASSERT_TRUE(fw.ok());
  ScheduleAlgorithm algo(0, 1);
  auto nominated = [](const std::string& node) {
    auto pod = PodBuilder("p").Build();
    pod->status.nominatedNodeName = node;
    return PodInfo::Make(pod);
  };
  CycleState state;
  ScheduleResult r;
  Diagnosis d;
  ASSERT_TRUE(algo.SchedulePod(**fw, state, *nominated("n4"), h.snapshot(), r, d).IsSuccess());
  EXPECT_EQ(r.suggested_host, "n4");  // not the best-scoring n1: no other node was looked at
  EXPECT_EQ(r.evaluated_nodes, 1u);
  // The nominated node no longer fits: every node is filtered, each counted once.
  CycleState state2;
  ASSERT_TRUE(algo.SchedulePod(**fw, state2, *nominated("n5"), h.snapshot(), r, d).IsSuccess());
  EXPECT_EQ(r.suggested_host, "n1");
  EXPECT_EQ(r.evaluated_nodes, 6u);
  EXPECT_EQ(d.node_to_status.size(), 1u);
  // A node that is gone is no shortcut.
  CycleState state3;
  ASSERT_TRUE(algo.SchedulePod(**fw, state3, *nominated("gone"), h.snapshot(), r, d).IsSuccess());
  EXPECT_EQ(r.suggested_host, "n1");
}

TEST(ScheduleAlgorithm, PreFilterResultLimitsCandidates) {
  Cluster c = MakeCluster(4);
  FrameworkHarness h;
  h.Add("Pin", {.pre_filter =
                    [](const PodInfo&, PreFilterResult& r) {
                      r.node_names = std::vector<std::string>{"n2"};
                      return Status();
                    },
                .filter =
                    [](const PodInfo&, const NodeInfo&) {
                      return Status(Code::kUnschedulable, "Insufficient cpu");
                    }});
  h.Enable("preFilter", "Pin");
  h.Enable("filter", "Pin");
  h.Enable("bind", "DefaultBinder");
  h.SetSnapshot(std::move(c.snapshot));
  auto fw = h.Build();
  ASSERT_TRUE(fw.ok());
  ScheduleAlgorithm algo(0, 1);
  CycleState state;
  ScheduleResult r;
  Diagnosis d;
  auto pod = PodBuilder("p").Info();
  Status st = algo.SchedulePod(**fw, state, *pod, h.snapshot(), r, d);
  EXPECT_TRUE(st.IsRejected());
  EXPECT_EQ(FitErrorMessage(4, d),
            "0/4 nodes are available: 1 Insufficient cpu, 3 node(s) didn't satisfy plugin(s) "
            "[Pin].");
}

}  // namespace
}  // namespace allot::scheduler
