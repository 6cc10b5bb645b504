// Table-driven tests of the small in-tree plugins: NodeName, NodeUnschedulable, NodePorts,
// TaintToleration, NodeAffinity, SchedulingGates, PrioritySort.
#include <gtest/gtest.h>

#include "scheduler/plugin_node_affinity.h"
#include "scheduler/plugin_simple.h"
#include "scheduler/plugin_taint_toleration.h"
#include "scheduler/testing_builders.h"

namespace allot::scheduler {
namespace {

using testing::MakeNodeInfo;
using testing::NodeBuilder;
using testing::PodBuilder;

struct FilterCase {
  std::string name;
  PodBuilder pod;
  NodeBuilder node;
  Code code;
  std::string reason;
  std::vector<std::shared_ptr<api::Pod>> existing = {};
};

// Runs PreFilter (when the plugin has one; Skip means "passes") and Filter.
template <class P>
void RunFilterCases(P& plugin, const std::vector<FilterCase>& cases) {
  for (const FilterCase& c : cases) {
    CycleState state;
    PodInfoPtr pod = c.pod.Info();
    NodeInfo node = MakeNodeInfo(c.node.Build(), c.existing);
    Status st;
    if constexpr (std::is_base_of_v<PreFilterPlugin, P>) {
      PreFilterResult r;
      st = plugin.PreFilter(state, *pod, r);
      if (st.IsSkip()) {
        EXPECT_EQ(c.code, Code::kSuccess) << c.name;
        continue;
      }
      ASSERT_TRUE(st.IsSuccess()) << c.name << ": " << st.ToString();
    }
    st = plugin.Filter(state, *pod, node);
    EXPECT_EQ(st.code(), c.code) << c.name << ": " << st.ToString();
    EXPECT_EQ(st.Message(), c.reason) << c.name;
  }
}

TEST(NodeName, Filter) {
  NodeName plugin;
  RunFilterCases(
      plugin,
      {
          {"no nodeName", PodBuilder("p"), NodeBuilder("n1"), Code::kSuccess, ""},
          {"matching", PodBuilder("p").NodeName("n1"), NodeBuilder("n1"), Code::kSuccess, ""},
          {"other node", PodBuilder("p").NodeName("n2"), NodeBuilder("n1"),
           Code::kUnschedulableAndUnresolvable, "node(s) didn't match the requested node name"},
      });
  CycleState state;
  PreFilterResult r;
  ASSERT_TRUE(plugin.PreFilter(state, *PodBuilder("p").NodeName("n7").Info(), r).IsSuccess());
  EXPECT_EQ(*r.node_names, std::vector<std::string>{"n7"});
}

TEST(NodeUnschedulable, Filter) {
  NodeUnschedulable plugin;
  RunFilterCases(plugin,
                 {
                     {"schedulable", PodBuilder("p"), NodeBuilder("n"), Code::kSuccess, ""},
                     {"cordoned", PodBuilder("p"), NodeBuilder("n").Unschedulable(),
                      Code::kUnschedulableAndUnresolvable, "node(s) were unschedulable"},
                     {"tolerates the unschedulable taint",
                      PodBuilder("p").Toleration("node.kubernetes.io/unschedulable", "Exists", "",
                                                 "NoSchedule"),
                      NodeBuilder("n").Unschedulable(), Code::kSuccess, ""},
                     {"tolerates everything", PodBuilder("p").Toleration("", "Exists", "", ""),
                      NodeBuilder("n").Unschedulable(), Code::kSuccess, ""},
                 });
}

TEST(NodePorts, Filter) {
  NodePorts plugin;
  auto user = [](int32_t port, std::string proto = "", std::string ip = "") {
    return PodBuilder("u").HostPort(port, proto, ip).Build();
  };
  const std::string reason = "node(s) didn't have free ports for the requested pod ports";
  RunFilterCases(plugin, {
                             {"no host ports: skipped",
                              PodBuilder("p").Req("1"),
                              NodeBuilder("n"),
                              Code::kSuccess,
                              "",
                              {user(80)}},
                             {"free",
                              PodBuilder("p").HostPort(8080),
                              NodeBuilder("n"),
                              Code::kSuccess,
                              "",
                              {user(80)}},
                             {"taken",
                              PodBuilder("p").HostPort(80),
                              NodeBuilder("n"),
                              Code::kUnschedulable,
                              reason,
                              {user(80)}},
                             {"other protocol",
                              PodBuilder("p").HostPort(53, "UDP"),
                              NodeBuilder("n"),
                              Code::kSuccess,
                              "",
                              {user(53, "TCP")}},
                             {"specific IPs differ",
                              PodBuilder("p").HostPort(80, "TCP", "10.0.0.2"),
                              NodeBuilder("n"),
                              Code::kSuccess,
                              "",
                              {user(80, "TCP", "10.0.0.1")}},
                             {"wildcard vs specific",
                              PodBuilder("p").HostPort(80, "TCP", "10.0.0.2"),
                              NodeBuilder("n"),
                              Code::kUnschedulable,
                              reason,
                              {user(80)}},
                         });
}

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

TEST(SchedulingGates, PreEnqueue) {
  SchedulingGates plugin;
  EXPECT_TRUE(plugin.PreEnqueue(*PodBuilder("p").Build()).IsSuccess());
  Status st = plugin.PreEnqueue(*PodBuilder("p").Gate("a").Gate("b").Build());
  EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(st.Message(), "waiting for scheduling gates: [a b]");
}

TEST(PrioritySort, PriorityThenTimestamp) {
  PrioritySort sort;
  auto mk = [](int32_t prio, int secs) {
    QueuedPodInfo q;
    q.pod_info = PodBuilder("p").Priority(prio).Info();
    q.timestamp = std::chrono::steady_clock::time_point(std::chrono::seconds(secs));
    return q;
  };
  EXPECT_TRUE(sort.Less(mk(10, 5), mk(1, 1)));
  EXPECT_FALSE(sort.Less(mk(1, 1), mk(10, 5)));
  EXPECT_TRUE(sort.Less(mk(1, 1), mk(1, 2)));
  EXPECT_FALSE(sort.Less(mk(1, 2), mk(1, 2)));
}

}  // namespace
}  // namespace allot::scheduler
