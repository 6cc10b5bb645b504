// The machinery behind every API struct's Visit(): JSON encode/decode, the schema tree, and
// TypeInfo construction. Include this only from .cc files (it pulls in RapidJSON); headers
// declare types with api/machinery/field.h and api/machinery/object.h alone.
//
// Encoding follows Go's encoding/json with `omitempty` on every field unless tagged `always`:
// empty strings, zero numbers, false, empty lists/maps and unset optionals are left out; nested
// structs are always written. Decoding accepts null for any field (it resets the field).
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <concepts>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "api/machinery/boxed.h"
#include "api/machinery/field.h"
#include "api/machinery/flat_map.h"
#include "api/machinery/meta.h"
#include "api/machinery/object.h"
#include "api/machinery/quantity.h"
#include "api/machinery/rare.h"
#include "common/time.h"

namespace allot::api {

// ---------------------------------------------------------------------------------------------
// Schema: a tree describing the JSON shape of a type, derived from Visit().

struct SchemaNode {
  enum class Kind { kObject, kArray, kMap, kString, kInteger, kBoolean, kNumber, kQuantity,
                    kIntOrString, kTime, kMicroTime, kDuration, kRaw };
  struct Field {
    const char* name;
    FieldTags tags;
    const SchemaNode* node;
  };
  Kind kind = Kind::kObject;
  const char* format = nullptr;
  std::vector<Field> fields;         // kObject
  const SchemaNode* elem = nullptr;  // kArray, kMap
  std::string type_name;             // kObject: C++ type name, for OpenAPI component names

  const Field* Find(std::string_view name) const {
    for (const Field& f : fields) {
      if (name == f.name) return &f;
    }
    return nullptr;
  }
};

namespace reflect {

struct ProbeVisitor {
  template <class F>
  void operator()(const char*, F&, FieldTags = {}) {}
};

template <class T>
concept Visitable = requires(T& t, ProbeVisitor& v) { t.Visit(v); };

template <class T>
struct Codec;  // Encode(w, v), Decode(json, v, ctx) -> bool, IsEmpty(v), Schema()

template <class T>
const SchemaNode& SchemaOf() {
  static const SchemaNode node = Codec<T>::Schema();
  return node;
}

inline SchemaNode Scalar(SchemaNode::Kind kind, const char* format = nullptr) {
  SchemaNode n;
  n.kind = kind;
  n.format = format;
  return n;
}

// --- scalars ---------------------------------------------------------------------------------

template <>
struct Codec<std::string> {
  static void Encode(JsonWriter& w, const std::string& v) {
    w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
  }
  static bool IsEmpty(const std::string& v) { return v.empty(); }
  static bool Decode(const JsonValue& j, std::string& out, DecodeContext& ctx) {
    if (!j.IsString()) return ctx.TypeError("string", j);
    out.assign(j.GetString(), j.GetStringLength());
    return true;
  }
  static SchemaNode Schema() { return Scalar(SchemaNode::Kind::kString); }
};

// []byte: a base64 string in JSON (standard encoding with padding, as Go's encoding/json).
template <>
struct Codec<Bytes> {
  static void Encode(JsonWriter& w, const Bytes& v);
  static bool IsEmpty(const Bytes& v) { return v.empty(); }
  static bool Decode(const JsonValue& j, Bytes& out, DecodeContext& ctx);
  static SchemaNode Schema() { return Scalar(SchemaNode::Kind::kString, "byte"); }
};

template <>
struct Codec<InternedString> {
  static void Encode(JsonWriter& w, const InternedString& v) { Codec<std::string>::Encode(w, v); }
  static bool IsEmpty(const InternedString& v) { return v.empty(); }
  static bool Decode(const JsonValue& j, InternedString& out, DecodeContext& ctx) {
    if (!j.IsString()) return ctx.TypeError("string", j);
    out = InternedString(std::string_view(j.GetString(), j.GetStringLength()));
    return true;
  }
  static SchemaNode Schema() { return Scalar(SchemaNode::Kind::kString); }
};

template <>
struct Codec<bool> {
  static void Encode(JsonWriter& w, bool v) { w.Bool(v); }
  static bool IsEmpty(bool v) { return !v; }
  static bool Decode(const JsonValue& j, bool& out, DecodeContext& ctx) {
    if (!j.IsBool()) return ctx.TypeError("boolean", j);
    out = j.GetBool();
    return true;
  }
  static SchemaNode Schema() { return Scalar(SchemaNode::Kind::kBoolean); }
};

template <>
struct Codec<int64_t> {
  static void Encode(JsonWriter& w, int64_t v) { w.Int64(v); }
  static bool IsEmpty(int64_t v) { return v == 0; }
  static bool Decode(const JsonValue& j, int64_t& out, DecodeContext& ctx) {
    if (!j.IsInt64()) return ctx.TypeError("int64", j);
    out = j.GetInt64();
    return true;
  }
  static SchemaNode Schema() { return Scalar(SchemaNode::Kind::kInteger, "int64"); }
};

template <>
struct Codec<int32_t> {
  static void Encode(JsonWriter& w, int32_t v) { w.Int(v); }
  static bool IsEmpty(int32_t v) { return v == 0; }
  static bool Decode(const JsonValue& j, int32_t& out, DecodeContext& ctx) {
    if (!j.IsInt()) return ctx.TypeError("int32", j);
    out = j.GetInt();
    return true;
  }
  static SchemaNode Schema() { return Scalar(SchemaNode::Kind::kInteger, "int32"); }
};

template <>
struct Codec<double> {
  static void Encode(JsonWriter& w, double v) { w.Double(v); }
  static bool IsEmpty(double v) { return v == 0; }
  static bool Decode(const JsonValue& j, double& out, DecodeContext& ctx) {
    if (!j.IsNumber()) return ctx.TypeError("number", j);
    out = j.GetDouble();
    return true;
  }
  static SchemaNode Schema() { return Scalar(SchemaNode::Kind::kNumber, "double"); }
};

template <>
struct Codec<Time> {
  static void Encode(JsonWriter& w, const Time& v) { Codec<std::string>::Encode(w, v.ToRfc3339()); }
  static bool IsEmpty(const Time&) { return false; }
  static bool Decode(const JsonValue& j, Time& out, DecodeContext& ctx) {
    if (!j.IsString()) return ctx.TypeError("RFC 3339 time string", j);
    auto t = Time::Parse(std::string_view(j.GetString(), j.GetStringLength()));
    if (!t) return ctx.ValueError("invalid time \"" + std::string(j.GetString()) + "\"");
    out = t->TruncatedToSeconds();
    return true;
  }
  static SchemaNode Schema() { return Scalar(SchemaNode::Kind::kTime, "date-time"); }
};

template <>
struct Codec<MicroTime> {
  static void Encode(JsonWriter& w, const MicroTime& v) {
    Codec<std::string>::Encode(w, v.time.ToRfc3339Micro());
  }
  static bool IsEmpty(const MicroTime&) { return false; }
  static bool Decode(const JsonValue& j, MicroTime& out, DecodeContext& ctx) {
    if (!j.IsString()) return ctx.TypeError("RFC 3339 time string", j);
    auto t = Time::Parse(std::string_view(j.GetString(), j.GetStringLength()));
    if (!t) return ctx.ValueError("invalid time \"" + std::string(j.GetString()) + "\"");
    out.time = *t;
    return true;
  }
  static SchemaNode Schema() { return Scalar(SchemaNode::Kind::kMicroTime, "date-time"); }
};

template <>
struct Codec<Quantity> {
  static void Encode(JsonWriter& w, const Quantity& v) { Codec<std::string>::Encode(w, v.ToString()); }
  static bool IsEmpty(const Quantity&) { return false; }
  static bool Decode(const JsonValue& j, Quantity& out, DecodeContext& ctx);
  static SchemaNode Schema() { return Scalar(SchemaNode::Kind::kQuantity, "quantity"); }
};

template <>
struct Codec<IntOrString> {
  static void Encode(JsonWriter& w, const IntOrString& v) {
    if (v.is_string) {
      Codec<std::string>::Encode(w, v.string_value);
    } else {
      w.Int64(v.int_value);
    }
  }
  static bool IsEmpty(const IntOrString& v) { return !v.is_string && v.int_value == 0; }
  static bool Decode(const JsonValue& j, IntOrString& out, DecodeContext& ctx) {
    if (j.IsString()) {
      out.is_string = true;
      out.string_value.assign(j.GetString(), j.GetStringLength());
      return true;
    }
    if (j.IsInt64()) {
      out.is_string = false;
      out.int_value = j.GetInt64();
      return true;
    }
    return ctx.TypeError("integer or string", j);
  }
  static SchemaNode Schema() { return Scalar(SchemaNode::Kind::kIntOrString, "int-or-string"); }
};

template <>
struct Codec<Duration> {
  static void Encode(JsonWriter& w, const Duration& v) { Codec<std::string>::Encode(w, v.ToString()); }
  static bool IsEmpty(const Duration&) { return false; }
  static bool Decode(const JsonValue& j, Duration& out, DecodeContext& ctx) {
    if (!j.IsString()) return ctx.TypeError("duration string", j);
    if (!Duration::Parse(std::string(j.GetString(), j.GetStringLength()), out)) {
      return ctx.ValueError("invalid duration \"" + std::string(j.GetString()) + "\"");
    }
    return true;
  }
  static SchemaNode Schema() { return Scalar(SchemaNode::Kind::kDuration); }
};

template <>
struct Codec<RawJson> {
  static void Encode(JsonWriter& w, const RawJson& v) {
    if (v.json.empty()) {
      w.Null();
    } else {
      w.RawValue(v.json.data(), v.json.size(), rapidjson::kObjectType);
    }
  }
  static bool IsEmpty(const RawJson& v) { return v.empty(); }
  static bool Decode(const JsonValue& j, RawJson& out, DecodeContext& ctx);
  static SchemaNode Schema() { return Scalar(SchemaNode::Kind::kRaw); }
};

// --- containers ------------------------------------------------------------------------------

template <class T>
struct Codec<std::optional<T>> {
  static void Encode(JsonWriter& w, const std::optional<T>& v) {
    if (v) {
      Codec<T>::Encode(w, *v);
    } else {
      w.Null();
    }
  }
  static bool IsEmpty(const std::optional<T>& v) { return !v.has_value(); }
  static bool Decode(const JsonValue& j, std::optional<T>& out, DecodeContext& ctx) {
    if (j.IsNull()) {
      out.reset();
      return true;
    }
    out.emplace();
    return Codec<T>::Decode(j, *out, ctx);
  }
  static SchemaNode Schema() { return Codec<T>::Schema(); }
};

// A Boxed<T> reads and writes as std::optional<T>.
template <class T>
struct Codec<Boxed<T>> {
  static void Encode(JsonWriter& w, const Boxed<T>& v) {
    if (v) {
      Codec<T>::Encode(w, *v);
    } else {
      w.Null();
    }
  }
  static bool IsEmpty(const Boxed<T>& v) { return !v.has_value(); }
  static bool Decode(const JsonValue& j, Boxed<T>& out, DecodeContext& ctx) {
    if (j.IsNull()) {
      out.reset();
      return true;
    }
    out.emplace();
    return Codec<T>::Decode(j, *out, ctx);
  }
  static SchemaNode Schema() { return Codec<T>::Schema(); }
};

template <class T>
struct Codec<std::vector<T>> {
  static void Encode(JsonWriter& w, const std::vector<T>& v) {
    w.StartArray();
    for (const T& e : v) Codec<T>::Encode(w, e);
    w.EndArray();
  }
  static bool IsEmpty(const std::vector<T>& v) { return v.empty(); }
  static bool Decode(const JsonValue& j, std::vector<T>& out, DecodeContext& ctx) {
    if (!j.IsArray()) return ctx.TypeError("array", j);
    out.clear();
    out.resize(j.Size());
    for (rapidjson::SizeType i = 0; i < j.Size(); ++i) {
      ctx.PushIndex(i);
      bool ok = j[i].IsNull() ? true : Codec<T>::Decode(j[i], out[i], ctx);
      ctx.Pop();
      if (!ok) return false;
    }
    return true;
  }
  static SchemaNode Schema() {
    SchemaNode n = Scalar(SchemaNode::Kind::kArray);
    n.elem = &SchemaOf<T>();
    return n;
  }
};

// String-keyed maps: std::map, and FlatMap (labels, annotations, resource lists).
template <class M, class T>
struct StringMapCodec {
  static void Encode(JsonWriter& w, const M& v) {
    w.StartObject();
    for (const auto& [k, e] : v) {
      w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
      Codec<T>::Encode(w, e);
    }
    w.EndObject();
  }
  static bool IsEmpty(const M& v) { return v.empty(); }
  static bool Decode(const JsonValue& j, M& out, DecodeContext& ctx) {
    if (!j.IsObject()) return ctx.TypeError("object", j);
    std::vector<std::pair<std::string, T>> entries;
    entries.reserve(j.MemberCount());
    for (const auto& m : j.GetObject()) {
      std::string key(m.name.GetString(), m.name.GetStringLength());
      ctx.PushKey(std::string_view(m.name.GetString(), m.name.GetStringLength()));
      T value{};
      bool ok = m.value.IsNull() ? true : Codec<T>::Decode(m.value, value, ctx);
      ctx.Pop();
      if (!ok) return false;
      entries.emplace_back(std::move(key), std::move(value));
    }
    if constexpr (std::is_same_v<M, FlatMap<std::string, T>>) {
      out.AssignUnsorted(std::move(entries));  // of repeated keys the last wins
    } else {
      out.clear();
      for (auto& [k, e] : entries) out.insert_or_assign(std::move(k), std::move(e));
    }
    return true;
  }
  static SchemaNode Schema() {
    SchemaNode n = Scalar(SchemaNode::Kind::kMap);
    n.elem = &SchemaOf<T>();
    return n;
  }
};
template <class T>
struct Codec<std::map<std::string, T>> : StringMapCodec<std::map<std::string, T>, T> {};
template <class T>
struct Codec<FlatMap<std::string, T>> : StringMapCodec<FlatMap<std::string, T>, T> {};

// --- structs ---------------------------------------------------------------------------------

struct EncodeVisitor {
  JsonWriter& w;
  template <class F>
  void operator()(const char* name, const F& f, FieldTags tags = {}) {
    if (!tags.always && Codec<F>::IsEmpty(f)) return;
    w.Key(name);
    Codec<F>::Encode(w, f);
  }
};

struct DecodeFieldVisitor {
  std::string_view key;
  const JsonValue& value;
  DecodeContext& ctx;
  bool found = false;
  bool ok = true;
  int index = 0;
  int found_index = -1;

  template <class F>
  void operator()(const char* name, F& f, FieldTags = {}) {
    if (!found && key == name) {
      found = true;
      found_index = index;
      ctx.PushField(name);
      if (value.IsNull()) {
        f = F{};
      } else {
        ok = Codec<F>::Decode(value, f, ctx);
      }
      ctx.Pop();
    }
    ++index;
  }
  // The rare part is allocated only for a member decoded to a value other than its zero
  // (api/machinery/rare.h): `"workingDir": ""` or `null` leaves it unset.
  template <class T, class F>
  void RareField(const char* name, Rare<T>& r, F T::*m, FieldTags tags) {
    if (found || key != name) {
      ++index;
    } else if (r.allocated()) {
      (*this)(name, r.edit().*m, tags);
    } else {
      F value{};
      (*this)(name, value, tags);
      r.set(m, std::move(value));
    }
  }
};

// Decodes the members of a JSON object into a Visitable struct. Members named in `skip`
// (e.g. apiVersion/kind at the top level) are neither decoded nor reported as unknown.
template <class T>
bool DecodeMembers(const JsonValue& j, T& out, DecodeContext& ctx,
                   std::initializer_list<std::string_view> skip = {}) {
  uint64_t seen_low = 0;
  std::vector<int> seen_high;
  for (const auto& m : j.GetObject()) {
    std::string_view key(m.name.GetString(), m.name.GetStringLength());
    DecodeFieldVisitor dv{key, m.value, ctx};
    out.Visit(dv);
    if (!dv.ok) return false;
    if (!dv.found) {
      bool skipped = false;
      for (std::string_view s : skip) skipped = skipped || s == key;
      if (!skipped) ctx.Unknown(key);
      continue;
    }
    bool dup;
    if (dv.found_index < 64) {
      dup = (seen_low >> dv.found_index) & 1;
      seen_low |= uint64_t{1} << dv.found_index;
    } else {
      dup = std::find(seen_high.begin(), seen_high.end(), dv.found_index) != seen_high.end();
      seen_high.push_back(dv.found_index);
    }
    if (dup) ctx.Duplicate(key);
  }
  return true;
}

struct SchemaVisitor {
  SchemaNode& node;
  template <class F>
  void operator()(const char* name, F&, FieldTags tags = {}) {
    node.fields.push_back({name, tags, &SchemaOf<F>()});
  }
};

std::string DemangledName(const char* mangled);

template <Visitable T>
struct Codec<T> {
  static void Encode(JsonWriter& w, const T& v) {
    w.StartObject();
    EncodeVisitor ev{w};
    const_cast<T&>(v).Visit(ev);
    w.EndObject();
  }
  static bool IsEmpty(const T&) { return false; }
  static bool Decode(const JsonValue& j, T& out, DecodeContext& ctx) {
    if (!j.IsObject()) return ctx.TypeError("object", j);
    return DecodeMembers(j, out, ctx);
  }
  static SchemaNode Schema() {
    SchemaNode n;
    n.kind = SchemaNode::Kind::kObject;
    n.type_name = DemangledName(typeid(T).name());
    T probe{};
    SchemaVisitor sv{n};
    probe.Visit(sv);
    return n;
  }
};

}  // namespace reflect

// ---------------------------------------------------------------------------------------------
// Helpers for any Visitable value (not only top-level objects).

template <class T>
std::string ToJson(const T& value) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  reflect::Codec<T>::Encode(w, value);
  return std::string(buf.GetString(), buf.GetSize());
}

// Parses `json` into `out`. Non-strict: unknown fields are ignored.
template <class T>
Status FromJson(std::string_view json, T& out) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) return BadRequestError("invalid JSON at offset " +
                                                  std::to_string(doc.GetErrorOffset()));
  DecodeContext ctx;
  if (!reflect::Codec<T>::Decode(doc, out, ctx)) return BadRequestError(ctx.error());
  return Status::Ok();
}

// Builds the TypeInfo for a top-level kind T (a TypedObject<T> with Visit()).
template <class T>
TypeInfo MakeTypeInfo(std::string group, std::string version, std::string kind) {
  TypeInfo t;
  t.group = std::move(group);
  t.version = std::move(version);
  t.kind = std::move(kind);
  t.api_version = t.group.empty() ? t.version : t.group + "/" + t.version;
  t.make = []() -> std::unique_ptr<Object> { return std::make_unique<T>(); };
  t.encode = [](const Object& o, JsonWriter& w) {
    const T& v = static_cast<const T&>(o);
    const TypeInfo& ti = T::Type();
    w.StartObject();
    w.Key("kind");
    reflect::Codec<std::string>::Encode(w, ti.kind);
    w.Key("apiVersion");
    reflect::Codec<std::string>::Encode(w, ti.api_version);
    reflect::EncodeVisitor ev{w};
    const_cast<T&>(v).Visit(ev);
    w.EndObject();
  };
  t.decode = [](const JsonValue& j, Object& o, DecodeContext& ctx) {
    if (!j.IsObject()) return ctx.TypeError("object", j);
    return reflect::DecodeMembers(j, static_cast<T&>(o), ctx, {"apiVersion", "kind"});
  };
  t.schema = []() -> const SchemaNode& { return reflect::SchemaOf<T>(); };
  t.equal = [](const Object& a, const Object& b) {
    return static_cast<const T&>(a) == static_cast<const T&>(b);
  };
  if constexpr (requires(T x) { x.spec; }) {
    t.has_spec = true;
    t.spec_equal = [](const Object& a, const Object& b) {
      return static_cast<const T&>(a).spec == static_cast<const T&>(b).spec;
    };
    t.copy_spec = [](const Object& from, Object& to) {
      static_cast<T&>(to).spec = static_cast<const T&>(from).spec;
    };
  }
  if constexpr (requires(T x) { x.status; }) {
    t.has_status = true;
    t.copy_status = [](const Object& from, Object& to) {
      static_cast<T&>(to).status = static_cast<const T&>(from).status;
    };
  }
  return t;
}

// Defines T::Type() in a .cc file.
#define ALLOT_DEFINE_TYPE(T, GROUP, VERSION, KIND)                                   \
  const ::allot::api::TypeInfo& T::Type() {                                          \
    static const ::allot::api::TypeInfo info =                                       \
        ::allot::api::MakeTypeInfo<T>(GROUP, VERSION, KIND);                         \
    return info;                                                                     \
  }

}  // namespace allot::api
