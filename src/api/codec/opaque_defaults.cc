// Defaulting the JSON text of opaque messages (api/codec/opaque_messages.h's DefaultOpaque) from
// the catalog's sixth column.
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>
#include <string_view>

#include "api/codec/opaque_catalog.h"
#include "api/codec/opaque_messages.h"
#include "api/machinery/image_reference.h"

namespace allot::api::protobuf {
namespace {

using Allocator = rapidjson::Document::AllocatorType;

JsonValue::MemberIterator Find(JsonValue& obj, const std::string& name) {
  return obj.FindMember(rapidjson::StringRef(name.data(), name.size()));
}

// Whether Go's defaulting would fill `v`: absent, null, or, for a field that is not a pointer,
// its zero value (SetDefaults_Probe's `if obj.TimeoutSeconds == 0`).
bool Unset(const OpaqueField& f, const JsonValue* v) {
  if (!v || v->IsNull()) return true;
  if (f.presence == OpaquePresence::kPointer) return false;
  switch (f.kind) {
    case OpaqueKind::kString: return v->IsString() && v->GetStringLength() == 0;
    case OpaqueKind::kBool: return v->IsBool() && !v->GetBool();
    case OpaqueKind::kInt32:
    case OpaqueKind::kInt64: return v->IsInt64() && v->GetInt64() == 0;
    default: return false;
  }
}

// The default of `f` in object `obj` (a pull policy reads its reference there).
JsonValue DefaultValue(const OpaqueField& f, JsonValue& obj, Allocator& a) {
  if (!f.pull_policy_of.empty()) {
    auto ref = Find(obj, f.pull_policy_of);
    std::string_view image;
    if (ref != obj.MemberEnd() && ref->value.IsString()) {
      image = std::string_view(ref->value.GetString(), ref->value.GetStringLength());
    }
    std::string policy = DefaultImagePullPolicy(image);
    return JsonValue(policy.data(), static_cast<rapidjson::SizeType>(policy.size()), a);
  }
  rapidjson::Document d(&a);
  d.Parse(f.default_json.data(), f.default_json.size());  // checked when the catalog was read
  return JsonValue(std::move(d.Move()));
}

bool DefaultObject(const OpaqueMessage& m, JsonValue& obj, Allocator& a, int depth);

bool DefaultElement(const OpaqueField& f, JsonValue& v, Allocator& a, int depth) {
  return v.IsObject() && DefaultObject(*f.message, v, a, depth + 1);
}

// Fills the unset fields of `obj` that have defaults, at any depth; true when it added one.
bool DefaultObject(const OpaqueMessage& m, JsonValue& obj, Allocator& a, int depth) {
  if (depth >= kMaxOpaqueDepth) return false;
  bool changed = false;
  for (const OpaqueField& f : m.fields) {
    if (f.presence == OpaquePresence::kInline) {
      if (f.message && f.message->has_defaults) {
        changed |= DefaultObject(*f.message, obj, a, depth + 1);
      }
      continue;
    }
    auto it = Find(obj, f.json);
    JsonValue* v = it == obj.MemberEnd() ? nullptr : &it->value;
    if (!f.default_json.empty() || !f.pull_policy_of.empty()) {
      if (!Unset(f, v)) continue;
      JsonValue value = DefaultValue(f, obj, a);
      if (v) {
        *v = std::move(value);
      } else {
        obj.AddMember(JsonValue(f.json.data(), static_cast<rapidjson::SizeType>(f.json.size()), a),
                      std::move(value), a);
      }
      changed = true;
      continue;
    }
    if (!v || !f.message || !f.message->has_defaults) continue;
    if (f.shape == OpaqueShape::kSingle) {
      changed |= DefaultElement(f, *v, a, depth);
    } else if (f.shape == OpaqueShape::kRepeated && v->IsArray()) {
      for (JsonValue& e : v->GetArray()) changed |= DefaultElement(f, e, a, depth);
    } else if (f.shape == OpaqueShape::kMap && v->IsObject()) {
      for (auto e = v->MemberBegin(); e != v->MemberEnd(); ++e) {
        changed |= DefaultElement(f, e->value, a, depth);
      }
    }
  }
  return changed;
}

// Moves the members of `from` that message `m` has into `to`, in the message's order (an
// embedded struct's in its place), recursing into the messages they hold.
void MoveInOrder(const OpaqueMessage& m, JsonValue& from, JsonValue& to, Allocator& a, int depth);

void Reorder(const OpaqueField& f, JsonValue& v, Allocator& a, int depth) {
  auto one = [&](JsonValue& e) {
    if (!e.IsObject()) return;
    JsonValue sorted(rapidjson::kObjectType);
    MoveInOrder(*f.message, e, sorted, a, depth + 1);
    for (auto rest = e.MemberBegin(); rest != e.MemberEnd(); ++rest) {
      sorted.AddMember(rest->name, rest->value, a);  // members the message lacks, last
    }
    e = std::move(sorted);
  };
  if (f.shape == OpaqueShape::kSingle) {
    one(v);
  } else if (f.shape == OpaqueShape::kRepeated && v.IsArray()) {
    for (JsonValue& e : v.GetArray()) one(e);
  } else if (f.shape == OpaqueShape::kMap && v.IsObject()) {
    for (auto e = v.MemberBegin(); e != v.MemberEnd(); ++e) one(e->value);
  }
}

void MoveInOrder(const OpaqueMessage& m, JsonValue& from, JsonValue& to, Allocator& a,
                 int depth) {
  if (depth >= kMaxOpaqueDepth) return;
  for (const OpaqueField& f : m.fields) {
    if (f.presence == OpaquePresence::kInline) {
      if (f.message) MoveInOrder(*f.message, from, to, a, depth + 1);
      continue;
    }
    auto it = Find(from, f.json);
    if (it == from.MemberEnd()) continue;
    JsonValue value(std::move(it->value));
    from.EraseMember(it);
    if (f.message && f.message->has_defaults) Reorder(f, value, a, depth);
    to.AddMember(JsonValue(f.json.data(), static_cast<rapidjson::SizeType>(f.json.size()), a),
                 std::move(value), a);
  }
}

}  // namespace

bool OpaqueHasDefaults(const OpaqueMessage& m) { return m.has_defaults; }

bool DefaultOpaque(const OpaqueMessage& m, std::string& json) {
  if (!m.has_defaults || json.empty()) return false;
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) return false;
  Allocator& a = doc.GetAllocator();
  if (!DefaultObject(m, doc, a, 0)) return false;
  JsonValue sorted(rapidjson::kObjectType);
  MoveInOrder(m, doc, sorted, a, 0);
  for (auto rest = doc.MemberBegin(); rest != doc.MemberEnd(); ++rest) {
    sorted.AddMember(rest->name, rest->value, a);
  }
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  sorted.Accept(w);
  json.assign(buf.GetString(), buf.GetSize());
  return true;
}

}  // namespace allot::api::protobuf
