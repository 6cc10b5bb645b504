// Discovery documents (api-reference §4.1): /version, /api, /apis, /apis/<g>, the per
// group-version APIResourceLists, and aggregated discovery (apidiscovery.k8s.io/v2[beta1]).
// All are derived from the ResourceRegistry; they are small and built per request.
#pragma once

#include <string>
#include <string_view>

#include "api/machinery/resources.h"
#include "apiserver/context.h"

namespace allot::apiserver {

std::string VersionJson(const ServerConfig& config);
// {kind: APIVersions, versions: ["v1"], serverAddressByClientCIDRs: [...]}
std::string ApiVersionsJson(std::string_view server_address);
// {kind: APIGroupList, groups: [...]} for every non-core group.
std::string ApiGroupListJson(const api::ResourceRegistry& registry);
// {kind: APIGroup, name, versions, preferredVersion}
std::string ApiGroupJson(const api::ResourceRegistry& registry, std::string_view group);
// {kind: APIResourceList, groupVersion, resources: [...]} with subresource entries.
std::string ApiResourceListJson(const api::ResourceRegistry& registry, std::string_view group,
                                std::string_view version);
// APIGroupDiscoveryList for /api (core = true) or /apis (core = false); `version` is "v2" or
// "v2beta1".
std::string AggregatedDiscoveryJson(const api::ResourceRegistry& registry, bool core,
                                    std::string_view version);
// The Content-Type that marks an aggregated discovery response.
std::string AggregatedDiscoveryContentType(std::string_view version);
// {paths: [...]} for "/".
std::string RootPathsJson(const api::ResourceRegistry& registry);

}  // namespace allot::apiserver
