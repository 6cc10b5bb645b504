#include "apiserver/rest/field_manager.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>

#include "api/codec/codec.h"
#include "api/machinery/validation.h"
#include "apiserver/encoding/served_version.h"

namespace allot::apiserver {
namespace {

namespace mf = api::managed_fields;

constexpr size_t kFieldManagerMaxLength = 128;

// The object's JSON as the request's version shows it.
std::string ViewJson(const Call& call, const api::Object& obj) {
  std::string json = api::EncodeJson(obj);
  return call.route.served ? FromStorageJson(json, *call.route.served) : json;
}

Status Parse(std::string_view json, rapidjson::Document& doc) {
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return InternalError("managed fields: the object is not a JSON object");
  }
  return Status::Ok();
}

std::string Stringify(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace

Result<std::string> ParseFieldManager(const Request& req, std::string_view options_kind) {
  std::string manager(req.Query("fieldManager").value_or(""));
  api::FieldErrors errs;
  api::Path path("fieldManager");
  if (manager.size() > kFieldManagerMaxLength) {
    errs.TooLong(path, static_cast<int64_t>(kFieldManagerMaxLength));
  }
  for (size_t i = 0; i < manager.size(); ++i) {
    unsigned char ch = static_cast<unsigned char>(manager[i]);
    if (ch < 0x20 || ch == 0x7f) {
      char detail[64];
      std::snprintf(detail, sizeof detail, "invalid character U+%04X (at position %zu)", ch, i);
      errs.Invalid(path, manager, detail);
    }
  }
  ALLOT_RETURN_IF_ERROR(errs.ToStatus(options_kind, "meta.k8s.io", ""));
  return manager;
}

mf::Writer WriterOf(const Call& call, const std::string& field_manager) {
  mf::Writer w;
  w.manager = field_manager.empty() ? mf::ManagerFromUserAgent(call.req.Header("User-Agent"))
                                    : field_manager;
  w.api_version = call.view().GroupVersion();
  w.subresource = call.route.subresource;
  if (call.route.subresource == "status") {
    w.endpoint = mf::EndpointFields::kStatusOnly;
  } else if (call.resource().status_subresource) {
    w.endpoint = mf::EndpointFields::kAllButStatus;
  }
  w.now = call.ctx.clock.Now();
  return w;
}

void TrackUpdate(const Call& call, const mf::Writer& writer, const api::Object* live,
                 api::Object& next) {
  const api::TypeInfo& type = next.type();
  // What the write stores is defaulted; the fields defaults fill belong to the writer, as
  // they do in Kubernetes, where requests are defaulted when decoded.
  std::unique_ptr<api::Object> defaulted = next.Clone();
  call.resource().Default(*defaulted);
  rapidjson::Document zero, before, after;
  if (!Parse(ViewJson(call, *type.make()), zero).ok() ||
      !Parse(ViewJson(call, *defaulted), after).ok() ||
      (live && !Parse(ViewJson(call, *live), before).ok())) {
    return;  // not reached: the server's own encodings are objects
  }
  // A client may set managedFields itself; one that sends none keeps the stored ones. A write
  // to a subresource always starts from the stored ones.
  const auto& sent = next.metadata.rare->managedFields;
  const bool use_sent = !sent.empty() && writer.subresource.empty();
  static const std::vector<api::ManagedFieldsEntry> kNone;
  const auto& entries = use_sent ? sent : (live ? live->metadata.rare->managedFields : kNone);
  std::vector<api::ManagedFieldsEntry> updated =
      mf::Update(zero, live ? &before : nullptr, after, entries, type.schema(), writer);
  next.metadata.rare.set(&api::ObjectMetaRare::managedFields, std::move(updated));
  next.metadata.rare.compact();
}

Result<Applied> TrackApply(const Call& call, const mf::Writer& writer, const api::Object* live,
                           std::string_view live_json, std::string_view merged_json,
                           std::string_view config_json, bool force) {
  const api::TypeInfo& type = *call.resource().type;
  rapidjson::Document zero, before, merged, config;
  ALLOT_RETURN_IF_ERROR(Parse(ViewJson(call, *type.make()), zero));
  if (live) ALLOT_RETURN_IF_ERROR(Parse(live_json, before));
  ALLOT_RETURN_IF_ERROR(Parse(merged_json, merged));
  ALLOT_RETURN_IF_ERROR(Parse(config_json, config));
  static const std::vector<api::ManagedFieldsEntry> kNone;
  const auto& entries = live ? live->metadata.rare->managedFields : kNone;
  Applied out;
  ALLOT_ASSIGN_OR_RETURN(out.managed_fields,
                         mf::Apply(zero, live ? &before : nullptr, merged, config, entries, force,
                                   type.schema(), writer));
  out.json = Stringify(merged);
  return out;
}

}  // namespace allot::apiserver
