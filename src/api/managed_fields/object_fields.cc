#include "api/managed_fields/object_fields.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "api/machinery/reflect.h"

namespace allot::api::managed_fields {
namespace {

// How a value is tracked, from its schema node and the tags of the field that holds it.
enum class Shape { kLeaf, kStruct, kMap, kKeyedList, kSetList };

struct Typed {
  const SchemaNode* node = nullptr;  // null: no schema (deduced from the value)
  FieldTags tags;
};

Shape ShapeOf(const Typed& t, const JsonValue* sample) {
  if (!t.node) {
    return sample && sample->IsObject() ? Shape::kMap : Shape::kLeaf;
  }
  switch (t.node->kind) {
    case SchemaNode::Kind::kObject: return Shape::kStruct;
    case SchemaNode::Kind::kMap: return t.tags.atomic ? Shape::kLeaf : Shape::kMap;
    case SchemaNode::Kind::kArray:
      if (t.tags.atomic) return Shape::kLeaf;
      if (t.tags.merge_key) return Shape::kKeyedList;
      if (t.tags.set) return Shape::kSetList;
      return Shape::kLeaf;
    default: return Shape::kLeaf;
  }
}

// The schema of member `key` of a struct or map.
Typed ChildOf(const Typed& t, Shape shape, std::string_view key) {
  if (shape == Shape::kStruct) {
    if (const SchemaNode::Field* f = t.node->Find(key)) return {f->node, f->tags};
    return {};
  }
  if (shape == Shape::kMap && t.node) return {t.node->elem, {}};
  return {};
}

Typed ItemOf(const Typed& t) { return {t.node ? t.node->elem : nullptr, {}}; }

std::string Compact(const JsonValue& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

// The path element of item `index` of a keyed or set list.
std::string ItemElement(const Typed& list, Shape shape, const JsonValue& item, size_t index) {
  if (shape == Shape::kSetList) return "v:" + Compact(item);
  const char* key = list.tags.merge_key;
  if (item.IsObject()) {
    auto m = item.FindMember(key);
    if (m != item.MemberEnd()) {
      rapidjson::StringBuffer buf;
      rapidjson::Writer<rapidjson::StringBuffer> w(buf);
      w.StartObject();
      w.Key(key);
      m->value.Accept(w);
      w.EndObject();
      return "k:" + std::string(buf.GetString(), buf.GetSize());
    }
  }
  return IndexElement(index);
}

bool IsEmptyObject(const JsonValue& v) { return v.IsObject() && v.MemberCount() == 0; }

// --- FieldsOf -------------------------------------------------------------------------------

void CollectFields(const JsonValue& v, const Typed& t, FieldPath& path, FieldSet& out) {
  Shape shape = ShapeOf(t, &v);
  switch (shape) {
    case Shape::kLeaf:
      out.Insert(path);
      return;
    case Shape::kStruct:
    case Shape::kMap:
      if (!v.IsObject()) {
        if (!v.IsNull()) out.Insert(path);
        return;
      }
      for (const auto& m : v.GetObject()) {
        std::string_view key(m.name.GetString(), m.name.GetStringLength());
        Typed child = ChildOf(t, shape, key);
        path.push_back(FieldElement(key));
        CollectFields(m.value, child, path, out);
        if (m.value.IsNull() || IsEmptyObject(m.value) || shape == Shape::kMap || !child.node) {
          out.Insert(path);
        }
        path.pop_back();
      }
      return;
    case Shape::kKeyedList:
    case Shape::kSetList:
      if (!v.IsArray()) {
        if (!v.IsNull()) out.Insert(path);
        return;
      }
      for (size_t i = 0; i < v.Size(); ++i) {
        path.push_back(ItemElement(t, shape, v[i], i));
        CollectFields(v[i], ItemOf(t), path, out);
        out.Insert(path);
        path.pop_back();
      }
      return;
  }
}

// --- Compare --------------------------------------------------------------------------------

bool EmptyContainer(const JsonValue* v) {
  return !v || v->IsNull() || (v->IsObject() && v->MemberCount() == 0) ||
         (v->IsArray() && v->Empty());
}

void CompareValues(const JsonValue* lhs, const JsonValue* rhs, const Typed& t, FieldPath& path,
                   Comparison& out);

void CompareLeaf(const JsonValue* lhs, const JsonValue* rhs, const FieldPath& path,
                 Comparison& out) {
  if (!lhs) {
    out.added.Insert(path);
  } else if (!rhs) {
    out.removed.Insert(path);
  } else if (*lhs != *rhs) {
    out.modified.Insert(path);
  }
}

void CompareMembers(const JsonValue* lhs, const JsonValue* rhs, const Typed& t, Shape shape,
                    FieldPath& path, Comparison& out) {
  std::vector<std::string_view> keys;
  auto add_keys = [&](const JsonValue* v) {
    if (!v || !v->IsObject()) return;
    for (const auto& m : v->GetObject()) keys.emplace_back(m.name.GetString(), m.name.GetStringLength());
  };
  add_keys(lhs);
  add_keys(rhs);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  // A required field of a struct is always there in Kubernetes' typed objects (null when
  // empty: Go writes fields without omitempty), so it is never added or removed itself.
  static const JsonValue kNull;
  auto member = [&](const JsonValue* v, std::string_view key,
                    const Typed& child) -> const JsonValue* {
    if (!v || !v->IsObject()) return nullptr;
    auto m = v->FindMember(rapidjson::StringRef(key.data(), key.size()));
    if (m != v->MemberEnd()) return &m->value;
    return shape == Shape::kStruct && child.tags.required ? &kNull : nullptr;
  };
  for (std::string_view key : keys) {
    Typed child = ChildOf(t, shape, key);
    path.push_back(FieldElement(key));
    CompareValues(member(lhs, key, child), member(rhs, key, child), child, path, out);
    path.pop_back();
  }
}

void CompareItems(const JsonValue* lhs, const JsonValue* rhs, const Typed& t, Shape shape,
                  FieldPath& path, Comparison& out) {
  // Items by element, in order of first appearance (left, then right).
  std::vector<std::string> order;
  std::map<std::string, std::pair<const JsonValue*, const JsonValue*>> items;
  auto index = [&](const JsonValue* list, bool left) {
    if (!list || !list->IsArray()) return;
    for (size_t i = 0; i < list->Size(); ++i) {
      std::string e = ItemElement(t, shape, (*list)[i], i);
      auto [it, fresh] = items.try_emplace(e, nullptr, nullptr);
      if (fresh) order.push_back(e);
      auto& slot = left ? it->second.first : it->second.second;
      if (!slot) slot = &(*list)[i];
    }
  };
  index(lhs, true);
  index(rhs, false);
  for (const std::string& e : order) {
    const auto& [l, r] = items[e];
    path.push_back(e);
    CompareValues(l, r, ItemOf(t), path, out);
    path.pop_back();
  }
}

void CompareValues(const JsonValue* lhs, const JsonValue* rhs, const Typed& t, FieldPath& path,
                   Comparison& out) {
  Shape shape = ShapeOf(t, lhs ? lhs : rhs);
  if (shape == Shape::kLeaf || (EmptyContainer(lhs) && EmptyContainer(rhs))) {
    CompareLeaf(lhs, rhs, path, out);
    return;
  }
  if (shape == Shape::kStruct || shape == Shape::kMap) {
    CompareMembers(lhs, rhs, t, shape, path, out);
  } else {
    CompareItems(lhs, rhs, t, shape, path, out);
  }
  if (!lhs) {
    out.added.Insert(path);
  } else if (!rhs) {
    out.removed.Insert(path);
  }
}

// --- RemoveFields ---------------------------------------------------------------------------

bool MatchesKey(const JsonValue& item, const rapidjson::Document& key) {
  if (!item.IsObject() || !key.IsObject()) return false;
  for (const auto& k : key.GetObject()) {
    auto m = item.FindMember(k.name);
    if (m == item.MemberEnd() || m->value != k.value) return false;
  }
  return true;
}

// The index of the item `element` names in `list`, or -1.
int64_t FindItem(const JsonValue& list, const std::string& element) {
  std::string_view body = std::string_view(element).substr(2);
  if (element[0] == 'i') {
    size_t i = std::strtoull(std::string(body).c_str(), nullptr, 10);
    return i < list.Size() ? static_cast<int64_t>(i) : -1;
  }
  rapidjson::Document want;
  want.Parse(body.data(), body.size());
  if (want.HasParseError()) return -1;
  for (size_t i = 0; i < list.Size(); ++i) {
    bool hit = element[0] == 'k' ? MatchesKey(list[i], want) : list[i] == want;
    if (hit) return static_cast<int64_t>(i);
  }
  return -1;
}

void RemovePath(JsonValue& v, const FieldPath& path, size_t at) {
  const std::string& e = path[at];
  const bool last = at + 1 == path.size();
  if (e[0] == 'f') {
    if (!v.IsObject()) return;
    auto m = v.FindMember(rapidjson::StringRef(e.data() + 2, e.size() - 2));
    if (m == v.MemberEnd()) return;
    if (last) {
      v.EraseMember(m);
    } else {
      RemovePath(m->value, path, at + 1);
    }
    return;
  }
  if (!v.IsArray()) return;
  int64_t i = FindItem(v, e);
  if (i < 0) return;
  if (last) {
    v.Erase(v.Begin() + i);
  } else {
    RemovePath(v[static_cast<rapidjson::SizeType>(i)], path, at + 1);
  }
}

}  // namespace

FieldSet FieldsOf(const JsonValue& object, const SchemaNode& schema) {
  FieldSet out;
  FieldPath path;
  CollectFields(object, Typed{&schema, {}}, path, out);
  return out;
}

Comparison Compare(const JsonValue& before, const JsonValue& after, const SchemaNode& schema) {
  Comparison out;
  FieldPath path;
  CompareValues(&before, &after, Typed{&schema, {}}, path, out);
  return out;
}

void RemoveFields(JsonValue& object, const FieldSet& paths) {
  // Only the topmost paths (removing an item removes what lies below it; an item whose key
  // field went first could not be found), from the back, so that removing one list item by
  // position never moves another.
  std::vector<const FieldPath*> order;
  for (const FieldPath& p : paths.paths()) {
    if (p.empty()) continue;
    if (!order.empty() && order.back()->size() < p.size() &&
        std::equal(order.back()->begin(), order.back()->end(), p.begin())) {
      continue;  // below the last one kept (the set is sorted: ancestors come first)
    }
    order.push_back(&p);
  }
  std::reverse(order.begin(), order.end());
  for (const FieldPath* p : order) RemovePath(object, *p, 0);
}

}  // namespace allot::api::managed_fields
