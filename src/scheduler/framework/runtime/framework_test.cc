#include "scheduler/framework/runtime/framework.h"

#include <gtest/gtest.h>

#include "scheduler/testing/builders.h"
#include "scheduler/testing/fakes.h"

namespace allot::scheduler {
namespace {

using testing::FakeHooks;
using testing::FrameworkHarness;
using testing::NodeBuilder;
using testing::PodBuilder;

Status Reject(std::string reason) { return Status(Code::kUnschedulable, std::move(reason)); }

TEST(FrameworkBuild, ConfigurationErrors) {
  struct Case {
    std::string name;
    std::function<void(FrameworkHarness&)> setup;
    std::string error;
  };
  std::vector<Case> cases = {
      {"unknown plugin", [](FrameworkHarness& h) { h.Enable("filter", "Nope"); },
       "plugin \"Nope\" does not exist"},
      {"no bind plugin", [](FrameworkHarness&) {},
       "at least one bind plugin is needed for profile with scheduler name \"default-scheduler\""},
      {"plugin not implementing the point",
       [](FrameworkHarness& h) {
         h.Enable("bind", "DefaultBinder");
         h.Enable("filter", "PrioritySort");
       },
       "plugin \"PrioritySort\" does not extend Filter plugin"},
      {"no queue sort",
       [](FrameworkHarness& h) {
         h.Enable("bind", "DefaultBinder");
         h.Disable("queueSort", "*");
         h.profile().plugins.queue_sort.enabled.clear();
       },
       "no queue sort plugin is enabled in profile default-scheduler"},
      {"bad plugin args",
       [](FrameworkHarness& h) {
         h.Enable("bind", "DefaultBinder");
         h.Enable("filter", "NodeResourcesFit");
         h.profile().plugin_config.push_back(
             {"NodeResourcesFit", R"({"scoringStrategy":{"type":"Bogus"}})"});
       },
       "initializing plugin \"NodeResourcesFit\": scoringStrategy.type: Unsupported value: "
       "\"Bogus\": supported values: \"LeastAllocated\", \"MostAllocated\", "
       "\"RequestedToCapacityRatio\""},
  };
  for (const Case& c : cases) {
    FrameworkHarness h;
    c.setup(h);
    auto fw = h.Build();
    ASSERT_FALSE(fw.ok()) << c.name;
    EXPECT_EQ(fw.status().message(), c.error) << c.name;
  }
}

TEST(FrameworkBuild, DefaultProfileBuilds) {
  FrameworkHarness h;
  h.profile() = DefaultProfile();
  auto fw = h.Build();
  ASSERT_TRUE(fw.ok()) << fw.status().ToString();
  EXPECT_NE((*fw)->FindPlugin("NodeResourcesFit"), nullptr);
  EXPECT_EQ((*fw)->FindPlugin("Nope"), nullptr);
  EXPECT_TRUE((*fw)->HasScorePlugins());
}

TEST(Framework, PluginOrderPointFirstThenMultiPointMinusDisabled) {
  FrameworkHarness h;
  for (const char* n : {"A", "B", "C", "D"}) h.Add(n, {});
  h.Enable("multiPoint", "A");
  h.Enable("multiPoint", "B");
  h.Enable("multiPoint", "C");
  h.Enable("filter", "D");
  h.Disable("filter", "B");
  h.Enable("bind", "DefaultBinder");
  auto fw = h.Build();
  ASSERT_TRUE(fw.ok()) << fw.status().ToString();
  CycleState state;
  auto pod = PodBuilder("p").Info();
  NodeInfo node = testing::MakeNodeInfo(NodeBuilder("n").Cap("1", "1Gi").Build());
  EXPECT_TRUE((*fw)->RunFilterPlugins(state, *pod, node).IsSuccess());
  EXPECT_EQ(h.log(), (std::vector<std::string>{"D.Filter", "A.Filter", "C.Filter"}));

  FrameworkHarness all_off;
  for (const char* n : {"A", "B"}) all_off.Add(n, {});
  all_off.Enable("multiPoint", "A");
  all_off.Enable("multiPoint", "B");
  all_off.Disable("filter", "*");
  all_off.Enable("bind", "DefaultBinder");
  auto fw2 = all_off.Build();
  ASSERT_TRUE(fw2.ok());
  EXPECT_FALSE((*fw2)->HasFilterPlugins());
  EXPECT_TRUE((*fw2)->HasScorePlugins());
}

TEST(Framework, PreFilterSkipSkipsFilterAndRejectionNamesPlugin) {
  FrameworkHarness h;
  h.Add("Skipper", {.pre_filter = [](const PodInfo&, PreFilterResult&) { return Status::Skip(); },
                    .filter = [](const PodInfo&, const NodeInfo&) { return Reject("never"); }});
  h.Add("Rejecter", {.pre_filter = [](const PodInfo& p, PreFilterResult&) {
          return p.name() == "bad" ? Status(Code::kUnschedulableAndUnresolvable, "bad pod")
                                   : Status();
        }});
  h.Enable("multiPoint", "Skipper");
  h.Enable("multiPoint", "Rejecter");
  h.Enable("bind", "DefaultBinder");
  auto fw = h.Build();
  ASSERT_TRUE(fw.ok());
  CycleState state;
  PreFilterResult result;
  std::vector<std::string> plugins;
  auto good = PodBuilder("good").Info();
  EXPECT_TRUE((*fw)->RunPreFilterPlugins(state, *good, result, plugins).IsSuccess());
  NodeInfo node = testing::MakeNodeInfo(NodeBuilder("n").Cap("1", "1Gi").Build());
  EXPECT_TRUE((*fw)->RunFilterPlugins(state, *good, node).IsSuccess());

  auto bad = PodBuilder("bad").Info();
  Status st = (*fw)->RunPreFilterPlugins(state, *bad, result, plugins);
  EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(st.plugin(), "Rejecter");
  EXPECT_EQ(st.Message(), "bad pod");
  EXPECT_EQ(plugins, std::vector<std::string>{"Rejecter"});
}

TEST(Framework, PreFilterResultsIntersect) {
  FrameworkHarness h;
  auto names = [](std::vector<std::string> n) {
    return [n](const PodInfo&, PreFilterResult& r) {
      r.node_names = n;
      return Status();
    };
  };
  h.Add("P1", {.pre_filter = names({"a", "b"})});
  h.Add("P2", {.pre_filter = names({"b", "c"})});
  h.Add("P3", {.pre_filter = names({"c"})});
  h.Enable("preFilter", "P1");
  h.Enable("preFilter", "P2");
  h.Enable("bind", "DefaultBinder");
  auto fw = h.Build();
  ASSERT_TRUE(fw.ok());
  CycleState state;
  PreFilterResult result;
  std::vector<std::string> plugins;
  auto pod = PodBuilder("p").Info();
  ASSERT_TRUE((*fw)->RunPreFilterPlugins(state, *pod, result, plugins).IsSuccess());
  EXPECT_EQ(*result.node_names, std::vector<std::string>{"b"});

  h.Enable("preFilter", "P3");
  auto fw2 = h.Build();
  ASSERT_TRUE(fw2.ok());
  plugins.clear();
  Status st = (*fw2)->RunPreFilterPlugins(state, *pod, result, plugins);
  EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(st.Message(), "node(s) didn't satisfy plugin(s) [P1 P2 P3] simultaneously");
}

TEST(Framework, FilterStopsAtFirstFailureAndWrapsErrors) {
  FrameworkHarness h;
  h.Add("F1", {.filter = [](const PodInfo&, const NodeInfo& n) {
          if (n.name() == "broken") return Status::Error("kaboom");
          return n.name() == "full" ? Reject("Insufficient cpu") : Status();
        }});
  h.Add("F2", {.filter = [](const PodInfo&, const NodeInfo&) { return Reject("second"); }});
  h.Enable("filter", "F1");
  h.Enable("filter", "F2");
  h.Enable("bind", "DefaultBinder");
  auto fw = h.Build();
  ASSERT_TRUE(fw.ok());
  CycleState state;
  auto pod = PodBuilder("p").Info();
  NodeInfo full = testing::MakeNodeInfo(NodeBuilder("full").Cap("1", "1Gi").Build());
  Status st = (*fw)->RunFilterPlugins(state, *pod, full);
  EXPECT_EQ(st.plugin(), "F1");
  EXPECT_EQ(st.Message(), "Insufficient cpu");
  EXPECT_EQ(h.log(), std::vector<std::string>{"F1.Filter"});
  NodeInfo broken = testing::MakeNodeInfo(NodeBuilder("broken").Cap("1", "1Gi").Build());
  st = (*fw)->RunFilterPlugins(state, *pod, broken);
  EXPECT_TRUE(st.IsError());
  EXPECT_EQ(st.Message(), "running Filter plugin \"F1\": kaboom");
}

TEST(Framework, ScoresAreNormalizedWeightedAndChecked) {
  FrameworkHarness h;
  h.Add("S1", {.score = [](const PodInfo&, const NodeInfo& n) -> int64_t {
                 return n.name() == "a" ? 10 : 5;
               },
               .normalize = [](std::span<NodeScore> s) { DefaultNormalizeScore(100, false, s); }});
  h.Add("S2", {.score = [](const PodInfo&, const NodeInfo& n) -> int64_t {
          return n.name() == "a" ? 0 : 100;
        }});
  h.Add("Bad", {.score = [](const PodInfo&, const NodeInfo&) -> int64_t { return 101; }});
  h.Enable("score", "S1", 2);
  h.Enable("score", "S2", 1);
  h.Enable("bind", "DefaultBinder");
  auto fw = h.Build();
  ASSERT_TRUE(fw.ok());
  NodeInfo a = testing::MakeNodeInfo(NodeBuilder("a").Cap("1", "1Gi").Build());
  NodeInfo b = testing::MakeNodeInfo(NodeBuilder("b").Cap("1", "1Gi").Build());
  std::vector<const NodeInfo*> nodes = {&a, &b};
  CycleState state;
  auto pod = PodBuilder("p").Info();
  ASSERT_TRUE((*fw)->RunPreScorePlugins(state, *pod, nodes).IsSuccess());
  std::vector<int64_t> totals;
  ASSERT_TRUE((*fw)->RunScorePlugins(state, *pod, nodes, totals).IsSuccess());
  EXPECT_EQ(totals, (std::vector<int64_t>{200, 100 + 100}));

  h.Enable("score", "Bad");
  auto fw2 = h.Build();
  ASSERT_TRUE(fw2.ok());
  ASSERT_TRUE((*fw2)->RunPreScorePlugins(state, *pod, nodes).IsSuccess());
  Status st = (*fw2)->RunScorePlugins(state, *pod, nodes, totals);
  EXPECT_TRUE(st.IsError());
  EXPECT_EQ(st.Message(),
            "plugin \"Bad\" returns an invalid score 101, it should in the range of [0, 100] "
            "after normalizing");
}

TEST(Framework, UnreserveRunsInReverseOrder) {
  FrameworkHarness h;
  h.Add("R1", {});
  h.Add("R2", {.reserve = [](const PodInfo&, const std::string&) { return Reject("no room"); }});
  h.Enable("reserve", "R1");
  h.Enable("reserve", "R2");
  h.Enable("bind", "DefaultBinder");
  auto fw = h.Build();
  ASSERT_TRUE(fw.ok());
  CycleState state;
  auto pod = PodBuilder("p").Info();
  Status st = (*fw)->RunReservePluginsReserve(state, *pod, "n");
  EXPECT_EQ(st.plugin(), "R2");
  (*fw)->RunReservePluginsUnreserve(state, *pod, "n");
  EXPECT_EQ(h.log(),
            (std::vector<std::string>{"R1.Reserve", "R2.Reserve", "R2.Unreserve", "R1.Unreserve"}));
}

TEST(Framework, PermitWaitAllowRejectAndTimeout) {
  FrameworkHarness h;
  auto wait = [](const PodInfo&, const std::string&, std::chrono::milliseconds& t) {
    t = std::chrono::seconds(10);
    return Status(Code::kWait, "");
  };
  h.Add("Gang", {.permit = wait});
  h.Enable("permit", "Gang");
  h.Enable("bind", "DefaultBinder");
  auto fw = h.Build();
  ASSERT_TRUE(fw.ok());
  CycleState state;

  auto p1 = PodBuilder("p1").Info();
  EXPECT_TRUE((*fw)->RunPermitPlugins(state, p1, "n").IsWait());
  std::optional<Status> out1;
  (*fw)->WaitOnPermit(*p1, [&](Status st) { out1 = st; });
  EXPECT_FALSE(out1.has_value());
  (*fw)->waiting_pods().Get(p1->uid())->Allow("Gang");
  ASSERT_TRUE(out1.has_value());
  EXPECT_TRUE(out1->IsSuccess());
  EXPECT_EQ((*fw)->waiting_pods().size(), 0u);

  auto p2 = PodBuilder("p2").Info();
  EXPECT_TRUE((*fw)->RunPermitPlugins(state, p2, "n").IsWait());
  (*fw)->waiting_pods().Get(p2->uid())->Reject("Gang", "gang incomplete");
  std::optional<Status> out2;
  (*fw)->WaitOnPermit(*p2, [&](Status st) { out2 = st; });
  ASSERT_TRUE(out2.has_value());
  EXPECT_EQ(out2->code(), Code::kUnschedulable);
  EXPECT_EQ(out2->plugin(), "Gang");

  auto p3 = PodBuilder("p3").Info();
  EXPECT_TRUE((*fw)->RunPermitPlugins(state, p3, "n").IsWait());
  std::optional<Status> out3;
  (*fw)->WaitOnPermit(*p3, [&](Status st) { out3 = st; });
  h.clock().Advance(std::chrono::seconds(9));
  (*fw)->waiting_pods().CheckTimeouts(h.clock().Steady());
  EXPECT_FALSE(out3.has_value());
  h.clock().Advance(std::chrono::seconds(2));
  (*fw)->waiting_pods().CheckTimeouts(h.clock().Steady());
  ASSERT_TRUE(out3.has_value());
  EXPECT_EQ(out3->Message(), "rejected due to timeout after waiting 10s at plugin Gang");
}

TEST(Framework, PreBindNeedsAWorkerOnlyWhereAPluginMayBlock) {
  FrameworkHarness h;
  h.Add("Async", {.pre_bind_may_block = [](const PodInfo&) { return false; }});
  h.Add("Sync", {.pre_bind_may_block = [](const PodInfo& p) { return p.name() == "blocks"; }});
  h.Enable("preBind", "Async");
  h.Enable("preBind", "Sync");
  h.Enable("bind", "DefaultBinder");
  auto fw = h.Build();
  ASSERT_TRUE(fw.ok());
  CycleState state;
  EXPECT_EQ((*fw)->NeedsPreBind(state, *PodBuilder("p").Info(), "n"),
            Framework::PreBindNeed::kAnyThread);
  EXPECT_EQ((*fw)->NeedsPreBind(state, *PodBuilder("blocks").Info(), "n"),
            Framework::PreBindNeed::kWorker);

  FrameworkHarness none;
  none.Enable("bind", "DefaultBinder");
  auto fw2 = none.Build();
  ASSERT_TRUE(fw2.ok());
  EXPECT_EQ((*fw2)->NeedsPreBind(state, *PodBuilder("p").Info(), "n"),
            Framework::PreBindNeed::kNothing);
}

TEST(Framework, BindAsksBindersUntilOneDoesNotSkip) {
  FrameworkHarness h;
  h.Add("B1", {});  // skips
  h.Add("B2", {.bind = [](const PodInfo&, const std::string& node, BindCallback done) {
          done(node == "bad" ? Status::Error("conflict") : Status());
        }});
  h.Enable("bind", "B1");
  h.Enable("bind", "B2");
  auto fw = h.Build();
  ASSERT_TRUE(fw.ok());
  CycleState state;
  auto pod = PodBuilder("p").Info();
  std::optional<Status> out;
  std::string node = "good";
  (*fw)->RunBindPlugins(state, *pod, node, [&](Status st) { out = st; });
  ASSERT_TRUE(out && out->IsSuccess());
  EXPECT_EQ(h.log(), (std::vector<std::string>{"B1.Bind", "B2.Bind"}));
  node = "bad";
  (*fw)->RunBindPlugins(state, *pod, node, [&](Status st) { out = st; });
  EXPECT_EQ(out->Message(), "running Bind plugin \"B2\": conflict");

  FrameworkHarness only_skip;
  only_skip.Add("B1", {});
  only_skip.Enable("bind", "B1");
  auto fw2 = only_skip.Build();
  ASSERT_TRUE(fw2.ok());
  (*fw2)->RunBindPlugins(state, *pod, node, [&](Status st) { out = st; });
  EXPECT_EQ(out->Message(), "all bind plugins skipped binding pod \"p\"");
}

TEST(Parallelizer, RunsEveryIndexOnceAndStopsEarly) {
  for (int parallelism : {1, 2, 4}) {
    Parallelizer par(parallelism, /*start_helpers=*/parallelism - 1);
    EXPECT_EQ(par.helpers(), parallelism - 1);
    std::vector<std::atomic<int>> hits(1000);
    par.Until(1000, [&](int i) { hits[i]++; });
    for (auto& h : hits) EXPECT_EQ(h.load(), 1);
    std::atomic<int> done{0};
    std::atomic<bool> stop{false};
    par.Until(
        100000,
        [&](int) {
          if (++done >= 10) stop = true;
        },
        &stop);
    EXPECT_LT(done.load(), 100000);
    // Many loops in a row, the helpers taking part (and the tuner free to move them).
    for (int round = 0; round < 600; ++round) {
      std::vector<std::atomic<int>> each(300);
      par.Until(300, [&](int i) { each[i]++; });
      for (auto& h : each) ASSERT_EQ(h.load(), 1);
    }
  }
  EXPECT_EQ(Parallelizer::ChunkSize(10000, 16), 100);
  EXPECT_EQ(Parallelizer::ChunkSize(100, 16), 7);
  EXPECT_EQ(Parallelizer::ChunkSize(1, 16), 1);
}

}  // namespace
}  // namespace allot::scheduler
