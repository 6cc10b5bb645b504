// PATCH bodies: JSON patch (RFC 6902), JSON merge patch (RFC 7386), Kubernetes strategic merge
// patch, and server-side apply's merge (see kApplyPatch). The API server parses the
// Content-Type with PatchTypeFromContentType, encodes the stored object to JSON, calls
// ApplyPatch, and decodes the result into the typed object (which is where unknown fields and
// type errors are reported).
//
// Error codes and messages follow the Kubernetes apiserver (handlers/patch.go):
//   * A malformed body (not JSON) is 400 BadRequest with the position ("invalid JSON at line L,
//     column C (offset O): ..."). Bodies nested deeper than 1000 levels are 400 as well.
//   * JSON patch: a body that is not an array of objects is 400; more than 10000 operations is
//     413 ("Request entity too large: The allowed maximum operations in a JSON patch is 10000,
//     got N"). An operation that fails (unknown op, missing member, missing path, index out of
//     range, failed test, copies over 3 MiB in total) makes the whole patch fail with 422 Invalid
//     and the message "the server rejected our request due to an error in our request": the
//     apiserver wraps the json-patch error with NewGenericServerResponse(422, ...), which drops
//     the detail. The detail is in ApplyPatchDetailed's message.
//   * Merge patch: a body of null or a bare string/number/bool is 400 "Invalid JSON Patch"
//     (evanphx/json-patch's ErrBadJSONPatch); arrays replace the document, as RFC 7386 says.
//   * Strategic merge patch: a body that is not an object is 400 ("json: cannot unmarshal array
//     into Go value of type map[string]interface {}"); a body of null changes nothing. Malformed
//     directives are 400 ("invalid patch format of primitive list", "... of retainKeys",
//     "... of setElementOrder list"); lists of lists are 422 with the generic message above; the
//     remaining strategic-merge errors (missing merge key, unknown $patch value, mixed element
//     types, ...) are 500 with Kubernetes' message, because the apiserver returns them as plain
//     errors.
//
// Thread-safe: all functions are pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace allot::api {

struct SchemaNode;

enum class PatchType { kJsonPatch, kMergePatch, kStrategicMergePatch, kApplyPatch };

// "application/json-patch+json", "application/merge-patch+json",
// "application/strategic-merge-patch+json", "application/apply-patch+yaml". Parameters
// (";charset=utf-8") and surrounding spaces are ignored; the media type is case-insensitive.
// nullopt for anything else (the server answers 415).
std::optional<PatchType> PatchTypeFromContentType(std::string_view content_type);

// The media type of `type`, e.g. "application/merge-patch+json".
std::string_view ContentTypeOf(PatchType type);

// Applies `patch_body` to `original_json` and returns the result as compact JSON.
//
// `schema` describes the original document's type (SchemaOf<Pod>() or TypeInfo::schema()); only
// strategic merge and apply use it. Strategic merge follows apimachinery's strategicpatch
// (StrategicMergeMapPatch, the server side):
//   * lists tagged merge_key are merged by that key: patch entries update or add elements,
//     {"$patch": "delete", <key>: v} removes them, {"$patch": "replace"} replaces the list;
//   * lists tagged set are merged as sets of scalars; "$deleteFromPrimitiveList/<field>" removes
//     values from them;
//   * "$setElementOrder/<field>" fixes the order of a merged list; the result places patch
//     items in that order and keeps the server-only items where they were;
//   * lists tagged atomic, and untagged lists, are replaced; maps and structs are merged
//     recursively ({"$patch": "replace"|"delete"} and "$retainKeys" apply to them), null deletes
//     a key; maps tagged atomic are replaced;
//   * fields the schema does not describe (RawJson subtrees, unknown fields) are handled like
//     untagged ones: objects merge recursively, lists are replaced.
// JSON patch follows RFC 6902 strictly where evanphx/json-patch v4 (the apiserver's) is lax or
// differs: the root pointer "" is allowed, negative indices are not, "value" is required, and
// testing a missing path for null fails. Merge patch follows RFC 7386 (evanphx additionally drops
// null members of objects inside arrays; decoding into the typed object hides the difference).
//
// kApplyPatch (server-side apply) is the merge step alone: the body (YAML or JSON; the first YAML
// document) must be an object and is merged into the current object with the strategic-merge
// rules above. Field ownership (pruning what the applier no longer applies, conflicts,
// managedFields) is the field manager's, on the merged result (api/managed_fields/
// field_manager.h). The caller checks apiVersion/kind and fieldManager. YAML errors are 400
// "error decoding YAML: error converting YAML to JSON: ...".
//
// `original_json` must be valid JSON produced by the server; if it is not, the result is a 500.
Result<std::string> ApplyPatch(PatchType type, std::string_view original_json,
                               std::string_view patch_body, const SchemaNode& schema);

// As ApplyPatch, but a failed JSON patch operation keeps its detailed message (e.g. "remove
// operation does not apply: doc is missing path: \"/spec/x\"") instead of the apiserver's
// generic one. For logs and tests.
Result<std::string> ApplyPatchDetailed(PatchType type, std::string_view original_json,
                                       std::string_view patch_body, const SchemaNode& schema);

// RFC 7386 MergePatch(target, patch) for any JSON values, exactly as the RFC's pseudocode
// (a null or scalar patch replaces the target). ApplyPatch(kMergePatch) differs only in rejecting
// null and scalar bodies as Kubernetes does.
Result<std::string> JsonMergePatch(std::string_view target_json, std::string_view patch_json);

}  // namespace allot::api
