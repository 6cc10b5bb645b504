// Internals shared by api/patch/patch.cc, api/patch/json_patch.cc and api/patch/strategic_merge.cc. Not a public API.
//
// All documents of one ApplyPatch call live in one RapidJSON memory pool, so values move between
// the original and the patch without copying.
#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "common/status.h"

namespace allot::api {
struct SchemaNode;
}

namespace allot::api::patch_internal {

using Alloc = rapidjson::MemoryPoolAllocator<>;
using Json = rapidjson::GenericValue<rapidjson::UTF8<>, Alloc>;
using JsonDoc = rapidjson::GenericDocument<rapidjson::UTF8<>, Alloc>;

inline constexpr int kMaxDepth = 1000;
inline constexpr size_t kMaxJsonPatchOperations = 10000;
// The apiserver's default JSONPatchMaxCopyBytes.
inline constexpr size_t kJsonPatchMaxCopyBytes = 3 * 1024 * 1024;

// The apiserver's message for every 422 built with NewGenericServerResponse.
inline constexpr std::string_view kGenericInvalidMessage =
    "the server rejected our request due to an error in our request";

// Parses `text` into `doc`. Malformed JSON is a 400 with the position; nesting deeper than
// kMaxDepth is a 400. Duplicate object keys are collapsed, the last value winning (as Go's
// decoding into a map does).
Status ParseJson(std::string_view text, JsonDoc& doc);
std::string ToCompactJson(const Json& v);

std::string_view Str(const Json& v);
// Object member lookup by exact (byte) name; nullptr when absent.
Json* Member(Json& obj, std::string_view key);
const Json* Member(const Json& obj, std::string_view key);
void SetMember(Json& obj, std::string_view key, Json& value, Alloc& a);  // moves `value`
bool RemoveMember(Json& obj, std::string_view key);

// Go's view of a decoded JSON value (map[string]interface{} with int64 for integers):
// "map[string]interface {}", "[]interface {}", "string", "int64", "float64", "bool" or "<nil>".
std::string GoTypeName(const Json& v);
// fmt's %v of the decoded value: map[a:1 b:[x y]] with sorted keys.
std::string GoFormat(const Json& v);
// Go's == on two decoded scalars (same dynamic type and value; int64 1 != float64 1).
// Objects and arrays never compare equal (Go would panic).
bool GoScalarEqual(const Json& a, const Json& b);
// RFC 6902 "test" equality: numbers by value, objects ignoring member order.
bool JsonEqual(const Json& a, const Json& b);

// RFC 6902. `ops` is the parsed patch (array or null). Failures are kInvalid with the detailed
// message; 400/413 for a body of the wrong shape.
Status ApplyJsonPatch(Json& doc, Json& ops, Alloc& a);
// RFC 7386 MergePatch: `target` becomes the result; `patch` is consumed.
void MergePatch(Json& target, Json& patch, Alloc& a);
// apimachinery's StrategicMergeMapPatch; `original` (an object) becomes the result, `patch`
// (an object) is consumed. `schema` may be null.
Status StrategicMerge(Json& original, Json& patch, const SchemaNode* schema, Alloc& a);

}  // namespace allot::api::patch_internal
