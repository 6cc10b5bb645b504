// URL routing, query parsing and content negotiation, without a server.
#include "apiserver/rest/router.h"

#include <gtest/gtest.h>

#include "apiserver/rest/request_params.h"
#include "apiserver/transport/http_types.h"

namespace allot::apiserver {
namespace {

const api::ResourceRegistry& Registry() { return api::ResourceRegistry::Default(); }

TEST(RouterTest, NamespacedPaths) {
  Route r = ParseRoute("/api/v1/namespaces/default/pods/p1/binding", Registry());
  ASSERT_EQ(r.kind, RouteKind::kResource);
  EXPECT_EQ(r.resource->resource, "pods");
  EXPECT_EQ(r.namespace_, "default");
  EXPECT_EQ(r.name, "p1");
  EXPECT_EQ(r.subresource, "binding");

  Route list = ParseRoute("/api/v1/namespaces/default/pods", Registry());
  ASSERT_EQ(list.kind, RouteKind::kResource);
  EXPECT_TRUE(list.collection());

  Route all = ParseRoute("/api/v1/pods", Registry());
  ASSERT_EQ(all.kind, RouteKind::kResource);
  EXPECT_EQ(all.namespace_, "");
  EXPECT_EQ(ParseRoute("/api/v1/pods/p1", Registry()).kind, RouteKind::kNotFound);
}

TEST(RouterTest, NamespacesThemselves) {
  Route ns = ParseRoute("/api/v1/namespaces/team-a", Registry());
  ASSERT_EQ(ns.kind, RouteKind::kResource);
  EXPECT_EQ(ns.resource->resource, "namespaces");
  EXPECT_EQ(ns.name, "team-a");
  Route status = ParseRoute("/api/v1/namespaces/team-a/status", Registry());
  ASSERT_EQ(status.kind, RouteKind::kResource);
  EXPECT_EQ(status.subresource, "status");
  EXPECT_EQ(ParseRoute("/api/v1/namespaces/a/finalize/x", Registry()).kind, RouteKind::kNotFound);
}

TEST(RouterTest, GroupsAndDiscovery) {
  Route claim =
      ParseRoute("/apis/resource.k8s.io/v1/namespaces/ns/resourceclaims/c/status", Registry());
  ASSERT_EQ(claim.kind, RouteKind::kResource);
  EXPECT_EQ(claim.resource->group, "resource.k8s.io");
  EXPECT_EQ(ParseRoute("/apis/resource.k8s.io/v1", Registry()).kind, RouteKind::kResourceList);
  EXPECT_EQ(ParseRoute("/apis/resource.k8s.io", Registry()).kind, RouteKind::kApiGroup);
  EXPECT_EQ(ParseRoute("/apis", Registry()).kind, RouteKind::kApiGroupList);
  EXPECT_EQ(ParseRoute("/api", Registry()).kind, RouteKind::kApiVersions);
  EXPECT_EQ(ParseRoute("/openapi/v3/api/v1", Registry()).kind, RouteKind::kOpenApiV3Doc);
  EXPECT_EQ(ParseRoute("/healthz/ping", Registry()).kind, RouteKind::kHealth);
  EXPECT_EQ(ParseRoute("/apis/resource.k8s.io/v1/deviceclasses/x/status", Registry()).kind,
            RouteKind::kNotFound);
  EXPECT_EQ(ParseRoute("/api/v1/namespaces/../pods", Registry()).kind, RouteKind::kNotFound);
}

TEST(HttpTypesTest, SplitTarget) {
  std::string path;
  Pairs query;
  SplitTarget("/api/v1/pods?labelSelector=a%3Db%2Cc+in+(x)&watch=1&flag", path, query);
  EXPECT_EQ(path, "/api/v1/pods");
  ASSERT_EQ(query.size(), 3u);
  EXPECT_EQ(query[0].second, "a=b,c in (x)");
  EXPECT_EQ(query[1].second, "1");
  EXPECT_EQ(query[2].first, "flag");
  EXPECT_EQ(PercentDecode("%zz%4", false), "%zz%4");
}

TEST(RequestParamsTest, Negotiation) {
  Request req;
  req.headers = {{"accept", "application/json;as=Table;v=v1beta1;g=meta.k8s.io"}};
  auto out = NegotiateOutput(req);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->kind, OutputKind::kTable);
  EXPECT_EQ(out->table_version, "v1beta1");
  req.headers = {{"Accept", "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"}};
  EXPECT_EQ(NegotiateOutput(req)->kind, OutputKind::kPartialMetadata);
  req.headers = {{"Accept", "*/*"}};
  EXPECT_EQ(NegotiateOutput(req)->kind, OutputKind::kObject);
  req.headers = {
      {"Accept", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"}};
  EXPECT_EQ(AggregatedDiscoveryVersion(req), "v2beta1");
  req.headers = {{"Accept", "application/json"}};
  EXPECT_EQ(AggregatedDiscoveryVersion(req), "");
}

TEST(RequestParamsTest, ListParams) {
  const api::ResourceInfo& pods = *Registry().Find("", "v1", "pods");
  Request req;
  req.query = {{"resourceVersion", "12"},     {"resourceVersionMatch", "NotOlderThan"},
               {"timeoutSeconds", "5"},       {"watch", "true"},
               {"sendInitialEvents", "true"}, {"fieldSelector", "spec.nodeName=n1"}};
  auto p = ParseListParams(req, pods);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(*p->resource_version, 12u);
  EXPECT_EQ(*p->timeout_seconds, 5);
  EXPECT_TRUE(p->watch);
  req.query = {{"resourceVersionMatch", "Exact"}};
  EXPECT_EQ(ParseListParams(req, pods).status().code(), StatusCode::kInvalid);
  req.query = {{"watch", "1"}, {"resourceVersionMatch", "NotOlderThan"}};
  EXPECT_EQ(ParseListParams(req, pods).status().code(), StatusCode::kInvalid);
  req.query = {{"continue", "abc"}, {"resourceVersion", "5"}};
  EXPECT_FALSE(ParseListParams(req, pods).ok());
  req.query = {{"limit", "-1"}};
  EXPECT_FALSE(ParseListParams(req, pods).ok());
  req.query = {{"resourceVersion", "abc"}};
  EXPECT_FALSE(ParseListParams(req, pods).ok());
}

}  // namespace
}  // namespace allot::apiserver
