// Discovery, OpenAPI v3, tables, health and metrics endpoints.
#include "apiserver/testing/server_fixture.h"

namespace allot::apiserver {
namespace {

using DiscoveryTest = ApiServerTest;

constexpr const char* kAggregatedAccept =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
    "application/json";
constexpr const char* kTableAccept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
    "g=meta.k8s.io,application/json";

// The index of the resource entry named `name` in a resource list, or -1.
int FindResource(const J& list, const std::string& name) {
  for (size_t i = 0; i < list.Size("/resources"); ++i) {
    std::string p = "/resources/" + std::to_string(i) + "/name";
    if (list[p.c_str()] == name) return static_cast<int>(i);
  }
  return -1;
}

TEST_F(DiscoveryTest, Version) {
  J v(Get("/version").body);
  EXPECT_EQ(v["/major"], "1");
  EXPECT_EQ(v["/minor"], "37");
  EXPECT_EQ(v["/gitVersion"], "v1.37.0-allot");
}

TEST_F(DiscoveryTest, LegacyDiscovery) {
  J api(Get("/api").body);
  EXPECT_EQ(api["/kind"], "APIVersions");
  EXPECT_EQ(api["/versions/0"], "v1");
  J apis(Get("/apis").body);
  EXPECT_EQ(apis["/kind"], "APIGroupList");
  bool found = false;
  for (size_t i = 0; i < apis.Size("/groups"); ++i) {
    std::string p = "/groups/" + std::to_string(i) + "/name";
    if (apis[p.c_str()] == "resource.k8s.io") found = true;
  }
  EXPECT_TRUE(found) << apis["/groups"];

  J core(Get("/api/v1").body);
  EXPECT_EQ(core["/kind"], "APIResourceList");
  EXPECT_EQ(core["/groupVersion"], "v1");
  int pods = FindResource(core, "pods");
  ASSERT_GE(pods, 0);
  std::string base = "/resources/" + std::to_string(pods);
  EXPECT_EQ(core[(base + "/shortNames/0").c_str()], "po");
  EXPECT_EQ(core[(base + "/singularName").c_str()], "pod");
  EXPECT_EQ(core[(base + "/namespaced").c_str()], "true");
  EXPECT_EQ(core[(base + "/kind").c_str()], "Pod");
  EXPECT_NE(core[(base + "/verbs").c_str()].find("watch"), std::string::npos);
  EXPECT_GE(FindResource(core, "pods/status"), 0);
  EXPECT_GE(FindResource(core, "pods/binding"), 0);
  int eviction = FindResource(core, "pods/eviction");
  ASSERT_GE(eviction, 0);
  EXPECT_EQ(core[("/resources/" + std::to_string(eviction) + "/group").c_str()], "policy");

  J dra(Get("/apis/resource.k8s.io/v1").body);
  EXPECT_GE(FindResource(dra, "resourceclaims"), 0);
  EXPECT_GE(FindResource(dra, "resourceclaims/status"), 0);
  EXPECT_EQ(Get("/apis/resource.k8s.io/v9").status, 404);
}

TEST_F(DiscoveryTest, AggregatedDiscovery) {
  auto api = Get("/api", {{"Accept", kAggregatedAccept}});
  EXPECT_EQ(api.Header("Content-Type"),
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
  J core(api.body);
  EXPECT_EQ(core["/kind"], "APIGroupDiscoveryList");
  EXPECT_EQ(core["/apiVersion"], "apidiscovery.k8s.io/v2");
  EXPECT_EQ(core["/items/0/metadata/name"], "");
  EXPECT_EQ(core["/items/0/versions/0/version"], "v1");
  EXPECT_EQ(core["/items/0/versions/0/freshness"], "Current");
  bool pods = false;
  for (size_t i = 0; i < core.Size("/items/0/versions/0/resources"); ++i) {
    std::string base = "/items/0/versions/0/resources/" + std::to_string(i);
    if (core[(base + "/resource").c_str()] != "pods") continue;
    pods = true;
    EXPECT_EQ(core[(base + "/scope").c_str()], "Namespaced");
    EXPECT_EQ(core[(base + "/responseKind/kind").c_str()], "Pod");
    EXPECT_EQ(core[(base + "/singularResource").c_str()], "pod");
    EXPECT_EQ(core[(base + "/shortNames/0").c_str()], "po");
    EXPECT_NE(core[(base + "/subresources").c_str()].find("binding"), std::string::npos);
  }
  EXPECT_TRUE(pods);
  J groups(Get("/apis", {{"Accept", kAggregatedAccept}}).body);
  EXPECT_EQ(groups["/kind"], "APIGroupDiscoveryList");
  EXPECT_GT(groups.Size("/items"), 0u);
}

TEST_F(DiscoveryTest, OpenApiIndexAndDocument) {
  J index(Get("/openapi/v3").body);
  std::string url = index["/paths/api~1v1/serverRelativeURL"];
  ASSERT_EQ(url.rfind("/openapi/v3/api/v1?hash=", 0), 0u) << url;
  EXPECT_NE(index["/paths/apis~1resource.k8s.io~1v1/serverRelativeURL"], "<missing>");

  auto res = Get(url);
  ASSERT_EQ(res.status, 200);
  J doc(res.body);
  ASSERT_TRUE(doc.ok());
  const char* path = "/paths/~1api~1v1~1namespaces~1{namespace}~1pods~1{name}/patch";
  std::string patch = std::string(path);
  EXPECT_EQ(doc[(patch + "/x-kubernetes-action").c_str()], "patch");
  EXPECT_EQ(doc[(patch + "/x-kubernetes-group-version-kind/kind").c_str()], "Pod");
  EXPECT_EQ(doc[(patch + "/x-kubernetes-group-version-kind/version").c_str()], "v1");
  EXPECT_EQ(doc[(patch + "/x-kubernetes-group-version-kind/group").c_str()], "");
  EXPECT_NE(doc[(patch + "/parameters").c_str()].find("\"fieldValidation\""), std::string::npos);
  EXPECT_NE(doc[(patch + "/requestBody/content/application~1strategic-merge-patch+json").c_str()],
            "<missing>");
  // Component schemas carry the GVK and the patch metadata kubectl uses.
  J pod_schema(doc["/components/schemas/io.k8s.api.core.v1.Pod"]);
  EXPECT_EQ(pod_schema["/x-kubernetes-group-version-kind/0/kind"], "Pod");
  EXPECT_EQ(pod_schema["/type"], "object");
  J spec_ref(doc["/components/schemas/io.k8s.api.core.v1.Pod/properties/spec"]);
  EXPECT_NE(spec_ref["/allOf/0/$ref"], "<missing>");
  bool merge_key = res.body.find("\"x-kubernetes-patch-merge-key\":\"name\"") != std::string::npos;
  EXPECT_TRUE(merge_key);

  auto dra = Get("/openapi/v3/apis/resource.k8s.io/v1");
  ASSERT_EQ(dra.status, 200);
  EXPECT_EQ(dra.body.find("strategic-merge-patch"), std::string::npos);
  EXPECT_NE(dra.body.find("\"fieldValidation\""), std::string::npos);
  EXPECT_EQ(Get("/openapi/v3/apis/nope/v1").status, 404);
}

// /openapi/v2: the v3 documents' schemas as Swagger 2.0 definitions, references rewritten; JSON
// unless the client asks for protobuf (client-go's parser reads it: TestOpenAPIDocuments).
TEST_F(DiscoveryTest, OpenApiV2FromTheV3Documents) {
  auto res = Get("/openapi/v2");
  ASSERT_EQ(res.status, 200);
  J v2(res.body);
  EXPECT_EQ(v2["/swagger"], "2.0");
  EXPECT_EQ(v2["/info/version"], "v1.37.0-allot");
  const char* pod = "/definitions/io.k8s.api.core.v1.Pod";
  EXPECT_EQ(v2[(std::string(pod) + "/x-kubernetes-group-version-kind/0/kind").c_str()], "Pod");
  EXPECT_EQ(res.body.find("#/components/schemas/"), std::string::npos);
  EXPECT_NE(res.body.find("\"$ref\":\"#/definitions/io.k8s.api.core.v1.PodSpec\""), std::string::npos);
  EXPECT_EQ(res.body.find("\"nullable\""), std::string::npos);

  auto proto =
      Get("/openapi/v2", {{"Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"}});
  ASSERT_EQ(proto.status, 200);
  EXPECT_EQ(proto.Header("Content-Type"),
            "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
  EXPECT_EQ(proto.body.substr(0, 5), std::string("\x0a\x03" "2.0", 5));  // swagger = 1
}

TEST_F(DiscoveryTest, TableList) {
  CreatePod("p1");
  auto res = Get(kPods, {{"Accept", kTableAccept}});
  ASSERT_EQ(res.status, 200);
  EXPECT_EQ(res.Header("Content-Type"), "application/json;as=Table;v=v1;g=meta.k8s.io");
  J t(res.body);
  EXPECT_EQ(t["/kind"], "Table");
  EXPECT_EQ(t["/apiVersion"], "meta.k8s.io/v1");
  EXPECT_EQ(t["/columnDefinitions/0/name"], "Name");
  EXPECT_EQ(t["/columnDefinitions/0/format"], "name");
  EXPECT_EQ(t.Size("/rows"), 1u);
  EXPECT_EQ(t["/rows/0/cells/0"], "p1");
  EXPECT_EQ(t.Size("/rows/0/cells"), t.Size("/columnDefinitions"));
  EXPECT_EQ(t["/rows/0/object/kind"], "PartialObjectMetadata");
  EXPECT_EQ(t["/rows/0/object/metadata/name"], "p1");
  EXPECT_NE(t["/metadata/resourceVersion"], "<missing>");

  J full(Get(std::string(kPods) + "?includeObject=Object", {{"Accept", kTableAccept}}).body);
  EXPECT_EQ(full["/rows/0/object/kind"], "Pod");

  J one(Get(std::string(kPods) + "/p1", {{"Accept", kTableAccept}}).body);
  EXPECT_EQ(one["/kind"], "Table");
  EXPECT_EQ(one.Size("/rows"), 1u);
}

TEST_F(DiscoveryTest, DefaultTableColumns) {
  // Kinds without printer columns get NAME and "Created At".
  for (const auto& r : api::ResourceRegistry::Default().All()) {
    if (!r.columns.empty() || r.namespaced) continue;
    std::string path =
        (r.group.empty() ? "/api/" : "/apis/" + r.group + "/") + r.version + "/" + r.resource;
    J t(Get(path, {{"Accept", kTableAccept}}).body);
    EXPECT_EQ(t["/columnDefinitions/1/name"], "Created At") << path;
    return;
  }
}

// Protobuf is served for the kinds of api/protobuf.h; for others, protobuf alone is a 406.
TEST_F(DiscoveryTest, ProtobufOnlyIsNotAcceptableForKindsWithoutIt) {
  const char* roles = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles";
  auto res = Get(roles, {{"Accept", "application/vnd.kubernetes.protobuf"}});
  EXPECT_EQ(res.status, 406);
  auto mixed = Get(roles, {{"Accept", "application/vnd.kubernetes.protobuf,application/json"}});
  EXPECT_EQ(mixed.status, 200);
  EXPECT_EQ(mixed.Header("Content-Type"), "application/json");
  auto pods = Get(kPods, {{"Accept", "application/vnd.kubernetes.protobuf"}});
  EXPECT_EQ(pods.status, 200);
  EXPECT_EQ(pods.Header("Content-Type"), "application/vnd.kubernetes.protobuf");
}

TEST_F(DiscoveryTest, HealthAndMetrics) {
  for (const char* p : {"/healthz", "/readyz", "/livez"}) {
    auto res = Get(p);
    EXPECT_EQ(res.status, 200);
    EXPECT_EQ(res.body, "ok");
  }
  CreatePod("p1");
  Get(std::string(kPods) + "/missing");
  auto m = Get("/metrics");
  EXPECT_EQ(m.Header("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  const std::string& text = m.body;
  EXPECT_NE(text.find("# HELP apiserver_request_total [STABLE] "), std::string::npos);
  EXPECT_NE(text.find("# TYPE apiserver_request_total counter"), std::string::npos);
  EXPECT_NE(text.find("apiserver_request_total{code=\"201\",resource=\"pods\",subresource=\"\","
                      "verb=\"POST\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("apiserver_request_total{code=\"404\",resource=\"pods\",subresource=\"\","
                      "verb=\"GET\"} 1"),
            std::string::npos);
  EXPECT_NE(text.find("# TYPE apiserver_request_duration_seconds histogram"), std::string::npos);
  EXPECT_NE(text.find("allot_store_write_duration_seconds_count{operation=\"create\"} 1"),
            std::string::npos);
  EXPECT_NE(text.find("allot_store_writes_total "), std::string::npos);
  EXPECT_EQ(text.back(), '\n');
}

TEST_F(DiscoveryTest, MalformedHttpDoesNotCrash) {
  auto raw = client_->Raw("GARBAGE\r\n\r\n");
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(raw->rfind("HTTP/1.1 400", 0), 0u) << *raw;
  EXPECT_EQ(Get("/healthz").status, 200);
}

TEST_F(DiscoveryTest, OversizedHeadersAre400AndTheServerGoesOn) {
  // More than the 64 KiB the server reads of a request's header fields.
  std::string request =
      "GET /version HTTP/1.1\r\nHost: x\r\nX-Filler: " + std::string(70 * 1024, 'a') + "\r\n\r\n";
  auto raw = client_->Raw(request);
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(raw->rfind("HTTP/1.1 400", 0), 0u) << raw->substr(0, 200);
  EXPECT_NE(raw->find("request header fields too large"), std::string::npos);
  EXPECT_EQ(Get("/healthz").status, 200);
}

}  // namespace
}  // namespace allot::apiserver
