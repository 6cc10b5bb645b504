#include "apiserver/discovery/openapi_v2.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <deque>
#include <map>

#include "api/codec/protobuf_wire.h"

namespace allot::apiserver {
namespace {

using Json = rapidjson::Value;
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;
namespace pb = api::protobuf;

constexpr std::string_view kV3Ref = "#/components/schemas/";
constexpr std::string_view kV2Ref = "#/definitions/";

std::string_view Str(const Json& v) { return {v.GetString(), v.GetStringLength()}; }

std::string Compact(const Json& v) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

std::string V2Ref(std::string_view ref) {
  if (ref.substr(0, kV3Ref.size()) == kV3Ref) return std::string(kV2Ref) + std::string(ref.substr(kV3Ref.size()));
  return std::string(ref);
}

bool IsExtension(std::string_view key) { return key.substr(0, 2) == "x-"; }

// gnostic's Any: the value as YAML (JSON is YAML).
void AnyField(pb::Writer& w, int number, const Json& v) {
  size_t mark = w.BeginNested(number);
  w.BytesField(2, Compact(v));
  w.EndNested(mark, false);
}

// --- protobuf (gnostic openapi_v2.Schema) -----------------------------------------------------

void WriteSchema(pb::Writer& w, const Json& s);

void SchemaField(pb::Writer& w, int number, const Json& s) {
  size_t mark = w.BeginNested(number);
  WriteSchema(w, s);
  w.EndNested(mark, false);
}

void WriteSchema(pb::Writer& w, const Json& s) {
  if (!s.IsObject()) return;
  auto str = [&](const char* key, int number) {
    auto m = s.FindMember(key);
    if (m != s.MemberEnd() && m->value.IsString()) w.BytesField(number, Str(m->value));
  };
  auto integer = [&](const char* key, int number) {
    auto m = s.FindMember(key);
    if (m != s.MemberEnd() && m->value.IsInt64()) w.IntField(number, m->value.GetInt64());
  };
  if (auto m = s.FindMember("$ref"); m != s.MemberEnd() && m->value.IsString()) {
    w.BytesField(1, V2Ref(Str(m->value)));
  }
  str("format", 2);
  str("title", 3);
  str("description", 4);
  if (auto m = s.FindMember("default"); m != s.MemberEnd()) AnyField(w, 5, m->value);
  integer("maxLength", 11);
  integer("minLength", 12);
  str("pattern", 13);
  integer("maxItems", 14);
  integer("minItems", 15);
  integer("maxProperties", 17);
  integer("minProperties", 18);
  if (auto m = s.FindMember("required"); m != s.MemberEnd() && m->value.IsArray()) {
    for (const Json& r : m->value.GetArray()) {
      if (r.IsString()) w.BytesField(19, Str(r));
    }
  }
  if (auto m = s.FindMember("enum"); m != s.MemberEnd() && m->value.IsArray()) {
    for (const Json& e : m->value.GetArray()) AnyField(w, 20, e);
  }
  if (auto m = s.FindMember("additionalProperties"); m != s.MemberEnd()) {
    size_t mark = w.BeginNested(21);
    if (m->value.IsBool()) {
      w.VarintField(2, m->value.GetBool() ? 1 : 0);
    } else {
      SchemaField(w, 1, m->value);
    }
    w.EndNested(mark, false);
  }
  if (auto m = s.FindMember("type"); m != s.MemberEnd() && m->value.IsString()) {
    size_t mark = w.BeginNested(22);
    w.BytesField(1, Str(m->value));
    w.EndNested(mark, false);
  }
  if (auto m = s.FindMember("items"); m != s.MemberEnd() && m->value.IsObject()) {
    size_t mark = w.BeginNested(23);
    SchemaField(w, 1, m->value);
    w.EndNested(mark, false);
  }
  if (auto m = s.FindMember("allOf"); m != s.MemberEnd() && m->value.IsArray()) {
    for (const Json& a : m->value.GetArray()) SchemaField(w, 24, a);
  }
  if (auto m = s.FindMember("properties"); m != s.MemberEnd() && m->value.IsObject()) {
    size_t props = w.BeginNested(25);
    for (const auto& p : m->value.GetObject()) {
      size_t named = w.BeginNested(1);
      w.BytesField(1, Str(p.name));
      SchemaField(w, 2, p.value);
      w.EndNested(named, false);
    }
    w.EndNested(props, false);
  }
  if (auto m = s.FindMember("readOnly"); m != s.MemberEnd() && m->value.IsBool()) {
    w.VarintField(27, m->value.GetBool() ? 1 : 0);
  }
  for (const auto& m : s.GetObject()) {
    if (!IsExtension(Str(m.name))) continue;
    size_t named = w.BeginNested(31);
    w.BytesField(1, Str(m.name));
    AnyField(w, 2, m.value);
    w.EndNested(named, false);
  }
}

// --- JSON ------------------------------------------------------------------------------------

// The v3 schema as v2 JSON: references rewritten, v3-only keywords (nullable, oneOf, anyOf, not)
// left out, as the protobuf form leaves them out.
void WriteSchemaJson(JsonWriter& w, const Json& s) {
  if (s.IsArray()) {
    w.StartArray();
    for (const Json& e : s.GetArray()) WriteSchemaJson(w, e);
    w.EndArray();
    return;
  }
  if (!s.IsObject()) {
    s.Accept(w);
    return;
  }
  w.StartObject();
  for (const auto& m : s.GetObject()) {
    std::string_view key = Str(m.name);
    if (key == "nullable" || key == "oneOf" || key == "anyOf" || key == "not") continue;
    w.Key(m.name.GetString(), m.name.GetStringLength());
    if (key == "$ref" && m.value.IsString()) {
      std::string ref = V2Ref(Str(m.value));
      w.String(ref.data(), static_cast<rapidjson::SizeType>(ref.size()));
    } else if (key == "properties" && m.value.IsObject()) {
      w.StartObject();
      for (const auto& p : m.value.GetObject()) {
        w.Key(p.name.GetString(), p.name.GetStringLength());
        WriteSchemaJson(w, p.value);
      }
      w.EndObject();
    } else if (key == "default" || key == "enum" || key == "example" || IsExtension(key)) {
      m.value.Accept(w);  // values, not schemas
    } else {
      WriteSchemaJson(w, m.value);
    }
  }
  w.EndObject();
}

}  // namespace

OpenApiV2 BuildOpenApiV2(const std::vector<const std::string*>& v3_documents,
                         std::string_view server_version) {
  std::deque<rapidjson::Document> docs;
  std::map<std::string, const Json*> definitions;  // sorted by name, first document wins
  for (const std::string* text : v3_documents) {
    rapidjson::Document& d = docs.emplace_back();
    d.Parse(text->data(), text->size());
    if (d.HasParseError() || !d.IsObject()) continue;
    auto components = d.FindMember("components");
    if (components == d.MemberEnd() || !components->value.IsObject()) continue;
    auto schemas = components->value.FindMember("schemas");
    if (schemas == components->value.MemberEnd() || !schemas->value.IsObject()) continue;
    for (const auto& s : schemas->value.GetObject()) {
      definitions.emplace(std::string(Str(s.name)), &s.value);
    }
  }

  OpenApiV2 out;
  pb::Writer w(out.protobuf);
  w.BytesField(1, "2.0");
  size_t info = w.BeginNested(2);
  w.BytesField(1, "Kubernetes");
  w.BytesField(2, server_version);
  w.EndNested(info, false);
  size_t paths = w.BeginNested(8);
  w.EndNested(paths, false);
  size_t defs = w.BeginNested(9);
  for (const auto& [name, schema] : definitions) {
    size_t named = w.BeginNested(1);
    w.BytesField(1, name);
    SchemaField(w, 2, *schema);
    w.EndNested(named, false);
  }
  w.EndNested(defs, false);

  rapidjson::StringBuffer buf;
  JsonWriter j(buf);
  j.StartObject();
  j.Key("swagger");
  j.String("2.0");
  j.Key("info");
  j.StartObject();
  j.Key("title");
  j.String("Kubernetes");
  j.Key("version");
  j.String(server_version.data(), static_cast<rapidjson::SizeType>(server_version.size()));
  j.EndObject();
  j.Key("paths");
  j.StartObject();
  j.EndObject();
  j.Key("definitions");
  j.StartObject();
  for (const auto& [name, schema] : definitions) {
    j.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
    WriteSchemaJson(j, *schema);
  }
  j.EndObject();
  j.EndObject();
  out.json.assign(buf.GetString(), buf.GetSize());
  return out;
}

}  // namespace allot::apiserver
