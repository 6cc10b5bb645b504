// /openapi/v2: the Swagger 2.0 document, derived from the OpenAPI v3 documents
// (discovery/openapi.h) — every kind's definition with its x-kubernetes-group-version-kind, as
// kube-apiserver serves them, and no paths (clients find operations in v3).
//
// kubectl asks for it only when a kind is missing from OpenAPI v3: to learn whether the server
// validates that kind's fields, and for client-side validation. Without it, applying a kind
// the server does not serve ends in "the server could not find the requested resource"
// instead of kubectl's "no matches for kind ... ensure CRDs are installed first". client-go
// reads it as protobuf (gnostic's openapi_v2.Document); `kubectl get --raw` gets JSON.
//
// Thread-safe: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace allot::apiserver {

// The Content-Type of the protobuf form (clients may ask for it with "@v1.0" too, an older
// spelling that is not a valid media type to answer with).
inline constexpr std::string_view kOpenApiV2ProtobufType =
    "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

struct OpenApiV2 {
  std::string json;
  std::string protobuf;
};

// Both encodings of the v2 document merged from `v3_documents` (each an OpenAPI v3 document:
// its components.schemas become definitions, "#/components/schemas/" references
// "#/definitions/"). `server_version` is info.version.
OpenApiV2 BuildOpenApiV2(const std::vector<const std::string*>& v3_documents,
                         std::string_view server_version);

}  // namespace allot::apiserver
