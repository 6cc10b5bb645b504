// URL layout of the Kubernetes API: which endpoint a request path names.
//
//   /version /healthz /readyz /livez /metrics /openapi/v2 /openapi/v3[/<gv path>]
//   /ui                       the dashboard's page (apiserver/dashboard/page.h)
//   /api                      APIVersions          /apis            APIGroupList
//   /api/v1                   APIResourceList      /apis/<g>        APIGroup
//   /apis/<g>/<v>             APIResourceList
//   <prefix>/namespaces/<ns>/<res>[/<name>[/<sub>]]    namespaced resources
//   <prefix>/<res>[/<name>[/<sub>]]                    cluster-scoped (or all-namespaces list)
//   /api/v1/namespaces[/<name>[/<sub>]]                namespaces themselves
#pragma once

#include <string>
#include <string_view>

#include "api/machinery/resources.h"

namespace allot::apiserver {

enum class RouteKind {
  kNotFound,
  kRoot,            // "/"
  kVersion,         // /version
  kHealth,          // /healthz, /readyz, /livez (and sub-checks)
  kMetrics,         // /metrics
  kApiVersions,     // /api
  kApiGroupList,    // /apis
  kApiGroup,        // /apis/<g>
  kResourceList,    // /api/v1, /apis/<g>/<v>
  kResource,        // anything under a group-version that names a resource
  kOpenApiV3Index,  // /openapi/v3
  kOpenApiV3Doc,    // /openapi/v3/api/v1, /openapi/v3/apis/<g>/<v>
  kOpenApiV2,       // /openapi/v2 (not served: 404)
  kDashboard,       // /ui, /ui/
};

struct Route {
  RouteKind kind = RouteKind::kNotFound;
  std::string group;    // kApiGroup, kResourceList, kResource, kOpenApiV3Doc
  std::string version;  // kResourceList, kResource, kOpenApiV3Doc
  const api::ResourceInfo* resource = nullptr;  // kResource: the resource as stored
  // kResource in a served version (resource.k8s.io/v1beta2, events.k8s.io/v1, ...): how to
  // convert to and from `resource`; null in the stored version.
  const api::ServedVersion* served = nullptr;
  std::string namespace_;   // kResource: "" for cluster-scoped or all-namespaces
  std::string name;         // kResource: "" for the collection
  std::string subresource;  // kResource: "status", "binding", "eviction", or ""

  bool collection() const { return name.empty(); }
};

// Resolves a (not yet decoded) request path. Unknown groups, versions, resources and
// subresources the resource does not have resolve to kNotFound.
Route ParseRoute(std::string_view path, const api::ResourceRegistry& registry);

// True when some resource of the registry is served at group/version.
bool ServesGroupVersion(const api::ResourceRegistry& registry, std::string_view group,
                        std::string_view version);

}  // namespace allot::apiserver
