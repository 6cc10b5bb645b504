// Privilege-escalation prevention through the request handler with RBAC on: every way of
// granting more than one holds through a Role, ClusterRole or binding is refused with
// kube-apiserver's 403, and `escalate` / `bind` (or holding the permissions) make it allowed.
#include <gtest/gtest.h>

#include "apiserver/testing/authorized_handler.h"
#include "apiserver/testing/server_fixture.h"

namespace allot::apiserver {
namespace {

constexpr char kRbac[] = "/apis/rbac.authorization.k8s.io/v1";

std::string Roles(const std::string& ns) { return std::string(kRbac) + "/namespaces/" + ns + "/roles"; }
std::string RoleBindings(const std::string& ns) {
  return std::string(kRbac) + "/namespaces/" + ns + "/rolebindings";
}
const std::string kClusterRoles = std::string(kRbac) + "/clusterroles";
const std::string kClusterRoleBindings = std::string(kRbac) + "/clusterrolebindings";

std::string RoleJson(const char* kind, const std::string& name, const std::string& rules,
                     const std::string& extra = "") {
  return std::string(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":")") + kind +
         R"(","metadata":{"name":")" + name + R"("},"rules":[)" + rules + "]" + extra + "}";
}
std::string BindingJson(const char* kind, const std::string& name, const char* role_kind,
                        const std::string& role, const std::string& user) {
  return std::string(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":")") + kind +
         R"(","metadata":{"name":")" + name +
         R"("},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":")" + role_kind +
         R"(","name":")" + role + R"("},"subjects":[{"kind":"User","name":")" + user + R"("}]})";
}

constexpr char kEverything[] = R"({"verbs":["*"],"apiGroups":["*"],"resources":["*"]})";
class RbacEscalationTest : public testing::AuthorizedHandlerTest {
 protected:
  // Gives alice `rules` in `ns` ("" : cluster-wide) through a role and binding the admin writes.
  void Grant(const std::string& ns, const std::string& name, const std::string& rules) {
    if (ns.empty()) {
      Admin("POST", kClusterRoles, RoleJson("ClusterRole", name, rules));
      Admin("POST", kClusterRoleBindings,
            BindingJson("ClusterRoleBinding", name, "ClusterRole", name, "alice"));
    } else {
      Admin("POST", Roles(ns), RoleJson("Role", name, rules));
      Admin("POST", RoleBindings(ns), BindingJson("RoleBinding", name, "Role", name, "alice"));
    }
  }
  Response Alice(std::string method, std::string target, std::string body = "",
                 std::string content_type = "application/json") {
    return Send("alice-token", std::move(method), std::move(target), std::move(body),
                std::move(content_type));
  }
  // Asserts a 403 whose message is `message` exactly.
  static void ExpectForbidden(const Response& r, const std::string& message) {
    EXPECT_EQ(r.status, 403) << r.body;
    J j(r.body);
    EXPECT_EQ(j["/reason"], "Forbidden");
    EXPECT_EQ(j["/message"], message) << r.body;
  }
};

TEST_F(RbacEscalationTest, ABindingToClusterAdminByWhoMayOnlyCreateBindingsIsRefused) {
  Grant("default", "binder",
        R"({"verbs":["create"],"apiGroups":["rbac.authorization.k8s.io"],)"
        R"("resources":["rolebindings"]})");
  Response r = Alice("POST", RoleBindings("default"),
                     BindingJson("RoleBinding", "esc", "ClusterRole", "cluster-admin", "alice"));
  ExpectForbidden(r, R"(rolebindings.rbac.authorization.k8s.io "esc" is forbidden: user "alice" )"
                     R"((groups=["system:authenticated"]) is attempting to grant RBAC )"
                     "permissions not currently held:\n"
                     R"({APIGroups:["*"], Resources:["*"], Verbs:["*"]})"
                     "\n"
                     R"({NonResourceURLs:["*"], Verbs:["*"]})");
  J j(r.body);
  EXPECT_EQ(j["/details/group"], "rbac.authorization.k8s.io");
  EXPECT_EQ(j["/details/kind"], "rolebindings");
  EXPECT_EQ(j["/details/name"], "esc");
  // Nothing was written, and alice still may not list pods.
  EXPECT_EQ(Send("admin-token", "GET", RoleBindings("default") + "/esc").status, 404);
  EXPECT_EQ(Alice("GET", "/api/v1/namespaces/default/pods").status, 403);
  // Dry runs are judged the same.
  EXPECT_EQ(Alice("POST", RoleBindings("default") + "?dryRun=All",
                  BindingJson("RoleBinding", "esc", "ClusterRole", "cluster-admin", "alice"))
                .status,
            403);
}

TEST_F(RbacEscalationTest, ABindingOfARoleWhosePermissionsAreHeldIsAllowed) {
  Grant("default", "binder",
        R"({"verbs":["create"],"apiGroups":["rbac.authorization.k8s.io"],)"
        R"("resources":["rolebindings"]},{"verbs":["get","list"],"apiGroups":[""],)"
        R"("resources":["pods"]})");
  Admin("POST", Roles("default"),
        RoleJson("Role", "pod-reader", R"({"verbs":["list"],"apiGroups":[""],"resources":["pods"]})"));
  Response r = Alice("POST", RoleBindings("default"),
                     BindingJson("RoleBinding", "share", "Role", "pod-reader", "bob"));
  EXPECT_EQ(r.status, 201) << r.body;
  // The same role is not alice's to give in another namespace.
  Admin("POST", Roles("kube-public"),
        RoleJson("Role", "pod-reader", R"({"verbs":["list"],"apiGroups":[""],"resources":["pods"]})"));
  Admin("POST", Roles("kube-public"),
        RoleJson("Role", "binder", R"({"verbs":["create"],"apiGroups":["rbac.authorization.k8s.io"],)"
                                   R"("resources":["rolebindings"]})"));
  Admin("POST", RoleBindings("kube-public"), BindingJson("RoleBinding", "binder", "Role", "binder", "alice"));
  ExpectForbidden(Alice("POST", RoleBindings("kube-public"),
                        BindingJson("RoleBinding", "share", "Role", "pod-reader", "bob")),
                  std::string(R"(rolebindings.rbac.authorization.k8s.io "share" is forbidden: )") +
                      "user \"alice\" (groups=[\"system:authenticated\"]) is attempting to grant "
                      "RBAC permissions not currently held:\n"
                      R"({APIGroups:[""], Resources:["pods"], Verbs:["list"]})");
}

TEST_F(RbacEscalationTest, TheBindVerbAllowsBindingThatRoleInThatScopeOnly) {
  Grant("default", "binder",
        R"({"verbs":["create"],"apiGroups":["rbac.authorization.k8s.io"],)"
        R"("resources":["rolebindings"]},{"verbs":["bind"],)"
        R"("apiGroups":["rbac.authorization.k8s.io"],"resources":["clusterroles"],)"
        R"("resourceNames":["cluster-admin"]})");
  EXPECT_EQ(Alice("POST", RoleBindings("default"),
                  BindingJson("RoleBinding", "ok", "ClusterRole", "cluster-admin", "bob"))
                .status,
            201);
  // bind names one role: another is judged by its permissions.
  Admin("POST", kClusterRoles, RoleJson("ClusterRole", "secrets", R"({"verbs":["get"],)"
                                                                   R"("apiGroups":[""],"resources":["secrets"]})"));
  EXPECT_EQ(Alice("POST", RoleBindings("default"),
                  BindingJson("RoleBinding", "no", "ClusterRole", "secrets", "bob"))
                .status,
            403);
  // A binding to a role that does not exist yet: with bind, allowed; without, the role's 404.
  Grant("", "bind-any",
        R"({"verbs":["bind","create"],"apiGroups":["rbac.authorization.k8s.io"],)"
        R"("resources":["clusterroles","clusterrolebindings"],"resourceNames":[]})");
  EXPECT_EQ(Send("admin-token", "DELETE", kClusterRoleBindings + "/bind-any").status, 200);
  Admin("POST", kClusterRoles,
        RoleJson("ClusterRole", "create-crb",
                 R"({"verbs":["create"],"apiGroups":["rbac.authorization.k8s.io"],)"
                 R"("resources":["clusterrolebindings"]})"));
  Admin("POST", kClusterRoleBindings,
        BindingJson("ClusterRoleBinding", "create-crb", "ClusterRole", "create-crb", "alice"));
  Response missing = Alice("POST", kClusterRoleBindings,
                           BindingJson("ClusterRoleBinding", "early", "ClusterRole", "later", "bob"));
  EXPECT_EQ(missing.status, 404) << missing.body;
  EXPECT_EQ(J(missing.body)["/message"],
            R"(clusterroles.rbac.authorization.k8s.io "later" not found)");
  Admin("POST", kClusterRoleBindings,
        BindingJson("ClusterRoleBinding", "bind-any", "ClusterRole", "bind-any", "alice"));
  EXPECT_EQ(Alice("POST", kClusterRoleBindings,
                  BindingJson("ClusterRoleBinding", "early", "ClusterRole", "later", "bob"))
                .status,
            201);
  // A ClusterRoleBinding to cluster-admin needs bind on it at the cluster scope: alice's bind
  // on cluster-admin holds only in default.
  Admin("DELETE", kClusterRoleBindings + "/bind-any", "");
  ExpectForbidden(
      Alice("POST", kClusterRoleBindings,
            BindingJson("ClusterRoleBinding", "root", "ClusterRole", "cluster-admin", "alice")),
      std::string(R"(clusterrolebindings.rbac.authorization.k8s.io "root" is forbidden: )") +
          "user \"alice\" (groups=[\"system:authenticated\"]) is attempting to grant RBAC "
          "permissions not currently held:\n"
          R"({APIGroups:["*"], Resources:["*"], Verbs:["*"]})"
          "\n"
          R"({NonResourceURLs:["*"], Verbs:["*"]})");
}

TEST_F(RbacEscalationTest, ARoleWithWildcardsByWhoMayOnlyCreateRolesIsRefused) {
  Grant("default", "role-maker",
        R"({"verbs":["create","update","patch","get"],"apiGroups":["rbac.authorization.k8s.io"],)"
        R"("resources":["roles"]},{"verbs":["get","list"],"apiGroups":[""],)"
        R"("resources":["pods"]})");
  ExpectForbidden(Alice("POST", Roles("default"), RoleJson("Role", "wide", kEverything)),
                  std::string(R"(roles.rbac.authorization.k8s.io "wide" is forbidden: )") +
                      "user \"alice\" (groups=[\"system:authenticated\"]) is attempting to grant "
                      "RBAC permissions not currently held:\n"
                      R"({APIGroups:["*"], Resources:["*"], Verbs:["*"]})");
  // What alice holds she may put in a role; the missing verbs are listed, compacted.
  EXPECT_EQ(Alice("POST", Roles("default"),
                  RoleJson("Role", "reader",
                           R"({"verbs":["get"],"apiGroups":[""],"resources":["pods"]})"))
                .status,
            201);
  // An update that widens it is refused (PUT and PATCH), one that narrows it is allowed.
  Response widened = Alice(
      "PUT", Roles("default") + "/reader",
      RoleJson("Role", "reader",
               R"({"verbs":["get","delete","deletecollection"],"apiGroups":[""],"resources":["pods"]})"));
  ExpectForbidden(widened, std::string(R"(roles.rbac.authorization.k8s.io "reader" is forbidden: )") +
                               "user \"alice\" (groups=[\"system:authenticated\"]) is attempting "
                               "to grant RBAC permissions not currently held:\n"
                               R"({APIGroups:[""], Resources:["pods"], Verbs:["delete" "deletecollection"]})");
  Response patched =
      Alice("PATCH", Roles("default") + "/reader",
            R"({"rules":[{"verbs":["get","watch"],"apiGroups":[""],"resources":["pods"]}]})",
            "application/merge-patch+json");
  EXPECT_EQ(patched.status, 403) << patched.body;
  EXPECT_NE(patched.body.find(R"({APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"watch\"]})"),
            std::string::npos)
      << patched.body;
  Response narrowed =
      Alice("PATCH", Roles("default") + "/reader",
            R"({"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"],)"
            R"("resourceNames":["p"]}]})",
            "application/merge-patch+json");
  EXPECT_EQ(narrowed.status, 200) << narrowed.body;
  // Subresources are permissions of their own.
  EXPECT_EQ(Alice("POST", Roles("default"),
                  RoleJson("Role", "status",
                           R"({"verbs":["get"],"apiGroups":[""],"resources":["pods/status"]})"))
                .status,
            403);
}

TEST_F(RbacEscalationTest, TheEscalateVerbAllowsAnyRules) {
  Grant("default", "escalator",
        R"({"verbs":["create","escalate"],"apiGroups":["rbac.authorization.k8s.io"],)"
        R"("resources":["roles"]})");
  EXPECT_EQ(Alice("POST", Roles("default"), RoleJson("Role", "wide", kEverything)).status, 201);
  // In its namespace only.
  Grant("", "role-maker",
        R"({"verbs":["create"],"apiGroups":["rbac.authorization.k8s.io"],"resources":["roles"]})");
  EXPECT_EQ(Alice("POST", Roles("kube-public"), RoleJson("Role", "wide", kEverything)).status, 403);
}

TEST_F(RbacEscalationTest, ResourceNamesAndUrlsAreJudgedOneByOne) {
  Grant("", "cluster-role-maker",
        R"({"verbs":["create"],"apiGroups":["rbac.authorization.k8s.io"],)"
        R"("resources":["clusterroles"]},{"verbs":["get"],"apiGroups":[""],)"
        R"("resources":["secrets"],"resourceNames":["a"]},)"
        R"({"verbs":["get"],"nonResourceURLs":["/healthz/*"]})");
  EXPECT_EQ(Alice("POST", kClusterRoles,
                  RoleJson("ClusterRole", "a",
                           R"({"verbs":["get"],"apiGroups":[""],"resources":["secrets"],)"
                           R"("resourceNames":["a"]},{"verbs":["get"],)"
                           R"("nonResourceURLs":["/healthz/ping"]})"))
                .status,
            201);
  Response names = Alice("POST", kClusterRoles,
                         RoleJson("ClusterRole", "ab",
                                  R"({"verbs":["get"],"apiGroups":[""],"resources":["secrets"],)"
                                  R"("resourceNames":["a","b"]})"));
  EXPECT_EQ(names.status, 403);
  EXPECT_NE(names.body.find(
                R"({APIGroups:[\"\"], Resources:[\"secrets\"], ResourceNames:[\"b\"], Verbs:[\"get\"]})"),
            std::string::npos)
      << names.body;
  // Every name is more than one name.
  EXPECT_EQ(Alice("POST", kClusterRoles,
                  RoleJson("ClusterRole", "all-secrets",
                           R"({"verbs":["get"],"apiGroups":[""],"resources":["secrets"]})"))
                .status,
            403);
  Response urls = Alice("POST", kClusterRoles,
                        RoleJson("ClusterRole", "metrics",
                                 R"({"verbs":["get"],"nonResourceURLs":["/metrics","/healthz"]})"));
  EXPECT_EQ(urls.status, 403);
  // /healthz every authenticated user holds (system:discovery); /metrics alice does not.
  EXPECT_NE(urls.body.find(R"(held:\n{NonResourceURLs:[\"/metrics\"], Verbs:[\"get\"]}",)"),
            std::string::npos)
      << urls.body;
}

TEST_F(RbacEscalationTest, AnAggregationRuleNeedsEverything) {
  Grant("", "cluster-role-maker",
        R"({"verbs":["create","update","get"],"apiGroups":["rbac.authorization.k8s.io"],)"
        R"("resources":["clusterroles"]})");
  const std::string aggregated = RoleJson(
      "ClusterRole", "gather", "",
      R"(,"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"x":"y"}}]})");
  ExpectForbidden(Alice("POST", kClusterRoles, aggregated),
                  R"(clusterroles.rbac.authorization.k8s.io "gather" is forbidden: must have )"
                  "cluster-admin privileges to use the aggregationRule");
  // Nor may one be removed or changed.
  Admin("POST", kClusterRoles, aggregated);
  Response got = Send("admin-token", "GET", kClusterRoles + "/gather");
  ASSERT_EQ(got.status, 200);
  Response removed = Alice("PUT", kClusterRoles + "/gather", RoleJson("ClusterRole", "gather", ""));
  EXPECT_EQ(removed.status, 403) << removed.body;
  // An empty aggregationRule is invalid.
  Response invalid = Send("admin-token", "POST", kClusterRoles,
                          RoleJson("ClusterRole", "bad", "", R"(,"aggregationRule":{})"));
  EXPECT_EQ(invalid.status, 422) << invalid.body;
  EXPECT_NE(invalid.body.find("aggregationRule.clusterRoleSelectors: Required value: at least one "
                              "clusterRoleSelector required if aggregationRule is non-nil"),
            std::string::npos)
      << invalid.body;
}

TEST_F(RbacEscalationTest, AnUpdateOfFinalizersOnlyIsNotJudged) {
  Admin("POST", Roles("default"), RoleJson("Role", "wide", kEverything));
  Grant("default", "gc",
        R"({"verbs":["patch","get"],"apiGroups":["rbac.authorization.k8s.io"],)"
        R"("resources":["roles"]})");
  Response gc = Alice("PATCH", Roles("default") + "/wide",
                      R"({"metadata":{"finalizers":["example.com/keep"]}})",
                      "application/merge-patch+json");
  EXPECT_EQ(gc.status, 200) << gc.body;
  // A label is not the garbage collector's: the rules are judged.
  Response label = Alice("PATCH", Roles("default") + "/wide", R"({"metadata":{"labels":{"a":"b"}}})",
                         "application/merge-patch+json");
  EXPECT_EQ(label.status, 403) << label.body;
}

TEST_F(RbacEscalationTest, MastersAndOtherKindsAreNotJudged) {
  Admin("POST", Roles("default"), RoleJson("Role", "wide", kEverything));
  Admin("POST", RoleBindings("default"),
        BindingJson("RoleBinding", "root", "ClusterRole", "cluster-admin", "bob"));
  // Deleting a binding grants nothing: only RBAC's own verb decides it.
  Grant("default", "deleter",
        R"({"verbs":["delete"],"apiGroups":["rbac.authorization.k8s.io"],)"
        R"("resources":["rolebindings"]})");
  EXPECT_EQ(Alice("DELETE", RoleBindings("default") + "/root").status, 200);
}

}  // namespace
}  // namespace allot::apiserver
