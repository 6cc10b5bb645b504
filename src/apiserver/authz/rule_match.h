// Whether an RBAC PolicyRule covers a request, with Kubernetes' matching rules
// (pkg/apis/rbac/v1/evaluation_helpers.go, in behaviour):
//   verbs            "*" or the verb
//   apiGroups        "*" or the group ("" is the core group)
//   resources        "*", the resource, "resource/subresource", or "*/subresource"; a rule that
//                    names only "pods" does not cover "pods/status"
//   resourceNames    empty: every name; else the request's name must be listed (so a rule with
//                    names never covers list, watch, create or deletecollection, which have none)
//   nonResourceURLs  "*", the path, or a prefix ending in "*" ("/healthz/*", "/apis/*")
#pragma once

#include <string>
#include <vector>

#include "api/rbac/rbac.h"
#include "apiserver/authz/attributes.h"

namespace allot::apiserver::authz {

using api::PolicyRule;

bool RuleAllows(const Attributes& request, const PolicyRule& rule);

}  // namespace allot::apiserver::authz
