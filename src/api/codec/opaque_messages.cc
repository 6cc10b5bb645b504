#include "api/codec/opaque_messages.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>

#include "api/codec/codec.h"
#include "api/codec/opaque_catalog.h"
#include "api/codec/protobuf_reflect.h"
#include "api/machinery/reflect.h"

namespace allot::api::protobuf {

namespace {

using reflect::Codec;
using Kind = OpaqueKind;
using Shape = OpaqueShape;
using Presence = OpaquePresence;
using FieldSpec = OpaqueField;
constexpr int kMaxDepth = kMaxOpaqueDepth;

// --- JSON to protobuf ---------------------------------------------------------------------

bool EncodeFields(Writer& w, const OpaqueMessage& m, const JsonValue& obj, int depth);

bool EncodeValue(Writer& w, int n, const FieldSpec& f, const JsonValue& v, int depth) {
  DecodeContext ctx;
  switch (f.kind) {
    case Kind::kString:
      if (!v.IsString()) return false;
      w.BytesField(n, std::string_view(v.GetString(), v.GetStringLength()));
      return true;
    case Kind::kBytes: {
      Bytes b;
      if (!Codec<Bytes>::Decode(v, b, ctx)) return false;
      w.BytesField(n, b.data);
      return true;
    }
    case Kind::kBool:
      if (!v.IsBool()) return false;
      w.IntField(n, v.GetBool() ? 1 : 0);
      return true;
    case Kind::kInt32:
      if (!v.IsInt()) return false;
      w.IntField(n, v.GetInt());
      return true;
    case Kind::kInt64:
      if (!v.IsInt64()) return false;
      w.IntField(n, v.GetInt64());
      return true;
    case Kind::kDouble: {
      if (!v.IsNumber()) return false;
      double d = v.GetDouble();
      uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      w.Fixed64Field(n, bits);
      return true;
    }
    case Kind::kQuantity: {
      Quantity q;
      if (!Codec<Quantity>::Decode(v, q, ctx)) return false;
      WriteQuantity(w, n, q);
      return true;
    }
    case Kind::kIntOrString: {
      IntOrString i;
      return Codec<IntOrString>::Decode(v, i, ctx) && WriteIntOrString(w, n, i);
    }
    case Kind::kTime: {
      Time t;
      if (!Codec<Time>::Decode(v, t, ctx)) return false;
      WriteTime(w, n, t);
      return true;
    }
    case Kind::kMicroTime: {
      MicroTime t;
      if (!Codec<MicroTime>::Decode(v, t, ctx)) return false;
      WriteMicroTime(w, n, t);
      return true;
    }
    case Kind::kDuration: {
      Duration d;
      if (!Codec<Duration>::Decode(v, d, ctx)) return false;
      size_t mark = w.BeginNested(n);
      if (d.nanos != 0) w.IntField(1, d.nanos);
      w.EndNested(mark, false);
      return true;
    }
    case Kind::kRawExtension: {
      rapidjson::StringBuffer buf;
      JsonWriter jw(buf);
      v.Accept(jw);
      size_t mark = w.BeginNested(n);
      w.BytesField(1, std::string_view(buf.GetString(), buf.GetSize()));
      w.EndNested(mark, false);
      return true;
    }
    case Kind::kMessage: {
      if (!v.IsObject() || !f.message || depth >= kMaxDepth) return false;
      size_t mark = w.BeginNested(n);
      bool ok = EncodeFields(w, *f.message, v, depth + 1);
      w.EndNested(mark, false);  // an empty message that is there is written: presence
      return ok;
    }
  }
  return false;
}

bool EncodeFields(Writer& w, const OpaqueMessage& m, const JsonValue& obj, int depth) {
  for (const FieldSpec& f : m.fields) {
    if (f.presence == Presence::kInline) {
      if (!f.message || depth >= kMaxDepth) return false;
      size_t mark = w.BeginNested(f.number);
      bool ok = EncodeFields(w, *f.message, obj, depth + 1);
      w.EndNested(mark, /*drop_if_empty=*/true);
      if (!ok) return false;
      continue;
    }
    auto it = obj.FindMember(rapidjson::StringRef(f.json.data(), f.json.size()));
    if (it == obj.MemberEnd() || it->value.IsNull()) continue;
    const JsonValue& v = it->value;
    switch (f.shape) {
      case Shape::kSingle:
        if (!EncodeValue(w, f.number, f, v, depth)) return false;
        break;
      case Shape::kRepeated:
        if (!v.IsArray()) return false;
        for (const JsonValue& e : v.GetArray()) {
          if (!EncodeValue(w, f.number, f, e, depth)) return false;
        }
        break;
      case Shape::kMap: {
        if (!v.IsObject()) return false;
        std::vector<const JsonValue::Member*> entries;
        for (auto e = v.MemberBegin(); e != v.MemberEnd(); ++e) entries.push_back(&*e);
        std::sort(entries.begin(), entries.end(), [](auto* a, auto* b) {  // as Go writes maps
          return std::string_view(a->name.GetString(), a->name.GetStringLength()) <
                 std::string_view(b->name.GetString(), b->name.GetStringLength());
        });
        for (const auto* e : entries) {
          size_t mark = w.BeginNested(f.number);
          w.BytesField(1, std::string_view(e->name.GetString(), e->name.GetStringLength()));
          if (!EncodeValue(w, 2, f, e->value, depth)) return false;
          w.EndNested(mark, false);
        }
        break;
      }
    }
  }
  return true;
}

// --- protobuf to JSON ---------------------------------------------------------------------

bool DecodeMembers(std::string_view bytes, const OpaqueMessage& m, JsonWriter& out,
                   DecodeState& s, int depth);

// Whether a record holds its kind's zero value (omitempty leaves those out).
bool IsZero(const FieldSpec& f, const Record& r) {
  switch (f.kind) {
    case Kind::kString:
    case Kind::kBytes:
      return r.type == kLengthDelimited && r.bytes.empty();
    case Kind::kBool:
    case Kind::kInt32:
    case Kind::kInt64:
    case Kind::kDouble:
      return r.value == 0;
    default:
      return false;  // structs: encoding/json never leaves them out
  }
}

bool WireTypeFits(const FieldSpec& f, const Record& r) {
  switch (f.kind) {
    case Kind::kBool:
    case Kind::kInt32:
    case Kind::kInt64:
      return r.type == kVarint;
    case Kind::kDouble:
      return r.type == kFixed64;
    default:
      return r.type == kLengthDelimited;
  }
}

bool DecodeValue(const FieldSpec& f, const Record& r, JsonWriter& out, DecodeState& s,
                 int depth) {
  if (!WireTypeFits(f, r)) return WrongType(r, s);
  switch (f.kind) {
    case Kind::kString:
      WriteString(out, r.bytes);
      return true;
    case Kind::kBytes:
      Codec<Bytes>::Encode(out, Bytes{std::string(r.bytes)});
      return true;
    case Kind::kBool:
      out.Bool(r.value != 0);
      return true;
    case Kind::kInt32:
      out.Int(static_cast<int32_t>(r.value));
      return true;
    case Kind::kInt64:
      out.Int64(static_cast<int64_t>(r.value));
      return true;
    case Kind::kDouble: {
      double d;
      std::memcpy(&d, &r.value, sizeof d);
      Codec<double>::Encode(out, d);
      return true;
    }
    case Kind::kQuantity: {
      Quantity q;
      if (!ReadQuantity(r, q, s)) return false;
      Codec<Quantity>::Encode(out, q);
      return true;
    }
    case Kind::kIntOrString: {
      IntOrString i;
      if (!ReadIntOrString(r, i, s)) return false;
      Codec<IntOrString>::Encode(out, i);
      return true;
    }
    case Kind::kTime:
    case Kind::kMicroTime: {
      if (r.bytes.empty()) {  // Go's zero time: JSON null
        out.Null();
        return true;
      }
      if (f.kind == Kind::kTime) {
        Time t;
        if (!ReadTime(r, t, s)) return false;
        Codec<Time>::Encode(out, t);
      } else {
        MicroTime t;
        if (!ReadMicroTime(r, t, s)) return false;
        Codec<MicroTime>::Encode(out, t);
      }
      return true;
    }
    case Kind::kDuration: {
      Duration d;
      if (!ReadDuration(r, d, s)) return false;
      Codec<Duration>::Encode(out, d);
      return true;
    }
    case Kind::kRawExtension: {
      RawJson raw;
      if (!ReadRawExtension(r, raw, s)) return false;
      if (raw.empty()) {
        out.Null();
      } else {
        out.RawValue(raw.json.data(), raw.json.size(), rapidjson::kObjectType);
      }
      return true;
    }
    case Kind::kMessage:
      if (!f.message || depth >= kMaxDepth) return Malformed(s);
      out.StartObject();
      if (!DecodeMembers(r.bytes, *f.message, out, s, depth + 1)) return false;
      out.EndObject();
      return true;
  }
  return false;
}

// The zero value encoding/json writes for an "always" field the message does not hold.
bool WriteZero(const FieldSpec& f, JsonWriter& out, DecodeState& s, int depth) {
  if (f.shape != Shape::kSingle) {
    out.Null();  // a nil slice or map
    return true;
  }
  switch (f.kind) {
    case Kind::kString: out.String(""); return true;
    case Kind::kBool: out.Bool(false); return true;
    case Kind::kInt32:
    case Kind::kInt64:
    case Kind::kIntOrString: out.Int(0); return true;
    case Kind::kDouble: Codec<double>::Encode(out, 0); return true;
    case Kind::kQuantity: out.String("0"); return true;
    case Kind::kDuration: Codec<Duration>::Encode(out, Duration{}); return true;
    case Kind::kBytes:
    case Kind::kTime:
    case Kind::kMicroTime:
    case Kind::kRawExtension: out.Null(); return true;
    case Kind::kMessage:
      if (!f.message || depth >= kMaxDepth) return Malformed(s);
      out.StartObject();
      if (!DecodeMembers({}, *f.message, out, s, depth + 1)) return false;
      out.EndObject();
      return true;
  }
  return false;
}

// A map field's entries ({1: key, 2: value} each), as a JSON object sorted by key; of a key
// given twice the last wins.
bool DecodeMap(const FieldSpec& f, const std::vector<Record>& got, JsonWriter& out,
               DecodeState& s, int depth) {
  std::map<std::string_view, Record> entries;
  for (const Record& e : got) {
    if (e.type != kLengthDelimited) return WrongType(e, s);
    Reader entry(e.bytes);
    Record kv, value{2, kLengthDelimited, 0, {}};
    std::string_view k;
    while (entry.Next(kv)) {
      if (kv.number == 1 && kv.type == kLengthDelimited) k = kv.bytes;
      if (kv.number == 2) value = kv;
    }
    if (!entry.ok()) return Malformed(s);
    entries[k] = value;
  }
  out.StartObject();
  for (const auto& [k, value] : entries) {
    out.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
    s.ctx.PushKey(k);
    bool ok = DecodeValue(f, value, out, s, depth);
    s.ctx.Pop();
    if (!ok) return false;
  }
  out.EndObject();
  return true;
}

bool DecodeMembers(std::string_view bytes, const OpaqueMessage& m, JsonWriter& out,
                   DecodeState& s, int depth) {
  // The records of each field: a scalar's last one wins, a message's merge (their bytes
  // concatenated are the merged message), a list's and a map's are its elements and entries.
  std::vector<std::vector<Record>> records(m.fields.size());
  Reader reader(bytes);
  Record r;
  while (reader.Next(r)) {
    if (static_cast<size_t>(r.number) >= m.by_number.size()) continue;
    int i = m.by_number[r.number];
    if (i < 0) continue;  // a field this catalog does not know: skipped, as protobuf does
    const FieldSpec& f = m.fields[static_cast<size_t>(i)];
    // Packed repeated varints (proto3 writers): one record holding every element.
    if (f.shape == Shape::kRepeated && r.type == kLengthDelimited &&
        (f.kind == Kind::kInt32 || f.kind == Kind::kInt64 || f.kind == Kind::kBool)) {
      std::string_view packed = r.bytes;
      while (!packed.empty()) {
        Record e{r.number, kVarint, 0, {}};
        if (!Reader::ReadVarint(packed, e.value)) return Malformed(s);
        records[static_cast<size_t>(i)].push_back(e);
      }
      continue;
    }
    records[static_cast<size_t>(i)].push_back(r);
  }
  if (!reader.ok()) return Malformed(s);

  for (size_t i = 0; i < m.fields.size(); ++i) {
    const FieldSpec& f = m.fields[i];
    std::vector<Record>& got = records[i];
    if (f.presence == Presence::kInline) {
      std::string merged;
      for (const Record& e : got) {
        if (e.type != kLengthDelimited) return WrongType(e, s);
        merged.append(e.bytes);
      }
      if (!f.message || depth >= kMaxDepth) return Malformed(s);
      if (!DecodeMembers(merged, *f.message, out, s, depth + 1)) return false;
      continue;
    }
    s.ctx.PushField(f.json);
    bool ok = true;
    auto key = [&] { out.Key(f.json.data(), static_cast<rapidjson::SizeType>(f.json.size())); };
    if (got.empty()) {
      if (f.presence == Presence::kAlways) {
        key();
        ok = WriteZero(f, out, s, depth);
      }
    } else if (f.shape == Shape::kRepeated) {
      key();
      out.StartArray();
      for (size_t e = 0; ok && e < got.size(); ++e) {
        s.ctx.PushIndex(static_cast<int64_t>(e));
        ok = DecodeValue(f, got[e], out, s, depth);
        s.ctx.Pop();
      }
      out.EndArray();
    } else if (f.shape == Shape::kMap) {
      key();
      ok = DecodeMap(f, got, out, s, depth);
    } else if (f.presence == Presence::kOmitZero && got.back().type == kLengthDelimited &&
               IsZeroMessage(got.back().bytes)) {
      // its zero value: left out (a zero time arrives as an empty message)
    } else if (f.kind == Kind::kMessage) {
      std::string merged;
      for (const Record& e : got) {
        if (e.type != kLengthDelimited) {
          ok = WrongType(e, s);
          break;
        }
        merged.append(e.bytes);
      }
      if (ok) {
        key();
        Record whole{f.number, kLengthDelimited, 0, merged};
        ok = DecodeValue(f, whole, out, s, depth);
      }
    } else {
      const Record& last = got.back();
      if (!WireTypeFits(f, last)) {
        ok = WrongType(last, s);
      } else if ((f.presence != Presence::kOmitEmpty && f.presence != Presence::kOmitZero) ||
                 !IsZero(f, last)) {
        key();
        ok = DecodeValue(f, last, out, s, depth);
      }
    }
    s.ctx.Pop();
    if (!ok) return false;
  }
  return true;
}

// --- checking JSON as Go's decoder reads it ------------------------------------------------

// The field of `m` (or of a struct it embeds) that JSON names `name`, or nullptr.
const FieldSpec* FindByJsonName(const OpaqueMessage& m, std::string_view name, int depth = 0) {
  for (const FieldSpec& f : m.fields) {
    if (f.presence == Presence::kInline) {
      if (f.message && depth < kMaxDepth) {
        if (const FieldSpec* inner = FindByJsonName(*f.message, name, depth + 1)) return inner;
      }
    } else if (f.json == name) {
      return &f;
    }
  }
  return nullptr;
}

const char* GoTypeName(Kind k) {
  switch (k) {
    case Kind::kString: return "string";
    case Kind::kBytes: return "[]uint8";
    case Kind::kBool: return "bool";
    case Kind::kInt32: return "int32";
    case Kind::kInt64: return "int64";
    case Kind::kDouble: return "float64";
    default: return "object";
  }
}

bool CheckObject(const OpaqueMessage& m, JsonValue& obj, DecodeContext& ctx, bool& changed,
                 int depth);

bool CheckValue(const FieldSpec& f, JsonValue& v, DecodeContext& ctx, bool& changed, int depth) {
  if (v.IsNull()) return true;  // Go leaves the zero value
  switch (f.kind) {
    case Kind::kString:
      return v.IsString() || ctx.TypeError(GoTypeName(f.kind), v);
    case Kind::kBytes: {
      Bytes b;
      return Codec<Bytes>::Decode(v, b, ctx);
    }
    case Kind::kBool:
      return v.IsBool() || ctx.TypeError(GoTypeName(f.kind), v);
    case Kind::kInt32:
      return v.IsInt() || ctx.TypeError(GoTypeName(f.kind), v);
    case Kind::kInt64:
      return v.IsInt64() || ctx.TypeError(GoTypeName(f.kind), v);
    case Kind::kDouble:
      return v.IsNumber() || ctx.TypeError(GoTypeName(f.kind), v);
    case Kind::kQuantity: {
      Quantity q;
      return Codec<Quantity>::Decode(v, q, ctx);
    }
    case Kind::kIntOrString: {
      IntOrString i;
      if (!Codec<IntOrString>::Decode(v, i, ctx)) return false;
      // Go's intstr holds an int32.
      if (!i.is_string && (i.int_value < INT32_MIN || i.int_value > INT32_MAX)) {
        return ctx.TypeError("int32", v);
      }
      return true;
    }
    case Kind::kTime: {
      Time t;
      return Codec<Time>::Decode(v, t, ctx);
    }
    case Kind::kMicroTime: {
      MicroTime t;
      return Codec<MicroTime>::Decode(v, t, ctx);
    }
    case Kind::kDuration: {
      Duration d;
      return Codec<Duration>::Decode(v, d, ctx);
    }
    case Kind::kRawExtension:
      return true;
    case Kind::kMessage:
      if (!v.IsObject()) return ctx.TypeError("object", v);
      if (!f.message || depth >= kMaxDepth) return ctx.ValueError("nested too deeply");
      return CheckObject(*f.message, v, ctx, changed, depth + 1);
  }
  return true;
}

bool CheckObject(const OpaqueMessage& m, JsonValue& obj, DecodeContext& ctx, bool& changed,
                 int depth) {
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd();) {
    std::string_view name(it->name.GetString(), it->name.GetStringLength());
    const FieldSpec* f = FindByJsonName(m, name);
    if (!f) {
      ctx.Unknown(name);
      it = obj.EraseMember(it);
      changed = true;
      continue;
    }
    ctx.PushField(f->json);
    JsonValue& v = it->value;
    bool ok = true;
    if (f->shape == Shape::kSingle || v.IsNull()) {
      ok = CheckValue(*f, v, ctx, changed, depth);
    } else if (f->shape == Shape::kRepeated) {
      if (!v.IsArray()) {
        ok = ctx.TypeError("array", v);
      } else {
        for (rapidjson::SizeType i = 0; ok && i < v.Size(); ++i) {
          ctx.PushIndex(i);
          ok = CheckValue(*f, v[i], ctx, changed, depth);
          ctx.Pop();
        }
      }
    } else {
      if (!v.IsObject()) {
        ok = ctx.TypeError("object", v);
      } else {
        for (auto e = v.MemberBegin(); ok && e != v.MemberEnd(); ++e) {
          ctx.PushKey(std::string_view(e->name.GetString(), e->name.GetStringLength()));
          ok = CheckValue(*f, e->value, ctx, changed, depth);
          ctx.Pop();
        }
      }
    }
    ctx.Pop();
    if (!ok) return false;
    ++it;
  }
  return true;
}

}  // namespace

bool NormalizeOpaque(const OpaqueMessage& m, std::string& json, DecodeContext& ctx) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) return ctx.ValueError("malformed JSON");
  if (!doc.IsObject()) return ctx.TypeError("object", doc);
  bool changed = false;
  if (!CheckObject(m, doc, ctx, changed, 0)) return false;
  if (changed) {
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    doc.Accept(w);
    json.assign(buf.GetString(), buf.GetSize());
  }
  return true;
}

const OpaqueMessage* FindOpaqueMessage(std::string_view name) {
  const OpaqueCatalog& c = TheOpaqueCatalog();
  auto it = c.messages.find(name);
  return it == c.messages.end() ? nullptr : &it->second;
}

bool WriteOpaque(Writer& w, int number, const OpaqueMessage& m, std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) return false;
  size_t mark = w.BeginNested(number);
  bool ok = EncodeFields(w, m, doc, 0);
  w.EndNested(mark, false);
  return ok;
}

bool EncodeOpaqueMessage(const OpaqueMessage& m, const JsonValue& object, std::string& out) {
  if (!object.IsObject()) return false;
  Writer w(out);
  return EncodeFields(w, m, object, 0);
}

bool ReadOpaque(std::string_view bytes, const OpaqueMessage& m, std::string& json,
                DecodeState& s) {
  rapidjson::StringBuffer buf;
  JsonWriter out(buf);
  out.StartObject();
  if (!DecodeMembers(bytes, m, out, s, 0)) return false;
  out.EndObject();
  json.assign(buf.GetString(), buf.GetSize());
  return true;
}

std::vector<std::string> OpaqueCatalogProblems() { return TheOpaqueCatalog().problems; }

}  // namespace allot::api::protobuf
