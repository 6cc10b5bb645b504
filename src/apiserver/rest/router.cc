#include "apiserver/rest/router.h"

#include <algorithm>
#include <vector>

#include "apiserver/transport/http_types.h"

namespace allot::apiserver {

namespace {

std::vector<std::string> Segments(std::string_view path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    size_t slash = path.find('/', i);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > i) out.push_back(PercentDecode(path.substr(i, slash - i), false));
    i = slash + 1;
  }
  return out;
}

// The subresources the server implements for a resource.
bool HasSubresource(const api::ResourceInfo& r, std::string_view sub) {
  if (sub == "status") return r.status_subresource;
  if (sub == "binding" || sub == "eviction") {
    const auto& extra = r.extra_subresources;
    return r.group.empty() && r.resource == "pods" &&
           std::find(extra.begin(), extra.end(), sub) != extra.end();
  }
  return false;
}

bool ValidName(std::string_view name) { return name != "." && name != ".."; }

// Fills route from the segments after the group-version prefix.
Route ResourceRoute(const std::vector<std::string>& s, std::string group, std::string version,
                    const api::ResourceRegistry& registry) {
  Route route;
  route.group = std::move(group);
  route.version = std::move(version);
  auto find = [&](std::string_view res) -> const api::ResourceInfo* {
    if (const api::ResourceInfo* r = registry.Find(route.group, route.version, res)) return r;
    const api::ServedVersion* sv = registry.FindServed(route.group, route.version, res);
    route.served = sv;
    return sv ? sv->storage : nullptr;
  };
  size_t i = 0;
  if (s.size() >= 3 && s[0] == "namespaces") {
    const api::ResourceInfo* r = find(s[2]);
    if (r && r->namespaced) {
      route.namespace_ = s[1];
      route.resource = r;
      i = 3;
    }
  }
  if (!route.resource) {
    const api::ResourceInfo* r = find(s[0]);
    if (!r) return Route{};
    route.resource = r;
    i = 1;
    // A namespaced resource is reachable without a namespace only as the all-namespaces list.
    if (r->namespaced && s.size() > 1) return Route{};
  }
  if (i < s.size()) route.name = s[i++];
  if (i < s.size()) route.subresource = s[i++];
  if (i < s.size()) return Route{};
  if (!ValidName(route.name) || !ValidName(route.namespace_)) return Route{};
  if (!route.subresource.empty() && !HasSubresource(*route.resource, route.subresource)) {
    return Route{};
  }
  route.kind = RouteKind::kResource;
  return route;
}

Route Simple(RouteKind kind) {
  Route r;
  r.kind = kind;
  return r;
}

Route OpenApiRoute(const std::vector<std::string>& s, const api::ResourceRegistry& registry) {
  if (s.size() == 2 && s[1] == "v2") return Simple(RouteKind::kOpenApiV2);
  if (s.size() < 2 || s[1] != "v3") return Route{};
  if (s.size() == 2) return Simple(RouteKind::kOpenApiV3Index);
  Route r;
  if (s.size() == 4 && s[2] == "api" && s[3] == "v1") {
    r.version = "v1";
  } else if (s.size() == 5 && s[2] == "apis") {
    r.group = s[3];
    r.version = s[4];
  } else {
    return Route{};
  }
  if (!ServesGroupVersion(registry, r.group, r.version)) return Route{};
  r.kind = RouteKind::kOpenApiV3Doc;
  return r;
}

Route GroupVersionRoute(const std::vector<std::string>& s, size_t start, std::string group,
                        std::string version, const api::ResourceRegistry& registry) {
  if (!ServesGroupVersion(registry, group, version)) return Route{};
  if (s.size() == start) {
    Route r = Simple(RouteKind::kResourceList);
    r.group = std::move(group);
    r.version = std::move(version);
    return r;
  }
  std::vector<std::string> rest(s.begin() + static_cast<ptrdiff_t>(start), s.end());
  return ResourceRoute(rest, std::move(group), std::move(version), registry);
}

}  // namespace

bool ServesGroupVersion(const api::ResourceRegistry& registry, std::string_view group,
                        std::string_view version) {
  for (const auto& r : registry.All()) {
    if (r.group == group && r.version == version) return true;
  }
  for (const auto& sv : registry.ServedVersions()) {
    if (sv.view.group == group && sv.view.version == version) return true;
  }
  return false;
}

Route ParseRoute(std::string_view path, const api::ResourceRegistry& registry) {
  std::vector<std::string> s = Segments(path);
  if (s.empty()) return Simple(RouteKind::kRoot);
  const std::string& head = s[0];
  if (head == "version" && s.size() == 1) return Simple(RouteKind::kVersion);
  if (head == "healthz" || head == "readyz" || head == "livez") return Simple(RouteKind::kHealth);
  if (head == "metrics" && s.size() == 1) return Simple(RouteKind::kMetrics);
  if (head == "ui" && s.size() == 1) return Simple(RouteKind::kDashboard);
  if (head == "openapi") return OpenApiRoute(s, registry);
  if (head == "api") {
    if (s.size() == 1) return Simple(RouteKind::kApiVersions);
    return GroupVersionRoute(s, 2, "", s[1], registry);
  }
  if (head == "apis") {
    if (s.size() == 1) return Simple(RouteKind::kApiGroupList);
    if (s.size() == 2) {
      bool known = false;
      for (const auto& r : registry.All()) known = known || (!r.group.empty() && r.group == s[1]);
      for (const auto& sv : registry.ServedVersions()) known = known || sv.view.group == s[1];
      if (!known) return Route{};
      Route r = Simple(RouteKind::kApiGroup);
      r.group = s[1];
      return r;
    }
    if (s[1].empty()) return Route{};
    return GroupVersionRoute(s, 3, s[1], s[2], registry);
  }
  return Route{};
}

}  // namespace allot::apiserver
