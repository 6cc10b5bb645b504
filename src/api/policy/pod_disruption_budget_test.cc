// PodDisruptionBudget (policy/v1): codec, validation, selection, scaled values.
#include "api/policy/pod_disruption_budget.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/machinery/resources.h"
#include "api/testing/expectations.h"

namespace allot::api {
namespace {

using testing::ExpectRoundTrip;

std::vector<std::string> Errors(const PodDisruptionBudget& pdb) {
  FieldErrors errs;
  ValidatePodDisruptionBudget(pdb, errs);
  return errs.Messages();
}

PodDisruptionBudget Budget() {
  PodDisruptionBudget pdb;
  pdb.metadata.name = "web";
  pdb.metadata.namespace_ = "default";
  return pdb;
}

IntOrString Int(int64_t v) { return {.int_value = v}; }
IntOrString Str(std::string s) { return {.is_string = true, .string_value = std::move(s)}; }

TEST(PodDisruptionBudgetTest, RoundTripsAndRegisters) {
  ExpectRoundTrip(
      R"({"kind":"PodDisruptionBudget","apiVersion":"policy/v1",)"
      R"("metadata":{"name":"web","namespace":"default"},)"
      R"("spec":{"minAvailable":2,"selector":{"matchLabels":{"app":"web"}},)"
      R"("unhealthyPodEvictionPolicy":"AlwaysAllow"},)"
      R"("status":{"observedGeneration":1,"disruptedPods":{"web-1":"2025-01-01T00:00:00Z"},)"
      R"("disruptionsAllowed":1,"currentHealthy":3,"desiredHealthy":2,"expectedPods":3,)"
      R"("conditions":[{"type":"DisruptionAllowed","status":"True","observedGeneration":1,)"
      R"("lastTransitionTime":"2025-01-01T00:00:00Z","reason":"SufficientPods","message":""}]}})");
  const ResourceInfo* r = ResourceRegistry::Default().Find("policy", "v1", "poddisruptionbudgets");
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(r->namespaced);
  EXPECT_TRUE(r->status_subresource);
  EXPECT_EQ(r->short_names, std::vector<std::string>{"pdb"});
}

TEST(PodDisruptionBudgetTest, Validation) {
  PodDisruptionBudget ok = Budget();
  ok.spec.minAvailable = Str("50%");
  EXPECT_TRUE(Errors(ok).empty());

  PodDisruptionBudget both = Budget();
  both.spec.minAvailable = Int(1);
  both.spec.maxUnavailable = Int(1);
  EXPECT_EQ(Errors(both), std::vector<std::string>{
                              "spec: Invalid value: \"\": minAvailable and maxUnavailable cannot "
                              "be both set"});
  PodDisruptionBudget negative = Budget();
  negative.spec.maxUnavailable = Int(-1);
  EXPECT_EQ(Errors(negative),
            std::vector<std::string>{
                "spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0"});
  PodDisruptionBudget over = Budget();
  over.spec.minAvailable = Str("150%");
  EXPECT_EQ(Errors(over), std::vector<std::string>{
                              "spec.minAvailable: Invalid value: \"150%\": must not be greater "
                              "than 100%"});
  PodDisruptionBudget words = Budget();
  words.spec.minAvailable = Str("half");
  ASSERT_EQ(Errors(words).size(), 1u);
  EXPECT_NE(Errors(words)[0].find("a valid percent string must be"), std::string::npos);
  PodDisruptionBudget policy = Budget();
  policy.spec.unhealthyPodEvictionPolicy = "Never";
  EXPECT_EQ(Errors(policy), std::vector<std::string>{
                                "spec.unhealthyPodEvictionPolicy: Unsupported value: \"Never\": "
                                "supported values: \"AlwaysAllow\", \"IfHealthyBudget\""});
}

TEST(PodDisruptionBudgetTest, SelectionAndScaledValues) {
  PodDisruptionBudget pdb = Budget();
  EXPECT_FALSE(PodDisruptionBudgetSelects(pdb, {{"app", "db"}}));  // no selector: no pod
  pdb.spec.selector = LabelSelector{};
  EXPECT_TRUE(PodDisruptionBudgetSelects(pdb, {{"app", "db"}}));  // empty: every pod
  pdb.spec.selector = LabelSelector{.matchLabels = {{"app", "web"}}};
  EXPECT_TRUE(PodDisruptionBudgetSelects(pdb, {{"app", "web"}}));
  EXPECT_FALSE(PodDisruptionBudgetSelects(pdb, {{"app", "db"}}));

  EXPECT_EQ(*ScaledValue(Int(3), 10), 3);
  EXPECT_EQ(*ScaledValue(Str("50%"), 5), 3);  // rounded up
  EXPECT_EQ(*ScaledValue(Str("0%"), 5), 0);
  EXPECT_FALSE(ScaledValue(Str("x"), 5).ok());
}

}  // namespace
}  // namespace allot::api
