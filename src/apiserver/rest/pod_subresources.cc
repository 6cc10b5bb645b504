// pods/binding and pods/eviction (api-reference §4.10).
//
// Binding parses the Binding body here and leaves the rules (already assigned, being deleted,
// scheduling gates, preconditions, the PodScheduled condition) to registry/pod_binding.h, which the
// in-process client shares; the bind is one store write, as in Kubernetes. Eviction parses the
// Eviction body and leaves the disruption budgets to registry/pod_eviction.h.
#include <rapidjson/document.h>

#include "api/codec/codec.h"
#include "apiserver/encoding/body.h"
#include "apiserver/rest/handlers.h"
#include "apiserver/rest/request_params.h"
#include "registry/pod_binding.h"
#include "registry/pod_eviction.h"

namespace allot::apiserver {

namespace {

using rapidjson::Document;
using rapidjson::Value;

std::string StringAt(const Value& obj, const char* a, const char* b = nullptr) {
  if (!obj.IsObject()) return {};
  auto it = obj.FindMember(a);
  if (it == obj.MemberEnd()) return {};
  if (!b) return it->value.IsString() ? it->value.GetString() : std::string();
  return StringAt(it->value, b);
}

void ReadAnnotations(const Document& doc, registry::PodBinding& b) {
  auto meta = doc.FindMember("metadata");
  if (meta == doc.MemberEnd() || !meta->value.IsObject()) return;
  auto ann = meta->value.FindMember("annotations");
  if (ann == meta->value.MemberEnd() || !ann->value.IsObject()) return;
  for (const auto& m : ann->value.GetObject()) {
    if (m.value.IsString()) b.annotations.emplace_back(m.name.GetString(), m.value.GetString());
  }
}

// A subresource body's metadata.namespace, when set, must be the URL's.
Status CheckBodyNamespace(const Call& call, const Document& doc) {
  std::string ns = StringAt(doc, "metadata", "namespace");
  if (!ns.empty() && ns != call.route.namespace_) {
    return BadRequestError(
        "the namespace of the provided object does not match the namespace sent on the request");
  }
  return Status::Ok();
}

Result<registry::PodBinding> ParseBinding(const Call& call) {
  ALLOT_ASSIGN_OR_RETURN(std::string json, BodyAsJson(call.req));
  Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) {
    return api::JsonParseError(json, doc.GetErrorOffset(), "malformed Binding");
  }
  if (!doc.IsObject()) return BadRequestError("a Binding must be a JSON object");
  registry::PodBinding b;
  b.namespace_ = call.route.namespace_;
  b.name = call.route.name;
  // The pod bound is the URL's, and the Binding must say so (kube-apiserver's BindingREST).
  if (StringAt(doc, "metadata", "name") != call.route.name) {
    return BadRequestError("name in URL does not match name in Binding object");
  }
  ALLOT_RETURN_IF_ERROR(CheckBodyNamespace(call, doc));
  b.uid = StringAt(doc, "metadata", "uid");
  b.resource_version = StringAt(doc, "metadata", "resourceVersion");
  b.node = StringAt(doc, "target", "name");  // required: registry::ValidatePodBinding
  ReadAnnotations(doc, b);
  return b;
}

}  // namespace

void ServeBinding(const CallPtr& call) {
  call->set_verb("POST");
  call->set_mutating();
  auto binding = ParseBinding(*call);
  if (!binding.ok()) return call->Fail(binding.status());
  auto dry = ParseDryRun(call->req);
  if (!dry.ok()) return call->Fail(dry.status());
  registry::BindPodAsync(
      call->ctx.store, std::move(binding).value(), call->ctx.clock, *dry,
      call->Track<Result<api::ObjectPtr>>("update", [call](Result<api::ObjectPtr> r) {
        if (!r.ok()) return call->Fail(r.status());
        call->Reply(JsonResponse(201, SuccessStatusJson({}, 201)));
      }));
}

void ServeEviction(const CallPtr& call) {
  call->set_verb("POST");
  call->set_mutating();
  // An Eviction object naming the URL's pod is required, as kube-apiserver's EvictionREST
  // does: an empty POST (a browser's form, say) evicts nothing.
  Document doc;
  const api::JsonValue* delete_options = nullptr;
  auto json = BodyAsJson(call->req);
  if (!json.ok()) return call->Fail(json.status());
  doc.Parse(json->data(), json->size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return call->Fail(BadRequestError("malformed Eviction: expected a JSON object"));
  }
  if (StringAt(doc, "metadata", "name") != call->route.name) {
    return call->Fail(BadRequestError("name in URL does not match name in Eviction object"));
  }
  if (Status st = CheckBodyNamespace(*call, doc); !st.ok()) return call->Fail(st);
  auto it = doc.FindMember("deleteOptions");
  if (it != doc.MemberEnd() && !it->value.IsNull()) delete_options = &it->value;
  auto opts = ParseDeleteOptions(call->req, delete_options, nullptr);
  if (!opts.ok()) return call->Fail(opts.status());
  registry::EvictPodAsync(call->ctx.store,
                          {.namespace_ = call->route.namespace_,
                           .name = call->route.name,
                           .delete_options = std::move(opts).value()},
                          call->ctx.clock, call->Track<Status>("delete", [call](Status s) {
                            if (!s.ok()) return call->Fail(s);
                            call->Reply(JsonResponse(201, SuccessStatusJson({}, 201)));
                          }));
}

}  // namespace allot::apiserver
