// RBAC decisions against roles and bindings in a store: who a binding names, where a grant
// holds, the bootstrap policy, the policy kept until a role or binding changes, and the 403
// messages.
#include "apiserver/authz/rbac_authorizer.h"

#include <gtest/gtest.h>

#include "api/core/types.h"
#include "api/rbac/bootstrap_policy.h"
#include "store/backend.h"

namespace allot::apiserver::authz {
namespace {

using api::PolicyRule;
using api::RoleRef;
using api::Subject;

class RbacAuthorizerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.Open().ok());
    auto rbac = RbacAuthorizer::Create(store_, api::ResourceRegistry::Default());
    ASSERT_TRUE(rbac.ok());
    rbac_ = *rbac;
    for (const char* name : {"team", "prod"}) {
      auto ns = std::make_unique<api::Namespace>();
      ns->metadata.name = name;
      ASSERT_TRUE(
          store_
              .Create(*api::ResourceRegistry::Default().Find("", "v1", "namespaces"), std::move(ns))
              .ok());
    }
  }

  const api::ResourceInfo& Resource(const char* name) {
    return *api::ResourceRegistry::Default().Find(api::kRbacGroup, "v1", name);
  }
  void Create(const char* resource, std::unique_ptr<api::Object> obj) {
    auto created = store_.Create(Resource(resource), std::move(obj));
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }
  void Role(const std::string& ns, const std::string& name, std::vector<PolicyRule> rules) {
    auto r = std::make_unique<api::Role>();
    r->metadata.namespace_ = ns;
    r->metadata.name = name;
    r->rules = std::move(rules);
    Create("roles", std::move(r));
  }
  void ClusterRole(const std::string& name, std::vector<PolicyRule> rules) {
    auto r = std::make_unique<api::ClusterRole>();
    r->metadata.name = name;
    r->rules = std::move(rules);
    Create("clusterroles", std::move(r));
  }
  void RoleBinding(const std::string& ns, const std::string& name, RoleRef ref,
                   std::vector<Subject> subjects) {
    auto b = std::make_unique<api::RoleBinding>();
    b->metadata.namespace_ = ns;
    b->metadata.name = name;
    b->roleRef = std::move(ref);
    b->subjects = std::move(subjects);
    Create("rolebindings", std::move(b));
  }
  void ClusterRoleBinding(const std::string& name, const std::string& role,
                          std::vector<Subject> subjects) {
    auto b = std::make_unique<api::ClusterRoleBinding>();
    b->metadata.name = name;
    b->roleRef = RoleRef{std::string(api::kRbacGroup), "ClusterRole", role};
    b->subjects = std::move(subjects);
    Create("clusterrolebindings", std::move(b));
  }
  static Subject User(std::string name) {
    return Subject{"User", std::string(api::kRbacGroup), std::move(name), ""};
  }
  static Subject Group(std::string name) {
    return Subject{"Group", std::string(api::kRbacGroup), std::move(name), ""};
  }

  static Attributes Request(authn::UserInfo user, std::string verb, std::string ns,
                            std::string resource, std::string name = "", std::string group = "",
                            std::string subresource = "") {
    Attributes a;
    a.user = std::move(user);
    a.verb = std::move(verb);
    a.resource_request = true;
    a.namespace_ = std::move(ns);
    a.resource = std::move(resource);
    a.name = std::move(name);
    a.api_group = std::move(group);
    a.subresource = std::move(subresource);
    return a;
  }
  bool Allowed(const Attributes& a) { return rbac_->Authorize(a).decision == Decision::kAllow; }

  FakeClock clock_;
  store::Store store_{store::NewMemoryBackend(), clock_};
  std::shared_ptr<RbacAuthorizer> rbac_;
};

const authn::UserInfo kAlice{"alice", "", {"dev", "system:authenticated"}};
const authn::UserInfo kBob{"bob", "", {"system:authenticated"}};

TEST_F(RbacAuthorizerTest, ARoleBindingGrantsInItsNamespaceOnly) {
  Role("team", "reader", {PolicyRule{{"get", "list"}, {""}, {"pods"}, {}, {}}});
  RoleBinding("team", "alice-reads", RoleRef{std::string(api::kRbacGroup), "Role", "reader"},
              {User("alice")});
  EXPECT_TRUE(Allowed(Request(kAlice, "list", "team", "pods")));
  EXPECT_TRUE(Allowed(Request(kAlice, "get", "team", "pods", "p")));
  EXPECT_FALSE(Allowed(Request(kAlice, "delete", "team", "pods", "p")));  // verb
  EXPECT_FALSE(Allowed(Request(kAlice, "list", "other", "pods")));        // namespace
  EXPECT_FALSE(Allowed(Request(kAlice, "list", "", "pods")));             // all namespaces
  EXPECT_FALSE(Allowed(Request(kAlice, "get", "team", "pods", "p", "", "status")));  // sub
  EXPECT_FALSE(Allowed(Request(kBob, "list", "team", "pods")));                      // user
}

TEST_F(RbacAuthorizerTest, ARoleBindingToAClusterRoleGrantsItsRulesInTheBindingsNamespace) {
  ClusterRole("claims-editor",
              {PolicyRule{{"*"}, {"resource.k8s.io"}, {"resourceclaims"}, {}, {}}});
  RoleBinding("team", "dev-edits",
              RoleRef{std::string(api::kRbacGroup), "ClusterRole", "claims-editor"},
              {Group("dev")});
  EXPECT_TRUE(Allowed(Request(kAlice, "create", "team", "resourceclaims", "", "resource.k8s.io")));
  EXPECT_FALSE(Allowed(Request(kAlice, "create", "prod", "resourceclaims", "", "resource.k8s.io")));
  EXPECT_FALSE(Allowed(Request(kAlice, "create", "team", "resourceclaims", "", "")));  // group
}

TEST_F(RbacAuthorizerTest, AClusterRoleBindingGrantsEverywhereIncludingClusterScope) {
  ClusterRole("node-reader", {PolicyRule{{"get", "list", "watch"}, {""}, {"nodes"}, {}, {}},
                              PolicyRule{{"get"}, {}, {}, {}, {"/metrics"}}});
  ClusterRoleBinding("bob-reads-nodes", "node-reader", {User("bob")});
  EXPECT_TRUE(Allowed(Request(kBob, "watch", "", "nodes")));
  Attributes metrics;
  metrics.user = kBob;
  metrics.verb = "get";
  metrics.path = "/metrics";
  EXPECT_TRUE(Allowed(metrics));
  metrics.path = "/metrics/extra";
  EXPECT_FALSE(Allowed(metrics));
}

TEST_F(RbacAuthorizerTest, ServiceAccountsAreMatchedByTheirUserName) {
  Role("team", "reader", {PolicyRule{{"get"}, {""}, {"pods"}, {}, {}}});
  // A subject without a namespace is the binding's.
  RoleBinding("team", "sa", RoleRef{std::string(api::kRbacGroup), "Role", "reader"},
              {Subject{"ServiceAccount", "", "builder", ""}});
  authn::UserInfo sa{"system:serviceaccount:team:builder", "", {}};
  authn::UserInfo other{"system:serviceaccount:team:builder2", "", {}};
  authn::UserInfo elsewhere{"system:serviceaccount:prod:builder", "", {}};
  EXPECT_TRUE(Allowed(Request(sa, "get", "team", "pods", "p")));
  EXPECT_FALSE(Allowed(Request(other, "get", "team", "pods", "p")));
  EXPECT_FALSE(Allowed(Request(elsewhere, "get", "team", "pods", "p")));
}

TEST_F(RbacAuthorizerTest, ABindingToAMissingRoleGrantsNothingUntilTheRoleExists) {
  ClusterRoleBinding("early", "later", {User("alice")});
  EXPECT_FALSE(Allowed(Request(kAlice, "list", "", "nodes")));
  ClusterRole("later", {PolicyRule{{"list"}, {""}, {"nodes"}, {}, {}}});
  EXPECT_TRUE(Allowed(Request(kAlice, "list", "", "nodes")));
}

TEST_F(RbacAuthorizerTest, ThePolicyIsReadAgainOnlyAfterARoleOrBindingChanged) {
  ClusterRole("r", {PolicyRule{{"list"}, {""}, {"nodes"}, {}, {}}});
  ClusterRoleBinding("b", "r", {User("alice")});
  EXPECT_TRUE(Allowed(Request(kAlice, "list", "", "nodes")));
  const uint64_t builds = rbac_->builds();
  for (int i = 0; i < 100; ++i) {
    EXPECT_TRUE(Allowed(Request(kAlice, "list", "", "nodes")));
    EXPECT_FALSE(Allowed(Request(kBob, "list", "", "nodes")));
  }
  EXPECT_EQ(rbac_->builds(), builds);
  // Other writes do not count.
  auto ns = std::make_unique<api::Namespace>();
  ns->metadata.name = "elsewhere";
  ASSERT_TRUE(
      store_.Create(*api::ResourceRegistry::Default().Find("", "v1", "namespaces"), std::move(ns))
          .ok());
  EXPECT_TRUE(Allowed(Request(kAlice, "list", "", "nodes")));
  EXPECT_EQ(rbac_->builds(), builds);
  // Revoking takes effect on the next request after the delete was acknowledged.
  ASSERT_TRUE(store_.Delete(Resource("clusterrolebindings"), "", "b").ok());
  EXPECT_FALSE(Allowed(Request(kAlice, "list", "", "nodes")));
  EXPECT_EQ(rbac_->builds(), builds + 1);
}

TEST_F(RbacAuthorizerTest, TheBootstrapPolicyGivesEachRoleWhatItNeedsAndNoMore) {
  // The store created the bootstrap roles and bindings when it opened.
  authn::UserInfo scheduler{std::string(api::kSchedulerUser), "", {"system:authenticated"}};
  EXPECT_TRUE(Allowed(Request(scheduler, "create", "ns", "pods", "p", "", "binding")));
  EXPECT_TRUE(Allowed(Request(scheduler, "delete", "ns", "pods", "p")));  // preemption
  EXPECT_TRUE(Allowed(
      Request(scheduler, "update", "ns", "resourceclaims", "c", "resource.k8s.io", "status")));
  EXPECT_TRUE(Allowed(Request(scheduler, "update", "kube-system", "leases", "allot-scheduler",
                              "coordination.k8s.io")));
  EXPECT_FALSE(Allowed(Request(scheduler, "update", "kube-system", "leases", "someone-else",
                               "coordination.k8s.io")));
  EXPECT_FALSE(Allowed(Request(scheduler, "create", "ns", "pods")));
  EXPECT_FALSE(Allowed(Request(scheduler, "create", "", "resourceslices", "", "resource.k8s.io")));
  EXPECT_FALSE(Allowed(Request(scheduler, "list", "", "secrets")));

  authn::UserInfo node{"system:node:n1", "", {"system:nodes", "system:authenticated"}};
  EXPECT_TRUE(Allowed(Request(node, "patch", "ns", "pods", "p", "", "status")));
  EXPECT_TRUE(Allowed(Request(node, "create", "", "resourceslices", "", "resource.k8s.io")));
  EXPECT_FALSE(Allowed(Request(node, "create", "ns", "pods", "p", "", "binding")));
  EXPECT_FALSE(Allowed(Request(node, "update", "ns", "pods", "p")));
  EXPECT_FALSE(
      Allowed(Request(node, "update", "ns", "resourceclaims", "c", "resource.k8s.io", "status")));

  authn::UserInfo driver{"system:dra-driver:gpu.example.com", "", {"system:dra-drivers"}};
  EXPECT_TRUE(
      Allowed(Request(driver, "patch", "ns", "resourceclaims", "c", "resource.k8s.io", "status")));
  EXPECT_TRUE(Allowed(Request(driver, "delete", "", "resourceslices", "s", "resource.k8s.io")));
  EXPECT_FALSE(Allowed(Request(driver, "create", "ns", "resourceclaims", "", "resource.k8s.io")));
  EXPECT_FALSE(Allowed(Request(driver, "patch", "ns", "pods", "p", "", "status")));

  // No bootstrap identity may write RBAC objects (which would make it anyone), but the
  // controller manager's aggregation of ClusterRoles: update and escalate them, never bind.
  authn::UserInfo controllers{std::string(api::kControllerManagerUser), "", {}};
  for (const authn::UserInfo* who : {&scheduler, &node, &driver, &controllers}) {
    for (const char* resource : {"roles", "clusterroles", "rolebindings", "clusterrolebindings"}) {
      for (const char* verb : {"create", "update", "patch", "delete", "escalate", "bind"}) {
        const bool aggregation = who == &controllers && std::string_view(resource) ==
                                                             "clusterroles" &&
                                 std::string_view(verb) != "create" &&
                                 std::string_view(verb) != "delete" &&
                                 std::string_view(verb) != "bind";
        EXPECT_EQ(Allowed(Request(*who, verb, "", resource, "x", std::string(api::kRbacGroup))),
                  aggregation)
            << who->name << " " << verb << " " << resource;
      }
    }
  }

  authn::UserInfo anonymous{"system:anonymous", "", {"system:unauthenticated"}};
  Attributes healthz;
  healthz.user = anonymous;
  healthz.verb = "get";
  healthz.path = "/readyz";
  EXPECT_TRUE(Allowed(healthz));
  healthz.path = "/apis";
  EXPECT_FALSE(Allowed(healthz));  // discovery is for authenticated users
  healthz.user = kBob;
  EXPECT_TRUE(Allowed(healthz));
}

TEST_F(RbacAuthorizerTest, RulesForListsTheGrantsOnceEach) {
  Role("team", "reader", {PolicyRule{{"get"}, {""}, {"pods"}, {}, {}}});
  RoleBinding("team", "a", RoleRef{std::string(api::kRbacGroup), "Role", "reader"},
              {User("alice")});
  RoleBinding("team", "b", RoleRef{std::string(api::kRbacGroup), "Role", "reader"}, {Group("dev")});
  std::vector<PolicyRule> in_team = rbac_->RulesFor(kAlice, "team");
  std::vector<PolicyRule> cluster = rbac_->RulesFor(kAlice, "");
  ASSERT_EQ(in_team.size(), cluster.size() + 1);
  EXPECT_EQ(in_team.back(), (PolicyRule{{"get"}, {""}, {"pods"}, {}, {}}));
}

TEST(AuthorizerChainTest, TheFirstOpinionDecidesAndMastersMayDoAnything) {
  class Fixed final : public Authorizer {
   public:
    explicit Fixed(Verdict v) : v_(std::move(v)) {}
    Verdict Authorize(const Attributes&) const override { return v_; }

   private:
    Verdict v_;
  };
  Attributes a;
  a.user = authn::UserInfo{"root", "", {"system:masters"}};
  AuthorizerChain chain({std::make_shared<PrivilegedGroupAuthorizer>(),
                         std::make_shared<Fixed>(Verdict{Decision::kDeny, "no"})});
  EXPECT_EQ(chain.Authorize(a).decision, Decision::kAllow);
  a.user.groups.clear();
  EXPECT_EQ(chain.Authorize(a).decision, Decision::kDeny);
  AuthorizerChain silent({std::make_shared<Fixed>(Verdict{Decision::kNoOpinion, "r1"}),
                          std::make_shared<Fixed>(Verdict{Decision::kNoOpinion, "r2"})});
  Verdict v = silent.Authorize(a);
  EXPECT_EQ(v.decision, Decision::kNoOpinion);
  EXPECT_EQ(v.reason, "r1, r2");
}

TEST(ForbiddenStatusTest, KubernetesMessages) {
  Attributes a;
  a.user = authn::UserInfo{"alice", "", {}};
  a.verb = "get";
  a.resource_request = true;
  a.namespace_ = "ns";
  a.resource = "pods";
  a.name = "p";
  Status st = ForbiddenStatus(a, "");
  EXPECT_EQ(st.code(), StatusCode::kForbidden);
  EXPECT_EQ(st.message(),
            R"(pods "p" is forbidden: User "alice" cannot get resource "pods" in API group "" )"
            R"(in the namespace "ns")");
  a.namespace_.clear();
  a.name.clear();
  a.resource = "resourceslices";
  a.api_group = "resource.k8s.io";
  a.verb = "list";
  EXPECT_EQ(ForbiddenStatus(a, "").message(),
            R"(resourceslices is forbidden: User "alice" cannot list resource "resourceslices" )"
            R"(in API group "resource.k8s.io" at the cluster scope)");
  a.resource = "pods";
  a.api_group.clear();
  a.namespace_ = "ns";
  a.name = "p";
  a.subresource = "binding";
  a.verb = "create";
  EXPECT_EQ(ForbiddenStatus(a, "why").message(),
            R"(pods "p" is forbidden: User "alice" cannot create resource "pods/binding" in API )"
            R"(group "" in the namespace "ns": why)");
  Attributes path;
  path.user = a.user;
  path.verb = "get";
  path.path = "/metrics";
  EXPECT_EQ(ForbiddenStatus(path, "").message(),
            R"(forbidden: User "alice" cannot get path "/metrics")");
}

}  // namespace
}  // namespace allot::apiserver::authz
