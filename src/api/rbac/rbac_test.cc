// rbac.authorization.k8s.io/v1: codec, defaults, validation with Kubernetes' messages, the
// bootstrap policy.
#include "api/rbac/rbac.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "api/machinery/resources.h"
#include "api/testing/expectations.h"

namespace allot::api {
namespace {

using testing::ExpectRoundTrip;

template <class T, void (*Validate)(const T&, FieldErrors&)>
std::vector<std::string> Errors(const T& obj) {
  FieldErrors errs;
  Validate(obj, errs);
  return errs.Messages();
}

TEST(RbacTest, RoundTripsAndRegisters) {
  ExpectRoundTrip(R"({"kind":"Role","apiVersion":"rbac.authorization.k8s.io/v1",)"
                  R"("metadata":{"name":"pod-reader","namespace":"default"},)"
                  R"("rules":[{"verbs":["get","list"],"apiGroups":[""],"resources":["pods"],)"
                  R"("resourceNames":["a"]}]})");
  ExpectRoundTrip(
      R"({"kind":"ClusterRoleBinding","apiVersion":"rbac.authorization.k8s.io/v1",)"
      R"("metadata":{"name":"b"},"subjects":[{"kind":"User",)"
      R"("apiGroup":"rbac.authorization.k8s.io","name":"jane"},{"kind":"ServiceAccount",)"
      R"("name":"sa","namespace":"ns"}],"roleRef":{"apiGroup":"rbac.authorization.k8s.io",)"
      R"("kind":"ClusterRole","name":"view"}})");
  const ResourceRegistry& reg = ResourceRegistry::Default();
  ASSERT_NE(reg.Find("rbac.authorization.k8s.io", "v1", "roles"), nullptr);
  EXPECT_TRUE(reg.Find("rbac.authorization.k8s.io", "v1", "roles")->namespaced);
  EXPECT_FALSE(reg.Find("rbac.authorization.k8s.io", "v1", "clusterroles")->namespaced);
  EXPECT_TRUE(reg.Find("rbac.authorization.k8s.io", "v1", "rolebindings")->namespaced);
  EXPECT_FALSE(reg.Find("rbac.authorization.k8s.io", "v1", "clusterrolebindings")->namespaced);
}

TEST(RbacTest, RulesAreValidatedAsKubernetesDoes) {
  Role role;
  role.metadata.name = "r";
  role.metadata.namespace_ = "ns";
  role.rules = {PolicyRule{{}, {""}, {"pods"}, {}, {}}, PolicyRule{{"get"}, {}, {}, {}, {}},
                PolicyRule{{"get"}, {}, {}, {}, {"/healthz"}}};
  EXPECT_EQ((Errors<Role, ValidateRole>(role)),
            (std::vector<std::string>{
                "rules[0].verbs: Required value: verbs must contain at least one value",
                "rules[1].apiGroups: Required value: resource rules must supply at least one api "
                "group",
                "rules[1].resources: Required value: resource rules must supply at least one "
                "resource",
                "rules[2].nonResourceURLs: Invalid value: []string{\"/healthz\"}: namespaced "
                "rules cannot apply to non-resource URLs"}));
  ClusterRole cr;
  cr.metadata.name = "c";
  cr.rules = {PolicyRule{{"get"}, {}, {}, {}, {"/healthz", "/version"}},
              PolicyRule{{"get"}, {""}, {"pods"}, {}, {"/x"}}};
  EXPECT_EQ((Errors<ClusterRole, ValidateClusterRole>(cr)),
            (std::vector<std::string>{
                "rules[1].nonResourceURLs: Invalid value: []string{\"/x\"}: rules cannot apply "
                "to both regular resources and non-resource URLs"}));
  cr.metadata.name = "a/b";
  EXPECT_FALSE((Errors<ClusterRole, ValidateClusterRole>(cr)).empty());
}

TEST(RbacTest, BindingsDefaultAndValidate) {
  RoleBinding b;
  b.metadata.name = "b";
  b.metadata.namespace_ = "ns";
  b.roleRef = RoleRef{"", "Role", "r"};
  b.subjects = {Subject{"User", "", "jane", ""}, Subject{"ServiceAccount", "", "sa", ""},
                Subject{"Robot", "", "x", ""}, Subject{"Group", "", "", ""}};
  SetRoleBindingDefaults(b);
  EXPECT_EQ(b.roleRef.apiGroup, "rbac.authorization.k8s.io");
  EXPECT_EQ(b.subjects[0].apiGroup, "rbac.authorization.k8s.io");
  EXPECT_EQ(b.subjects[1].apiGroup, "");
  EXPECT_EQ(
      (Errors<RoleBinding, ValidateRoleBinding>(b)),
      (std::vector<std::string>{"subjects[2].kind: Unsupported value: \"Robot\": supported values: "
                                "\"ServiceAccount\", \"User\", \"Group\"",
                                "subjects[3].name: Required value"}));
  ClusterRoleBinding cb;
  cb.metadata.name = "cb";
  cb.roleRef = RoleRef{"rbac.authorization.k8s.io", "Role", ""};
  cb.subjects = {Subject{"ServiceAccount", "", "sa", ""}};
  EXPECT_EQ((Errors<ClusterRoleBinding, ValidateClusterRoleBinding>(cb)),
            (std::vector<std::string>{
                "roleRef.kind: Unsupported value: \"Role\": supported values: \"ClusterRole\"",
                "roleRef.name: Required value", "subjects[0].namespace: Required value"}));
  // roleRef may not change.
  RoleBinding changed = b;
  changed.subjects = {};
  changed.roleRef.name = "other";
  FieldErrors errs;
  ValidateRoleBindingUpdate(changed, b, errs);
  ASSERT_FALSE(errs.empty());
  EXPECT_EQ(errs.Messages()[0],
            "roleRef: Invalid value: rbac.RoleRef{APIGroup:\"rbac.authorization.k8s.io\", "
            "Kind:\"Role\", Name:\"other\"}: cannot change roleRef");
}

TEST(RbacTest, TheBootstrapPolicyMakesSystemMastersClusterAdminAndIsValid) {
  const ResourceRegistry& reg = ResourceRegistry::Default();
  auto roles = reg.Find("rbac.authorization.k8s.io", "v1", "clusterroles")->bootstrap();
  auto bindings = reg.Find("rbac.authorization.k8s.io", "v1", "clusterrolebindings")->bootstrap();
  ASSERT_EQ(roles.size(), bindings.size());  // one binding per role
  const ClusterRole* admin = nullptr;
  FieldErrors errs;
  for (const auto& o : roles) {
    const auto* r = As<ClusterRole>(*o);
    ASSERT_NE(r, nullptr);
    if (r->metadata.name == "cluster-admin") admin = r;
    ValidateClusterRole(*r, errs);
  }
  ASSERT_NE(admin, nullptr);
  EXPECT_EQ(admin->rules[0], (PolicyRule{{"*"}, {"*"}, {"*"}, {}, {}}));
  const ClusterRoleBinding* masters = nullptr;
  for (const auto& o : bindings) {
    const auto* b = As<ClusterRoleBinding>(*o);
    ASSERT_NE(b, nullptr);
    if (b->metadata.name == "cluster-admin") masters = b;
    ValidateClusterRoleBinding(*b, errs);
    // Every binding names a bootstrap role.
    EXPECT_TRUE(std::any_of(roles.begin(), roles.end(), [&](const ObjectPtr& r) {
      return r->metadata.name == b->roleRef.name;
    })) << b->metadata.name;
  }
  ASSERT_NE(masters, nullptr);
  EXPECT_EQ(
      masters->subjects,
      (std::vector<Subject>{Subject{"Group", "rbac.authorization.k8s.io", "system:masters", ""}}));
  EXPECT_TRUE(errs.empty()) << errs.Messages()[0];
}

}  // namespace
}  // namespace allot::api
