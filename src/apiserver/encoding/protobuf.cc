#include "apiserver/encoding/protobuf.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <vector>

#include "api/codec/codec.h"
#include "api/codec/protobuf_wire.h"
#include "apiserver/encoding/status_json.h"
#include "common/time.h"

namespace allot::apiserver {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// --- wire format ------------------------------------------------------------------------------

struct WireField {
  int number = 0;
  int wire_type = 0;
  uint64_t varint = 0;     // wire types 0, 1, 5
  std::string_view bytes;  // wire type 2
};

Result<std::vector<WireField>> ParseMessage(std::string_view in) {
  std::vector<WireField> out;
  api::protobuf::Reader reader(in);
  api::protobuf::Record r;
  while (reader.Next(r)) {
    out.push_back({r.number, r.type, r.value, r.bytes});
  }
  if (!reader.ok()) return BadRequestError("malformed protobuf: truncated or invalid field");
  return out;
}

// --- schemas of the few messages we read ---------------------------------------------------

enum class Type { kString, kInt, kBool, kMessage, kStringMap, kTime, kIntOrString };

struct Message;
struct Field {
  int number;
  const char* name;
  Type type;
  const Message* message = nullptr;
  bool repeated = false;
};
struct Message {
  std::vector<Field> fields;
};

const Message kOwnerReference{{{1, "kind", Type::kString},
                               {3, "name", Type::kString},
                               {4, "uid", Type::kString},
                               {5, "apiVersion", Type::kString},
                               {6, "controller", Type::kBool},
                               {7, "blockOwnerDeletion", Type::kBool}}};
const Message kObjectMeta{{{1, "name", Type::kString},
                           {2, "generateName", Type::kString},
                           {3, "namespace", Type::kString},
                           {5, "uid", Type::kString},
                           {6, "resourceVersion", Type::kString},
                           {7, "generation", Type::kInt},
                           {8, "creationTimestamp", Type::kTime},
                           {9, "deletionTimestamp", Type::kTime},
                           {10, "deletionGracePeriodSeconds", Type::kInt},
                           {11, "labels", Type::kStringMap},
                           {12, "annotations", Type::kStringMap},
                           {13, "ownerReferences", Type::kMessage, &kOwnerReference, true},
                           {14, "finalizers", Type::kString, nullptr, true}}};
const Message kNamespaceSpec{{{1, "finalizers", Type::kString, nullptr, true}}};
const Message kNamespaceStatus{{{1, "phase", Type::kString}}};
const Message kNamespace{{{1, "metadata", Type::kMessage, &kObjectMeta},
                          {2, "spec", Type::kMessage, &kNamespaceSpec},
                          {3, "status", Type::kMessage, &kNamespaceStatus}}};
const Message kPreconditions{{{1, "uid", Type::kString}, {2, "resourceVersion", Type::kString}}};
const Message kDeleteOptions{{{1, "gracePeriodSeconds", Type::kInt},
                              {2, "preconditions", Type::kMessage, &kPreconditions},
                              {3, "orphanDependents", Type::kBool},
                              {4, "propagationPolicy", Type::kString},
                              {5, "dryRun", Type::kString, nullptr, true}}};
const Message kEviction{{{1, "metadata", Type::kMessage, &kObjectMeta},
                         {2, "deleteOptions", Type::kMessage, &kDeleteOptions}}};
const Message kObjectReference{{{1, "kind", Type::kString},
                                {2, "namespace", Type::kString},
                                {3, "name", Type::kString},
                                {4, "uid", Type::kString},
                                {5, "apiVersion", Type::kString},
                                {6, "resourceVersion", Type::kString},
                                {7, "fieldPath", Type::kString}}};
const Message kBinding{{{1, "metadata", Type::kMessage, &kObjectMeta},
                        {2, "target", Type::kMessage, &kObjectReference}}};

const Message kLabelSelectorRequirement{{{1, "key", Type::kString},
                                         {2, "operator", Type::kString},
                                         {3, "values", Type::kString, nullptr, true}}};
const Message kLabelSelector{
    {{1, "matchLabels", Type::kStringMap},
     {2, "matchExpressions", Type::kMessage, &kLabelSelectorRequirement, true}}};
const Message kPodDisruptionBudgetSpec{{{1, "minAvailable", Type::kIntOrString},
                                        {2, "selector", Type::kMessage, &kLabelSelector},
                                        {3, "maxUnavailable", Type::kIntOrString},
                                        {4, "unhealthyPodEvictionPolicy", Type::kString}}};
const Message kPodDisruptionBudget{{{1, "metadata", Type::kMessage, &kObjectMeta},
                                    {2, "spec", Type::kMessage, &kPodDisruptionBudgetSpec}}};
const Message kPriorityClass{{{1, "metadata", Type::kMessage, &kObjectMeta},
                              {2, "value", Type::kInt},
                              {3, "globalDefault", Type::kBool},
                              {4, "description", Type::kString},
                              {5, "preemptionPolicy", Type::kString}}};

// rbac.authorization.k8s.io/v1 (k8s.io/api/rbac/v1/generated.proto).
const Message kPolicyRule{{{1, "verbs", Type::kString, nullptr, true},
                           {2, "apiGroups", Type::kString, nullptr, true},
                           {3, "resources", Type::kString, nullptr, true},
                           {4, "resourceNames", Type::kString, nullptr, true},
                           {5, "nonResourceURLs", Type::kString, nullptr, true}}};
const Message kRole{{{1, "metadata", Type::kMessage, &kObjectMeta},
                     {2, "rules", Type::kMessage, &kPolicyRule, true}}};
const Message kAggregationRule{
    {{1, "clusterRoleSelectors", Type::kMessage, &kLabelSelector, true}}};
const Message kClusterRole{{{1, "metadata", Type::kMessage, &kObjectMeta},
                            {2, "rules", Type::kMessage, &kPolicyRule, true},
                            {3, "aggregationRule", Type::kMessage, &kAggregationRule}}};
const Message kSubject{{{1, "kind", Type::kString},
                        {2, "apiGroup", Type::kString},
                        {3, "name", Type::kString},
                        {4, "namespace", Type::kString}}};
const Message kRoleRef{
    {{1, "apiGroup", Type::kString}, {2, "kind", Type::kString}, {3, "name", Type::kString}}};
const Message kRoleBinding{{{1, "metadata", Type::kMessage, &kObjectMeta},
                            {2, "subjects", Type::kMessage, &kSubject, true},
                            {3, "roleRef", Type::kMessage, &kRoleRef}}};

// authorization.k8s.io/v1 and authentication.k8s.io/v1 (k8s.io/api/authorization/v1,
// authentication/v1 generated.proto); selectors of resourceAttributes are not read.
const Message kResourceAttributes{{{1, "namespace", Type::kString},
                                   {2, "verb", Type::kString},
                                   {3, "group", Type::kString},
                                   {4, "version", Type::kString},
                                   {5, "resource", Type::kString},
                                   {6, "subresource", Type::kString},
                                   {7, "name", Type::kString}}};
const Message kNonResourceAttributes{{{1, "path", Type::kString}, {2, "verb", Type::kString}}};
const Message kSelfSubjectAccessReviewSpec{
    {{1, "resourceAttributes", Type::kMessage, &kResourceAttributes},
     {2, "nonResourceAttributes", Type::kMessage, &kNonResourceAttributes}}};
const Message kSelfSubjectAccessReview{
    {{1, "metadata", Type::kMessage, &kObjectMeta},
     {2, "spec", Type::kMessage, &kSelfSubjectAccessReviewSpec}}};
const Message kSubjectAccessReviewSpec{
    {{1, "resourceAttributes", Type::kMessage, &kResourceAttributes},
     {2, "nonResourceAttributes", Type::kMessage, &kNonResourceAttributes},
     {3, "user", Type::kString},
     {4, "groups", Type::kString, nullptr, true},
     {6, "uid", Type::kString}}};
const Message kSubjectAccessReview{{{1, "metadata", Type::kMessage, &kObjectMeta},
                                    {2, "spec", Type::kMessage, &kSubjectAccessReviewSpec}}};
const Message kSelfSubjectRulesReviewSpec{{{1, "namespace", Type::kString}}};
const Message kSelfSubjectRulesReview{{{1, "metadata", Type::kMessage, &kObjectMeta},
                                       {2, "spec", Type::kMessage, &kSelfSubjectRulesReviewSpec}}};
const Message kSelfSubjectReview{{{1, "metadata", Type::kMessage, &kObjectMeta}}};

// --- JSON output ------------------------------------------------------------------------------

Status WriteMessage(Writer& w, std::string_view bytes, const Message& m, int depth);

Status WriteScalar(Writer& w, const WireField& f, const Field& spec, int depth) {
  switch (spec.type) {
    case Type::kString:
      if (f.wire_type != 2) return BadRequestError("malformed protobuf: expected a string");
      api::WriteString(w, f.bytes);
      return Status::Ok();
    case Type::kInt:
      w.Int64(static_cast<int64_t>(f.varint));
      return Status::Ok();
    case Type::kBool:
      w.Bool(f.varint != 0);
      return Status::Ok();
    case Type::kTime: {
      ALLOT_ASSIGN_OR_RETURN(auto parts, ParseMessage(f.bytes));
      int64_t seconds = 0;
      for (const WireField& p : parts) {
        if (p.number == 1) seconds = static_cast<int64_t>(p.varint);
      }
      api::WriteString(w, Time::FromUnixSeconds(seconds).ToRfc3339());
      return Status::Ok();
    }
    case Type::kMessage:
      if (f.wire_type != 2) return BadRequestError("malformed protobuf: expected a message");
      return WriteMessage(w, f.bytes, *spec.message, depth + 1);
    case Type::kIntOrString: {
      // intstr.IntOrString: type (0 int, 1 string), intVal, strVal.
      if (f.wire_type != 2) return BadRequestError("malformed protobuf: expected a message");
      ALLOT_ASSIGN_OR_RETURN(auto parts, ParseMessage(f.bytes));
      uint64_t type = 0, int_val = 0;
      std::string_view str_val;
      for (const WireField& p : parts) {
        if (p.number == 1) type = p.varint;
        if (p.number == 2) int_val = p.varint;
        if (p.number == 3) str_val = p.bytes;
      }
      if (type == 1) {
        api::WriteString(w, str_val);
      } else {
        w.Int64(static_cast<int32_t>(int_val));
      }
      return Status::Ok();
    }
    case Type::kStringMap:
      break;
  }
  return Status::Ok();
}

Status WriteStringMap(Writer& w, const std::vector<WireField>& fields, int number) {
  w.StartObject();
  for (const WireField& f : fields) {
    if (f.number != number || f.wire_type != 2) continue;
    ALLOT_ASSIGN_OR_RETURN(auto entry, ParseMessage(f.bytes));
    std::string_view key, value;
    for (const WireField& e : entry) {
      if (e.number == 1) key = e.bytes;
      if (e.number == 2) value = e.bytes;
    }
    w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    api::WriteString(w, value);
  }
  w.EndObject();
  return Status::Ok();
}

Status WriteMessage(Writer& w, std::string_view bytes, const Message& m, int depth) {
  if (depth > 16) return BadRequestError("malformed protobuf: nested too deeply");
  ALLOT_ASSIGN_OR_RETURN(auto fields, ParseMessage(bytes));
  w.StartObject();
  for (const Field& spec : m.fields) {
    std::vector<const WireField*> values;
    for (const WireField& f : fields) {
      if (f.number == spec.number) values.push_back(&f);
    }
    if (values.empty()) continue;
    w.Key(spec.name);
    if (spec.type == Type::kStringMap) {
      ALLOT_RETURN_IF_ERROR(WriteStringMap(w, fields, spec.number));
    } else if (spec.repeated) {
      w.StartArray();
      for (const WireField* f : values) ALLOT_RETURN_IF_ERROR(WriteScalar(w, *f, spec, depth));
      w.EndArray();
    } else {
      ALLOT_RETURN_IF_ERROR(WriteScalar(w, *values.back(), spec, depth));
    }
  }
  w.EndObject();
  return Status::Ok();
}

const Message* MessageFor(std::string_view api_version, std::string_view kind) {
  if (api_version == "v1" && kind == "Namespace") return &kNamespace;
  if (api_version == "v1" && kind == "Binding") return &kBinding;
  if ((api_version == "policy/v1" || api_version == "policy/v1beta1") && kind == "Eviction") {
    return &kEviction;
  }
  if (kind == "DeleteOptions") return &kDeleteOptions;
  if (api_version == "policy/v1" && kind == "PodDisruptionBudget") return &kPodDisruptionBudget;
  if (api_version == "scheduling.k8s.io/v1" && kind == "PriorityClass") return &kPriorityClass;
  if (api_version == "rbac.authorization.k8s.io/v1") {
    if (kind == "Role") return &kRole;
    if (kind == "ClusterRole") return &kClusterRole;
    if (kind == "RoleBinding" || kind == "ClusterRoleBinding") return &kRoleBinding;
  }
  if (api_version == "authorization.k8s.io/v1") {
    if (kind == "SelfSubjectAccessReview") return &kSelfSubjectAccessReview;
    if (kind == "SubjectAccessReview") return &kSubjectAccessReview;
    if (kind == "SelfSubjectRulesReview") return &kSelfSubjectRulesReview;
  }
  if (api_version == "authentication.k8s.io/v1" && kind == "SelfSubjectReview") {
    return &kSelfSubjectReview;
  }
  return nullptr;
}

}  // namespace

Result<std::string> ProtobufToJson(std::string_view body) {
  constexpr std::string_view kMagic("k8s\0", 4);
  if (body.substr(0, 4) != kMagic) return BadRequestError("malformed protobuf: missing prefix");
  ALLOT_ASSIGN_OR_RETURN(auto unknown, ParseMessage(body.substr(4)));
  std::string_view api_version, kind, raw;
  for (const WireField& f : unknown) {
    if (f.number == 2) raw = f.bytes;
    if (f.number != 1) continue;
    ALLOT_ASSIGN_OR_RETURN(auto type_meta, ParseMessage(f.bytes));
    for (const WireField& t : type_meta) {
      if (t.number == 1) api_version = t.bytes;
      if (t.number == 2) kind = t.bytes;
    }
  }
  const Message* message = MessageFor(api_version, kind);
  if (!message) {
    return UnsupportedMediaTypeError(std::string(api::kProtobufContentType) + " for " +
                                         std::string(api_version) + " " + std::string(kind),
                                     "application/json, application/yaml");
  }
  rapidjson::StringBuffer buf;
  Writer w(buf);
  // The typed message's fields, wrapped with apiVersion and kind.
  rapidjson::StringBuffer inner_buf;
  Writer inner(inner_buf);
  ALLOT_RETURN_IF_ERROR(WriteMessage(inner, raw, *message, 0));
  std::string inner_json(inner_buf.GetString(), inner_buf.GetSize());
  w.StartObject();
  w.Key("apiVersion");
  api::WriteString(w, api_version);
  w.Key("kind");
  api::WriteString(w, kind);
  w.EndObject();
  std::string head(buf.GetString(), buf.GetSize());
  head.pop_back();  // drop '}' and splice in the message's members
  if (inner_json.size() > 2)
    head += "," + inner_json.substr(1);
  else
    head += "}";
  return head;
}

}  // namespace allot::apiserver
