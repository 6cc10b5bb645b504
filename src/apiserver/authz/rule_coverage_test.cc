// Rule coverage against the cases Kubernetes' own comparison is tested with (wildcards in owner
// and servant, resourceNames, subresources, nonResourceURLs), the breakdown into atoms, the
// compaction of what is missing and the message form.
#include "apiserver/authz/rule_coverage.h"

#include <gtest/gtest.h>

namespace allot::apiserver::authz {
namespace {

using Strings = std::vector<std::string>;

PolicyRule Res(Strings groups, Strings verbs, Strings resources, Strings names = {}) {
  return PolicyRule{std::move(verbs), std::move(groups), std::move(resources), std::move(names),
                    {}};
}
PolicyRule Urls(Strings urls, Strings verbs) {
  return PolicyRule{std::move(verbs), {}, {}, {}, std::move(urls)};
}

struct CoverCase {
  const char* name;
  std::vector<PolicyRule> owner;
  std::vector<PolicyRule> servant;
  std::vector<PolicyRule> uncovered;  // empty: covered
};

class CoversTest : public ::testing::TestWithParam<CoverCase> {};

TEST_P(CoversTest, MatchesKubernetes) {
  const CoverCase& c = GetParam();
  std::vector<PolicyRule> uncovered;
  EXPECT_EQ(Covers(c.owner, c.servant, &uncovered), c.uncovered.empty());
  EXPECT_EQ(uncovered, c.uncovered);
  EXPECT_EQ(Covers(c.owner, c.servant), c.uncovered.empty());  // without the list
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CoversTest,
    ::testing::Values(
        CoverCase{"ExactMatch", {Res({"v1"}, {"get"}, {"builds"})},
                  {Res({"v1"}, {"get"}, {"builds"})}, {}},
        CoverCase{"SubresourceWildcard", {Res({"v1"}, {"get"}, {"*/scale"})},
                  {Res({"v1"}, {"get"}, {"foo/scale"})}, {}},
        CoverCase{"ResourceDoesNotCoverItsSubresource", {Res({""}, {"get"}, {"pods"})},
                  {Res({""}, {"get"}, {"pods/status"})},
                  {Res({""}, {"get"}, {"pods/status"})}},
        CoverCase{"SubresourceWildcardDoesNotCoverTheResource", {Res({""}, {"get"}, {"*/status"})},
                  {Res({""}, {"get"}, {"pods", "pods/status"})},
                  {Res({""}, {"get"}, {"pods"})}},
        CoverCase{"MultipleRulesCoveringSingleRule",
                  {Res({"v1"}, {"delete"}, {"deployments"}), Res({"v1"}, {"delete"}, {"builds"}),
                   Res({"v1"}, {"update"}, {"builds", "deployments"})},
                  {Res({"v1"}, {"delete", "update"}, {"builds", "deployments"})},
                  {}},
        CoverCase{"MultipleAPIGroupsCoveringSingleRule",
                  {Res({"group1"}, {"delete"}, {"deployments"}),
                   Res({"group1"}, {"delete"}, {"builds"}),
                   Res({"group1"}, {"update"}, {"builds", "deployments"}),
                   Res({"group2"}, {"delete"}, {"deployments"}),
                   Res({"group2"}, {"delete"}, {"builds"}),
                   Res({"group2"}, {"update"}, {"builds", "deployments"})},
                  {Res({"group1", "group2"}, {"delete", "update"}, {"builds", "deployments"})},
                  {}},
        CoverCase{"SingleAPIGroupsCoveringMultiple",
                  {Res({"group1", "group2"}, {"delete", "update"}, {"builds", "deployments"})},
                  {Res({"group1"}, {"delete"}, {"deployments"}),
                   Res({"group1"}, {"delete"}, {"builds"}),
                   Res({"group1"}, {"update"}, {"builds", "deployments"}),
                   Res({"group2"}, {"delete"}, {"deployments"}),
                   Res({"group2"}, {"delete"}, {"builds"}),
                   Res({"group2"}, {"update"}, {"builds", "deployments"})},
                  {}},
        CoverCase{"MultipleRulesMissingSingleVerbResourceCombination",
                  {Res({"v1"}, {"delete", "update"}, {"builds", "deployments"}),
                   Res({"v1"}, {"delete"}, {"pods"})},
                  {Res({"v1"}, {"delete", "update"}, {"builds", "deployments", "pods"})},
                  {Res({"v1"}, {"update"}, {"pods"})}},
        CoverCase{"APIGroupStarCoveringMultiple", {Res({"*"}, {"get"}, {"roles"})},
                  {Res({"group1", "group2"}, {"get"}, {"roles"})}, {}},
        CoverCase{"EnumerationNotCoveringAPIGroupStar", {Res({"dummy-group"}, {"get"}, {"roles"})},
                  {Res({"*"}, {"get"}, {"roles"})},
                  {Res({"*"}, {"get"}, {"roles"})}},
        CoverCase{"APIGroupStarCoveringStar", {Res({"*"}, {"get"}, {"roles"})},
                  {Res({"*"}, {"get"}, {"roles"})}, {}},
        CoverCase{"VerbStarCoveringMultiple", {Res({"v1"}, {"*"}, {"roles"})},
                  {Res({"v1"}, {"watch", "list"}, {"roles"})}, {}},
        CoverCase{"EnumerationNotCoveringVerbStar",
                  {Res({"v1"}, {"get", "list", "watch", "create", "update", "delete", "exec"},
                       {"roles"})},
                  {Res({"v1"}, {"*"}, {"roles"})},
                  {Res({"v1"}, {"*"}, {"roles"})}},
        CoverCase{"VerbStarCoveringStar", {Res({"v1"}, {"*"}, {"roles"})},
                  {Res({"v1"}, {"*"}, {"roles"})}, {}},
        CoverCase{"ResourceStarCoveringMultiple", {Res({"v1"}, {"get"}, {"*"})},
                  {Res({"v1"}, {"get"}, {"resourcegroup:deployments"})}, {}},
        CoverCase{"EnumerationNotCoveringResourceStar",
                  {Res({"v1"}, {"get"}, {"roles", "resourcegroup:deployments"})},
                  {Res({"v1"}, {"get"}, {"*"})},
                  {Res({"v1"}, {"get"}, {"*"})}},
        CoverCase{"ResourceStarCoveringStar", {Res({"v1"}, {"get"}, {"*"})},
                  {Res({"v1"}, {"get"}, {"*"})}, {}},
        CoverCase{"ResourceNameEmptyCoveringMultiple", {Res({"v1"}, {"get"}, {"pods"})},
                  {Res({"v1"}, {"get"}, {"pods"}, {"foo", "bar"})}, {}},
        CoverCase{"EnumerationNotCoveringResourceNameEmpty",
                  {Res({"v1"}, {"get"}, {"pods"}, {"foo", "bar"})},
                  {Res({"v1"}, {"get"}, {"pods"})},
                  {Res({"v1"}, {"get"}, {"pods"})}},
        CoverCase{"ResourceNamesPartlyCovered", {Res({""}, {"get"}, {"secrets"}, {"a"})},
                  {Res({""}, {"get"}, {"secrets"}, {"a", "b"})},
                  {Res({""}, {"get"}, {"secrets"}, {"b"})}},
        CoverCase{"NonResourceURLs", {Urls({"/apis"}, {"*"})}, {Urls({"/apis"}, {"*"})}, {}},
        CoverCase{"NonResourceURLsStar", {Urls({"*"}, {"*"})},
                  {Urls({"/apis", "/apis/v1", "/"}, {"*"})}, {}},
        CoverCase{"NonResourceURLsStarAfterPrefixDoesntCover", {Urls({"/apis/*"}, {"*"})},
                  {Urls({"/apis", "/apis/v1"}, {"get"})},
                  {Urls({"/apis"}, {"get"})}},
        CoverCase{"NonResourceURLsStarAfterPrefix", {Urls({"/apis/*"}, {"*"})},
                  {Urls({"/apis/v1/foo", "/apis/v1"}, {"get"})}, {}},
        CoverCase{"NonResourceURLsWithOtherFields",
                  {PolicyRule{{"get"}, {"v1"}, {"builds"}, {}, {"/apis"}}},
                  {PolicyRule{{"get"}, {"v1"}, {"builds"}, {}, {"/apis"}}},
                  {}},
        CoverCase{"NonResourceURLsWithOtherFieldsFailure", {Res({"v1"}, {"get"}, {"builds"})},
                  {PolicyRule{{"get"}, {"v1"}, {"builds"}, {}, {"/apis"}}},
                  {Urls({"/apis"}, {"get"})}},
        CoverCase{"ResourceRulesDoNotCoverURLs", {Res({"*"}, {"*"}, {"*"})},
                  {Urls({"/metrics"}, {"get"})},
                  {Urls({"/metrics"}, {"get"})}},
        CoverCase{"URLRulesDoNotCoverResources", {Urls({"*"}, {"*"})},
                  {Res({""}, {"get"}, {"pods"})},
                  {Res({""}, {"get"}, {"pods"})}},
        CoverCase{"NothingCoversSomething", {}, {Res({""}, {"get"}, {"pods"})},
                  {Res({""}, {"get"}, {"pods"})}},
        CoverCase{"AnythingCoversNothing", {}, {}, {}}),
    [](const ::testing::TestParamInfo<CoverCase>& info) { return info.param.name; });

TEST(NonResourceUrlCoverageTest, PrefixesEndInAStar) {
  struct {
    const char* owner;
    const char* url;
    bool covered;
  } cases[] = {
      {"*", "", true},           {"*", "/", true},          {"*", "/api", true},
      {"/*", "", false},         {"/*", "/", true},         {"/*", "/foo", true},
      {"/api", "/api", true},    {"/apis", "/api", false},  {"/api/v1", "/api", false},
      {"/api/v1", "/api/v1", true}, {"/api/*", "/api/v1", true}, {"/api/*", "/api", false},
      {"/api/*/*", "/api/v1", false}, {"/*/v1/*", "/api/v1", false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(Covers({Urls({c.owner}, {"get"})}, {Urls({c.url}, {"get"})}), c.covered)
        << c.owner << " over " << c.url;
  }
}

TEST(BreakdownRuleTest, OneAtomPerGroupResourceVerbAndName) {
  auto atoms = BreakdownRule(PolicyRule{{"get", "list"}, {"", "apps"}, {"pods"}, {"a", "b"}, {}});
  ASSERT_EQ(atoms.size(), 8u);
  EXPECT_EQ(atoms[0], Res({""}, {"get"}, {"pods"}, {"a"}));
  EXPECT_EQ(atoms[1], Res({""}, {"get"}, {"pods"}, {"b"}));
  EXPECT_EQ(atoms[2], Res({""}, {"list"}, {"pods"}, {"a"}));
  EXPECT_EQ(atoms[7], Res({"apps"}, {"list"}, {"pods"}, {"b"}));
  atoms = BreakdownRule(Urls({"/healthz", "/version"}, {"get"}));
  ASSERT_EQ(atoms.size(), 2u);
  EXPECT_EQ(atoms[1], Urls({"/version"}, {"get"}));
  // A resource rule without groups grants nothing (validation refuses it).
  EXPECT_TRUE(BreakdownRule(PolicyRule{{"get"}, {}, {"pods"}, {}, {}}).empty());
}

TEST(CompactRulesTest, MergesVerbsOfOneGroupResourceAndName) {
  auto compact = CompactRules({Res({""}, {"get"}, {"pods"}), Urls({"/metrics"}, {"get"}),
                               Res({""}, {"list"}, {"pods"}), Res({"apps"}, {"get"}, {"pods"}),
                               Res({""}, {"get"}, {"pods"}, {"p"}),
                               Res({""}, {"delete"}, {"pods"}, {"p"})});
  ASSERT_EQ(compact.size(), 4u);
  EXPECT_EQ(compact[0], Urls({"/metrics"}, {"get"}));
  EXPECT_EQ(compact[1], Res({""}, {"get", "list"}, {"pods"}));
  EXPECT_EQ(compact[2], Res({"apps"}, {"get"}, {"pods"}));
  EXPECT_EQ(compact[3], Res({""}, {"get", "delete"}, {"pods"}, {"p"}));
}

TEST(CompactStringTest, OnlyTheFieldsThatAreSetAsGoQuotedLists) {
  EXPECT_EQ(CompactString(Res({"*"}, {"*"}, {"*"})),
            R"({APIGroups:["*"], Resources:["*"], Verbs:["*"]})");
  EXPECT_EQ(CompactString(Res({""}, {"get", "list"}, {"secrets"}, {"db"})),
            R"({APIGroups:[""], Resources:["secrets"], ResourceNames:["db"], Verbs:["get" "list"]})");
  EXPECT_EQ(CompactString(Urls({"/metrics"}, {"get"})),
            R"({NonResourceURLs:["/metrics"], Verbs:["get"]})");
  EXPECT_EQ(CompactString(Res({"a\"b"}, {"get"}, {"x"})),
            R"({APIGroups:["a\"b"], Resources:["x"], Verbs:["get"]})");
}

}  // namespace
}  // namespace allot::apiserver::authz
