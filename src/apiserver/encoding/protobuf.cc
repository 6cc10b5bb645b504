#include "apiserver/encoding/protobuf.h"

#include "api/codec/codec.h"
#include "api/codec/protobuf_reflect.h"
#include "api/machinery/reflect.h"
#include "api/rbac/protobuf_messages.h"
#include "apiserver/encoding/request_kinds.h"
#include "apiserver/encoding/status_json.h"

namespace allot::apiserver {

namespace {

// A request-only kind as JSON shows it: the envelope's apiVersion and kind, then its fields.
template <class T>
struct WithTypeMeta {
  std::string apiVersion;
  std::string kind;
  T body;
  template <class V>
  void Visit(V& v) {
    v("apiVersion", apiVersion);
    v("kind", kind);
    body.Visit(v);
  }
};

template <class T>
Status ReadMessage(const api::ProtobufEnvelope& env, T& out) {
  api::protobuf::DecodeState s;
  if (!api::protobuf::ReadFields(env.raw, out, s)) {
    return BadRequestError("malformed protobuf " + std::string(env.kind) + ": " + s.ctx.error());
  }
  s.Finish();
  return Status::Ok();
}

// A struct of request_kinds.h.
template <class T>
Result<std::string> RequestKindAsJson(const api::ProtobufEnvelope& env) {
  WithTypeMeta<T> typed{std::string(env.api_version), std::string(env.kind), {}};
  ALLOT_RETURN_IF_ERROR(ReadMessage(env, typed.body));
  return api::ToJson(typed);
}

// An API kind with a ProtoMessage table that api/protobuf.h does not carry (RBAC's).
template <class T>
Result<std::string> ApiKindAsJson(const api::ProtobufEnvelope& env) {
  T obj;
  ALLOT_RETURN_IF_ERROR(ReadMessage(env, obj));
  return api::EncodeJson(obj);
}

struct RequestKind {
  std::string_view api_version;
  std::string_view kind;
  Result<std::string> (*as_json)(const api::ProtobufEnvelope&);
};

constexpr RequestKind kRequestKinds[] = {
    {"policy/v1", "Eviction", &RequestKindAsJson<request_kinds::Eviction>},
    {"events.k8s.io/v1", "Event", &RequestKindAsJson<request_kinds::EventsV1Event>},
    {"policy/v1beta1", "Eviction", &RequestKindAsJson<request_kinds::Eviction>},
    {"rbac.authorization.k8s.io/v1", "Role", &ApiKindAsJson<api::Role>},
    {"rbac.authorization.k8s.io/v1", "ClusterRole", &ApiKindAsJson<api::ClusterRole>},
    {"rbac.authorization.k8s.io/v1", "RoleBinding", &ApiKindAsJson<api::RoleBinding>},
    {"rbac.authorization.k8s.io/v1", "ClusterRoleBinding", &ApiKindAsJson<api::ClusterRoleBinding>},
    {"authorization.k8s.io/v1", "SelfSubjectAccessReview",
     &RequestKindAsJson<request_kinds::AccessReview>},
    {"authorization.k8s.io/v1", "SubjectAccessReview",
     &RequestKindAsJson<request_kinds::AccessReview>},
    {"authorization.k8s.io/v1", "SelfSubjectRulesReview",
     &RequestKindAsJson<request_kinds::SelfSubjectRulesReview>},
    {"authentication.k8s.io/v1", "SelfSubjectReview",
     &RequestKindAsJson<request_kinds::SelfSubjectReview>},
};

}  // namespace

Result<std::string> ProtobufToJson(std::string_view body) {
  ALLOT_ASSIGN_OR_RETURN(api::ProtobufEnvelope env, api::ParseProtobufEnvelope(body));
  if (const api::TypeInfo* type = api::ProtobufKind(env.api_version, env.kind)) {
    ALLOT_ASSIGN_OR_RETURN(auto obj, api::DecodeProtobufMessage(*type, env.raw));
    return api::EncodeJson(*obj);
  }
  // meta.k8s.io/v1, v1 or a group's version: DeleteOptions is registered in each.
  if (env.kind == "DeleteOptions") return RequestKindAsJson<request_kinds::DeleteOptions>(env);
  for (const RequestKind& k : kRequestKinds) {
    if (k.api_version == env.api_version && k.kind == env.kind) return k.as_json(env);
  }
  return UnsupportedMediaTypeError(std::string(api::kProtobufContentType) + " for " +
                                       std::string(env.api_version) + " " + std::string(env.kind),
                                   "application/json, application/yaml");
}

}  // namespace allot::apiserver
