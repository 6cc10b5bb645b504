// OpenAPI v3 documents (api-reference §4.9), generated from each kind's SchemaNode.
//
// kubectl reads them to decide two things: whether the server validates fields itself (a PATCH
// operation tagged with the object's `x-kubernetes-group-version-kind` that has a
// `fieldValidation` query parameter), and whether and how to compute a strategic merge patch
// (`application/strategic-merge-patch+json` in the PATCH requestBody, and the
// `x-kubernetes-patch-merge-key` / `x-kubernetes-patch-strategy` extensions on list fields of
// the component schemas). `kubectl explain` renders the component schemas.
//
// Documents are built once, on first use, and never change (the registry is immutable).
// Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "api/machinery/resources.h"
#include "apiserver/discovery/openapi_v2.h"

namespace allot::apiserver {

class OpenApiDocs {
 public:
  OpenApiDocs(const api::ResourceRegistry& registry, std::string server_version);

  // {"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=<H>"}, ...}}
  const std::string& Index();
  // The document for one group-version ("" group for core), or nullptr when not served.
  const std::string* Document(std::string_view group, std::string_view version);
  // /openapi/v2, from all of them (discovery/openapi_v2.h).
  const OpenApiV2& V2();

 private:
  struct Doc {
    std::string json;
    std::string hash;
  };
  void Build();

  const api::ResourceRegistry& registry_;
  const std::string server_version_;
  std::once_flag once_;
  std::string index_;
  std::map<std::string, Doc, std::less<>> docs_;  // by "api/v1", "apis/<g>/<v>"
  OpenApiV2 v2_;
};

// The key of a group-version in the index: "api/v1" or "apis/<group>/<version>".
std::string OpenApiPathKey(std::string_view group, std::string_view version);

}  // namespace allot::apiserver
