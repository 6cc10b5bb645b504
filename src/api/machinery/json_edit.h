// Edits of one object's JSON document in place, for the conversions of served versions
// (ServedVersion in api/machinery/resources.h): find, rename and move members, reorder them to a
// version's field order, set apiVersion. Names are views; nothing here copies the document.
#pragma once

#include <rapidjson/document.h>

#include <initializer_list>
#include <string_view>

namespace allot::api::json_edit {

using Document = rapidjson::Document;
using Value = rapidjson::Value;
using Allocator = Document::AllocatorType;

// The member `name` of `obj`; null when `obj` is not an object or has none.
Value* Member(Value& obj, std::string_view name);

// Sets (or adds) the document's apiVersion.
void SetApiVersion(Document& doc, std::string_view api_version);

// Renames member `from` of `obj` to `to`, keeping its place; nothing when absent.
void Rename(Value& obj, std::string_view from, std::string_view to, Allocator& a);

// Moves the members named in `names` (those present) from `from` to the end of `to`, in that
// order.
void MoveMembers(Value& from, Value& to, std::initializer_list<std::string_view> names,
                 Allocator& a);

// Moves every member of object `from` to the end of `to`; `from` is left empty.
void MoveAllMembers(Value& from, Value& to, Allocator& a);

// Reorders `obj`: the members named in `order` first (those present), then the rest as they were.
void Reorder(Value& obj, std::initializer_list<std::string_view> order, Allocator& a);

}  // namespace allot::api::json_edit
