#include "apiserver/encoding/status_json.h"

#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "api/codec/codec.h"

namespace allot::apiserver {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void Member(Writer& w, const char* key, std::string_view value) {
  if (value.empty()) return;
  w.Key(key);
  api::WriteString(w, value);
}

bool HasDetails(const StatusDetails& d) {
  return !d.name.empty() || !d.group.empty() || !d.kind.empty() || !d.uid.empty() ||
         !d.causes.empty() || d.retry_after_seconds > 0;
}

void WriteDetails(Writer& w, const StatusDetails& d) {
  w.Key("details");
  w.StartObject();
  Member(w, "name", d.name);
  Member(w, "group", d.group);
  Member(w, "kind", d.kind);
  Member(w, "uid", d.uid);
  if (!d.causes.empty()) {
    w.Key("causes");
    w.StartArray();
    for (const StatusCause& c : d.causes) {
      w.StartObject();
      Member(w, "reason", c.reason);
      Member(w, "message", c.message);
      Member(w, "field", c.field);
      w.EndObject();
    }
    w.EndArray();
  }
  if (d.retry_after_seconds > 0) {
    w.Key("retryAfterSeconds");
    w.Int(d.retry_after_seconds);
  }
  w.EndObject();
}

void WriteHeader(Writer& w, const char* status, std::string_view list_continue = {}) {
  w.Key("kind");
  w.String("Status");
  w.Key("apiVersion");
  w.String("v1");
  w.Key("metadata");
  w.StartObject();
  if (!list_continue.empty()) Member(w, "continue", list_continue);
  w.EndObject();
  w.Key("status");
  w.String(status);
}

}  // namespace

std::string StatusJson(const Status& status, std::string_view list_continue) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  WriteHeader(w, "Failure", list_continue);
  Member(w, "message", status.message());
  Member(w, "reason", ReasonString(status.code()));
  // Kubernetes always writes details for errors, even when empty.
  if (HasDetails(status.details())) {
    WriteDetails(w, status.details());
  } else {
    w.Key("details");
    w.StartObject();
    w.EndObject();
  }
  w.Key("code");
  w.Int(HttpCode(status.code()));
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

std::string SuccessStatusJson(const StatusDetails& details, int code) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  WriteHeader(w, "Success");
  if (HasDetails(details)) WriteDetails(w, details);
  if (code > 0) {
    w.Key("code");
    w.Int(code);
  }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

Response ErrorResponse(const Status& status, std::string_view list_continue) {
  Status s = status.ok() ? InternalError("internal error: empty error status") : status;
  Response r;
  r.status = HttpCode(s.code());
  r.body = StatusJson(s, list_continue);
  if (s.details().retry_after_seconds > 0) {
    r.headers.emplace_back("Retry-After", std::to_string(s.details().retry_after_seconds));
  }
  return r;
}

Response JsonResponse(int code, std::string body) {
  Response r;
  r.status = code;
  r.body = std::move(body);
  return r;
}

Status NotFoundPathError() {
  return Status(StatusCode::kNotFound, "the server could not find the requested resource");
}

Status MethodNotAllowedError() {
  return Status(StatusCode::kMethodNotAllowed,
                "the server does not allow this method on the requested resource");
}

Status RequestTooLargeError(size_t limit_bytes) {
  return Status(StatusCode::kRequestEntityTooLarge, "the request body is too large: limit is " +
                                                        std::to_string(limit_bytes) + " bytes");
}

Status UnsupportedMediaTypeError(std::string_view content_type, std::string_view accepted) {
  return Status(StatusCode::kUnsupportedMediaType,
                "the body of the request was in an unknown format (" + std::string(content_type) +
                    ") - accepted media types include: " + std::string(accepted));
}

Status NotAcceptableError(std::string_view accept) {
  return Status(StatusCode::kNotAcceptable,
                "the server was unable to respond with a content type that the client supports (" +
                    std::string(accept) + ")");
}

std::string PrettyJson(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) return std::string(json);
  rapidjson::StringBuffer buf;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
  w.SetIndent(' ', 2);
  doc.Accept(w);
  std::string out(buf.GetString(), buf.GetSize());
  out += '\n';
  return out;
}

}  // namespace allot::apiserver
