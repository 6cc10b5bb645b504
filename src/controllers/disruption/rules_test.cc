// The disruption controller's arithmetic: expected and desired counts for each kind of budget,
// healthy pods, disruptedPods expiry, the condition, and the fail-safe status.
#include "controllers/disruption/rules.h"

#include <gtest/gtest.h>

#include <deque>

#include "api/machinery/conditions.h"

namespace allot::controllers {
namespace {

const Time kNow = Time::FromUnixSeconds(1700000000);

class DisruptionRulesTest : public ::testing::Test {
 protected:
  // A pod of the budget; Ready unless said otherwise.
  api::Pod& AddPod(const std::string& name, bool ready = true) {
    api::Pod& p = pods_.emplace_back();
    p.metadata.namespace_ = "default";
    p.metadata.name = name;
    p.metadata.labels = {{"app", "db"}};
    p.status.phase = "Running";
    p.status.conditions.push_back({.type = "Ready", .status = ready ? "True" : "False"});
    return p;
  }
  std::vector<const api::Pod*> Pods() const {
    std::vector<const api::Pod*> out;
    for (const api::Pod& p : pods_) out.push_back(&p);
    return out;
  }
  static api::PodDisruptionBudget MinAvailable(api::IntOrString v) {
    api::PodDisruptionBudget pdb;
    pdb.metadata.namespace_ = "default";
    pdb.metadata.name = "db";
    pdb.metadata.generation = 1;
    pdb.spec.selector = api::LabelSelector{.matchLabels = {{"app", "db"}}};
    pdb.spec.minAvailable = v;
    return pdb;
  }
  static api::PodDisruptionBudget MaxUnavailable(api::IntOrString v) {
    api::PodDisruptionBudget pdb = MinAvailable({});
    pdb.spec.minAvailable.reset();
    pdb.spec.maxUnavailable = v;
    return pdb;
  }
  static api::IntOrString Int(int64_t v) { return {.int_value = v}; }
  static api::IntOrString Percent(std::string v) {
    return {.is_string = true, .string_value = std::move(v)};
  }
  static const api::Condition* Allowed(const api::PodDisruptionBudgetStatus& s) {
    return api::FindStatusCondition(s.conditions, api::kDisruptionAllowedCondition);
  }

  std::deque<api::Pod> pods_;  // stable addresses
};

TEST_F(DisruptionRulesTest, MinAvailableCountsReadyPods) {
  AddPod("a");
  AddPod("b");
  AddPod("c");
  api::PodDisruptionBudget pdb = MinAvailable(Int(2));
  BudgetSync s = SyncBudget(pdb, Pods(), kNow);
  ASSERT_TRUE(s.error.ok());
  ASSERT_TRUE(s.status);
  EXPECT_EQ(s.status->expectedPods, 3);
  EXPECT_EQ(s.status->desiredHealthy, 2);
  EXPECT_EQ(s.status->currentHealthy, 3);
  EXPECT_EQ(s.status->disruptionsAllowed, 1);
  EXPECT_EQ(s.status->observedGeneration, 1);
  const api::Condition* c = Allowed(*s.status);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->status, "True");
  EXPECT_EQ(c->reason, "SufficientPods");
  EXPECT_EQ(c->observedGeneration, 1);
  EXPECT_FALSE(s.recheck_at);

  // Written, the next sync has nothing to write.
  pdb.status = *s.status;
  EXPECT_FALSE(SyncBudget(pdb, Pods(), kNow).status);
}

TEST_F(DisruptionRulesTest, UnreadyAndDeletingPodsAreNotHealthy) {
  AddPod("a");
  AddPod("b", /*ready=*/false);
  AddPod("c").metadata.rare.edit().deletionTimestamp = kNow;
  BudgetSync s = SyncBudget(MinAvailable(Int(1)), Pods(), kNow);
  ASSERT_TRUE(s.status);
  EXPECT_EQ(s.status->expectedPods, 3);  // every selected pod is expected
  EXPECT_EQ(s.status->currentHealthy, 1);
  EXPECT_EQ(s.status->disruptionsAllowed, 0);
  EXPECT_EQ(Allowed(*s.status)->status, "False");
  EXPECT_EQ(Allowed(*s.status)->reason, "InsufficientPods");
}

TEST_F(DisruptionRulesTest, EvictedPodsAreNotHealthyUntilTheirTimeoutAndThenReported) {
  AddPod("a");
  AddPod("b");
  AddPod("c");
  api::PodDisruptionBudget pdb = MinAvailable(Int(1));
  const Time recent = Time::FromUnixSeconds(kNow.unix_seconds() - 30);
  const Time stale = Time::FromUnixSeconds(kNow.unix_seconds() - 121);
  pdb.status.disruptedPods = {{"a", recent}, {"b", stale}, {"gone", recent}};
  BudgetSync s = SyncBudget(pdb, Pods(), kNow);
  ASSERT_TRUE(s.status);
  EXPECT_EQ(s.status->disruptedPods, (std::map<std::string, Time>{{"a", recent}}));
  EXPECT_EQ(s.status->currentHealthy, 2);  // b and c
  EXPECT_EQ(s.status->disruptionsAllowed, 1);
  EXPECT_EQ(s.not_deleted_pods, std::vector<std::string>{"b"});
  ASSERT_TRUE(s.recheck_at);
  EXPECT_EQ(s.recheck_at->unix_seconds(), recent.unix_seconds() + 120);
}

TEST_F(DisruptionRulesTest, NoPodsAllowNothing) {
  BudgetSync s = SyncBudget(MinAvailable(Int(0)), Pods(), kNow);
  ASSERT_TRUE(s.status);
  EXPECT_EQ(s.status->expectedPods, 0);
  EXPECT_EQ(s.status->disruptionsAllowed, 0);
}

TEST_F(DisruptionRulesTest, MaxUnavailableLeavesUnmanagedPodsOut) {
  AddPod("a");
  AddPod("b");
  BudgetSync s = SyncBudget(MaxUnavailable(Int(1)), Pods(), kNow);
  ASSERT_TRUE(s.error.ok());
  EXPECT_EQ(s.unmanaged_pods, (std::vector<std::string>{"a", "b"}));
  ASSERT_TRUE(s.status);
  EXPECT_EQ(s.status->expectedPods, 0);
  EXPECT_EQ(s.status->desiredHealthy, 0);
  EXPECT_EQ(s.status->currentHealthy, 2);
  EXPECT_EQ(s.status->disruptionsAllowed, 0);  // nothing expected: nothing allowed

  s = SyncBudget(MinAvailable(Percent("50%")), Pods(), kNow);
  EXPECT_EQ(s.unmanaged_pods.size(), 2u);
  EXPECT_EQ(s.status->disruptionsAllowed, 0);
}

TEST_F(DisruptionRulesTest, AControlledPodWithoutAScaleFailsSafe) {
  AddPod("a");
  AddPod("b").metadata.ownerReferences.push_back({.apiVersion = "apps/v1",
                                                  .kind = "ReplicaSet",
                                                  .name = "rs",
                                                  .uid = "u1",
                                                  .controller = true});
  api::PodDisruptionBudget pdb = MaxUnavailable(Percent("10%"));
  pdb.status.disruptionsAllowed = 3;
  pdb.status.currentHealthy = 2;
  BudgetSync s = SyncBudget(pdb, Pods(), kNow);
  EXPECT_EQ(s.error.message(), "found no controllers for pod \"b\"");
  ASSERT_TRUE(s.status);
  EXPECT_EQ(s.status->disruptionsAllowed, 0);
  EXPECT_EQ(s.status->currentHealthy, 2);  // the rest as it was
  const api::Condition* c = Allowed(*s.status);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->status, "False");
  EXPECT_EQ(c->reason, "SyncFailed");
  EXPECT_EQ(c->message, "found no controllers for pod \"b\"");

  pdb.status = *s.status;  // already fail-safe: nothing more to write
  EXPECT_FALSE(SyncBudget(pdb, Pods(), kNow).status);
}

TEST_F(DisruptionRulesTest, ANewGenerationIsObservedAndTheConditionKeepsItsTransitionTime) {
  AddPod("a");
  AddPod("b");
  api::PodDisruptionBudget pdb = MinAvailable(Int(1));
  pdb.status = *SyncBudget(pdb, Pods(), kNow).status;
  const Time first = *Allowed(pdb.status)->lastTransitionTime;

  pdb.metadata.generation = 2;  // the spec changed; the answer did not
  BudgetSync s = SyncBudget(pdb, Pods(), Time::FromUnixSeconds(kNow.unix_seconds() + 60));
  ASSERT_TRUE(s.status);
  EXPECT_EQ(s.status->observedGeneration, 2);
  EXPECT_EQ(Allowed(*s.status)->observedGeneration, 2);
  EXPECT_EQ(*Allowed(*s.status)->lastTransitionTime, first);
}

}  // namespace
}  // namespace allot::controllers
