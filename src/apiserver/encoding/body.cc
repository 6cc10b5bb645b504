#include "apiserver/encoding/body.h"

#include "api/codec/codec.h"
#include "api/codec/go_json_error.h"
#include "api/codec/yaml.h"
#include "api/protobuf.h"
#include "apiserver/encoding/protobuf.h"
#include "apiserver/encoding/served_version.h"
#include "apiserver/encoding/status_json.h"

namespace allot::apiserver {

namespace {

bool IsYamlType(std::string_view t) {
  return t == "application/yaml" || t == "application/x-yaml" || t == "text/yaml";
}

bool LooksLikeJson(std::string_view text) {
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    return c == '{' || c == '[';
  }
  return false;
}

Result<std::string> YamlDocument(std::string_view text) {
  auto docs = api::YamlToJson(text);
  if (!docs.ok()) {
    Status s = docs.status();
    return BadRequestError("error converting YAML to JSON: " + s.message());
  }
  if (docs->empty()) return BadRequestError("the request body is empty");
  if (docs->size() > 1) {
    return BadRequestError("the request body must hold exactly one YAML document, got " +
                           std::to_string(docs->size()));
  }
  return std::move((*docs)[0]);
}

// How kube-apiserver quotes a body it cannot read: its first 30 bytes (hex unless it starts
// as an object), " ..." when there is more.
std::string SummarizeBody(std::string_view body) {
  constexpr size_t kMax = 30;
  if (body.empty()) return "<empty>";
  std::string_view head = body.substr(0, kMax);
  std::string out;
  if (body.front() == '{') {
    out = std::string(head);
  } else {
    static constexpr char kHex[] = "0123456789abcdef";
    for (unsigned char c : head) {
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (body.size() > kMax) out += " ...";
  return out;
}

}  // namespace

Result<std::string> BodyAsJson(const Request& req) {
  MediaType ct = ParseMediaType(req.Header("Content-Type"));
  if (IsYamlType(ct.type)) return YamlDocument(req.body);
  if (ct.type == api::kProtobufContentType) return ProtobufToJson(req.body);
  if (!ct.type.empty() && ct.type != "application/json" && ct.type != "*/*") {
    return UnsupportedMediaTypeError(ct.type, "application/json, application/yaml");
  }
  if (req.body.find_first_not_of(" \t\r\n") == std::string::npos) {
    return BadRequestError("the request body is empty");
  }
  ALLOT_RETURN_IF_ERROR(api::CheckJsonDepth(req.body));
  return req.body;
}

Result<std::string> JsonOrYamlToJson(std::string_view text) {
  if (LooksLikeJson(text)) {
    ALLOT_RETURN_IF_ERROR(api::CheckJsonDepth(text));
    return std::string(text);
  }
  return YamlDocument(text);
}

Result<DecodedBody> DecodeObject(std::string_view json, const api::TypeInfo& type,
                                 FieldValidation validation) {
  ALLOT_RETURN_IF_ERROR(api::CheckJsonDepth(json));
  api::DecodeOptions opts;
  opts.strict = validation == FieldValidation::kStrict;
  opts.expected = &type;
  auto decoded = api::DecodeJson(json, opts);
  if (!decoded.ok()) {
    // Not JSON at all: kube-apiserver fails reading apiVersion and kind, and says so.
    if (std::string go = api::GoJsonSyntaxError(json); !go.empty()) {
      return BadRequestError("the object provided is unrecognized (must be of type " + type.kind +
                             "): couldn't get version/kind; json parse error: " + go + " (" +
                             SummarizeBody(json) + ")");
    }
    return decoded.TakeStatus();
  }
  DecodedBody out;
  out.object = std::move(decoded->object);
  // The parts kept as JSON text (probes, volume sources) are read as Go reads their messages.
  api::DecodeContext ctx(opts.strict);
  if (!api::NormalizeJsonMessages(*out.object, ctx)) {
    return BadRequestError(type.kind + " in version \"" + type.version +
                           "\" cannot be handled as a " + type.kind + ": " + ctx.error());
  }
  for (const std::string& f : ctx.unknown_fields()) {
    decoded->warnings.push_back("unknown field \"" + f + "\"");
  }
  if (opts.strict && !ctx.unknown_fields().empty()) {
    std::string msg = "strict decoding error: ";
    for (size_t i = 0; i < ctx.unknown_fields().size(); ++i) {
      msg += (i ? ", unknown field \"" : "unknown field \"") + ctx.unknown_fields()[i] + "\"";
    }
    return BadRequestError(msg);
  }
  if (validation == FieldValidation::kWarn) out.warnings = std::move(decoded->warnings);
  return out;
}

Result<DecodedBody> DecodeRequestObject(const Request& req, const api::TypeInfo& type,
                                        FieldValidation validation,
                                        const api::ServedVersion* served) {
  const bool protobuf =
      ParseMediaType(req.Header("Content-Type")).type == api::kProtobufContentType;
  if (served && protobuf && served->same_shape) {
    // The stored kind's message under the served version's envelope.
    ALLOT_ASSIGN_OR_RETURN(api::ProtobufEnvelope env, api::ParseProtobufEnvelope(req.body));
    if (env.api_version != served->view_type.api_version || env.kind != type.kind) {
      return BadRequestError("protobuf: the body holds " + std::string(env.api_version) + " " +
                             std::string(env.kind) + ", not " + served->view_type.api_version +
                             " " + type.kind);
    }
    DecodedBody out;
    ALLOT_ASSIGN_OR_RETURN(out.object, api::DecodeProtobufMessage(type, env.raw));
    return out;
  }
  if (served && protobuf && !served->protobuf_message.empty()) {
    // A version of another shape: its own message, read into its JSON, then converted.
    ALLOT_ASSIGN_OR_RETURN(std::string json, ServedProtobufToJson(req.body, *served));
    ALLOT_ASSIGN_OR_RETURN(std::string stored, ToStorageJson(json, *served));
    return DecodeObject(stored, type, validation);
  }
  if (served) {
    // JSON, YAML, or protobuf of the served kinds requests carry (request_kinds.h): 415 else.
    ALLOT_ASSIGN_OR_RETURN(std::string json, BodyAsJson(req));
    ALLOT_ASSIGN_OR_RETURN(std::string stored, ToStorageJson(json, *served));
    return DecodeObject(stored, type, validation);
  }
  if (protobuf && api::HasProtobuf(type)) {
    DecodedBody out;
    ALLOT_ASSIGN_OR_RETURN(out.object, api::DecodeProtobufObject(type, req.body));
    return out;
  }
  ALLOT_ASSIGN_OR_RETURN(std::string json, BodyAsJson(req));
  return DecodeObject(json, type, validation);
}

void AddWarnings(Response& res, const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) {
    std::string text = "299 - \"";
    for (char c : w) {
      if (static_cast<unsigned char>(c) < 0x20) c = ' ';  // no header injection
      if (c == '"' || c == '\\') text += '\\';
      text += c;
    }
    text += '"';
    res.headers.emplace_back("Warning", std::move(text));
  }
}

}  // namespace allot::apiserver
