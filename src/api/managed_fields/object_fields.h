// The field paths of a JSON object, read with its type's schema (SchemaOf<T>(),
// TypeInfo::schema()), as server-side apply reads them: which fields an object sets, what
// changed between two versions of it, and removing fields from it.
//
// The schema says how each list and map is tracked (api/machinery/field.h's tags):
//   * a list tagged merge_key is a map of its items by that key: each item is a path
//     (k:{"name":"a"}) and its fields are paths below it;
//   * a list tagged set is a set of scalars: each value is a path (v:"x");
//   * any other list, a map tagged atomic, a RawJson subtree and every scalar is one leaf: it is
//     owned and compared as a whole;
//   * structs and maps are granular: their members are paths.
// Members the schema does not describe are read as a schema-less value would be (objects
// granular, lists atomic).
//
// Thread-safe: all functions are pure.
#pragma once

#include <rapidjson/document.h>

#include "api/managed_fields/field_set.h"

namespace allot::api {
struct SchemaNode;
}

namespace allot::api::managed_fields {

using JsonValue = rapidjson::Value;

// The fields `object` sets (structured-merge-diff's ToFieldSet): every leaf, every list item,
// every member of a map, and a struct's field when it is null or an empty object. An applied
// configuration's set is what its manager owns after the apply.
FieldSet FieldsOf(const JsonValue& object, const SchemaNode& schema);

// What changed from `before` to `after` (both objects of the schema's type). A path present on
// one side only is added or removed; a leaf present on both with different values is modified.
// A struct or map that appears or disappears is itself added or removed, with all below it.
struct Comparison {
  FieldSet added;
  FieldSet modified;
  FieldSet removed;
  bool Same() const { return added.Empty() && modified.Empty() && removed.Empty(); }
};
Comparison Compare(const JsonValue& before, const JsonValue& after, const SchemaNode& schema);

// Removes each path of `paths` from `object`: the member of a struct or map, or the item of a
// list. Paths that are not there are skipped.
void RemoveFields(JsonValue& object, const FieldSet& paths);

}  // namespace allot::api::managed_fields
