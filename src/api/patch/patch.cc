// ApplyPatch's dispatch and the JSON helpers the patch implementations share. The algorithms
// live in api/patch/json_patch.cc (RFC 6902, RFC 7386) and api/patch/strategic_merge.cc.
#include "api/patch/patch.h"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/codec/codec.h"
#include "api/codec/yaml.h"
#include "api/machinery/go_format.h"
#include "api/patch/patch_internal.h"

namespace allot::api {

namespace patch_internal {
namespace {

int MaxDepth(const Json& root) {
  int max_depth = 0;
  std::vector<std::pair<const Json*, int>> stack{{&root, 1}};
  while (!stack.empty()) {
    auto [v, depth] = stack.back();
    stack.pop_back();
    max_depth = std::max(max_depth, depth);
    if (depth > kMaxDepth) break;
    if (v->IsObject()) {
      for (const auto& m : v->GetObject()) stack.push_back({&m.value, depth + 1});
    } else if (v->IsArray()) {
      for (const Json& e : v->GetArray()) stack.push_back({&e, depth + 1});
    }
  }
  return max_depth;
}

// Keeps the last value of each repeated key, at the position of the first occurrence.
void CollapseDuplicateKeys(Json& v) {
  if (v.IsArray()) {
    for (Json& e : v.GetArray()) CollapseDuplicateKeys(e);
    return;
  }
  if (!v.IsObject()) return;
  std::unordered_map<std::string_view, rapidjson::SizeType> first;
  std::vector<rapidjson::SizeType> repeated;
  for (rapidjson::SizeType i = 0; i < v.MemberCount(); ++i) {
    auto& m = v.MemberBegin()[i];
    auto [it, inserted] = first.emplace(Str(m.name), i);
    if (!inserted) {
      v.MemberBegin()[it->second].value = m.value;  // moves
      repeated.push_back(i);
    }
  }
  for (auto r = repeated.rbegin(); r != repeated.rend(); ++r) v.EraseMember(v.MemberBegin() + *r);
  for (auto& m : v.GetObject()) CollapseDuplicateKeys(m.value);
}

}  // namespace

Status ParseJson(std::string_view text, JsonDoc& doc) {
  // Not kParseFullPrecisionFlag: RapidJSON 1.1.0's full-precision path misreads a zero with an
  // exponent ("0e38" became -1.9e227); the object codec reads numbers the same way.
  doc.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
  if (doc.HasParseError()) {
    return JsonParseError(text, doc.GetErrorOffset(),
                          rapidjson::GetParseError_En(doc.GetParseError()));
  }
  if (MaxDepth(doc) > kMaxDepth) {
    return BadRequestError("invalid JSON: nested deeper than " + std::to_string(kMaxDepth) +
                           " levels");
  }
  CollapseDuplicateKeys(doc);
  return Status::Ok();
}

std::string ToCompactJson(const Json& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

std::string_view Str(const Json& v) { return {v.GetString(), v.GetStringLength()}; }

Json* Member(Json& obj, std::string_view key) {
  for (auto& m : obj.GetObject()) {
    if (Str(m.name) == key) return &m.value;
  }
  return nullptr;
}

const Json* Member(const Json& obj, std::string_view key) {
  for (const auto& m : obj.GetObject()) {
    if (Str(m.name) == key) return &m.value;
  }
  return nullptr;
}

void SetMember(Json& obj, std::string_view key, Json& value, Alloc& a) {
  if (Json* existing = Member(obj, key)) {
    *existing = value;
    return;
  }
  Json name(key.data(), static_cast<rapidjson::SizeType>(key.size()), a);
  obj.AddMember(name, value, a);
}

bool RemoveMember(Json& obj, std::string_view key) {
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
    if (Str(it->name) == key) {
      obj.EraseMember(it);
      return true;
    }
  }
  return false;
}

std::string GoTypeName(const Json& v) {
  if (v.IsObject()) return "map[string]interface {}";
  if (v.IsArray()) return "[]interface {}";
  if (v.IsString()) return "string";
  if (v.IsInt64()) return "int64";
  if (v.IsNumber()) return "float64";
  if (v.IsBool()) return "bool";
  return "%!s(<nil>)";
}

std::string GoFormat(const Json& v) {
  if (v.IsNull()) return "<nil>";
  if (v.IsBool()) return v.GetBool() ? "true" : "false";
  if (v.IsInt64()) return std::to_string(v.GetInt64());
  if (v.IsNumber()) return gofmt::FormatFloat(v.GetDouble(), 'g', 64);
  if (v.IsString()) return std::string(Str(v));
  std::string out;
  if (v.IsArray()) {
    out = "[";
    for (const Json& e : v.GetArray()) {
      if (out.size() > 1) out += ' ';
      out += GoFormat(e);
    }
    return out + "]";
  }
  std::vector<std::pair<std::string_view, const Json*>> members;
  for (const auto& m : v.GetObject()) members.push_back({Str(m.name), &m.value});
  std::sort(members.begin(), members.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  out = "map[";
  for (size_t i = 0; i < members.size(); ++i) {
    if (i) out += ' ';
    out.append(members[i].first);
    out += ':';
    out += GoFormat(*members[i].second);
  }
  return out + "]";
}

bool GoScalarEqual(const Json& a, const Json& b) {
  if (a.IsNull() || b.IsNull()) return a.IsNull() && b.IsNull();
  if (a.IsBool() || b.IsBool()) return a.IsBool() && b.IsBool() && a.GetBool() == b.GetBool();
  if (a.IsString() || b.IsString()) return a.IsString() && b.IsString() && Str(a) == Str(b);
  if (a.IsNumber() && b.IsNumber()) {
    if (a.IsInt64() != b.IsInt64()) return false;
    return a.IsInt64() ? a.GetInt64() == b.GetInt64() : a.GetDouble() == b.GetDouble();
  }
  return false;
}

bool JsonEqual(const Json& a, const Json& b) {
  if (a.IsNumber() && b.IsNumber()) {
    if (a.IsInt64() && b.IsInt64()) return a.GetInt64() == b.GetInt64();
    if (a.IsUint64() && b.IsUint64()) return a.GetUint64() == b.GetUint64();
    return a.GetDouble() == b.GetDouble();
  }
  if (a.GetType() != b.GetType()) {
    // RapidJSON splits booleans into kTrueType/kFalseType.
    return false;
  }
  if (a.IsString()) return Str(a) == Str(b);
  if (a.IsArray()) {
    if (a.Size() != b.Size()) return false;
    for (rapidjson::SizeType i = 0; i < a.Size(); ++i) {
      if (!JsonEqual(a[i], b[i])) return false;
    }
    return true;
  }
  if (a.IsObject()) {
    if (a.MemberCount() != b.MemberCount()) return false;
    for (const auto& m : a.GetObject()) {
      const Json* other = Member(b, Str(m.name));
      if (!other || !JsonEqual(m.value, *other)) return false;
    }
    return true;
  }
  return true;  // null, true, false
}

}  // namespace patch_internal

namespace {

using patch_internal::Alloc;
using patch_internal::Json;
using patch_internal::JsonDoc;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// The JSON kind Go's decoder names in "cannot unmarshal X into ...".
std::string GoJsonKind(const Json& v) {
  if (v.IsObject()) return "object";
  if (v.IsArray()) return "array";
  if (v.IsString()) return "string";
  if (v.IsNumber()) return "number";
  if (v.IsBool()) return "bool";
  return "null";
}

Status ParseOriginal(std::string_view original_json, JsonDoc& doc) {
  Status st = patch_internal::ParseJson(original_json, doc);
  if (!st.ok()) return InternalError("the current object is not valid JSON: " + st.message());
  return Status::Ok();
}

// 422s from the patch engines carry a detailed message that the apiserver does not send.
Status Generic422(Status st, bool detailed) {
  if (st.code() == StatusCode::kInvalid && !detailed) {
    return Status(StatusCode::kInvalid, std::string(patch_internal::kGenericInvalidMessage));
  }
  return st;
}

Status ApplyMergePatchBody(Json& original, std::string_view body, Alloc& alloc) {
  JsonDoc patch(&alloc);
  ALLOT_RETURN_IF_ERROR(patch_internal::ParseJson(body, patch));
  if (!patch.IsObject() && !patch.IsArray()) return BadRequestError("Invalid JSON Patch");
  patch_internal::MergePatch(original, patch, alloc);
  return Status::Ok();
}

Status StrategicMergeValue(Json& original, Json& patch, const SchemaNode& schema, Alloc& alloc,
                           bool detailed) {
  if (!original.IsObject()) return BadRequestError("invalid JSON document");
  return Generic422(patch_internal::StrategicMerge(original, patch, &schema, alloc), detailed);
}

Status ApplyStrategicBody(Json& original, std::string_view body, const SchemaNode& schema,
                          Alloc& alloc, bool detailed) {
  JsonDoc patch(&alloc);
  ALLOT_RETURN_IF_ERROR(patch_internal::ParseJson(body, patch));
  if (patch.IsNull()) return Status::Ok();
  if (!patch.IsObject()) {
    return BadRequestError("json: cannot unmarshal " + GoJsonKind(patch) +
                           " into Go value of type map[string]interface {}");
  }
  return StrategicMergeValue(original, patch, schema, alloc, detailed);
}

Status ApplyApplyBody(Json& original, std::string_view body, const SchemaNode& schema, Alloc& alloc,
                      bool detailed) {
  Result<std::string> json = YamlDocumentToJson(body);
  if (!json.ok()) return BadRequestError("error decoding YAML: " + json.status().message());
  JsonDoc patch(&alloc);
  Status st = patch_internal::ParseJson(*json, patch);
  if (!st.ok()) return BadRequestError("error decoding YAML: " + st.message());
  if (patch.IsNull()) return Status::Ok();
  if (!patch.IsObject()) {
    return BadRequestError(
        "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot "
        "unmarshal " +
        GoJsonKind(patch) + " into Go value of type map[string]interface {}");
  }
  return StrategicMergeValue(original, patch, schema, alloc, detailed);
}

Result<std::string> Apply(PatchType type, std::string_view original_json,
                          std::string_view patch_body, const SchemaNode& schema, bool detailed) {
  Alloc alloc;
  JsonDoc original(&alloc);
  ALLOT_RETURN_IF_ERROR(ParseOriginal(original_json, original));
  switch (type) {
    case PatchType::kJsonPatch: {
      JsonDoc ops(&alloc);
      ALLOT_RETURN_IF_ERROR(patch_internal::ParseJson(patch_body, ops));
      ALLOT_RETURN_IF_ERROR(
          Generic422(patch_internal::ApplyJsonPatch(original, ops, alloc), detailed));
      break;
    }
    case PatchType::kMergePatch:
      ALLOT_RETURN_IF_ERROR(ApplyMergePatchBody(original, patch_body, alloc));
      break;
    case PatchType::kStrategicMergePatch:
      ALLOT_RETURN_IF_ERROR(ApplyStrategicBody(original, patch_body, schema, alloc, detailed));
      break;
    case PatchType::kApplyPatch:
      ALLOT_RETURN_IF_ERROR(ApplyApplyBody(original, patch_body, schema, alloc, detailed));
      break;
  }
  return patch_internal::ToCompactJson(original);
}

}  // namespace

std::optional<PatchType> PatchTypeFromContentType(std::string_view content_type) {
  std::string_view media = Trim(content_type.substr(0, content_type.find(';')));
  for (PatchType t : {PatchType::kJsonPatch, PatchType::kMergePatch,
                      PatchType::kStrategicMergePatch, PatchType::kApplyPatch}) {
    if (EqualsIgnoreCase(media, ContentTypeOf(t))) return t;
  }
  return std::nullopt;
}

std::string_view ContentTypeOf(PatchType type) {
  switch (type) {
    case PatchType::kJsonPatch:
      return "application/json-patch+json";
    case PatchType::kMergePatch:
      return "application/merge-patch+json";
    case PatchType::kStrategicMergePatch:
      return "application/strategic-merge-patch+json";
    case PatchType::kApplyPatch:
      return "application/apply-patch+yaml";
  }
  return "";
}

Result<std::string> ApplyPatch(PatchType type, std::string_view original_json,
                               std::string_view patch_body, const SchemaNode& schema) {
  return Apply(type, original_json, patch_body, schema, /*detailed=*/false);
}

Result<std::string> ApplyPatchDetailed(PatchType type, std::string_view original_json,
                                       std::string_view patch_body, const SchemaNode& schema) {
  return Apply(type, original_json, patch_body, schema, /*detailed=*/true);
}

Result<std::string> JsonMergePatch(std::string_view target_json, std::string_view patch_json) {
  Alloc alloc;
  JsonDoc target(&alloc);
  ALLOT_RETURN_IF_ERROR(patch_internal::ParseJson(target_json, target));
  JsonDoc patch(&alloc);
  ALLOT_RETURN_IF_ERROR(patch_internal::ParseJson(patch_json, patch));
  patch_internal::MergePatch(target, patch, alloc);
  return patch_internal::ToCompactJson(target);
}

}  // namespace allot::api
