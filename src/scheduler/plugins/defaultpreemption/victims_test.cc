// Victim selection and node choice against brute-force oracles on small random clusters (CPU
// only; with devices, the same oracle runs end to end in src/integration/preemption_test.cc,
// VictimsWithDevicesMatchTheOracleOnRandomNodes).
#include "scheduler/plugins/defaultpreemption/victims.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <tuple>

#include "scheduler/testing/builders.h"
#include "scheduler/testing/fakes.h"

namespace allot::scheduler::preemption {
namespace {

using testing::FrameworkHarness;
using testing::NodeBuilder;
using testing::PodBuilder;

constexpr int64_t kNodeCpu = 8;
const Time kNow = Time::FromUnixSeconds(1700000000);

struct FitFramework {
  FrameworkHarness h;
  std::unique_ptr<Framework> fw;
  FitFramework() {
    h.Enable("multiPoint", "NodeResourcesFit");
    h.Enable("bind", "DefaultBinder");
    auto built = h.Build();
    EXPECT_TRUE(built.ok()) << built.status().ToString();
    fw = std::move(built).value();
  }
};

PodInfoPtr MakePod(const std::string& name, int64_t cpu, int32_t priority, int64_t start,
                   const std::string& app = "") {
  PodBuilder b(name);
  b.Uid("uid-" + name).Req(std::to_string(cpu)).Priority(priority);
  if (!app.empty()) b.Label("app", app);
  auto pod = b.Build();
  pod->spec.nodeName = "n";
  pod->status.startTime = Time::FromUnixSeconds(kNow.unix_seconds() - 1000 + start);
  return PodInfo::Make(pod);
}

int64_t Cpu(const PodInfo& p) { return p.requests.milli_cpu / 1000; }

TEST(VictimsTest, MatchesTheOracleOnRandomNodes) {
  FitFramework s;
  std::mt19937 rng(7);
  int candidates = 0, rejected = 0;
  for (int round = 0; round < 400; ++round) {
    NodeInfo node;
    node.SetNode(NodeBuilder("n").Cap(std::to_string(kNodeCpu), "64Gi").Build());
    std::vector<PodInfoPtr> pods;
    int64_t used = 0;
    for (int i = 0; i < 6; ++i) {
      int64_t cpu = 1 + rng() % 3;
      if (used + cpu > kNodeCpu) break;
      used += cpu;
      pods.push_back(MakePod("p" + std::to_string(i), cpu, static_cast<int32_t>(rng() % 4),
                             static_cast<int64_t>(rng() % 100), rng() % 2 ? "db" : "web"));
      node.AddPod(pods.back());
    }
    PodInfoPtr preemptor = MakePod("preemptor", 1 + rng() % kNodeCpu, 2 + rng() % 3, 0);
    std::vector<Budget> budgets;
    if (rng() % 2) {
      Budget b;
      b.namespace_ = "default";
      b.selector = *api::LabelSelectorExpr::Parse("app=db");
      b.disruptions_allowed = static_cast<int32_t>(rng() % 2);
      budgets.push_back(std::move(b));
    }
    CycleState state;
    PreFilterResult pre;
    std::vector<std::string> plugins;
    ASSERT_TRUE(s.fw->RunPreFilterPlugins(state, *preemptor, pre, plugins).IsSuccess());
    NodeInfo copy = node;
    Victims v;
    Status st = SelectVictimsOnNode(*s.fw, state, *preemptor, copy, budgets, nullptr, kNow, v);

    // Oracle: preemption can help iff the preemptor fits once every lower pod is gone.
    int64_t kept = 0;
    bool any_lower = false;
    for (const PodInfoPtr& p : pods) {
      if (p->priority >= preemptor->priority) kept += Cpu(*p);
      any_lower = any_lower || p->priority < preemptor->priority;
    }
    const bool possible = any_lower && kept + Cpu(*preemptor) <= kNodeCpu;
    ASSERT_EQ(st.IsSuccess(), possible) << st.Message() << " round " << round;
    if (!possible) {
      ++rejected;
      continue;
    }
    ++candidates;
    // Victims: all of lower priority, enough to fit, and none could stay (adding any one of
    // them back to what remains breaks the fit).
    int64_t freed = 0;
    for (const PodInfoPtr& p : v.pods) {
      EXPECT_LT(p->priority, preemptor->priority);
      freed += Cpu(*p);
    }
    const int64_t remaining = used - freed;
    EXPECT_LE(remaining + Cpu(*preemptor), kNodeCpu) << "round " << round;
    for (const PodInfoPtr& p : v.pods) {
      EXPECT_GT(remaining + Cpu(*p) + Cpu(*preemptor), kNodeCpu)
          << p->name() << " could have been reprieved, round " << round;
    }
    // Sorted most important first.
    for (size_t i = 1; i < v.pods.size(); ++i) {
      EXPECT_FALSE(MoreImportant(*v.pods[i], *v.pods[i - 1], kNow));
    }
    // PDB violations, as Kubernetes counts them: the lower pods, most important first, spend
    // the budget; a victim among those past its allowance is a violation.
    std::vector<PodInfoPtr> lower;
    for (const PodInfoPtr& p : pods) {
      if (p->priority < preemptor->priority) lower.push_back(p);
    }
    std::sort(lower.begin(), lower.end(),
              [](const PodInfoPtr& a, const PodInfoPtr& b) { return MoreImportant(*a, *b, kNow); });
    std::set<std::string> over;
    int32_t allowed = budgets.empty() ? 0 : budgets[0].disruptions_allowed;
    for (const PodInfoPtr& p : lower) {
      if (!budgets.empty() && p->pod->metadata.labels.at("app") == "db" && --allowed < 0) {
        over.insert(p->name());
      }
    }
    int violations = 0;
    for (const PodInfoPtr& p : v.pods) violations += over.count(p->name());
    EXPECT_EQ(v.pdb_violations, violations) << "round " << round;
  }
  EXPECT_GT(candidates, 50);
  EXPECT_GT(rejected, 50);
}

// The lexicographic order PickOneNode implements, computed directly.
std::tuple<int, int64_t, int64_t, size_t, int64_t> Key(const Candidate& c) {
  const auto& v = c.victims.pods;
  int64_t top = v.empty() ? INT64_MIN : v[0]->priority;
  int64_t sum = 0;
  int64_t earliest = INT64_MAX;
  for (const PodInfoPtr& p : v) {
    sum += int64_t{p->priority} + INT32_MAX + 1;
    if (p->priority == v[0]->priority)
      earliest = std::min(earliest, p->pod->status.startTime->unix_micros);
  }
  // Smaller is better in every position (the latest start wins: negated).
  return {c.victims.pdb_violations, top, sum, v.size(), -earliest};
}

TEST(VictimsTest, PickOneNodeFollowsKubernetesOrder) {
  std::mt19937 rng(11);
  for (int round = 0; round < 500; ++round) {
    std::vector<Candidate> cs;
    int n = 1 + static_cast<int>(rng() % 5);
    for (int i = 0; i < n; ++i) {
      Candidate c;
      c.node = "n" + std::to_string(i);
      c.victims.pdb_violations = static_cast<int>(rng() % 2);
      int k = 1 + static_cast<int>(rng() % 3);
      for (int j = 0; j < k; ++j) {
        c.victims.pods.push_back(MakePod(c.node + "-" + std::to_string(j), 1,
                                         static_cast<int32_t>(rng() % 3),
                                         static_cast<int64_t>(rng() % 4)));
      }
      std::sort(
          c.victims.pods.begin(), c.victims.pods.end(),
          [](const PodInfoPtr& a, const PodInfoPtr& b) { return MoreImportant(*a, *b, kNow); });
      cs.push_back(std::move(c));
    }
    size_t best = 0;
    for (size_t i = 1; i < cs.size(); ++i) {
      if (Key(cs[i]) < Key(cs[best])) best = i;
    }
    size_t picked = PickOneNode(cs, kNow);
    EXPECT_EQ(Key(cs[picked]), Key(cs[best])) << "round " << round;
  }
}

TEST(VictimsTest, BudgetsSplitInOrderAndSkipDisruptedPods) {
  Budget b;
  b.namespace_ = "default";
  b.selector = *api::LabelSelectorExpr::Parse("app=db");
  b.disruptions_allowed = 1;
  b.disrupted = {"a"};
  std::vector<PodInfoPtr> pods = {MakePod("a", 1, 0, 0, "db"), MakePod("b", 1, 0, 1, "db"),
                                  MakePod("c", 1, 0, 2, "db"), MakePod("d", 1, 0, 3, "web")};
  std::vector<PodInfoPtr> violating, non_violating;
  SplitByBudgets(pods, {b}, violating, non_violating);
  ASSERT_EQ(violating.size(), 1u);
  EXPECT_EQ(violating[0]->name(), "c");  // "a" is already counted; "b" spends the one allowed
  ASSERT_EQ(non_violating.size(), 3u);
}

}  // namespace
}  // namespace allot::scheduler::preemption
