// The field manager: metadata.managedFields, kept on every write through the API as
// kube-apiserver keeps it (api-reference §4.7, docs/server-side-apply.md).
//
// Each entry says which fields one manager owns: an applier (operation Apply, one entry per
// manager and subresource) owns what its last applied configuration set; a writer that updates
// (operation Update, one entry per manager, API version and subresource) owns what its writes
// changed. A write takes the fields it changes away from every other manager; a field it
// removes belongs to nobody. An apply also
//   * removes from the object what its manager applied before but left out this time, unless
//     another manager owns it (or something below it);
//   * fails with a 409 Conflict when it would change a field another manager owns, naming each
//     field and manager ("Apply failed with 1 conflict: conflict with \"kubectl\" using apps/v1:
//     .spec.replicas"), unless forced, in which case those fields become the applier's.
// Some fields are never owned: apiVersion, kind, metadata's server-set fields (name, namespace,
// uid, resourceVersion, generation, creationTimestamp, selfLink, managedFields), and what the
// endpoint cannot change (status through the main resource of a kind with a status
// subresource; all but status through /status).
//
// Entries are sorted as kube-apiserver sorts them: Apply before Update, then by time, manager,
// API version and subresource. An entry's time changes only when its manager's fields do.
//
// Not modelled (docs/server-side-apply.md): the limit of ten Update entries (kube-apiserver
// merges the oldest into "ancient-changes"), resetting managedFields by sending an empty list,
// converting the field sets of one API version to another's (entries are compared in the
// version of the request), and list keys made of several fields (a merge key is one field).
//
// Thread-safe: all functions are pure.
#pragma once

#include <string>
#include <vector>

#include "api/machinery/meta.h"
#include "api/managed_fields/object_fields.h"
#include "common/status.h"
#include "common/time.h"

namespace allot::api::managed_fields {

// Which fields the endpoint written through cannot change, so that no write through it owns
// them.
enum class EndpointFields {
  kAll,           // a kind without a status subresource: every field
  kAllButStatus,  // the main resource of a kind with a status subresource
  kStatusOnly,    // its status subresource
};

struct Writer {
  std::string manager;      // the fieldManager parameter, else the User-Agent's product name
  std::string api_version;  // of the request: "v1", "apps/v1", "resource.k8s.io/v1beta2"
  std::string subresource;  // "" or "status"
  EndpointFields endpoint = EndpointFields::kAll;
  Time now;
};

// The manager a request without a fieldManager parameter writes as: the User-Agent up to its
// first '/' ("kubectl/v1.32.0 (linux/amd64) ..." -> "kubectl"), at most 128 bytes; "unknown"
// when there is none.
std::string ManagerFromUserAgent(std::string_view user_agent);

// `zero` is the JSON of an empty object of the type (TypeInfo::make() encoded: nested structs
// present and empty, as Kubernetes' zero values): what a create starts from.
//
// The entries after a write that is not an apply: a create (`live` null), an update or a
// non-apply patch. `next` is what the write stores, defaulted; `zero`, `live` and `next` are
// JSON of the version `writer.api_version` names. `entries` are the ones the request sent when it sent
// any (a client may set managedFields directly), else the stored object's. An existing object
// without entries stays without them (kube-apiserver tracks an object from its creation or its
// first apply on).
std::vector<ManagedFieldsEntry> Update(const JsonValue& zero, const JsonValue* live,
                                       const JsonValue& next,
                                       const std::vector<ManagedFieldsEntry>& entries,
                                       const SchemaNode& schema, const Writer& writer);

// Server-side apply. `merged` is the live object with `config` (the applied configuration)
// merged in; the apply prunes it as described above. `live` is null when the object does not
// exist yet. Returns the new entries, or the 409 Conflict (or a 400 for a config that carries
// metadata.managedFields).
Result<std::vector<ManagedFieldsEntry>> Apply(const JsonValue& zero, const JsonValue* live,
                                              JsonValue& merged,
                                              const JsonValue& config,
                                              const std::vector<ManagedFieldsEntry>& entries,
                                              bool force, const SchemaNode& schema,
                                              const Writer& writer);

}  // namespace allot::api::managed_fields
