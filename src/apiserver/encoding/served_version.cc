#include "apiserver/encoding/served_version.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

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

}  // namespace allot::apiserver
