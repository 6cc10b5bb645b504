// The clusterrole-aggregation controller against a memory store: an aggregated ClusterRole gets
// the rules of the roles its selectors match, follows them as they change, and the rule order
// is Kubernetes' (selector by selector, roles by name, each rule once).
#include "controllers/clusterroleaggregation/controller.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <thread>

#include "client/informer_factory.h"
#include "client/inprocess/inprocess_client.h"
#include "controllers/testing/controller_test.h"
#include "store/backend.h"
#include "store/store.h"
#include "testing/objects.h"
#include "testing/wait.h"

namespace allot::controllers {
namespace {

using api::PolicyRule;
using std::chrono::seconds;

PolicyRule Rule(std::string verb, std::string resource) {
  return PolicyRule{{std::move(verb)}, {""}, {std::move(resource)}, {}, {}};
}

api::ClusterRole Role(std::string name, api::StringMap labels, std::vector<PolicyRule> rules) {
  api::ClusterRole r;
  r.metadata.name = std::move(name);
  r.metadata.labels = std::move(labels);
  r.rules = std::move(rules);
  return r;
}

api::ClusterRole Aggregating(std::string name, std::vector<api::StringMap> selectors) {
  api::ClusterRole r = Role(std::move(name), {}, {});
  r.aggregationRule.emplace();
  for (auto& labels : selectors) {
    api::LabelSelector s;
    s.matchLabels = std::move(labels);
    r.aggregationRule->clusterRoleSelectors.push_back(std::move(s));
  }
  return r;
}

TEST(AggregatedRulesTest, SelectorBySelectorRolesByNameEachRuleOnce) {
  api::ClusterRole view = Role("view-extra", {{"agg", "view"}}, {Rule("get", "pods")});
  api::ClusterRole b = Role("b", {{"agg", "edit"}}, {Rule("delete", "pods"), Rule("get", "pods")});
  api::ClusterRole a = Role("a", {{"agg", "edit"}}, {Rule("update", "pods")});
  api::ClusterRole self = Aggregating("edit", {{{"agg", "edit"}}, {{"agg", "view"}}});
  self.metadata.labels = {{"agg", "edit"}};  // a role never gathers from itself
  self.rules = {Rule("stale", "pods")};
  std::vector<PolicyRule> rules = AggregatedRules(self, {&view, &b, &self, &a});
  EXPECT_EQ(rules, (std::vector<PolicyRule>{Rule("update", "pods"), Rule("delete", "pods"),
                                            Rule("get", "pods")}));
  EXPECT_TRUE(AggregatedRules(a, {&view, &b, &a}).empty());  // no aggregationRule
}

class ClusterRoleAggregationTest
    : public ControllerTest<ClusterRoleAggregationController, ClusterRoleAggregationOptions> {
 protected:
  void SetUp() override {
    ControllerTest::SetUp();
    StartController();
  }
  static const api::ResourceInfo& Roles() { return api::ResourceFor<api::ClusterRole>(); }
  void Create(const api::ClusterRole& r) {
    auto created = client_->Create(Roles(), std::make_unique<api::ClusterRole>(r));
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }
  std::vector<PolicyRule> RulesOf(const std::string& name) {
    auto got = client_->Get(Roles(), "", name);
    if (!got.ok()) return {};
    return static_cast<const api::ClusterRole&>(**got).rules;
  }
  // Polls the store (the controller writes from its own thread; no timer is involved).
  bool WaitForRules(const std::string& name, const std::vector<PolicyRule>& want) {
    return testing::WaitUntil([&] { return RulesOf(name) == want; });
  }
};

TEST_F(ClusterRoleAggregationTest, TheAggregatedRoleFollowsTheRolesItSelects) {
  Create(Role("pods-reader", {{"example.com/aggregate-to-monitoring", "true"}},
              {Rule("get", "pods")}));
  Create(Aggregating("monitoring", {{{"example.com/aggregate-to-monitoring", "true"}}}));
  EXPECT_TRUE(WaitForRules("monitoring", {Rule("get", "pods")}));
  // A role labelled later joins, in name order.
  Create(Role("nodes-reader", {{"example.com/aggregate-to-monitoring", "true"}},
              {Rule("get", "nodes")}));
  EXPECT_TRUE(WaitForRules("monitoring", {Rule("get", "nodes"), Rule("get", "pods")}));
  // One that is deleted leaves.
  ASSERT_TRUE(client_->Delete(Roles(), "", "nodes-reader").ok());
  EXPECT_TRUE(WaitForRules("monitoring", {Rule("get", "pods")}));
  // Rules written into the aggregated role by hand are replaced.
  auto edited = std::make_unique<api::ClusterRole>(
      static_cast<const api::ClusterRole&>(**client_->Get(Roles(), "", "monitoring")));
  edited->rules.push_back(Rule("*", "secrets"));
  ASSERT_TRUE(client_->Update(Roles(), std::move(edited)).ok());
  EXPECT_TRUE(WaitForRules("monitoring", {Rule("get", "pods")}));
}

}  // namespace
}  // namespace allot::controllers
