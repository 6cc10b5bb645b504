// Impersonation through the request handler with RBAC on: the Impersonate-* headers are obeyed
// only with the verbs that allow them (legacy `impersonate`, and 1.37's constrained modes), and
// refused with kube-apiserver's 400 and 403 otherwise.
#include <gtest/gtest.h>

#include "apiserver/testing/authorized_handler.h"
#include "apiserver/testing/server_fixture.h"

namespace allot::apiserver {
namespace {

constexpr char kWhoAmI[] = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
constexpr char kWhoAmIBody[] =
    R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})";
constexpr char kSsar[] = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
constexpr char kPods[] = "/api/v1/namespaces/default/pods";

class ImpersonationTest : public testing::AuthorizedHandlerTest {
 protected:
  // Gives `user` `rules` cluster-wide.
  void Grant(const std::string& user, const std::string& name, const std::string& rules) {
    Admin("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles",
          R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",)"
          R"("metadata":{"name":")" + name + R"("},"rules":[)" + rules + "]}");
    Admin("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
          R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding",)"
          R"("metadata":{"name":")" + name +
              R"("},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole",)"
              R"("name":")" + name + R"("},"subjects":[{"kind":"User","name":")" + user + R"("}]})");
  }
  Response As(const std::string& token, std::string method, std::string target, Pairs headers,
              std::string body = "") {
    return Send(token, std::move(method), std::move(target), std::move(body), "application/json",
                headers);
  }
  // Who the server says the request came from.
  std::string WhoAmI(const std::string& token, Pairs headers) {
    Response r = As(token, "POST", kWhoAmI, std::move(headers), kWhoAmIBody);
    EXPECT_EQ(r.status, 201) << r.body;
    J j(r.body);
    return j["/status/userInfo/username"] + " " + j["/status/userInfo/groups"];
  }
};

TEST_F(ImpersonationTest, WithoutTheVerbTheHeadersAreRefusedNotIgnored) {
  Response r = As("alice-token", "GET", kPods, {{"Impersonate-User", "bob"}});
  EXPECT_EQ(r.status, 403) << r.body;
  // 1.37 tries the constrained modes first and answers with the first refusal.
  EXPECT_EQ(J(r.body)["/message"],
            R"(pods is forbidden: User "alice" cannot impersonate-on:user-info:list resource )"
            R"("pods" in API group "" in the namespace "default")");
  Response whoami = As("alice-token", "POST", kWhoAmI, {{"Impersonate-User", "bob"}}, kWhoAmIBody);
  EXPECT_EQ(whoami.status, 403) << whoami.body;
}

TEST_F(ImpersonationTest, TheImpersonateVerbOnUsersServesTheRequestAsThatUser) {
  Grant("alice", "impersonate-bob",
        R"({"verbs":["impersonate"],"apiGroups":[""],"resources":["users"],)"
        R"("resourceNames":["bob"]})");
  EXPECT_EQ(WhoAmI("alice-token", {{"Impersonate-User", "bob"}}), R"(bob ["system:authenticated"])");
  // Authorized as bob: bob may not list pods, and neither may alice as bob.
  Response pods = As("alice-token", "GET", kPods, {{"Impersonate-User", "bob"}});
  EXPECT_EQ(pods.status, 403);
  EXPECT_NE(J(pods.body)["/message"].find(R"(User "bob" cannot list resource "pods")"),
            std::string::npos)
      << pods.body;
  // Another user, or a group, needs its own grant.
  Response carol = As("alice-token", "GET", kPods, {{"Impersonate-User", "carol"}});
  EXPECT_EQ(carol.status, 403);
  Response masters = As("alice-token", "GET", kPods,
                        {{"Impersonate-User", "bob"}, {"Impersonate-Group", "system:masters"}});
  EXPECT_EQ(masters.status, 403);
  EXPECT_EQ(J(masters.body)["/message"],
            R"(pods is forbidden: User "alice" cannot impersonate-on:user-info:list resource )"
            R"("pods" in API group "" in the namespace "default")");
  Grant("alice", "impersonate-dev",
        R"({"verbs":["impersonate"],"apiGroups":[""],"resources":["groups"],)"
        R"("resourceNames":["dev","ops"]})");
  EXPECT_EQ(WhoAmI("alice-token", {{"Impersonate-User", "bob"},
                                   {"Impersonate-Group", "dev"},
                                   {"Impersonate-Group", "ops"}}),
            R"(bob ["dev","ops","system:authenticated"])");
  // Asked for system:unauthenticated, it does not also get system:authenticated: not even
  // `kubectl auth whoami` (system:basic-user's, for authenticated users) is allowed.
  Grant("alice", "impersonate-unauth",
        R"({"verbs":["impersonate"],"apiGroups":[""],"resources":["groups"],)"
        R"("resourceNames":["system:unauthenticated"]})");
  Response unauth = As("alice-token", "POST", kWhoAmI,
                       {{"Impersonate-User", "bob"}, {"Impersonate-Group", "system:unauthenticated"}},
                       kWhoAmIBody);
  EXPECT_EQ(unauth.status, 403);
  EXPECT_EQ(J(unauth.body)["/message"],
            R"(selfsubjectreviews is forbidden: User "bob" cannot create resource )"
            R"("selfsubjectreviews" in API group "authentication.k8s.io" at the cluster scope)");
}

TEST_F(ImpersonationTest, AnAdminsAccessReviewAsAnotherUserAnswersForThatUser) {
  // kubectl auth can-i list pods --as=jane
  Response r = As("admin-token", "POST", kSsar, {{"Impersonate-User", "jane"}},
                  R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview",)"
                  R"("spec":{"resourceAttributes":{"namespace":"default","verb":"list",)"
                  R"("resource":"pods"}}})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(J(r.body)["/status/allowed"], "false");
  // The legacy verb lets a group be system:masters (the constrained modes never do).
  EXPECT_EQ(WhoAmI("admin-token", {{"Impersonate-User", "x"}, {"Impersonate-Group", "system:masters"}}),
            R"(x ["system:masters","system:authenticated"])");
}

TEST_F(ImpersonationTest, ServiceAccountsAreImpersonatedThroughTheirNamespace) {
  Grant("alice", "impersonate-sa",
        R"({"verbs":["impersonate"],"apiGroups":[""],"resources":["serviceaccounts"],)"
        R"("resourceNames":["builder"]})");
  EXPECT_EQ(WhoAmI("alice-token", {{"Impersonate-User", "system:serviceaccount:ci:builder"}}),
            R"(system:serviceaccount:ci:builder )"
            R"(["system:serviceaccounts","system:serviceaccounts:ci","system:authenticated"])");
  Response other =
      As("alice-token", "GET", kPods, {{"Impersonate-User", "system:serviceaccount:ci:deployer"}});
  EXPECT_EQ(other.status, 403);
  EXPECT_EQ(J(other.body)["/message"],
            R"(pods is forbidden: User "alice" cannot impersonate-on:serviceaccount:list resource )"
            R"("pods" in API group "" in the namespace "default")");
}

TEST_F(ImpersonationTest, ConstrainedImpersonationAllowsOnlyTheVerbsNamed) {
  // impersonate:user-info on bob, and only `list pods` while impersonating.
  Grant("alice", "constrained",
        R"({"verbs":["impersonate:user-info"],"apiGroups":["authentication.k8s.io"],)"
        R"("resources":["users"],"resourceNames":["bob"]},)"
        R"({"verbs":["impersonate-on:user-info:list"],"apiGroups":[""],"resources":["pods"]})");
  Grant("bob", "bob-lists-pods", R"({"verbs":["list","delete"],"apiGroups":[""],"resources":["pods"]})");
  EXPECT_EQ(As("alice-token", "GET", kPods, {{"Impersonate-User", "bob"}}).status, 200);
  Response del = As("alice-token", "DELETE", std::string(kPods) + "/p", {{"Impersonate-User", "bob"}});
  EXPECT_EQ(del.status, 403);
  EXPECT_EQ(J(del.body)["/message"],
            R"(pods "p" is forbidden: User "alice" cannot impersonate-on:user-info:delete resource )"
            R"("pods" in API group "" in the namespace "default")");
  // Constrained modes never grant system:masters, whatever the rules say.
  Grant("alice", "constrained-groups",
        R"({"verbs":["impersonate:user-info"],"apiGroups":["authentication.k8s.io"],)"
        R"("resources":["groups"]})");
  Response masters = As("alice-token", "GET", kPods,
                        {{"Impersonate-User", "bob"}, {"Impersonate-Group", "system:masters"}});
  EXPECT_EQ(masters.status, 403);
  EXPECT_EQ(J(masters.body)["/message"],
            R"(groups "system:masters" is forbidden: User "alice" cannot impersonate:user-info )"
            R"(resource "groups" in API group "authentication.k8s.io" at the cluster scope: )"
            "impersonating the system:masters group is not allowed");
}

TEST_F(ImpersonationTest, UidsAndExtrasNeedTheirOwnGrants) {
  Grant("alice", "impersonate-bob",
        R"({"verbs":["impersonate"],"apiGroups":[""],"resources":["users"],)"
        R"("resourceNames":["bob"]})");
  Response uid =
      As("alice-token", "GET", kPods, {{"Impersonate-User", "bob"}, {"Impersonate-Uid", "u-1"}});
  EXPECT_EQ(uid.status, 403);
  Response extra = As("alice-token", "POST", kWhoAmI,
                      {{"Impersonate-User", "bob"}, {"Impersonate-Extra-Scopes", "view"}},
                      kWhoAmIBody);
  EXPECT_EQ(extra.status, 403);
  Grant("alice", "impersonate-extras",
        R"({"verbs":["impersonate"],"apiGroups":["authentication.k8s.io"],)"
        R"("resources":["uids","userextras/scopes"]})");
  Response ok = As("alice-token", "POST", kWhoAmI,
                   {{"Impersonate-User", "bob"},
                    {"Impersonate-Uid", "u-1"},
                    {"impersonate-extra-Scopes", "view"},
                    {"Impersonate-Extra-scopes", "edit"}},
                   kWhoAmIBody);
  ASSERT_EQ(ok.status, 201) << ok.body;
  J j(ok.body);
  EXPECT_EQ(j["/status/userInfo/uid"], "u-1");
  EXPECT_EQ(j["/status/userInfo/extra/scopes"], R"(["view","edit"])");
}

TEST_F(ImpersonationTest, GroupsWithoutAUserAreABadRequest) {
  Response r = As("admin-token", "GET", kPods, {{"Impersonate-Group", "dev"}});
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(J(r.body)["/message"],
            R"(requested &user.DefaultInfo{Name:"", UID:"", Groups:[]string{"dev"}, )"
            R"(Extra:map[string][]string(nil)} without impersonating a user name)");
  // An extra with an empty key is an extra too; an empty user is no user.
  EXPECT_EQ(As("admin-token", "GET", kPods, {{"Impersonate-Extra-", "v"}}).status, 400);
  EXPECT_EQ(As("admin-token", "GET", kPods, {{"Impersonate-User", ""}, {"Impersonate-User", "x"},
                                            {"Impersonate-Group", "g"}})
                .status,
            400);
}

TEST_F(ImpersonationTest, ExtraKeysArePercentDecodedUnlessMalformed) {
  Response ok = As("admin-token", "POST", kWhoAmI,
                   {{"Impersonate-User", "x"},
                    {"Impersonate-Extra-Example.com%2fTeam", "a"},
                    {"Impersonate-Extra-bad%2fkey%zz", "b"}},
                   kWhoAmIBody);
  ASSERT_EQ(ok.status, 201) << ok.body;
  EXPECT_NE(ok.body.find(R"("example.com/team":["a"])"), std::string::npos) << ok.body;
  EXPECT_NE(ok.body.find(R"("bad%2fkey%zz":["b"])"), std::string::npos) << ok.body;
}

}  // namespace
}  // namespace allot::apiserver
