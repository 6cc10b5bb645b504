// pods/binding and pods/eviction (api-reference §4.10).
//
// Binding works on the pod's JSON rather than on the C++ Pod type: it touches three well-known
// fields (spec.nodeName, spec.schedulingGates, status.conditions) and metadata.annotations, and
// this keeps the server independent of how the Pod struct models the rest.
//
// The store splits spec and status writes by subresource, so a bind is two writes: the main
// resource (nodeName, annotations), then status (PodScheduled=True). A failure of the second
// leaves a bound pod without the condition, which the scheduler's next status write repairs;
// Kubernetes' own binding storage does both at once.
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "api/codec.h"
#include "api/validation.h"
#include "apiserver/body.h"
#include "apiserver/handlers.h"

namespace allot::apiserver {

namespace {

using rapidjson::Document;
using rapidjson::Value;

struct BindSpec {
  std::string pod;
  std::string node;
  std::string uid;  // precondition when set
  std::vector<std::pair<std::string, std::string>> annotations;
};

std::string StringAt(const Value& obj, const char* a, const char* b = nullptr) {
  if (!obj.IsObject()) return {};
  auto it = obj.FindMember(a);
  if (it == obj.MemberEnd()) return {};
  if (!b) return it->value.IsString() ? it->value.GetString() : std::string();
  return StringAt(it->value, b);
}

Value& ObjectMember(Document& doc, Value& parent, const char* name) {
  auto it = parent.FindMember(name);
  if (it != parent.MemberEnd() && it->value.IsObject()) return it->value;
  if (it != parent.MemberEnd()) parent.RemoveMember(it);
  parent.AddMember(Value(name, doc.GetAllocator()), Value(rapidjson::kObjectType),
                   doc.GetAllocator());
  return parent.FindMember(name)->value;
}

Result<BindSpec> ParseBinding(const Call& call) {
  ALLOT_ASSIGN_OR_RETURN(std::string json, BodyAsJson(call.req));
  Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) {
    return api::JsonParseError(json, doc.GetErrorOffset(), "malformed Binding");
  }
  if (!doc.IsObject()) return BadRequestError("a Binding must be a JSON object");
  BindSpec b;
  b.pod = call.route.name;
  std::string name = StringAt(doc, "metadata", "name");
  if (!name.empty() && name != call.route.name) {
    return BadRequestError("the name of the object (" + name +
                           ") does not match the name on the URL (" + call.route.name + ")");
  }
  std::string ns = StringAt(doc, "metadata", "namespace");
  if (!ns.empty() && ns != call.route.namespace_) {
    return BadRequestError(
        "the namespace of the provided object does not match the namespace sent on the request");
  }
  b.uid = StringAt(doc, "metadata", "uid");
  b.node = StringAt(doc, "target", "name");
  if (b.node.empty()) {
    api::FieldErrors errs;
    errs.Required(api::Path("target").Child("name"));
    return errs.ToStatus("Binding", "", call.route.name);
  }
  auto meta = doc.FindMember("metadata");
  if (meta != doc.MemberEnd() && meta->value.IsObject()) {
    auto ann = meta->value.FindMember("annotations");
    if (ann != meta->value.MemberEnd() && ann->value.IsObject()) {
      for (const auto& m : ann->value.GetObject()) {
        if (m.value.IsString()) b.annotations.emplace_back(m.name.GetString(), m.value.GetString());
      }
    }
  }
  return b;
}

Result<Document> ToDocument(const api::Object& obj) {
  std::string json = api::EncodeJson(obj);
  Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) return InternalError("cannot re-read the pod");
  return doc;
}

Result<std::unique_ptr<api::Object>> FromDocument(const Document& doc, const api::TypeInfo& type) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  doc.Accept(w);
  ALLOT_ASSIGN_OR_RETURN(DecodedBody d,
                         DecodeObject(std::string_view(buf.GetString(), buf.GetSize()), type,
                                      FieldValidation::kIgnore));
  return std::move(d.object);
}

Status BindConflict(const BindSpec& b, const std::string& why) {
  return ConflictError("pods/binding", b.pod, why);
}

// The main-resource half: checks and sets spec.nodeName and the annotations.
Result<std::unique_ptr<api::Object>> AssignNode(const api::Object& pod, const BindSpec& b) {
  if (pod.metadata.deletionTimestamp) {
    return BindConflict(b, "pod " + b.pod + " is being deleted, cannot be assigned to a host");
  }
  if (!b.uid.empty() && b.uid != pod.metadata.uid) {
    return BindConflict(b, "Precondition failed: UID in precondition: " + b.uid +
                               ", UID in object meta: " + pod.metadata.uid);
  }
  ALLOT_ASSIGN_OR_RETURN(Document doc, ToDocument(pod));
  Value& spec = ObjectMember(doc, doc, "spec");
  std::string current = StringAt(spec, "nodeName");
  if (!current.empty()) {
    return BindConflict(b, "pod " + b.pod + " is already assigned to node \"" + current + "\"");
  }
  auto gates = spec.FindMember("schedulingGates");
  if (gates != spec.MemberEnd() && gates->value.IsArray() && !gates->value.Empty()) {
    return BindConflict(b, "pod " + b.pod + " has non-empty .spec.schedulingGates");
  }
  auto& alloc = doc.GetAllocator();
  spec.RemoveMember("nodeName");
  spec.AddMember("nodeName", Value(b.node.c_str(), alloc), alloc);
  Value& meta = ObjectMember(doc, doc, "metadata");
  if (!b.annotations.empty()) {
    Value& ann = ObjectMember(doc, meta, "annotations");
    for (const auto& [k, v] : b.annotations) {
      ann.RemoveMember(k.c_str());
      ann.AddMember(Value(k.c_str(), alloc), Value(v.c_str(), alloc), alloc);
    }
  }
  return FromDocument(doc, pod.type());
}

// The status half: PodScheduled=True, replacing an earlier PodScheduled condition.
Result<std::unique_ptr<api::Object>> MarkScheduled(const api::Object& pod, const std::string& now) {
  ALLOT_ASSIGN_OR_RETURN(Document doc, ToDocument(pod));
  auto& alloc = doc.GetAllocator();
  Value& status = ObjectMember(doc, doc, "status");
  auto conds = status.FindMember("conditions");
  if (conds == status.MemberEnd() || !conds->value.IsArray()) {
    if (conds != status.MemberEnd()) status.RemoveMember(conds);
    status.AddMember("conditions", Value(rapidjson::kArrayType), alloc);
    conds = status.FindMember("conditions");
  }
  Value& list = conds->value;
  for (auto it = list.Begin(); it != list.End();) {
    it = StringAt(*it, "type") == "PodScheduled" ? list.Erase(it) : it + 1;
  }
  Value c(rapidjson::kObjectType);
  c.AddMember("type", "PodScheduled", alloc);
  c.AddMember("status", "True", alloc);
  c.AddMember("lastProbeTime", Value(rapidjson::kNullType), alloc);
  c.AddMember("lastTransitionTime", Value(now.c_str(), alloc), alloc);
  list.PushBack(c, alloc);
  return FromDocument(doc, pod.type());
}

void WriteScheduledCondition(const CallPtr& call, const api::ObjectPtr& bound) {
  const std::string now = call->ctx.clock.Now().ToRfc3339();
  Transform transform = [now](const api::Object& cur) { return MarkScheduled(cur, now); };
  auto first = transform(*bound);
  if (!first.ok()) return call->Fail(first.status());
  store::UpdateOptions opts;
  opts.subresource = store::Subresource::kStatus;
  call->ctx.store.UpdateAsync(
      call->resource(), call->route.namespace_, call->route.name,
      PrecomputedUpdate(bound, std::move(first).value(), std::move(transform)), std::move(opts),
      call->Track<Result<api::ObjectPtr>>("update", [call](Result<api::ObjectPtr> r) {
        if (!r.ok()) return call->Fail(r.status());
        call->Reply(JsonResponse(201, SuccessStatusJson({}, 201)));
      }));
}

}  // namespace

void ServeBinding(const CallPtr& call) {
  call->set_verb("POST");
  call->set_mutating();
  auto binding = ParseBinding(*call);
  if (!binding.ok()) return call->Fail(binding.status());
  ServerContext& ctx = call->ctx;
  auto pod = ctx.store.Get(call->resource(), call->route.namespace_, call->route.name);
  if (!pod.ok()) return call->Fail(pod.status());
  auto spec = std::make_shared<const BindSpec>(std::move(binding).value());
  Transform transform = [spec](const api::Object& cur) { return AssignNode(cur, *spec); };
  auto first = transform(**pod);
  if (!first.ok()) return call->Fail(first.status());
  auto dry = ParseDryRun(call->req);
  if (!dry.ok()) return call->Fail(dry.status());
  store::UpdateOptions opts;
  opts.dry_run = *dry;
  const bool dry_run = *dry;
  ctx.store.UpdateAsync(
      call->resource(), call->route.namespace_, call->route.name,
      PrecomputedUpdate(*pod, std::move(first).value(), std::move(transform)), std::move(opts),
      call->Track<Result<api::ObjectPtr>>("update", [call, dry_run](Result<api::ObjectPtr> r) {
        if (!r.ok()) return call->Fail(r.status());
        if (dry_run) return call->Reply(JsonResponse(201, SuccessStatusJson({}, 201)));
        WriteScheduledCondition(call, *r);
      }));
}

void ServeEviction(const CallPtr& call) {
  call->set_verb("POST");
  call->set_mutating();
  Document doc;
  const api::JsonValue* delete_options = nullptr;
  if (call->req.body.find_first_not_of(" \t\r\n") != std::string::npos) {
    auto json = BodyAsJson(call->req);
    if (!json.ok()) return call->Fail(json.status());
    doc.Parse(json->data(), json->size());
    if (doc.HasParseError() || !doc.IsObject()) {
      return call->Fail(BadRequestError("malformed Eviction: expected a JSON object"));
    }
    std::string name = StringAt(doc, "metadata", "name");
    if (!name.empty() && name != call->route.name) {
      return call->Fail(BadRequestError("name in URL does not match name in Eviction object"));
    }
    auto it = doc.FindMember("deleteOptions");
    if (it != doc.MemberEnd() && !it->value.IsNull()) delete_options = &it->value;
  }
  auto opts = ParseDeleteOptions(call->req, delete_options, nullptr);
  if (!opts.ok()) return call->Fail(opts.status());
  call->ctx.store.DeleteAsync(
      call->resource(), call->route.namespace_, call->route.name, std::move(opts).value(),
      call->Track<Result<store::DeleteResult>>("delete", [call](Result<store::DeleteResult> r) {
        if (!r.ok()) return call->Fail(r.status());
        call->Reply(JsonResponse(201, SuccessStatusJson({}, 201)));
      }));
}

}  // namespace allot::apiserver
