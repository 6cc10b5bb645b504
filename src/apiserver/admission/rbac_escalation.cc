#include "apiserver/admission/rbac_escalation.h"

#include <algorithm>

#include "api/machinery/validation.h"
#include "api/rbac/rbac.h"
#include "apiserver/authz/authorizer.h"
#include "apiserver/authz/rule_coverage.h"

namespace allot::apiserver::admission {

namespace {

using api::PolicyRule;

// What setting an aggregationRule needs, since it may gather anything: everything.
const std::vector<PolicyRule>& FullAuthority() {
  static const std::vector<PolicyRule> all{PolicyRule{{"*"}, {"*"}, {"*"}, {}, {}},
                                           PolicyRule{{"*"}, {}, {}, {}, {"*"}}};
  return all;
}

bool InMasters(const authn::UserInfo& user) {
  return std::find(user.groups.begin(), user.groups.end(), authz::kMastersGroup) !=
         user.groups.end();
}

// Whether `obj` differs from `old` only in what the garbage collector writes (finalizers,
// ownerReferences) and in selfLink and managedFields, which the server keeps on its own.
template <class T>
bool OnlyGcFieldsChanged(const api::Object& old, const api::Object& obj) {
  const T& before = static_cast<const T&>(old);
  T after = static_cast<const T&>(obj);
  after.metadata.ownerReferences = before.metadata.ownerReferences;
  after.metadata.finalizers = before.metadata.finalizers;
  after.metadata.rare.set(&api::ObjectMetaRare::selfLink, before.metadata.rare->selfLink);
  after.metadata.rare.set(&api::ObjectMetaRare::managedFields,
                          before.metadata.rare->managedFields);
  return after == before;
}

std::string QualifiedResource(const authz::Attributes& a) {
  return a.resource + "." + a.api_group;
}

}  // namespace

std::optional<RbacEscalationGuard> RbacEscalationGuard::For(const authz::Attributes& a,
                                                            const authz::RbacAuthorizer& rbac) {
  if (!a.resource_request || a.api_group != api::kRbacGroup || !a.subresource.empty()) {
    return std::nullopt;
  }
  if (a.verb != "create" && a.verb != "update" && a.verb != "patch") return std::nullopt;
  Kind kind;
  if (a.resource == "roles") {
    kind = Kind::kRole;
  } else if (a.resource == "clusterroles") {
    kind = Kind::kClusterRole;
  } else if (a.resource == "rolebindings") {
    kind = Kind::kRoleBinding;
  } else if (a.resource == "clusterrolebindings") {
    kind = Kind::kClusterRoleBinding;
  } else {
    return std::nullopt;
  }
  // system:masters is the server's own trusted group: it may grant anything.
  if (InMasters(a.user)) return std::nullopt;
  authz::RbacPolicy policy = rbac.Snapshot();
  bool may_escalate = false;
  if (kind == Kind::kRole || kind == Kind::kClusterRole) {
    authz::Attributes escalate = a;
    escalate.verb = "escalate";
    escalate.api_version = "*";
    may_escalate = policy.Allows(escalate);
  }
  return RbacEscalationGuard(kind, a, std::move(policy), may_escalate);
}

Status RbacEscalationGuard::CheckWrite(const api::Object* old, const api::Object& obj) const {
  switch (kind_) {
    case Kind::kRole:
    case Kind::kClusterRole:
      return CheckRole(old, obj);
    case Kind::kRoleBinding:
      if (old && OnlyGcFieldsChanged<api::RoleBinding>(*old, obj)) return Status::Ok();
      return CheckBinding(obj);
    case Kind::kClusterRoleBinding:
      if (old && OnlyGcFieldsChanged<api::ClusterRoleBinding>(*old, obj)) return Status::Ok();
      return CheckBinding(obj);
  }
  return Status::Ok();
}

Status RbacEscalationGuard::CheckRole(const api::Object* old, const api::Object& obj) const {
  if (may_escalate_) return Status::Ok();
  if (kind_ == Kind::kRole) {
    if (old && OnlyGcFieldsChanged<api::Role>(*old, obj)) return Status::Ok();
    return CheckHolds(static_cast<const api::Role&>(obj).rules, obj);
  }
  if (old && OnlyGcFieldsChanged<api::ClusterRole>(*old, obj)) return Status::Ok();
  const auto& role = static_cast<const api::ClusterRole&>(obj);
  ALLOT_RETURN_IF_ERROR(CheckHolds(role.rules, obj));
  const bool aggregated = role.Aggregates() ||
                          (old && static_cast<const api::ClusterRole&>(*old).Aggregates());
  if (aggregated && !authz::Covers(policy_.RulesFor(request_.user, ""), FullAuthority())) {
    return ForbiddenError(QualifiedResource(request_), obj.metadata.name,
                          "must have cluster-admin privileges to use the aggregationRule");
  }
  return Status::Ok();
}

Status RbacEscalationGuard::CheckBinding(const api::Object& obj) const {
  const api::RoleRef& ref = kind_ == Kind::kRoleBinding
                                ? static_cast<const api::RoleBinding&>(obj).roleRef
                                : static_cast<const api::ClusterRoleBinding&>(obj).roleRef;
  const std::string& ns = request_.namespace_;
  // `bind` on the role, checked in the binding's namespace: a delegate may be allowed to bind
  // particular roles in particular namespaces.
  authz::Attributes bind;
  bind.user = request_.user;
  bind.verb = "bind";
  bind.resource_request = true;
  bind.namespace_ = ns;
  bind.api_group = ref.apiGroup;
  bind.api_version = "*";
  bind.name = ref.name;
  if (ref.kind == "ClusterRole") {
    bind.resource = "clusterroles";
  } else if (ref.kind == "Role") {
    bind.resource = "roles";
  }
  if (!bind.resource.empty() && policy_.Allows(bind)) return Status::Ok();
  ALLOT_ASSIGN_OR_RETURN(std::vector<PolicyRule> rules, policy_.RoleReferenceRules(ref, ns));
  return CheckHolds(rules, obj);
}

Status RbacEscalationGuard::CheckHolds(const std::vector<PolicyRule>& rules,
                                       const api::Object& obj) const {
  std::vector<PolicyRule> missing;
  if (authz::Covers(policy_.RulesFor(request_.user, request_.namespace_), rules, &missing)) {
    return Status::Ok();
  }
  std::vector<std::string> lines;
  for (const PolicyRule& r : authz::CompactRules(missing)) lines.push_back(authz::CompactString(r));
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  std::string why = "user " + api::Quote(request_.user.name) +
                    " (groups=" + api::GoQuotedList(request_.user.groups) +
                    ") is attempting to grant RBAC permissions not currently held:";
  for (const std::string& line : lines) why += "\n" + line;
  return ForbiddenError(QualifiedResource(request_), obj.metadata.name, why);
}

}  // namespace allot::apiserver::admission
