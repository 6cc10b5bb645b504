// Request bodies in Kubernetes' protobuf encoding (application/vnd.kubernetes.protobuf) of the
// kinds that have no protobuf codec in api/protobuf.h, which decodes the kinds Allot's own
// components exchange.
//
// kubectl's typed clients send protobuf whatever the server advertises: `kubectl drain` a
// protobuf Eviction, `kubectl create role|rolebinding|...` theirs, `kubectl auth can-i` its
// reviews. These few request kinds are decoded here into the JSON the rest of the server reads.
// Anything else stays a 415.
//
// Wire format: the magic "k8s\0", then a runtime.Unknown message {typeMeta{apiVersion, kind},
// raw (the typed message), contentEncoding, contentType}.
#pragma once

#include <string>
#include <string_view>

#include "api/protobuf.h"
#include "common/status.h"

namespace allot::apiserver {

// JSON for a protobuf body of a supported kind (Namespace, Eviction, DeleteOptions, Binding,
// PodDisruptionBudget, PriorityClass, Role, ClusterRole, RoleBinding, ClusterRoleBinding,
// SelfSubjectAccessReview, SubjectAccessReview, SelfSubjectRulesReview, SelfSubjectReview);
// 415 for other kinds, 400 for malformed input.
Result<std::string> ProtobufToJson(std::string_view body);

}  // namespace allot::apiserver
