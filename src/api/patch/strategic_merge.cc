// Strategic merge patch, server side: apimachinery's strategicpatch.StrategicMergeMapPatch with
// MergeParallelList and IgnoreUnmatchedNulls set, driven by our SchemaNode tree instead of Go
// struct tags. The structure mirrors the Go code (mergeMap, mergeSlice, the $setElementOrder,
// $retainKeys and $deleteFromPrimitiveList handling) so that behaviour, including ordering and
// error messages, can be compared line by line. Where Go would panic (a nil first list element,
// comparing two maps) we return the 500 the apiserver's panic recovery would produce, or treat
// the values as unequal.
#include <algorithm>
#include <vector>

#include "api/machinery/reflect.h"
#include "api/patch/patch_internal.h"

namespace allot::api::patch_internal {
namespace {

constexpr std::string_view kDirectiveMarker = "$patch";
constexpr std::string_view kDeleteDirective = "delete";
constexpr std::string_view kReplaceDirective = "replace";
constexpr std::string_view kMergeDirective = "merge";
constexpr std::string_view kRetainKeysDirective = "$retainKeys";
constexpr std::string_view kDeleteFromPrimitiveListPrefix = "$deleteFromPrimitiveList";
constexpr std::string_view kSetElementOrderPrefix = "$setElementOrder";

using List = std::vector<Json>;

// --- errors, as apimachinery's mergepatch package words them --------------------------------

Status Internal(std::string message) {
  return Status(StatusCode::kInternalError, std::move(message));
}
Status BadPatchFormatForPrimitiveList() {
  return BadRequestError("invalid patch format of primitive list");
}
Status BadPatchFormatForRetainKeys() {
  return BadRequestError("invalid patch format of retainKeys");
}
Status BadPatchFormatForSetElementOrderList() {
  return BadRequestError("invalid patch format of setElementOrder list");
}
Status NoListOfLists() { return Status(StatusCode::kInvalid, "lists of lists are not supported"); }
Status NoMergeKey(const Json& m, std::string_view key) {
  return Internal("map: " + GoFormat(m) +
                  " does not contain declared merge key: " + std::string(key));
}
Status BadArgType(std::string_view expected, const Json& actual) {
  return Internal("expected a " + std::string(expected) + ", but received a " + GoTypeName(actual));
}
constexpr std::string_view kMapType = "map[string]interface {}";
constexpr std::string_view kSliceType = "[]interface {}";

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool IsDirective(const Json& v, std::string_view directive) {
  return v.IsString() && Str(v) == directive;
}

// "$setElementOrder/containers" -> "containers".
Result<std::string_view> ExtractKey(std::string_view s, std::string_view prefix) {
  size_t slash = s.find('/');
  if (slash == std::string_view::npos || s.substr(0, slash) != prefix) {
    return prefix == kDeleteFromPrimitiveListPrefix ? BadPatchFormatForPrimitiveList()
                                                    : BadPatchFormatForSetElementOrderList();
  }
  return s.substr(slash + 1);
}

// --- schema lookups ---------------------------------------------------------------------------

// What the schema says about one field (Go: LookupPatchMetadataForStruct/ForSlice).
struct FieldMeta {
  const SchemaNode* node = nullptr;  // the field's schema; null when unknown
  const char* merge_key = nullptr;   // patchMergeKey
  bool merge = false;                // patchStrategy "merge" (merge_key or set)
  bool replace = false;              // patchStrategy "replace" (atomic)
};

FieldMeta LookupField(const SchemaNode* parent, std::string_view key) {
  FieldMeta meta;
  if (!parent) return meta;
  if (parent->kind == SchemaNode::Kind::kMap) {
    meta.node = parent->elem;
    return meta;
  }
  if (parent->kind != SchemaNode::Kind::kObject) return meta;
  const SchemaNode::Field* f = parent->Find(key);
  if (!f) return meta;
  meta.node = f->node;
  meta.merge_key = f->tags.merge_key;
  meta.replace = f->tags.atomic;
  meta.merge = !f->tags.atomic && (f->tags.merge_key != nullptr || f->tags.set);
  return meta;
}

const SchemaNode* ElemOf(const SchemaNode* n) {
  return n && n->kind == SchemaNode::Kind::kArray ? n->elem : nullptr;
}

// reflect.Kind().String() of a list's element type, for one error message.
std::string KindName(const SchemaNode* n) {
  if (!n) return "interface";
  switch (n->kind) {
    case SchemaNode::Kind::kObject:
      return "struct";
    case SchemaNode::Kind::kMap:
      return "map";
    case SchemaNode::Kind::kArray:
      return "slice";
    case SchemaNode::Kind::kBoolean:
      return "bool";
    case SchemaNode::Kind::kInteger:
      return "int64";
    case SchemaNode::Kind::kNumber:
      return "float64";
    default:
      return "string";
  }
}

// --- small list helpers -----------------------------------------------------------------------

List TakeList(Json& array) {
  List out;
  out.reserve(array.Size());
  for (Json& e : array.GetArray()) out.emplace_back(std::move(e));
  return out;
}

Json MakeArray(List& items, Alloc& a) {
  Json out(rapidjson::kArrayType);
  out.Reserve(static_cast<rapidjson::SizeType>(items.size()), a);
  for (Json& e : items) out.PushBack(e, a);
  return out;
}

List CopyList(const List& items, Alloc& a) {
  List out;
  out.reserve(items.size());
  for (const Json& e : items) out.emplace_back(e, a);
  return out;
}

Json ListToGo(const List& items, Alloc& a) {
  Json out(rapidjson::kArrayType);
  for (const Json& e : items) out.PushBack(Json(e, a), a);
  return out;
}

// Go's == on interface values where JSON null (a Go nil) equals only null.
bool GoEqual(const Json* a, const Json* b) {
  bool a_nil = !a || a->IsNull();
  bool b_nil = !b || b->IsNull();
  if (a_nil || b_nil) return a_nil && b_nil;
  return GoScalarEqual(*a, *b);
}

bool HasDirectiveMarker(const Json& v) {
  return v.IsObject() && Member(v, kDirectiveMarker) != nullptr;
}

// Go: removeDirectives. Drops maps carrying "$patch" (anywhere inside `v`); false if `v`
// itself is one.
bool RemoveDirectives(Json& v) {
  if (v.IsObject()) {
    if (Member(v, kDirectiveMarker)) return false;
    for (auto it = v.MemberBegin(); it != v.MemberEnd();) {
      it = RemoveDirectives(it->value) ? it + 1 : v.EraseMember(it);
    }
  } else if (v.IsArray()) {
    for (auto it = v.Begin(); it != v.End();) it = RemoveDirectives(*it) ? it + 1 : v.Erase(it);
  }
  return true;
}

// Go: discardNullValuesFromPatch. Null members are dropped at every depth; nulls inside lists
// stay.
void DiscardNulls(Json& v) {
  if (v.IsObject()) {
    for (auto it = v.MemberBegin(); it != v.MemberEnd();) {
      if (it->value.IsNull()) {
        it = v.EraseMember(it);
      } else {
        DiscardNulls(it->value);
        ++it;
      }
    }
  } else if (v.IsArray()) {
    for (Json& e : v.GetArray()) DiscardNulls(e);
  }
}

// The dynamic type classes Go's reflect.TypeOf distinguishes for decoded JSON.
enum class GoKind { kNil, kMap, kSlice, kString, kInt, kFloat, kBool };

GoKind KindOf(const Json& v) {
  if (v.IsObject()) return GoKind::kMap;
  if (v.IsArray()) return GoKind::kSlice;
  if (v.IsString()) return GoKind::kString;
  if (v.IsInt64()) return GoKind::kInt;
  if (v.IsNumber()) return GoKind::kFloat;
  if (v.IsBool()) return GoKind::kBool;
  return GoKind::kNil;
}

// Go: sliceElementType. The common element kind of both lists.
Result<GoKind> SliceElementKind(const List& a, const List& b, Alloc& alloc) {
  std::optional<GoKind> kind;
  for (const List* list : {&a, &b}) {
    for (const Json& v : *list) {
      GoKind k = KindOf(v);
      if (!kind) {
        if (k == GoKind::kNil) {
          return Internal("runtime error: invalid memory address or nil pointer dereference");
        }
        if (k == GoKind::kSlice) return NoListOfLists();
        kind = k;
      } else if (*kind != k) {
        Json both(rapidjson::kArrayType);
        both.PushBack(ListToGo(a, alloc), alloc);
        both.PushBack(ListToGo(b, alloc), alloc);
        return Internal("list element types are not identical: " + GoFormat(both));
      }
    }
  }
  if (!kind) return Internal("no elements in any of the given slices");
  return *kind;
}

// Go: findMapInSliceBasedOnKeyValue. Index of the first map whose `key` equals `value`, -1 if
// none; every element looked at must be a map.
Result<long> FindByKey(const List& list, std::string_view key, const Json& value) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].IsObject()) {
      return Internal("value for key " + std::to_string(i) + " is not a map.");
    }
    const Json* v = Member(list[i], key);
    if (v && GoEqual(v, &value)) return static_cast<long>(i);
  }
  return -1L;
}

// Go: index. Position of `item` in `list` comparing merge-key values (maps) or the values.
long IndexOf(const List& list, const Json& item, std::string_view key, bool is_map) {
  auto value_of = [&](const Json& e) -> const Json* {
    if (!is_map) return &e;
    return e.IsObject() ? Member(e, key) : nullptr;
  };
  const Json* wanted = value_of(item);
  for (size_t i = 0; i < list.size(); ++i) {
    if (GoEqual(value_of(list[i]), wanted)) return static_cast<long>(i);
  }
  return -1;
}

Status ValidateMergeKeys(std::string_view key, const List& list) {
  for (const Json& item : list) {
    if (!item.IsObject()) return BadArgType(kMapType, item);
    if (!Member(item, key)) return NoMergeKey(item, key);
  }
  return Status::Ok();
}

// Go: normalizeSliceOrder. Sorts `items` by their position in `order`. (Go's comparator is not
// a strict order for items missing from `order`; those cannot occur on the merge paths, and we
// keep them after the others in their current order.)
Status NormalizeSliceOrder(List& items, const List& order, std::string_view key, bool is_map) {
  List to_delete;
  if (is_map) {
    ALLOT_RETURN_IF_ERROR(ValidateMergeKeys(key, items));
    ALLOT_RETURN_IF_ERROR(ValidateMergeKeys(key, order));
    List keep;
    for (Json& item : items) {
      const Json* d = Member(item, kDirectiveMarker);
      (d && IsDirective(*d, kDeleteDirective) ? to_delete : keep).emplace_back(std::move(item));
    }
    items = std::move(keep);
  }
  std::vector<std::pair<long, size_t>> rank;
  for (size_t i = 0; i < items.size(); ++i) {
    long idx = IndexOf(order, items[i], key, is_map);
    rank.push_back({idx < 0 ? static_cast<long>(order.size()) : idx, i});
  }
  std::stable_sort(rank.begin(), rank.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  List sorted;
  for (const auto& [unused, i] : rank) sorted.emplace_back(std::move(items[i]));
  for (Json& d : to_delete) sorted.emplace_back(std::move(d));
  items = std::move(sorted);
  return Status::Ok();
}

// Go: mergeSortedSlice. Interleaves server-only items (left) and patch items (right), taking a
// server item first only when both are in `server_order` and it comes earlier there.
List MergeSortedSlice(List& left, List& right, const List& server_order, std::string_view key,
                      bool is_map) {
  List out;
  size_t i = 0, j = 0;
  while (i < left.size() || j < right.size()) {
    bool take_left = j >= right.size();
    if (i < left.size() && j < right.size()) {
      long li = IndexOf(server_order, left[i], key, is_map);
      long ri = IndexOf(server_order, right[j], key, is_map);
      take_left = li >= 0 && ri >= 0 && li < ri;
    }
    out.emplace_back(std::move(take_left ? left[i++] : right[j++]));
  }
  return out;
}

// Go: normalizeElementOrder.
Result<List> NormalizeElementOrder(List patch_items, List server_only, const List& patch_order,
                                   const List& server_order, std::string_view key, bool is_map) {
  ALLOT_RETURN_IF_ERROR(NormalizeSliceOrder(patch_items, patch_order, key, is_map));
  ALLOT_RETURN_IF_ERROR(NormalizeSliceOrder(server_only, server_order, key, is_map));
  return MergeSortedSlice(server_only, patch_items, server_order, key, is_map);
}

// Go: partitionPrimitivesByPresentInList / partitionMapsByPresentInList.
Status Partition(List& merged, const List& by, std::string_view key, List& in, List& out) {
  for (Json& v : merged) {
    bool found = false;
    if (key.empty()) {
      for (const Json& b : by) found = found || GoEqual(&v, &b);
    } else {
      if (!v.IsObject()) return BadArgType(kMapType, v);
      const Json* value = Member(v, key);
      if (!value) return NoMergeKey(v, key);
      ALLOT_ASSIGN_OR_RETURN(long idx, FindByKey(by, key, *value));
      found = idx >= 0;
    }
    (found ? in : out).emplace_back(std::move(v));
  }
  return Status::Ok();
}

// Go: mergeKeyValueEqual.
Result<bool> MergeKeyValueEqual(const Json& left, const Json& right, std::string_view key) {
  if (key.empty()) return GoEqual(&left, &right);
  if (!left.IsObject()) return BadArgType(kMapType, left);
  if (!right.IsObject()) return BadArgType(kMapType, right);
  const Json* l = Member(left, key);
  if (!l) return NoMergeKey(left, key);
  const Json* r = Member(right, key);
  if (!r) return NoMergeKey(right, key);
  return GoEqual(l, r);
}

// Go: validatePatchWithSetOrderList. The patch items must appear in $setElementOrder, in order.
Status ValidatePatchWithSetOrderList(const List& patch, const List& order, std::string_view key,
                                     Alloc& a) {
  if (order.empty() || patch.empty()) return Status::Ok();
  std::vector<const Json*> non_delete;
  for (const Json& v : patch) {
    if (!key.empty()) {
      if (!v.IsObject()) return BadArgType(kMapType, v);
      const Json* d = Member(v, kDirectiveMarker);
      if (d && IsDirective(*d, kDeleteDirective)) continue;
    }
    non_delete.push_back(&v);
  }
  size_t pi = 0, si = 0;
  while (pi < non_delete.size() && si < order.size()) {
    if (HasDirectiveMarker(*non_delete[pi])) {
      ++pi;
      continue;
    }
    ALLOT_ASSIGN_OR_RETURN(bool equal, MergeKeyValueEqual(*non_delete[pi], order[si], key));
    if (equal) ++pi;
    ++si;
  }
  if (pi < non_delete.size() && si >= order.size()) {
    return Internal("the order in patch list:\n" + GoFormat(ListToGo(patch, a)) +
                    "\n doesn't match $setElementOrder list:\n" + GoFormat(ListToGo(order, a)));
  }
  return Status::Ok();
}

// --- the merge --------------------------------------------------------------------------------

class Merger {
 public:
  explicit Merger(Alloc& a) : a_(a) {}

  // Go: mergeMap. `original` becomes the merged value.
  Status MergeMap(Json& original, Json& patch, const SchemaNode* schema) {
    if (Json* directive = Member(patch, kDirectiveMarker)) {
      return HandleDirectiveInMap(original, patch, *directive);
    }
    if (!original.IsObject()) original.SetObject();
    ALLOT_RETURN_IF_ERROR(ApplyRetainKeys(original, patch));
    ALLOT_RETURN_IF_ERROR(MergeSetElementOrder(original, patch, schema));
    for (auto& m : patch.GetObject()) {
      std::string_view key = Str(m.name);
      bool is_delete_list = StartsWith(key, kDeleteFromPrimitiveListPrefix);
      if (is_delete_list) {
        ALLOT_ASSIGN_OR_RETURN(key, ExtractKey(key, kDeleteFromPrimitiveListPrefix));
      }
      ALLOT_RETURN_IF_ERROR(MergeField(original, key, m.value, is_delete_list, schema));
    }
    return Status::Ok();
  }

 private:
  Status HandleDirectiveInMap(Json& original, Json& patch, const Json& directive) {
    if (IsDirective(directive, kReplaceDirective)) {
      RemoveMember(patch, kDirectiveMarker);
      original = patch;
      return Status::Ok();
    }
    if (IsDirective(directive, kDeleteDirective)) {
      original.SetObject();
      return Status::Ok();
    }
    return Internal("unknown patch type: " + GoFormat(directive) + " in map: " + GoFormat(patch));
  }

  // Go: applyRetainKeysDirective.
  Status ApplyRetainKeys(Json& original, Json& patch) {
    Json* found = Member(patch, kRetainKeysDirective);
    if (!found) return Status::Ok();
    Json keys = std::move(*found);
    RemoveMember(patch, kRetainKeysDirective);
    if (!keys.IsArray()) return BadPatchFormatForRetainKeys();
    auto retained = [&](std::string_view name) {
      for (const Json& k : keys.GetArray()) {
        if (k.IsString() && Str(k) == name) return true;
      }
      return false;
    };
    for (const auto& m : patch.GetObject()) {
      std::string_view name = Str(m.name);
      if (m.value.IsNull() || StartsWith(name, kDeleteFromPrimitiveListPrefix) ||
          StartsWith(name, kSetElementOrderPrefix)) {
        continue;
      }
      if (!retained(name)) return BadPatchFormatForRetainKeys();
    }
    for (auto it = original.MemberBegin(); it != original.MemberEnd();) {
      it = retained(Str(it->name)) ? it + 1 : original.EraseMember(it);
    }
    return Status::Ok();
  }

  // Go: mergePatchIntoOriginal. Merges each list named by a $setElementOrder directive together
  // with its patch list, then orders it; both keys leave `patch`.
  Status MergeSetElementOrder(Json& original, Json& patch, const SchemaNode* schema) {
    std::vector<std::string> directives;
    for (const auto& m : patch.GetObject()) {
      if (StartsWith(Str(m.name), kSetElementOrderPrefix)) directives.emplace_back(Str(m.name));
    }
    for (const std::string& directive : directives) {
      Json* found = Member(patch, directive);
      if (!found) continue;  // "$setElementOrder/$setElementOrder/x" consumed it already
      Json order_value = std::move(*found);
      RemoveMember(patch, directive);
      if (!order_value.IsArray()) return BadArgType(kSliceType, order_value);
      ALLOT_ASSIGN_OR_RETURN(std::string_view key_view,
                             ExtractKey(directive, kSetElementOrderPrefix));
      std::string key(key_view);
      ALLOT_RETURN_IF_ERROR(MergeOrderedList(original, patch, key, TakeList(order_value), schema));
    }
    return Status::Ok();
  }

  Status MergeOrderedList(Json& original, Json& patch, const std::string& key, List order,
                          const SchemaNode* schema) {
    Json* original_list = Member(original, key);
    Json* patch_list = Member(patch, key);
    if (original_list && !original_list->IsArray()) return BadArgType(kSliceType, *original_list);
    if (patch_list && !patch_list->IsArray()) return BadArgType(kSliceType, *patch_list);
    FieldMeta meta = LookupField(schema, key);
    std::string_view merge_key = meta.merge_key ? meta.merge_key : "";
    List original_items = original_list ? TakeList(*original_list) : List();
    List patch_items = patch_list ? TakeList(*patch_list) : List();
    ALLOT_RETURN_IF_ERROR(ValidatePatchWithSetOrderList(patch_items, order, merge_key, a_));
    List server_order = CopyList(original_items, a_);
    List patch_copy = CopyList(patch_items, a_);
    List merged;
    if (original_list && !patch_list) {
      merged = std::move(original_items);
    } else if (!original_list && patch_list) {
      Json v = MakeArray(patch_items, a_);
      RemoveDirectives(v);
      merged = TakeList(v);
    } else if (original_list && patch_list) {
      ALLOT_ASSIGN_OR_RETURN(merged, MergeSliceHandler(original_items, patch_items, meta, false));
    } else {
      return Status::Ok();
    }
    List in_order, server_only;
    ALLOT_RETURN_IF_ERROR(Partition(merged, order, merge_key, in_order, server_only));
    ALLOT_ASSIGN_OR_RETURN(GoKind kind, SliceElementKind(server_order, patch_copy, a_));
    ALLOT_ASSIGN_OR_RETURN(List both,
                           NormalizeElementOrder(std::move(in_order), std::move(server_only), order,
                                                 server_order, merge_key, kind == GoKind::kMap));
    Json result = MakeArray(both, a_);
    SetMember(original, key, result, a_);
    RemoveMember(patch, key);
    return Status::Ok();
  }

  // One key of mergeMap's loop.
  Status MergeField(Json& original, std::string_view key, Json& patch_value, bool is_delete_list,
                    const SchemaNode* schema) {
    if (patch_value.IsNull()) {
      RemoveMember(original, key);
      return Status::Ok();
    }
    Json* current = Member(original, key);
    if (!current || KindOf(*current) != KindOf(patch_value)) {
      if (is_delete_list) return Status::Ok();
      DiscardNulls(patch_value);
      if (RemoveDirectives(patch_value)) {
        SetMember(original, key, patch_value, a_);
      } else {
        RemoveMember(original, key);
      }
      return Status::Ok();
    }
    FieldMeta meta = LookupField(schema, key);
    if (current->IsObject()) {
      if (meta.replace) {
        *current = patch_value;
        return Status::Ok();
      }
      return MergeMap(*current, patch_value, meta.node);
    }
    if (current->IsArray()) {
      List original_items = TakeList(*current);
      List patch_items = TakeList(patch_value);
      ALLOT_ASSIGN_OR_RETURN(List merged,
                             MergeSliceHandler(original_items, patch_items, meta, is_delete_list));
      *current = MakeArray(merged, a_);
      return Status::Ok();
    }
    *current = patch_value;
    return Status::Ok();
  }

  // Go: mergeSliceHandler.
  Result<List> MergeSliceHandler(List& original, List& patch, const FieldMeta& meta,
                                 bool is_delete_list) {
    if (!meta.merge) return std::move(patch);
    return MergeSlice(original, patch, ElemOf(meta.node), meta.merge_key ? meta.merge_key : "",
                      is_delete_list);
  }

  // Go: mergeSlice.
  Result<List> MergeSlice(List& original, List& patch, const SchemaNode* elem,
                          std::string_view merge_key, bool is_delete_list) {
    if (original.empty() && patch.empty()) return std::move(original);
    ALLOT_ASSIGN_OR_RETURN(GoKind kind, SliceElementKind(original, patch, a_));
    List merged, server_order, patch_order;
    if (kind != GoKind::kMap) {
      if (is_delete_list) return DeleteFromSlice(original, patch);
      server_order = CopyList(original, a_);
      patch_order = CopyList(patch, a_);
      merged = DedupeScalars(original, patch);
    } else {
      if (merge_key.empty()) {
        return Internal("cannot merge lists without merge key for type " + KindName(elem));
      }
      ALLOT_RETURN_IF_ERROR(ApplySpecialElements(original, patch, merge_key));
      server_order = CopyList(original, a_);
      patch_order = CopyList(patch, a_);
      ALLOT_RETURN_IF_ERROR(MergeByKey(original, patch, merge_key, elem));
      merged = std::move(original);
    }
    List in_patch, server_only;
    ALLOT_RETURN_IF_ERROR(Partition(merged, patch_order, merge_key, in_patch, server_only));
    return NormalizeElementOrder(std::move(in_patch), std::move(server_only), patch_order,
                                 server_order, merge_key, kind == GoKind::kMap);
  }

  // Go: deleteFromSlice (the $deleteFromPrimitiveList list).
  static List DeleteFromSlice(List& current, const List& to_delete) {
    List out;
    for (Json& v : current) {
      bool drop = false;
      for (const Json& d : to_delete) drop = drop || GoEqual(&v, &d);
      if (!drop) out.emplace_back(std::move(v));
    }
    return out;
  }

  // Go: append + deduplicateScalars. The final order is fixed by the caller.
  static List DedupeScalars(List& original, List& patch) {
    List out;
    for (List* list : {&original, &patch}) {
      for (Json& v : *list) {
        bool seen = false;
        for (const Json& o : out) seen = seen || GoEqual(&o, &v);
        if (!seen) out.emplace_back(std::move(v));
      }
    }
    return out;
  }

  // Go: mergeSliceWithSpecialElements. Applies {"$patch": "delete"} entries to `original` and
  // {"$patch": "replace"} to the whole list; `patch` keeps the ordinary entries.
  Status ApplySpecialElements(List& original, List& patch, std::string_view key) {
    List ordinary;
    bool replace = false;
    for (Json& v : patch) {
      const Json* directive = Member(v, kDirectiveMarker);
      if (!directive) {
        ordinary.emplace_back(std::move(v));
      } else if (IsDirective(*directive, kDeleteDirective)) {
        const Json* value = Member(v, key);
        if (!value) return NoMergeKey(v, key);
        while (true) {
          ALLOT_ASSIGN_OR_RETURN(long idx, FindByKey(original, key, *value));
          if (idx < 0) break;
          original.erase(original.begin() + idx);
        }
      } else if (IsDirective(*directive, kReplaceDirective)) {
        replace = true;
      } else if (IsDirective(*directive, kMergeDirective)) {
        return Internal("merging lists cannot yet be specified in the patch");
      } else {
        return Internal("unknown patch type: " + GoFormat(*directive) + " in map: " + GoFormat(v));
      }
    }
    if (replace) {
      original = std::move(ordinary);
      patch.clear();
    } else {
      patch = std::move(ordinary);
    }
    return Status::Ok();
  }

  // Go: mergeSliceWithoutSpecialElements. Entries matching an element by merge key are merged
  // into it; the others are appended.
  Status MergeByKey(List& original, List& patch, std::string_view key, const SchemaNode* elem) {
    for (Json& v : patch) {
      const Json* value = Member(v, key);
      if (!value) return NoMergeKey(v, key);
      ALLOT_ASSIGN_OR_RETURN(long idx, FindByKey(original, key, *value));
      if (idx >= 0) {
        ALLOT_RETURN_IF_ERROR(MergeMap(original[static_cast<size_t>(idx)], v, elem));
      } else {
        original.emplace_back(std::move(v));
      }
    }
    return Status::Ok();
  }

  Alloc& a_;
};

}  // namespace

Status StrategicMerge(Json& original, Json& patch, const SchemaNode* schema, Alloc& a) {
  Merger merger(a);
  return merger.MergeMap(original, patch, schema);
}

}  // namespace allot::api::patch_internal
