// The review resources (kubectl auth can-i / whoami) and the audit log, through the request
// handler with RBAC on.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "apiserver/testing/authorized_handler.h"
#include "apiserver/testing/server_fixture.h"

namespace allot::apiserver {
namespace {

constexpr char kSsar[] = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
constexpr char kSar[] = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
constexpr char kRules[] = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews";

std::string Ssar(const std::string& attributes) {
  return R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview",)"
         R"("spec":{)" +
         attributes + "}}";
}

using AccessReviewTest = testing::AuthorizedHandlerTest;

TEST_F(AccessReviewTest, SelfSubjectAccessReviewAnswersForTheCaller) {
  const std::string create_pods =
      Ssar(R"("resourceAttributes":{"namespace":"default","verb":"create","resource":"pods"})");
  Response admin = Send("admin-token", "POST", kSsar, create_pods);
  ASSERT_EQ(admin.status, 201) << admin.body;
  J a(admin.body);
  EXPECT_EQ(a["/kind"], "SelfSubjectAccessReview");
  EXPECT_EQ(a["/status/allowed"], "true");
  EXPECT_EQ(a["/spec/resourceAttributes/verb"], "create");  // the spec comes back

  Response alice = Send("alice-token", "POST", kSsar, create_pods);
  ASSERT_EQ(alice.status, 201) << alice.body;
  EXPECT_EQ(J(alice.body)["/status/allowed"], "false");

  // Non-resource attributes; every authenticated user may read /version.
  Response version = Send("alice-token", "POST", kSsar,
                          Ssar(R"("nonResourceAttributes":{"path":"/version","verb":"get"})"));
  EXPECT_EQ(J(version.body)["/status/allowed"], "true") << version.body;
}

TEST_F(AccessReviewTest, SubjectAccessReviewAnswersForTheNamedUser) {
  const std::string body =
      R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{)"
      R"("user":"system:kube-scheduler","resourceAttributes":{"namespace":"ns",)"
      R"("verb":"create","resource":"pods","subresource":"binding","name":"p"}}})";
  Response r = Send("admin-token", "POST", kSar, body);
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(J(r.body)["/status/allowed"], "true");
  // Asking about others is itself authorized: alice may not.
  Response refused = Send("alice-token", "POST", kSar, body);
  EXPECT_EQ(refused.status, 403) << refused.body;
  EXPECT_NE(refused.body.find(R"(cannot create resource \"subjectaccessreviews\" in API group )"
                              R"(\"authorization.k8s.io\" at the cluster scope)"),
            std::string::npos)
      << refused.body;
}

TEST_F(AccessReviewTest, ReviewsWithoutExactlyOneKindOfAttributesAreInvalid) {
  Response none = Send("alice-token", "POST", kSsar, Ssar(""));
  EXPECT_EQ(none.status, 422) << none.body;
  EXPECT_NE(none.body.find("spec.resourceAttributes: Required value: one of resourceAttributes "
                           "or nonResourceAttributes must be specified"),
            std::string::npos)
      << none.body;
  Response both =
      Send("alice-token", "POST", kSsar,
           Ssar(R"("resourceAttributes":{"verb":"get"},"nonResourceAttributes":{"path":"/"})"));
  EXPECT_EQ(both.status, 422) << both.body;
  Response nobody = Send("admin-token", "POST", kSar,
                         R"({"spec":{"resourceAttributes":{"verb":"get","resource":"pods"}}})");
  EXPECT_EQ(nobody.status, 422) << nobody.body;
  EXPECT_NE(nobody.body.find("at least one of user or group must be specified"), std::string::npos);
  EXPECT_EQ(Send("alice-token", "POST", kSsar, "{not json").status, 400);
  EXPECT_EQ(Send("alice-token", "GET", kSsar).status, 405);  // reviews are only created
}

TEST_F(AccessReviewTest, SelfSubjectRulesReviewListsTheCallersRules) {
  Admin("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
        R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"r"},)"
        R"("rules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"],)"
        R"("resourceNames":["p"]}]})");
  Admin("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
        R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",)"
        R"("metadata":{"name":"b"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io",)"
        R"("kind":"Role","name":"r"},"subjects":[{"kind":"User","name":"alice"}]})");
  Response r = Send("alice-token", "POST", kRules,
                    R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview",)"
                    R"("spec":{"namespace":"default"}})");
  ASSERT_EQ(r.status, 201) << r.body;
  J j(r.body);
  EXPECT_EQ(j["/status/incomplete"], "false");
  EXPECT_NE(r.body.find(R"({"verbs":["get"],"apiGroups":[""],"resources":["pods"],)"
                        R"("resourceNames":["p"]})"),
            std::string::npos)
      << r.body;
  EXPECT_NE(r.body.find(R"("nonResourceURLs":["/api")"), std::string::npos);
  // The role is not alice's in another namespace.
  Response other = Send("alice-token", "POST", kRules, R"({"spec":{"namespace":"kube-system"}})");
  EXPECT_EQ(other.body.find(R"("resources":["pods"])"), std::string::npos) << other.body;
}

TEST_F(AccessReviewTest, ForbiddenRequestsAreAnswered403WithKubernetesStatus) {
  Response r = Send("alice-token", "DELETE", "/api/v1/namespaces/default/pods/p");
  EXPECT_EQ(r.status, 403);
  J j(r.body);
  EXPECT_EQ(j["/reason"], "Forbidden");
  EXPECT_EQ(j["/code"], "403");
  EXPECT_EQ(j["/message"],
            R"(pods "p" is forbidden: User "alice" cannot delete resource "pods" in API group "" )"
            R"(in the namespace "default")");
  EXPECT_EQ(j["/details/name"], "p");
  EXPECT_EQ(j["/details/kind"], "pods");
  // Health probes need no authorization; unauthenticated requests are 401 before anything.
  EXPECT_EQ(Send("", "GET", "/readyz").status, 200);
  EXPECT_EQ(Send("", "GET", "/api/v1/pods").status, 401);
  EXPECT_EQ(Send("bad-token", "GET", "/version").status, 401);
}

TEST_F(AccessReviewTest, AListGrantIsNotAWatchGrantHoweverWatchIsSpelled) {
  Admin("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
        R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"r"},)"
        R"("rules":[{"verbs":["list"],"apiGroups":[""],"resources":["pods"]}]})");
  Admin("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
        R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",)"
        R"("metadata":{"name":"b"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io",)"
        R"("kind":"Role","name":"r"},"subjects":[{"kind":"User","name":"alice"}]})");
  EXPECT_EQ(Send("alice-token", "GET", "/api/v1/namespaces/default/pods").status, 200);
  for (const char* watch : {"?watch=true", "?watch=True", "?watch=", "?watch=yes", "?watch"}) {
    Response r = Send("alice-token", "GET", std::string("/api/v1/namespaces/default/pods") + watch);
    EXPECT_EQ(r.status, 403) << watch << ": " << r.body;
  }
}

class AuditLogTest : public testing::AuthorizedHandlerTest {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() /
            ("allot-audit-" + std::to_string(::getpid()) + ".log");
    std::filesystem::remove(path_);
    auto log = audit::AuditLog::Open(path_.string(), clock_);
    ASSERT_TRUE(log.ok());
    audit_ = *log;
    AuthorizedHandlerTest::SetUp();
  }
  void TearDown() override {
    AuthorizedHandlerTest::TearDown();
    std::filesystem::remove(path_);
  }
  std::vector<std::string> Lines() {
    audit_->Flush();
    std::ifstream in(path_);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
  std::filesystem::path path_;
};

TEST_F(AuditLogTest, EveryAnsweredRequestIsOneJsonLineWithUserVerbObjectAndCode) {
  Admin("POST", "/api/v1/namespaces/default/pods",
        R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},)"
        R"("spec":{"containers":[{"name":"c","image":"i"}]}})");
  Send("alice-token", "GET", "/api/v1/namespaces/default/pods/p");
  Send("alice-token", "GET", "/metrics");
  std::vector<std::string> lines = Lines();
  ASSERT_EQ(lines.size(), 3u);
  J create(lines[0]);
  ASSERT_TRUE(create.ok()) << lines[0];
  EXPECT_EQ(create["/kind"], "Event");
  EXPECT_EQ(create["/apiVersion"], "audit.k8s.io/v1");
  EXPECT_EQ(create["/verb"], "create");
  EXPECT_EQ(create["/user/username"], "admin");
  EXPECT_EQ(create["/user/groups"], R"(["system:masters","system:authenticated"])");
  EXPECT_EQ(create["/objectRef/resource"], "pods");
  EXPECT_EQ(create["/objectRef/namespace"], "default");
  EXPECT_EQ(create["/responseStatus/code"], "201");
  EXPECT_EQ(create["/sourceIPs"], R"(["127.0.0.1"])");
  EXPECT_EQ(create["/requestURI"], "/api/v1/namespaces/default/pods");
  J get(lines[1]);
  EXPECT_EQ(get["/verb"], "get");
  EXPECT_EQ(get["/objectRef/name"], "p");
  EXPECT_EQ(get["/responseStatus/code"], "403");
  EXPECT_NE(get["/auditID"], create["/auditID"]);
  J metrics(lines[2]);
  EXPECT_EQ(metrics["/objectRef"], "<missing>");
  EXPECT_EQ(metrics["/requestURI"], "/metrics");
  // Nothing of a request body is written.
  EXPECT_EQ(lines[0].find("containers"), std::string::npos);
}

TEST_F(AuditLogTest, AnImpersonatedRequestRecordsBothIdentities) {
  Send("admin-token", "GET", "/api/v1/namespaces/default/pods", "", "application/json",
       {{"Impersonate-User", "jane"}, {"Impersonate-Group", "dev"}});
  Send("alice-token", "GET", "/api/v1/namespaces/default/pods", "", "application/json",
       {{"Impersonate-User", "jane"}});
  std::vector<std::string> lines = Lines();
  ASSERT_EQ(lines.size(), 2u);
  J allowed(lines[0]);
  EXPECT_EQ(allowed["/user/username"], "admin");
  EXPECT_EQ(allowed["/impersonatedUser/username"], "jane");
  EXPECT_EQ(allowed["/impersonatedUser/groups"], R"(["dev","system:authenticated"])");
  EXPECT_EQ(allowed["/responseStatus/code"], "403");  // jane may not list pods
  // system:masters passed the first constrained mode that applies.
  EXPECT_EQ(allowed["/authenticationMetadata/impersonationConstraint"], "impersonate:user-info");
  J refused(lines[1]);
  EXPECT_EQ(refused["/user/username"], "alice");
  EXPECT_EQ(refused["/impersonatedUser"], "<missing>");
  EXPECT_EQ(refused["/responseStatus/code"], "403");
}

}  // namespace
}  // namespace allot::apiserver
