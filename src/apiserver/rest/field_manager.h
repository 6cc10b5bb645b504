// The REST handlers' side of metadata.managedFields (api/managed_fields/field_manager.h): who a
// request writes as, and the entries of what it writes. Creates, updates and patches through
// the API keep them; bindings, evictions and the server's own in-process writers do not (as
// kube-apiserver's binding and eviction subresources do not).
#pragma once

#include <memory>
#include <string>

#include "api/managed_fields/field_manager.h"
#include "apiserver/context.h"

namespace allot::apiserver {

// The fieldManager query parameter, checked as kube-apiserver checks it (at most 128 bytes,
// printable): a 422 of `options_kind` ("CreateOptions", "UpdateOptions", "PatchOptions")
// otherwise. Empty when the request has none.
Result<std::string> ParseFieldManager(const Request& req, std::string_view options_kind);

// Who `call` writes as: `field_manager` (ParseFieldManager), else the User-Agent's product name;
// the request's API version and subresource, and what its endpoint may change.
api::managed_fields::Writer WriterOf(const Call& call, const std::string& field_manager);

// Sets next.metadata.managedFields for a create (`live` null), an update or a non-apply patch
// of `next` over `live`, in the request's version.
void TrackUpdate(const Call& call, const api::managed_fields::Writer& writer,
                 const api::Object* live, api::Object& next);

// Server-side apply in the request's version: `live` is the stored object (null when it does
// not exist yet) and `live_json` its JSON as that version shows it; `merged_json` is the result
// of merging `config_json` into it. Returns the merged object pruned (JSON of the request's
// version) and the managedFields to store with it; a 409 Conflict unless `force`.
struct Applied {
  std::string json;
  std::vector<api::ManagedFieldsEntry> managed_fields;
};
Result<Applied> TrackApply(const Call& call, const api::managed_fields::Writer& writer,
                           const api::Object* live, std::string_view live_json,
                           std::string_view merged_json, std::string_view config_json,
                           bool force);

}  // namespace allot::apiserver
