#include "apiserver/encoding/served_version.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "api/codec/opaque_messages.h"
#include "api/codec/protobuf_reflect.h"
#include "api/protobuf.h"
#include "apiserver/encoding/status_json.h"

namespace allot::apiserver {

namespace {

std::string Write(const rapidjson::Document& doc) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  doc.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace

std::string FromStorageJson(std::string_view json, const api::ServedVersion& sv) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) return std::string(json);  // our own encoding
  sv.from_storage(doc);
  return Write(doc);
}

Result<std::string> ToStorageJson(std::string_view json, const api::ServedVersion& sv) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return BadRequestError("the body of the request is not a JSON object");
  }
  const std::string& expected = sv.view_type.api_version;
  auto it = doc.FindMember("apiVersion");
  if (it != doc.MemberEnd() && it->value.IsString() && it->value.GetStringLength() > 0 &&
      expected != it->value.GetString()) {
    return BadRequestError(std::string("the API version in the data (") + it->value.GetString() +
                           ") does not match the expected API version (" + expected + ")");
  }
  ALLOT_RETURN_IF_ERROR(sv.to_storage(doc));
  return Write(doc);
}

bool ServedProtobufMessage(std::string_view json, const api::ServedVersion& sv, std::string& out) {
  const api::protobuf::OpaqueMessage* m = api::protobuf::FindOpaqueMessage(sv.protobuf_message);
  if (!m) return false;
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) return false;
  sv.from_storage(doc);
  const size_t start = out.size();
  if (api::protobuf::EncodeOpaqueMessage(*m, doc, out)) return true;
  out.resize(start);
  return false;
}

Result<std::string> ServedProtobufToJson(std::string_view body, const api::ServedVersion& sv) {
  const api::protobuf::OpaqueMessage* m = api::protobuf::FindOpaqueMessage(sv.protobuf_message);
  if (!m) {
    return UnsupportedMediaTypeError(std::string(api::kProtobufContentType) + " for " +
                                         sv.view_type.api_version + " " + sv.view_type.kind,
                                     "application/json, application/yaml");
  }
  ALLOT_ASSIGN_OR_RETURN(api::ProtobufEnvelope env, api::ParseProtobufEnvelope(body));
  if (env.api_version != sv.view_type.api_version || env.kind != sv.view_type.kind) {
    return BadRequestError("protobuf: the body holds " + std::string(env.api_version) + " " +
                           std::string(env.kind) + ", not " + sv.view_type.api_version + " " +
                           sv.view_type.kind);
  }
  api::protobuf::DecodeState s;
  std::string fields;
  if (!api::protobuf::ReadOpaque(env.raw, *m, fields, s)) {
    return BadRequestError("protobuf decoding: " + s.ctx.error());
  }
  // The message holds no TypeMeta: the envelope's goes in front.
  rapidjson::Document read;
  read.Parse(fields.data(), fields.size());
  if (read.HasParseError() || !read.IsObject()) {
    return BadRequestError("protobuf decoding: the message is not an object");  // not reached
  }
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  doc.AddMember("apiVersion", rapidjson::Value(env.api_version.data(),
                static_cast<rapidjson::SizeType>(env.api_version.size()), a), a);
  doc.AddMember("kind", rapidjson::Value(env.kind.data(),
                static_cast<rapidjson::SizeType>(env.kind.size()), a), a);
  for (auto it = read.MemberBegin(); it != read.MemberEnd(); ++it) {
    doc.AddMember(rapidjson::Value(it->name, a), rapidjson::Value(it->value, a), a);
  }
  return Write(doc);
}

}  // namespace allot::apiserver
