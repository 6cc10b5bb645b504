// Request bodies in Kubernetes' protobuf encoding (application/vnd.kubernetes.protobuf), as the
// JSON the handlers read.
//
// kubectl's typed clients send protobuf whatever the server advertises: `kubectl drain` a
// protobuf Eviction, `kubectl create role|rolebinding|...` theirs, `kubectl auth can-i` its
// reviews. The kinds of api/protobuf.h go through its codec; the request-only kinds
// (apiserver/encoding/request_kinds.h) and RBAC's (api/rbac/protobuf_messages.h) through the same
// field tables. Anything else stays a 415.
//
// Wire format: the magic "k8s\0", then a runtime.Unknown message {typeMeta{apiVersion, kind},
// raw (the typed message), contentEncoding, contentType}.
#pragma once

#include <string>
#include <string_view>

#include "api/protobuf.h"
#include "common/status.h"

namespace allot::apiserver {

// JSON for a protobuf body of a supported kind (those of api/protobuf.h, Eviction, DeleteOptions,
// Role, ClusterRole, RoleBinding, ClusterRoleBinding, SelfSubjectAccessReview,
// SubjectAccessReview, SelfSubjectRulesReview, SelfSubjectReview); 415 for other kinds (or a body
// holding a field api/protobuf.h keeps opaque), 400 for malformed input.
Result<std::string> ProtobufToJson(std::string_view body);

}  // namespace allot::apiserver
