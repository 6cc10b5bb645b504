// Whether one set of RBAC rules grants at least everything another does: the comparison behind
// privilege-escalation prevention (admission/rbac_escalation.h), with the semantics of
// Kubernetes' component-helpers/auth/rbac/validation (Covers, BreakdownRule) and
// pkg/registry/rbac/validation (CompactRules), in behaviour.
//
// A rule is broken down into atoms of one apiGroup, one resource, one verb and at most one
// resourceName (or one nonResourceURL and one verb); the owner covers the servant when every atom
// is covered by a single owner rule. An owner rule covers an atom when
//   verbs          it has "*" or the verb,
//   apiGroups      it has "*" or the group,
//   resources      it has "*", the resource itself, or "*/sub" for a subresource "res/sub"
//                  (a servant's "*" needs the owner's "*"; "pods" does not cover "pods/status"),
//   resourceNames  it names none (every name), or the atom's; an atom without names (every
//                  name) needs an owner rule without names,
//   nonResourceURLs  it has the URL, or a prefix ending in "*" ("/apis/*" covers "/apis/v1" but
//                  not "/apis").
// Wildcards in the servant are literal: only the same wildcard covers them.
#pragma once

#include <string>
#include <vector>

#include "api/rbac/rbac.h"

namespace allot::apiserver::authz {

using api::PolicyRule;

// `rule` as atoms, in the order group, resource, verb, name; then URLs by verb.
std::vector<PolicyRule> BreakdownRule(const PolicyRule& rule);

// Whether `owner` covers `servant`. `uncovered` (may be null) receives the atoms no owner rule
// covers, in the servant's order.
bool Covers(const std::vector<PolicyRule>& owner, const std::vector<PolicyRule>& servant,
            std::vector<PolicyRule>* uncovered = nullptr);

// Merges rules of exactly one apiGroup, one resource and at most one resourceName (and nothing
// else) that differ only in their verbs, so that a list of uncovered atoms reads as a few rules.
// The other rules come first, as they were; the merged ones after them, in first-seen order.
std::vector<PolicyRule> CompactRules(const std::vector<PolicyRule>& rules);

// A rule as Kubernetes writes it in escalation messages (rbacv1helpers.CompactString): only the
// fields that are set, each a Go %q list:
//   {APIGroups:["apps"], Resources:["deployments"], ResourceNames:["web"], Verbs:["get"]}
//   {NonResourceURLs:["/metrics"], Verbs:["get"]}
std::string CompactString(const PolicyRule& rule);

}  // namespace allot::apiserver::authz
