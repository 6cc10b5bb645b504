#include "apiserver/authz/rule_match.h"

#include <gtest/gtest.h>

#include "api/machinery/resources.h"

namespace allot::apiserver::authz {
namespace {

Attributes Of(std::string method, std::string target) {
  Request r;
  r.method = std::move(method);
  r.target = std::move(target);
  SplitTarget(r.target, r.path, r.query);
  return AttributesOf(r, ParseRoute(r.path, api::ResourceRegistry::Default()),
                      authn::UserInfo{"u", "", {}});
}

TEST(Attributes, VerbsAndResourcesAsKubeApiserverDerivesThem) {
  struct Case {
    const char* method;
    const char* target;
    const char* verb;
    const char* ns;
    const char* group;
    const char* resource;
    const char* sub;
    const char* name;
  };
  const Case cases[] = {
      {"GET", "/api/v1/namespaces/ns/pods", "list", "ns", "", "pods", "", ""},
      {"GET", "/api/v1/pods?watch=true", "watch", "", "", "pods", "", ""},
      {"GET", "/api/v1/namespaces/ns/pods/p", "get", "ns", "", "pods", "", "p"},
      {"HEAD", "/api/v1/nodes/n1", "get", "", "", "nodes", "", "n1"},
      {"POST", "/api/v1/namespaces/ns/pods", "create", "ns", "", "pods", "", ""},
      {"POST", "/api/v1/namespaces/ns/pods/p/binding", "create", "ns", "", "pods", "binding", "p"},
      {"PUT", "/api/v1/namespaces/ns/pods/p/status", "update", "ns", "", "pods", "status", "p"},
      {"PATCH", "/apis/resource.k8s.io/v1/namespaces/ns/resourceclaims/c/status", "patch", "ns",
       "resource.k8s.io", "resourceclaims", "status", "c"},
      {"DELETE", "/api/v1/namespaces/ns/pods/p", "delete", "ns", "", "pods", "", "p"},
      {"DELETE", "/api/v1/namespaces/ns/pods", "deletecollection", "ns", "", "pods", "", ""},
      // ?watch= as the list handler reads it: anything but 0 and false is a watch.
      {"GET", "/api/v1/pods?watch=True", "watch", "", "", "pods", "", ""},
      {"GET", "/api/v1/pods?watch=", "watch", "", "", "pods", "", ""},
      {"GET", "/api/v1/pods?watch=FALSE", "list", "", "", "pods", "", ""},
      {"GET", "/api/v1/pods?watch=0", "list", "", "", "pods", "", ""},
      // A namespace named watch is a namespace; an object is got, whatever ?watch says.
      {"GET", "/api/v1/namespaces/watch/pods", "list", "watch", "", "pods", "", ""},
      {"GET", "/api/v1/namespaces/ns/pods/p?watch=true", "get", "ns", "", "pods", "", "p"},
      // One object's list or watch by its name is about that name.
      {"GET", "/api/v1/namespaces/ns/pods?watch=1&fieldSelector=metadata.name%3Dp", "watch",
       "ns", "", "pods", "", "p"},
      {"GET", "/api/v1/namespaces/ns/pods?fieldSelector=metadata.name!%3Dp", "list", "ns", "",
       "pods", "", ""},
  };
  for (const Case& c : cases) {
    Attributes a = Of(c.method, c.target);
    EXPECT_TRUE(a.resource_request) << c.target;
    EXPECT_EQ(a.verb, c.verb) << c.method << " " << c.target;
    EXPECT_EQ(a.namespace_, c.ns) << c.target;
    EXPECT_EQ(a.api_group, c.group) << c.target;
    EXPECT_EQ(a.resource, c.resource) << c.target;
    EXPECT_EQ(a.subresource, c.sub) << c.target;
    EXPECT_EQ(a.name, c.name) << c.target;
  }
  Attributes health = Of("GET", "/healthz");
  EXPECT_FALSE(health.resource_request);
  EXPECT_EQ(health.verb, "get");
  EXPECT_EQ(health.path, "/healthz");
  EXPECT_EQ(Of("GET", "/apis/resource.k8s.io").path, "/apis/resource.k8s.io");
}

TEST(RuleAllows, KubernetesMatchingRules) {
  PolicyRule read_pods{{"get", "list", "watch"}, {""}, {"pods"}, {}, {}};
  EXPECT_TRUE(RuleAllows(Of("GET", "/api/v1/namespaces/ns/pods"), read_pods));
  EXPECT_TRUE(RuleAllows(Of("GET", "/api/v1/namespaces/ns/pods/p"), read_pods));
  EXPECT_FALSE(RuleAllows(Of("DELETE", "/api/v1/namespaces/ns/pods/p"), read_pods));
  EXPECT_FALSE(RuleAllows(Of("GET", "/api/v1/namespaces/ns/pods/p/status"), read_pods));
  EXPECT_FALSE(RuleAllows(Of("GET", "/apis/resource.k8s.io/v1/resourceclaims"), read_pods));

  PolicyRule status{{"update", "patch"}, {"*"}, {"*/status"}, {}, {}};
  EXPECT_TRUE(RuleAllows(Of("PUT", "/api/v1/namespaces/ns/pods/p/status"), status));
  EXPECT_TRUE(RuleAllows(
      Of("PATCH", "/apis/resource.k8s.io/v1/namespaces/ns/resourceclaims/c/status"), status));
  EXPECT_FALSE(RuleAllows(Of("PUT", "/api/v1/namespaces/ns/pods/p"), status));

  PolicyRule binding{{"create"}, {""}, {"pods/binding"}, {}, {}};
  EXPECT_TRUE(RuleAllows(Of("POST", "/api/v1/namespaces/ns/pods/p/binding"), binding));
  EXPECT_FALSE(RuleAllows(Of("POST", "/api/v1/namespaces/ns/pods"), binding));

  PolicyRule named{{"get", "update", "create", "list"},
                   {"coordination.k8s.io"},
                   {"leases"},
                   {"allot-scheduler"},
                   {}};
  EXPECT_TRUE(RuleAllows(
      Of("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/allot-scheduler"),
      named));
  EXPECT_FALSE(RuleAllows(
      Of("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/other"), named));
  // A rule with names never covers requests without one.
  EXPECT_FALSE(
      RuleAllows(Of("POST", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"), named));
  EXPECT_FALSE(
      RuleAllows(Of("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"), named));

  PolicyRule all{{"*"}, {"*"}, {"*"}, {}, {}};
  EXPECT_TRUE(RuleAllows(Of("DELETE", "/api/v1/namespaces/ns/pods"), all));
  EXPECT_FALSE(RuleAllows(Of("GET", "/healthz"), all));  // resources are not URLs

  PolicyRule urls{{"get"}, {}, {}, {}, {"/healthz", "/apis/*", "/version"}};
  EXPECT_TRUE(RuleAllows(Of("GET", "/healthz"), urls));
  EXPECT_TRUE(RuleAllows(Of("GET", "/apis/resource.k8s.io"), urls));
  EXPECT_TRUE(RuleAllows(Of("GET", "/version"), urls));
  EXPECT_FALSE(RuleAllows(Of("GET", "/metrics"), urls));
  EXPECT_FALSE(RuleAllows(Of("POST", "/healthz"), urls));
  PolicyRule every_url{{"*"}, {}, {}, {}, {"*"}};
  EXPECT_TRUE(RuleAllows(Of("GET", "/metrics"), every_url));
}

}  // namespace
}  // namespace allot::apiserver::authz
