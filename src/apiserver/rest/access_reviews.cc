// The review resources (authz::Review): asked with a POST, answered from the request's user
// and the server's authorizer, never stored.
//
//   SelfSubjectReview        (kubectl auth whoami)   status.userInfo: the request's user
//   SelfSubjectAccessReview  (kubectl auth can-i)    status.allowed for the request's user
//   SubjectAccessReview                              status.allowed for spec.user / groups
//   SelfSubjectRulesReview   (kubectl auth can-i --list)  status.resourceRules and
//                                                    nonResourceRules in spec.namespace
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "api/codec/codec.h"
#include "api/machinery/validation.h"
#include "apiserver/encoding/body.h"
#include "apiserver/encoding/status_json.h"
#include "apiserver/rest/handlers.h"

namespace allot::apiserver {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;
using JsonValue = rapidjson::Value;

void Strings(Writer& w, const char* key, const std::vector<std::string>& v) {
  w.Key(key);
  w.StartArray();
  for (const std::string& s : v) api::WriteString(w, s);
  w.EndArray();
}

std::string StringField(const JsonValue& obj, const char* key) {
  if (!obj.IsObject()) return "";
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || !it->value.IsString()) return "";
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

const JsonValue* ObjectField(const JsonValue& obj, const char* key) {
  if (!obj.IsObject()) return nullptr;
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

// The review's header: {"kind":...,"apiVersion":...,"metadata":{"creationTimestamp":null},
void Begin(Writer& w, const char* kind, const char* api_version) {
  w.StartObject();
  w.Key("kind");
  w.String(kind);
  w.Key("apiVersion");
  w.String(api_version);
  w.Key("metadata");
  w.StartObject();
  w.Key("creationTimestamp");
  w.Null();
  w.EndObject();
}

void SpecEcho(Writer& w, const JsonValue* spec) {
  w.Key("spec");
  if (spec) {
    spec->Accept(w);
  } else {
    w.StartObject();
    w.EndObject();
  }
}

struct ParsedReview {
  rapidjson::Document doc;
  const JsonValue* spec = nullptr;
};

Result<std::unique_ptr<ParsedReview>> ParseReview(const Call& call, const char* kind) {
  ALLOT_ASSIGN_OR_RETURN(std::string json, BodyAsJson(call.req));
  auto out = std::make_unique<ParsedReview>();
  out->doc.Parse(json.data(), json.size());
  if (out->doc.HasParseError()) {
    return api::JsonParseError(json, out->doc.GetErrorOffset(),
                               (std::string("malformed ") + kind).c_str());
  }
  if (!out->doc.IsObject()) return BadRequestError(std::string(kind) + " must be a JSON object");
  out->spec = ObjectField(out->doc, "spec");
  return out;
}

// spec.resourceAttributes or spec.nonResourceAttributes into `a` (user set by the caller).
Status AttributesFromSpec(const JsonValue* spec, const char* kind, authz::Attributes& a) {
  api::FieldErrors errs;
  const api::Path path("spec");
  const JsonValue* res = spec ? ObjectField(*spec, "resourceAttributes") : nullptr;
  const JsonValue* non = spec ? ObjectField(*spec, "nonResourceAttributes") : nullptr;
  if (res && non) {
    errs.InvalidRendered(path.Child("nonResourceAttributes"), "{...}",
                         "cannot be specified in combination with resourceAttributes");
  } else if (!res && !non) {
    errs.Required(path.Child("resourceAttributes"),
                  "one of resourceAttributes or nonResourceAttributes must be specified");
  }
  if (!errs.empty()) return errs.ToStatus(kind, "authorization.k8s.io", "");
  if (res) {
    a.resource_request = true;
    a.namespace_ = StringField(*res, "namespace");
    a.verb = StringField(*res, "verb");
    a.api_group = StringField(*res, "group");
    a.api_version = StringField(*res, "version");
    a.resource = StringField(*res, "resource");
    a.subresource = StringField(*res, "subresource");
    a.name = StringField(*res, "name");
  } else {
    a.path = StringField(*non, "path");
    a.verb = StringField(*non, "verb");
  }
  return Status::Ok();
}

authz::Verdict Decide(const Call& call, const authz::Attributes& a) {
  const authz::Authorizer* authorizer = call.ctx.config.authorizer.get();
  if (!authorizer) return authz::Verdict{authz::Decision::kAllow, "authorization is off"};
  return authorizer->Authorize(a);
}

void ReplyAccessReview(const CallPtr& call, const char* kind, const JsonValue* spec,
                       const authz::Verdict& v) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  Begin(w, kind, "authorization.k8s.io/v1");
  SpecEcho(w, spec);
  w.Key("status");
  w.StartObject();
  w.Key("allowed");
  w.Bool(v.decision == authz::Decision::kAllow);
  if (v.decision == authz::Decision::kDeny) {
    w.Key("denied");
    w.Bool(true);
  }
  if (!v.reason.empty()) {
    w.Key("reason");
    api::WriteString(w, v.reason);
  }
  w.EndObject();
  w.EndObject();
  call->Reply(JsonResponse(201, std::string(buf.GetString(), buf.GetSize())));
}

void ServeSelfSubjectReview(const CallPtr& call) {
  const authn::UserInfo& u = call->user;
  rapidjson::StringBuffer buf;
  Writer w(buf);
  Begin(w, "SelfSubjectReview", "authentication.k8s.io/v1");
  w.Key("status");
  w.StartObject();
  w.Key("userInfo");
  w.StartObject();
  w.Key("username");
  api::WriteString(w, u.name);
  if (!u.uid.empty()) {
    w.Key("uid");
    api::WriteString(w, u.uid);
  }
  Strings(w, "groups", u.groups);
  if (!u.extra.empty()) {
    w.Key("extra");
    w.StartObject();
    for (const auto& [key, values] : u.extra) Strings(w, key.c_str(), values);
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  w.EndObject();
  call->Reply(JsonResponse(201, std::string(buf.GetString(), buf.GetSize())));
}

void ServeSelfSubjectAccessReview(const CallPtr& call) {
  const char* kind = "SelfSubjectAccessReview";
  auto review = ParseReview(*call, kind);
  if (!review.ok()) return call->Fail(review.status());
  authz::Attributes a;
  a.user = call->user;
  Status st = AttributesFromSpec((*review)->spec, kind, a);
  if (!st.ok()) return call->Fail(st);
  ReplyAccessReview(call, kind, (*review)->spec, Decide(*call, a));
}

void ServeSubjectAccessReview(const CallPtr& call) {
  const char* kind = "SubjectAccessReview";
  auto review = ParseReview(*call, kind);
  if (!review.ok()) return call->Fail(review.status());
  const JsonValue* spec = (*review)->spec;
  authz::Attributes a;
  if (spec) {
    a.user.name = StringField(*spec, "user");
    a.user.uid = StringField(*spec, "uid");
    if (const JsonValue* groups = ObjectField(*spec, "groups"); groups && groups->IsArray()) {
      for (const auto& g : groups->GetArray()) {
        if (g.IsString()) a.user.groups.emplace_back(g.GetString(), g.GetStringLength());
      }
    }
  }
  if (a.user.name.empty() && a.user.groups.empty()) {
    api::FieldErrors errs;
    errs.Invalid(api::Path("spec").Child("user"), "",
                 "at least one of user or group must be specified");
    return call->Fail(errs.ToStatus(kind, "authorization.k8s.io", ""));
  }
  Status st = AttributesFromSpec(spec, kind, a);
  if (!st.ok()) return call->Fail(st);
  ReplyAccessReview(call, kind, spec, Decide(*call, a));
}

void ServeSelfSubjectRulesReview(const CallPtr& call) {
  const char* kind = "SelfSubjectRulesReview";
  auto review = ParseReview(*call, kind);
  if (!review.ok()) return call->Fail(review.status());
  const JsonValue* spec = (*review)->spec;
  const std::string ns = spec ? StringField(*spec, "namespace") : "";
  const authz::RbacAuthorizer* rbac = call->ctx.config.rbac.get();
  std::vector<api::PolicyRule> rules;
  if (rbac) rules = rbac->RulesFor(call->user, ns);

  rapidjson::StringBuffer buf;
  Writer w(buf);
  Begin(w, kind, "authorization.k8s.io/v1");
  SpecEcho(w, spec);
  w.Key("status");
  w.StartObject();
  w.Key("resourceRules");
  w.StartArray();
  for (const api::PolicyRule& r : rules) {
    if (r.resources.empty()) continue;
    w.StartObject();
    Strings(w, "verbs", r.verbs);
    Strings(w, "apiGroups", r.apiGroups);
    Strings(w, "resources", r.resources);
    if (!r.resourceNames.empty()) Strings(w, "resourceNames", r.resourceNames);
    w.EndObject();
  }
  w.EndArray();
  w.Key("nonResourceRules");
  w.StartArray();
  for (const api::PolicyRule& r : rules) {
    if (r.nonResourceURLs.empty()) continue;
    w.StartObject();
    Strings(w, "verbs", r.verbs);
    Strings(w, "nonResourceURLs", r.nonResourceURLs);
    w.EndObject();
  }
  w.EndArray();
  w.Key("incomplete");
  w.Bool(rbac == nullptr);
  if (!rbac) {
    w.Key("evaluationError");
    w.String("the server does not authorize with RBAC");
  }
  w.EndObject();
  w.EndObject();
  call->Reply(JsonResponse(201, std::string(buf.GetString(), buf.GetSize())));
}

}  // namespace

void ServeReview(const CallPtr& call, authz::Review review) {
  call->set_verb("POST");
  if (call->req.method != "POST") return call->Fail(MethodNotAllowedError());
  switch (review) {
    case authz::Review::kSelfSubjectReview:
      return ServeSelfSubjectReview(call);
    case authz::Review::kSelfSubjectAccessReview:
      return ServeSelfSubjectAccessReview(call);
    case authz::Review::kSubjectAccessReview:
      return ServeSubjectAccessReview(call);
    case authz::Review::kSelfSubjectRulesReview:
      return ServeSelfSubjectRulesReview(call);
    case authz::Review::kNone:
      break;
  }
  call->Fail(NotFoundPathError());
}

}  // namespace allot::apiserver
