// Request bodies in Kubernetes' protobuf encoding (application/vnd.kubernetes.protobuf).
//
// kubectl's typed clients send protobuf whatever the server advertises: `kubectl create
// namespace` POSTs a protobuf Namespace, `kubectl drain` a protobuf Eviction, `kubectl create
// pdb`, `kubectl create priorityclass`, `kubectl create role|rolebinding|...` theirs, `kubectl auth
// can-i` its reviews. The server answers in JSON (clients accept it); only these few request kinds
// are decoded, into the JSON the rest of the server reads. Anything else stays a 415.
//
// Wire format: the magic "k8s\0", then a runtime.Unknown message {typeMeta{apiVersion, kind},
// raw (the typed message), contentEncoding, contentType}.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace allot::apiserver {

inline constexpr std::string_view kProtobufContentType = "application/vnd.kubernetes.protobuf";

// JSON for a protobuf body of a supported kind (Namespace, Eviction, DeleteOptions, Binding,
// PodDisruptionBudget, PriorityClass, Role, ClusterRole, RoleBinding, ClusterRoleBinding,
// SelfSubjectAccessReview, SubjectAccessReview, SelfSubjectRulesReview, SelfSubjectReview);
// 415 for other kinds, 400 for malformed input.
Result<std::string> ProtobufToJson(std::string_view body);

}  // namespace allot::apiserver
