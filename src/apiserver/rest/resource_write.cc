// POST (create), PUT (update, main or status), DELETE and DELETE on a collection.
#include <rapidjson/document.h>

#include <charconv>
#include <mutex>

#include "api/codec/codec.h"
#include "apiserver/encoding/body.h"
#include "apiserver/encoding/output.h"
#include "apiserver/rest/field_manager.h"
#include "apiserver/rest/handlers.h"

namespace allot::apiserver {

namespace {

using ObjectResult = Result<api::ObjectPtr>;

// The shared front half of create and update: validation mode, dry run and the decoded body.
struct WriteRequest {
  FieldValidation validation = FieldValidation::kWarn;
  bool dry_run = false;
  std::unique_ptr<api::Object> object;
  std::vector<std::string> warnings;
};

Result<WriteRequest> DecodeWrite(const Call& call) {
  WriteRequest w;
  ALLOT_ASSIGN_OR_RETURN(w.validation, ParseFieldValidation(call.req));
  ALLOT_ASSIGN_OR_RETURN(w.dry_run, ParseDryRun(call.req));
  ALLOT_ASSIGN_OR_RETURN(DecodedBody body,
                         DecodeRequestObject(call.req, *call.resource().type, w.validation,
                                                     call.route.served));
  w.object = std::move(body.object);
  w.warnings = std::move(body.warnings);
  return w;
}

// Replies with the stored object (or the error), carrying the decode warnings.
std::function<void(ObjectResult)> ReplyObject(const CallPtr& call, int code,
                                              std::vector<std::string> warnings) {
  return [call, code, warnings = std::move(warnings)](ObjectResult r) {
    Response res = r.ok() ? ObjectResponse(code, *r, WriteOutput(call->req), call->cache())
                          : ErrorResponse(r.status());
    AddWarnings(res, warnings);
    call->Reply(std::move(res));
  };
}

bool ParseInt64(std::string_view s, int64_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

Status BadDeleteField(std::string_view key) {
  return BadRequestError("DeleteOptions: invalid value for \"" + std::string(key) + "\"");
}

Status ApplyPreconditions(const api::JsonValue& v, api::DeleteOptions& o) {
  if (!v.IsObject()) return BadDeleteField("preconditions");
  auto uid = v.FindMember("uid");
  if (uid != v.MemberEnd() && uid->value.IsString()) o.precondition_uid = uid->value.GetString();
  auto rv = v.FindMember("resourceVersion");
  if (rv != v.MemberEnd() && rv->value.IsString()) {
    o.precondition_resource_version = rv->value.GetString();
  }
  return Status::Ok();
}

Status ApplyDeleteBody(const api::JsonValue& b, api::DeleteOptions& o, bool* orphan_false) {
  if (!b.IsObject()) return BadRequestError("DeleteOptions must be a JSON object");
  for (const auto& m : b.GetObject()) {
    std::string_view key(m.name.GetString(), m.name.GetStringLength());
    const api::JsonValue& v = m.value;
    if (v.IsNull()) continue;
    if (key == "propagationPolicy") {
      if (!v.IsString()) return BadDeleteField(key);
      o.propagation_policy = v.GetString();
    } else if (key == "gracePeriodSeconds") {
      if (!v.IsInt64()) return BadDeleteField(key);
      o.grace_period_seconds = v.GetInt64();
    } else if (key == "orphanDependents") {
      if (!v.IsBool()) return BadDeleteField(key);
      if (v.GetBool() && o.propagation_policy.empty()) o.propagation_policy = "Orphan";
      if (!v.GetBool() && orphan_false) *orphan_false = true;
    } else if (key == "dryRun") {
      if (!v.IsArray()) return BadDeleteField(key);
      for (const auto& d : v.GetArray()) {
        if (!d.IsString() || std::string_view(d.GetString()) != "All") {
          return BadRequestError("dryRun: Unsupported value: supported values: \"All\"");
        }
        o.dry_run = true;
      }
    } else if (key == "preconditions") {
      ALLOT_RETURN_IF_ERROR(ApplyPreconditions(v, o));
    }
    // kind, apiVersion and unknown fields are ignored, as a non-strict decode does.
  }
  return Status::Ok();
}

}  // namespace

Result<api::DeleteOptions> ParseDeleteOptions(const Request& req, const api::JsonValue* body,
                                              bool* orphan_false) {
  api::DeleteOptions o;
  if (body) ALLOT_RETURN_IF_ERROR(ApplyDeleteBody(*body, o, orphan_false));
  if (auto p = req.Query("propagationPolicy")) o.propagation_policy = std::string(*p);
  if (auto g = req.Query("gracePeriodSeconds"); g && !g->empty()) {
    int64_t v = 0;
    if (!ParseInt64(*g, v))
      return BadRequestError("invalid gracePeriodSeconds \"" + std::string(*g) + "\"");
    o.grace_period_seconds = v;
  }
  if (auto orphan = req.Query("orphanDependents")) {
    if (*orphan == "true" && o.propagation_policy.empty()) o.propagation_policy = "Orphan";
    if (*orphan == "false" && orphan_false) *orphan_false = true;
  }
  ALLOT_ASSIGN_OR_RETURN(bool dry, ParseDryRun(req));
  o.dry_run = o.dry_run || dry;
  o.field_manager = std::string(req.Query("fieldManager").value_or(""));
  return o;
}

Status CheckBodyIdentity(const Call& call, api::Object& obj, bool check_name) {
  api::ObjectMeta& meta = obj.metadata;
  const Route& route = call.route;
  if (call.resource().namespaced) {
    if (meta.namespace_.empty()) {
      meta.namespace_ = route.namespace_;
    } else if (meta.namespace_ != route.namespace_) {
      return BadRequestError(
          "the namespace of the provided object does not match the namespace sent on the "
          "request");
    }
  }
  if (check_name) {
    if (meta.name.empty()) {
      meta.name = route.name;
    } else if (meta.name != route.name) {
      return BadRequestError("the name of the object (" + meta.name +
                             ") does not match the name on the URL (" + route.name + ")");
    }
  }
  return Status::Ok();
}

std::string DeletedStatusJson(const api::ResourceInfo& r, const api::Object& obj) {
  StatusDetails d;
  d.name = obj.metadata.name;
  d.group = r.group;
  d.kind = r.resource;
  d.uid = obj.metadata.uid;
  return SuccessStatusJson(d);
}

void ServeCreate(const CallPtr& call) {
  call->set_verb("POST");
  call->set_mutating();
  auto w = DecodeWrite(*call);
  if (!w.ok()) return call->Fail(w.status());
  Status id = CheckBodyIdentity(*call, *w->object, false);
  if (!id.ok()) return call->Fail(id);
  auto manager = ParseFieldManager(call->req, "CreateOptions");
  if (!manager.ok()) return call->Fail(manager.status());
  TrackUpdate(*call, WriterOf(*call, *manager), nullptr, *w->object);
  Status admitted = call->Admit(nullptr, w->object.get());
  if (!admitted.ok()) return call->Fail(admitted);
  api::WriteOptions opts;
  opts.dry_run = w->dry_run;
  opts.field_manager = *manager;
  call->ctx.store.CreateAsync(
      call->resource(), std::move(w->object), std::move(opts),
      call->Track<ObjectResult>("create", ReplyObject(call, 201, std::move(w->warnings))));
}

void ServeUpdate(const CallPtr& call) {
  call->set_verb("PUT");
  call->set_mutating();
  auto w = DecodeWrite(*call);
  if (!w.ok()) return call->Fail(w.status());
  Status id = CheckBodyIdentity(*call, *w->object, true);
  if (!id.ok()) return call->Fail(id);
  auto manager = ParseFieldManager(call->req, "UpdateOptions");
  if (!manager.ok()) return call->Fail(manager.status());
  store::UpdateOptions opts;
  opts.dry_run = w->dry_run;
  opts.field_manager = *manager;
  opts.subresource =
      call->route.subresource == "status" ? store::Subresource::kStatus : store::Subresource::kMain;
  std::shared_ptr<const api::Object> desired = std::move(w->object);
  // The body with the managedFields of writing it over the stored object; computed here
  // against the object read now, and again on the committer thread only if it changed since.
  auto writer = std::make_shared<const api::managed_fields::Writer>(WriterOf(*call, *manager));
  Transform transform = [call, desired,
                         writer](const api::Object& cur) -> Result<std::unique_ptr<api::Object>> {
    std::unique_ptr<api::Object> next = desired->Clone();
    TrackUpdate(*call, *writer, &cur, *next);
    return next;
  };
  store::UpdateFn fn;
  auto current = call->ctx.store.Get(call->resource(), call->route.namespace_, call->route.name);
  if (current.ok()) {
    auto first = transform(**current);
    if (!first.ok()) return call->Fail(first.status());
    fn = PrecomputedUpdate(*current, std::move(first).value(), transform);
  } else {
    fn = std::move(transform);  // the store answers (404)
  }
  call->ctx.store.UpdateAsync(
      call->resource(), call->route.namespace_, call->route.name, call->Admitted(std::move(fn)),
      std::move(opts),
      call->Track<ObjectResult>("update", ReplyObject(call, 200, std::move(w->warnings))));
}

void ServeDelete(const CallPtr& call) {
  call->set_verb("DELETE");
  call->set_mutating();
  rapidjson::Document doc;
  const api::JsonValue* body = nullptr;
  if (call->req.body.find_first_not_of(" \t\r\n") != std::string::npos) {
    auto json = BodyAsJson(call->req);
    if (!json.ok()) return call->Fail(json.status());
    doc.Parse(json->data(), json->size());
    if (doc.HasParseError()) {
      return call->Fail(
          api::JsonParseError(*json, doc.GetErrorOffset(), "malformed DeleteOptions"));
    }
    body = &doc;
  }
  bool orphan_false = false;
  auto opts = ParseDeleteOptions(call->req, body, &orphan_false);
  if (!opts.ok()) return call->Fail(opts.status());
  const api::ResourceInfo& r = call->resource();
  if (call->restriction) {
    // Restricted identities delete only objects of their own; who owns one does not change
    // (the fields judged are immutable), so the stored object is judged before the delete.
    auto current = call->ctx.store.Get(r, call->route.namespace_, call->route.name);
    if (!current.ok()) return call->Fail(current.status());
    Status admitted = call->Admit(current->get(), nullptr);
    if (!admitted.ok()) return call->Fail(admitted);
    // The object deleted is the object judged: one recreated in between is a 409.
    const std::string& judged = (*current)->metadata.uid;
    if (opts->precondition_uid && *opts->precondition_uid != judged) {
      return call->Fail(
          ConflictError(r.QualifiedResource(), call->route.name,
                        "Precondition failed: UID in precondition: " + *opts->precondition_uid +
                            ", UID in object meta: " + judged));
    }
    opts->precondition_uid = judged;
  }
  call->ctx.store.DeleteAsync(
      r, call->route.namespace_, call->route.name, std::move(opts).value(),
      call->Track<Result<api::DeleteResult>>(
          "delete", [call, &r, orphan_false](Result<api::DeleteResult> res) {
            if (!res.ok()) return call->Fail(res.status());
            if (res->removed) {
              return call->Reply(JsonResponse(200, DeletedStatusJson(r, *res->object)));
            }
            call->Reply(JsonResponse(orphan_false ? 202 : 200, api::EncodeJson(*res->object)));
          }));
}

namespace {

// Collects the outcome of a deletecollection's individual deletes.
struct CollectionDelete {
  std::mutex mu;
  size_t remaining = 0;
  std::vector<api::ObjectPtr> deleted;
  Status error;
};

void FinishCollectionDelete(const CallPtr& call, CollectionDelete& state) {
  if (!state.error.ok()) return call->Fail(state.error);
  Page page;
  page.items = &state.deleted;
  page.resource_version = std::to_string(call->ctx.store.CurrentResourceVersion());
  call->Reply(JsonResponse(200, ListJson(call->view(), page, call->cache())));
}

}  // namespace

void ServeDeleteCollection(const CallPtr& call) {
  call->set_verb("DELETECOLLECTION");
  call->set_mutating();
  auto params = ParseListParams(call->req, call->resource());
  if (!params.ok()) return call->Fail(params.status());
  auto opts = ParseDeleteOptions(call->req, nullptr, nullptr);
  if (!opts.ok()) return call->Fail(opts.status());
  api::ListOptions list_opts;
  list_opts.namespace_ = call->route.namespace_;
  list_opts.label_selector = std::move(params->label_selector);
  list_opts.field_selector = std::move(params->field_selector);
  auto list = call->ctx.store.List(call->resource(), list_opts);
  if (!list.ok()) return call->Fail(list.status());
  for (const api::ObjectPtr& obj : list->items) {
    Status admitted = call->Admit(obj.get(), nullptr);  // all or nothing
    if (!admitted.ok()) return call->Fail(admitted);
  }
  auto state = std::make_shared<CollectionDelete>();
  state->remaining = list->items.size();
  if (state->remaining == 0) return FinishCollectionDelete(call, *state);
  for (const api::ObjectPtr& obj : list->items) {
    api::DeleteOptions one = *opts;
    // A restricted identity deletes exactly the objects judged above.
    if (call->restriction) one.precondition_uid = obj->metadata.uid;
    call->ctx.store.DeleteAsync(
        call->resource(), obj->metadata.namespace_, obj->metadata.name, std::move(one),
        call->Track<Result<api::DeleteResult>>(
            "delete", [call, state](Result<api::DeleteResult> res) {
              std::unique_lock<std::mutex> lock(state->mu);
              if (res.ok()) {
                state->deleted.push_back(res->object);
              } else if (res.status().code() != StatusCode::kNotFound && state->error.ok()) {
                state->error = res.status();
              }
              if (--state->remaining == 0) {
                lock.unlock();
                FinishCollectionDelete(call, *state);
              }
            }));
  }
}

}  // namespace allot::apiserver
