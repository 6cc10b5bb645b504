// Protobuf field numbers of rbac.authorization.k8s.io/v1 (k8s.io/api rbac/v1/generated.proto).
// See api/machinery/protobuf_fields.h. Allot reads RBAC objects in protobuf (what kubectl's typed
// clients send) and answers them in JSON: they are not among api/protobuf.h's kinds.
#pragma once

#include "api/machinery/protobuf_fields.h"
#include "api/machinery/protobuf_messages.h"
#include "api/rbac/rbac.h"

namespace allot::api {

template <>
struct ProtoMessage<PolicyRule> {
  static constexpr ProtoField kFields[] = {{"verbs", 1},
                                           {"apiGroups", 2},
                                           {"resources", 3},
                                           {"resourceNames", 4},
                                           {"nonResourceURLs", 5}};
};

template <>
struct ProtoMessage<Subject> {
  static constexpr ProtoField kFields[] = {
      {"kind", 1}, {"apiGroup", 2}, {"name", 3}, {"namespace", 4}};
};

template <>
struct ProtoMessage<RoleRef> {
  static constexpr ProtoField kFields[] = {{"apiGroup", 1}, {"kind", 2}, {"name", 3}};
};

template <>
struct ProtoMessage<Role> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"rules", 2}};
};

template <>
struct ProtoMessage<AggregationRule> {
  static constexpr ProtoField kFields[] = {{"clusterRoleSelectors", 1}};
};

template <>
struct ProtoMessage<ClusterRole> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"rules", 2}, {"aggregationRule", 3}};
};

template <>
struct ProtoMessage<RoleBinding> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"subjects", 2}, {"roleRef", 3}};
};

template <>
struct ProtoMessage<ClusterRoleBinding> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"subjects", 2}, {"roleRef", 3}};
};

}  // namespace allot::api
