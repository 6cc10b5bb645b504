// Request bodies: content types, YAML, decoding into typed objects with the requested field
// validation, and the warnings that go back as `Warning: 299 - "..."` headers.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/object.h"
#include "api/machinery/resources.h"
#include "apiserver/rest/request_params.h"
#include "apiserver/transport/http_types.h"
#include "common/status.h"

namespace allot::apiserver {

// The body as JSON text: JSON as is, YAML (application/yaml) converted, the few protobuf kinds
// kubectl sends (protobuf.h) converted; a missing Content-Type is read as JSON. 415 for other
// media types; 400 for malformed YAML or more than one document.
Result<std::string> BodyAsJson(const Request& req);

// Parses JSON or YAML text regardless of the declared type (apply patches may be either).
Result<std::string> JsonOrYamlToJson(std::string_view text);

struct DecodedBody {
  std::unique_ptr<api::Object> object;
  std::vector<std::string> warnings;  // unknown / duplicate fields (Warn mode only)
};

// Decodes JSON text into an object of `type`: Strict fails with 400 on unknown or duplicate
// fields, Warn drops them and reports warnings, Ignore drops them silently.
Result<DecodedBody> DecodeObject(std::string_view json, const api::TypeInfo& type,
                                 FieldValidation validation);

// The object of a create or update body: protobuf bodies of the kinds with a codec
// (api/protobuf.h) straight from their message, as Kubernetes does without field validation
// (protobuf has no unknown or duplicate fields to report); everything else through BodyAsJson and
// DecodeObject. A body for a served version (`served`) is converted to the stored version's JSON
// first (protobuf only for the kinds of request_kinds.h, such as events.k8s.io/v1 Events).
Result<DecodedBody> DecodeRequestObject(const Request& req, const api::TypeInfo& type,
                                        FieldValidation validation,
                                        const api::ServedVersion* served = nullptr);

// Adds one `Warning: 299 - "<text>"` header per warning.
void AddWarnings(Response& res, const std::vector<std::string>& warnings);

}  // namespace allot::apiserver
