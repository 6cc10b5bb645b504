// Create / get / list / update / delete over HTTP, and the Status bodies of their errors.
#include "apiserver/testing/server_fixture.h"

namespace allot::apiserver {
namespace {

using CrudTest = ApiServerTest;

TEST_F(CrudTest, CreateGetListDelete) {
  auto created = Post(kPods, PodJson("p1"));
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.Header("Content-Type"), "application/json");
  J c(created.body);
  EXPECT_EQ(c["/kind"], "Pod");
  EXPECT_EQ(c["/metadata/namespace"], "default");
  EXPECT_NE(c["/metadata/uid"], "<missing>");
  EXPECT_NE(c["/metadata/resourceVersion"], "<missing>");

  auto got = Get(std::string(kPods) + "/p1");
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(J(got.body)["/metadata/uid"], c["/metadata/uid"]);

  auto list = Get(kPods);
  ASSERT_EQ(list.status, 200);
  J l(list.body);
  EXPECT_EQ(l["/kind"], "PodList");
  EXPECT_EQ(l["/apiVersion"], "v1");
  EXPECT_EQ(l.Size("/items"), 1u);
  EXPECT_NE(l["/metadata/resourceVersion"], "<missing>");

  auto all = Get("/api/v1/pods");
  EXPECT_EQ(J(all.body).Size("/items"), 1u);

  auto deleted = Delete(std::string(kPods) + "/p1", R"({"propagationPolicy":"Background"})");
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  J d(deleted.body);
  EXPECT_EQ(d["/kind"], "Status");
  EXPECT_EQ(d["/status"], "Success");
  EXPECT_EQ(d["/details/name"], "p1");
  EXPECT_EQ(d["/details/kind"], "pods");
  EXPECT_EQ(d["/details/uid"], c["/metadata/uid"]);

  auto gone = Get(std::string(kPods) + "/p1");
  EXPECT_EQ(gone.status, 404);
}

TEST_F(CrudTest, NotFoundStatusBody) {
  auto res = Get(std::string(kPods) + "/nope");
  ASSERT_EQ(res.status, 404);
  J s(res.body);
  EXPECT_EQ(s["/kind"], "Status");
  EXPECT_EQ(s["/apiVersion"], "v1");
  EXPECT_EQ(s["/status"], "Failure");
  EXPECT_EQ(s["/reason"], "NotFound");
  EXPECT_EQ(s["/code"], "404");
  EXPECT_EQ(s["/message"], "pods \"nope\" not found");
  EXPECT_EQ(s["/details/name"], "nope");
  EXPECT_EQ(s["/details/kind"], "pods");
  EXPECT_EQ(s["/metadata"], "{}");
}

TEST_F(CrudTest, UnknownPathAndResource) {
  for (const char* path : {"/api/v1/namespaces/default/widgets", "/apis/nope.io/v1/things",
                           "/api/v2/pods", "/nothing", "/api/v1/namespaces/default/pods/p/logs"}) {
    auto res = Get(path);
    EXPECT_EQ(res.status, 404) << path;
    EXPECT_EQ(J(res.body)["/reason"], "NotFound") << path;
    EXPECT_EQ(J(res.body)["/message"], "the server could not find the requested resource");
  }
  // Unknown resources are 404 for writes too (kubectl create configmap).
  EXPECT_EQ(Post("/api/v1/namespaces/default/endpoints", "{}").status, 404);
}

TEST_F(CrudTest, MethodNotAllowed) {
  auto post_to_object = Post(std::string(kPods) + "/p1", PodJson("p1"));
  EXPECT_EQ(post_to_object.status, 405);
  EXPECT_EQ(J(post_to_object.body)["/reason"], "MethodNotAllowed");
  auto post_all_namespaces = Post("/api/v1/pods", PodJson("p1"));
  EXPECT_EQ(post_all_namespaces.status, 405);
  auto put_collection = Put(kPods, PodJson("p1"));
  EXPECT_EQ(put_collection.status, 405);
  auto post_version = Post("/version", "{}");
  EXPECT_EQ(post_version.status, 405);
}

TEST_F(CrudTest, AlreadyExistsAndConflict) {
  std::string first = CreatePod("p1");
  auto again = Post(kPods, PodJson("p1"));
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(J(again.body)["/reason"], "AlreadyExists");
  EXPECT_EQ(J(again.body)["/message"], "pods \"p1\" already exists");

  // PUT with a stale resourceVersion.
  std::string stale = PodJson("p1", {}, R"("resourceVersion":"1","labels":{"a":"b"})");
  auto put = Put(std::string(kPods) + "/p1", stale);
  EXPECT_EQ(put.status, 409) << put.body;
  EXPECT_EQ(J(put.body)["/reason"], "Conflict");
}

TEST_F(CrudTest, UpdateWithCurrentResourceVersion) {
  J created(CreatePod("p1"));
  std::string meta = "\"resourceVersion\":\"" + created["/metadata/resourceVersion"] +
                     "\",\"labels\":{\"app\":\"web\"}";
  auto put = Put(std::string(kPods) + "/p1", PodJson("p1", {}, meta));
  ASSERT_EQ(put.status, 200) << put.body;
  J updated(put.body);
  EXPECT_EQ(updated["/metadata/labels/app"], "web");
  EXPECT_NE(updated["/metadata/resourceVersion"], created["/metadata/resourceVersion"]);
  // Name in the body must match the URL.
  auto mismatch = Put(std::string(kPods) + "/other", PodJson("p1"));
  EXPECT_EQ(mismatch.status, 400);
}

TEST_F(CrudTest, ValidationIs422) {
  auto res = Post(kPods, R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1"},
                              "spec":{"containers":[]}})");
  ASSERT_EQ(res.status, 422) << res.body;
  J s(res.body);
  EXPECT_EQ(s["/reason"], "Invalid");
  EXPECT_EQ(s["/details/kind"], "Pod");
  EXPECT_NE(s["/details/causes/0/field"], "<missing>");
}

// In kube-apiserver's words: Go's decoder fails reading apiVersion and kind; the body's start.
TEST_F(CrudTest, MalformedJsonIs400AsKubeAPIServerSaysIt) {
  auto res = Post(kPods, "{\"apiVersion\": \"v1\",\n  \"kind\" \"Pod\"}");
  ASSERT_EQ(res.status, 400);
  EXPECT_EQ(J(res.body)["/reason"], "BadRequest");
  EXPECT_EQ(J(res.body)["/message"],
            "the object provided is unrecognized (must be of type Pod): couldn't get "
            "version/kind; json parse error: invalid character '\"' after object key "
            "({\"apiVersion\": \"v1\",\n  \"kind\"  ...)");
  EXPECT_EQ(J(Post(kPods, "[1,").body)["/message"],
            "the object provided is unrecognized (must be of type Pod): couldn't get "
            "version/kind; json parse error: unexpected end of JSON input (5b312c)");
}

TEST_F(CrudTest, DeeplyNestedJsonIs400) {
  std::string deep(50000, '[');
  EXPECT_EQ(Post(kPods, deep).status, 400);
  EXPECT_EQ(Patch(std::string(kPods) + "/p1", deep, "application/merge-patch+json").status, 400);
  EXPECT_EQ(Delete(std::string(kPods) + "/p1", deep).status, 400);
  EXPECT_EQ(Get("/healthz").status, 200);
}

TEST_F(CrudTest, UnsupportedMediaTypeIs415) {
  auto res = Post(kPods, "xx", {{"Content-Type", "application/cbor"}});
  EXPECT_EQ(res.status, 415);
  EXPECT_EQ(J(res.body)["/reason"], "UnsupportedMediaType");
}

TEST_F(CrudTest, BodyTooLargeIs413) {
  std::string big(100 * 1024, 'x');
  auto res = Post(kPods, big);
  EXPECT_EQ(res.status, 413);
  EXPECT_EQ(J(res.body)["/reason"], "RequestEntityTooLarge");
  // The server is still there.
  EXPECT_EQ(Get("/healthz").status, 200);
}

TEST_F(CrudTest, StrictFieldValidation) {
  std::string body = PodJson("p1", R"("bogus":1)");
  auto strict = Post(std::string(kPods) + "?fieldValidation=Strict", body);
  ASSERT_EQ(strict.status, 400) << strict.body;
  EXPECT_NE(J(strict.body)["/message"].find("strict decoding error: unknown field \"spec.bogus\""),
            std::string::npos)
      << strict.body;

  auto warn = Post(kPods, body);
  ASSERT_EQ(warn.status, 201) << warn.body;
  EXPECT_EQ(warn.Header("Warning"), "299 - \"unknown field \\\"spec.bogus\\\"\"");
  EXPECT_EQ(J(warn.body)["/spec/bogus"], "<missing>");

  auto ignore = Post(std::string(kPods) + "?fieldValidation=Ignore", PodJson("p2", R"("bogus":1)"));
  ASSERT_EQ(ignore.status, 201);
  EXPECT_TRUE(ignore.Headers("Warning").empty());

  auto bad = Post(std::string(kPods) + "?fieldValidation=Sometimes", PodJson("p3"));
  EXPECT_EQ(bad.status, 400);
}

// The parts Allot keeps as JSON text (here a volume source and a pod's security context) are
// decoded as kube-apiserver decodes their messages: unknown members are dropped with a warning
// (or refused when strict), a value of the wrong type is a 400 naming the field.
TEST_F(CrudTest, FieldsKeptAsJsonAreDecodedAsTheirMessages) {
  const std::string volume =
      R"("volumes":[{"name":"v","emptyDir":{"medium":"Memory","sizeLimits":"1Gi"}}])";
  auto warn = Post(kPods, PodJson("kept", volume));
  ASSERT_EQ(warn.status, 201) << warn.body;
  EXPECT_EQ(warn.Header("Warning"),
            "299 - \"unknown field \\\"spec.volumes[0].emptyDir.sizeLimits\\\"\"");
  EXPECT_EQ(J(warn.body)["/spec/volumes/0/emptyDir"], R"({"medium":"Memory"})");

  auto strict = Post(std::string(kPods) + "?fieldValidation=Strict", PodJson("strict", volume));
  ASSERT_EQ(strict.status, 400) << strict.body;
  EXPECT_NE(J(strict.body)["/message"].find(
                "strict decoding error: unknown field \"spec.volumes[0].emptyDir.sizeLimits\""),
            std::string::npos)
      << strict.body;

  auto wrong = Post(kPods, PodJson("wrong", R"("securityContext":{"runAsUser":"root"})"));
  ASSERT_EQ(wrong.status, 400) << wrong.body;
  EXPECT_EQ(J(wrong.body)["/reason"], "BadRequest");
  EXPECT_NE(J(wrong.body)["/message"].find("into field spec.securityContext.runAsUser of type int64"),
            std::string::npos)
      << wrong.body;
}

TEST_F(CrudTest, YamlBody) {
  std::string yaml =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: y1\nspec:\n  containers:\n"
      "  - name: c\n    image: busybox\n";
  auto res = Post(kPods, yaml, {{"Content-Type", "application/yaml"}});
  ASSERT_EQ(res.status, 201) << res.body;
  EXPECT_EQ(J(res.body)["/metadata/name"], "y1");
  auto bad = Post(kPods, "a: [unclosed", {{"Content-Type", "application/yaml"}});
  EXPECT_EQ(bad.status, 400) << bad.body;
}

TEST_F(CrudTest, DryRunDoesNotWrite) {
  auto res = Post(std::string(kPods) + "?dryRun=All", PodJson("d1"));
  ASSERT_EQ(res.status, 201) << res.body;
  EXPECT_EQ(Get(std::string(kPods) + "/d1").status, 404);
  EXPECT_EQ(Post(std::string(kPods) + "?dryRun=Some", PodJson("d1")).status, 400);
}

TEST_F(CrudTest, NamespaceMismatchIs400) {
  auto res = Post(kPods, PodJson("p1", {}, R"("namespace":"other")"));
  EXPECT_EQ(res.status, 400);
}

TEST_F(CrudTest, ClusterScopedNamespaces) {
  auto res = Post("/api/v1/namespaces",
                  R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"}})");
  ASSERT_EQ(res.status, 201) << res.body;
  auto got = Get("/api/v1/namespaces/team-a");
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(J(got.body)["/metadata/name"], "team-a");
  auto ns_pods = Post("/api/v1/namespaces/team-a/pods", PodJson("p1"));
  EXPECT_EQ(ns_pods.status, 201) << ns_pods.body;
  EXPECT_EQ(J(Get("/api/v1/namespaces/team-a/pods").body).Size("/items"), 1u);
  EXPECT_EQ(J(Get(kPods).body).Size("/items"), 0u);
}

TEST_F(CrudTest, SelectorsAndPaging) {
  for (int i = 0; i < 5; ++i) {
    std::string name = "p" + std::to_string(i);
    std::string labels = i % 2 ? R"("labels":{"odd":"true"})" : R"("labels":{"odd":"false"})";
    ASSERT_EQ(Post(kPods, PodJson(name, {}, labels)).status, 201);
  }
  EXPECT_EQ(J(Get(std::string(kPods) + "?labelSelector=odd%3Dtrue").body).Size("/items"), 2u);
  EXPECT_EQ(J(Get(std::string(kPods) + "?fieldSelector=metadata.name%3Dp3").body).Size("/items"),
            1u);
  auto bad_field = Get(std::string(kPods) + "?fieldSelector=spec.bogus%3Dx");
  EXPECT_EQ(bad_field.status, 400);
  EXPECT_EQ(J(bad_field.body)["/message"], "field label not supported: spec.bogus");
  EXPECT_EQ(Get(std::string(kPods) + "?labelSelector=a%20b").status, 400);

  J page1(Get(std::string(kPods) + "?limit=2").body);
  EXPECT_EQ(page1.Size("/items"), 2u);
  std::string token = page1["/metadata/continue"];
  ASSERT_NE(token, "<missing>");
  J page2(Get(std::string(kPods) + "?limit=2&continue=" + token).body);
  EXPECT_EQ(page2.Size("/items"), 2u);
  EXPECT_EQ(page2["/metadata/resourceVersion"], page1["/metadata/resourceVersion"]);
}

TEST_F(CrudTest, DeleteCollection) {
  CreatePod("a");
  CreatePod("b");
  auto res = Delete(kPods);
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(J(res.body)["/kind"], "PodList");
  EXPECT_EQ(J(res.body).Size("/items"), 2u);
  EXPECT_EQ(J(Get(kPods).body).Size("/items"), 0u);
}

TEST_F(CrudTest, DeleteWithFinalizerReturnsObject) {
  ASSERT_EQ(Post(kPods, PodJson("f1", {}, R"("finalizers":["example.com/hold"])")).status, 201);
  auto res = Delete(std::string(kPods) + "/f1");
  ASSERT_EQ(res.status, 200) << res.body;
  J obj(res.body);
  EXPECT_EQ(obj["/kind"], "Pod");
  EXPECT_NE(obj["/metadata/deletionTimestamp"], "<missing>");
  auto precondition =
      Delete(std::string(kPods) + "/f1", R"({"preconditions":{"uid":"not-the-uid"}})");
  EXPECT_EQ(precondition.status, 409);
}

TEST_F(CrudTest, PrettyOutput) {
  auto res = Get("/version?pretty=true");
  EXPECT_NE(res.body.find("\n  \"major\""), std::string::npos) << res.body;
}

}  // namespace
}  // namespace allot::apiserver
