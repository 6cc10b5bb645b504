// Privilege-escalation prevention for RBAC writes, as kube-apiserver's RBAC storage does it: a
// user may grant through a Role, ClusterRole or binding only what it already holds, unless it is
// trusted to grant more.
//
//   Role, ClusterRole (create, update, patch, apply)
//     allowed when the user holds the verb `escalate` on that role (roles or clusterroles of
//     rbac.authorization.k8s.io, with the request's name and namespace), or holds every
//     permission the new rules grant: in the role's namespace (cluster-wide grants and that
//     namespace's), or cluster-wide for a ClusterRole. Setting, changing or removing a
//     ClusterRole's aggregationRule (it may gather anything) needs `*` on every resource and URL
//     besides ("must have cluster-admin privileges to use the aggregationRule").
//   RoleBinding, ClusterRoleBinding (create, update, patch, apply)
//     allowed when the user holds `bind` on the referenced role (resource roles or clusterroles,
//     its name, in the binding's namespace; cluster scope for a ClusterRoleBinding), or holds
//     every permission of that role in the binding's scope. A binding to a role that does not
//     exist is then refused with the role's 404, as kube-apiserver answers.
//   An update that changes nothing but the fields the garbage collector writes (finalizers,
//   ownerReferences, managedFields) is never checked; neither are members of system:masters,
//   nor writes made inside the server (the bootstrap policy, the aggregation controller's
//   in-process client, which do not pass through the handler).
//
// A refusal is kube-apiserver's 403:
//   clusterroles.rbac.authorization.k8s.io "esc" is forbidden: user "u"
//   (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently
//   held:
//   {APIGroups:["*"], Resources:["*"], Verbs:["*"]}
// (each missing permission on a line of its own, compacted and sorted).
//
// A guard is made on the request's thread, where it takes the policy as of the request
// (authz/rbac_authorizer.h) and decides `escalate`; CheckWrite only compares rules against that
// snapshot, so it may run inside the store's compare-and-swap.
#pragma once

#include <optional>

#include "api/machinery/object.h"
#include "apiserver/authz/attributes.h"
#include "apiserver/authz/rbac_authorizer.h"
#include "common/status.h"

namespace allot::apiserver::admission {

class RbacEscalationGuard {
 public:
  // The guard for `request` when it writes a role or binding (create, update or patch of the
  // main resource) and its user is not a member of system:masters; nullopt otherwise.
  static std::optional<RbacEscalationGuard> For(const authz::Attributes& request,
                                                const authz::RbacAuthorizer& rbac);

  // The verdict on writing `obj` over `old` (null for a create).
  Status CheckWrite(const api::Object* old, const api::Object& obj) const;

 private:
  enum class Kind { kRole, kClusterRole, kRoleBinding, kClusterRoleBinding };
  RbacEscalationGuard(Kind kind, const authz::Attributes& request, authz::RbacPolicy policy,
                      bool may_escalate)
      : kind_(kind), request_(request), policy_(std::move(policy)), may_escalate_(may_escalate) {}

  Status CheckRole(const api::Object* old, const api::Object& obj) const;
  Status CheckBinding(const api::Object& obj) const;
  // OK when the user holds every permission of `rules` in the request's scope; else the 403.
  Status CheckHolds(const std::vector<api::PolicyRule>& rules, const api::Object& obj) const;

  Kind kind_;
  authz::Attributes request_;  // user, namespace, resource and name of the write
  authz::RbacPolicy policy_;
  bool may_escalate_;  // `escalate` on this role (roles and clusterroles only)
};

}  // namespace allot::apiserver::admission
