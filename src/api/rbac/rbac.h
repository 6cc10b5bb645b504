// rbac.authorization.k8s.io/v1 (k8s.io/api/rbac/v1): Role and ClusterRole (sets of PolicyRules),
// RoleBinding and ClusterRoleBinding (which subjects — users, groups, service accounts — hold
// a role). Roles and RoleBindings are namespaced; a RoleBinding may name a ClusterRole to grant
// its rules within its namespace. A ClusterRole with an aggregationRule has its rules filled in by
// the clusterrole-aggregation controller (controllers/rbac/) from the ClusterRoles its selectors
// match.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/object.h"
#include "api/machinery/validation.h"

namespace allot::api {

inline constexpr std::string_view kRbacGroup = "rbac.authorization.k8s.io";

struct PolicyRule {
  std::vector<std::string> verbs;
  std::vector<std::string> apiGroups;
  std::vector<std::string> resources;
  std::vector<std::string> resourceNames;
  std::vector<std::string> nonResourceURLs;
  template <class V>
  void Visit(V& v) {
    v("verbs", verbs, {.always = true, .required = true});
    v("apiGroups", apiGroups);
    v("resources", resources);
    v("resourceNames", resourceNames);
    v("nonResourceURLs", nonResourceURLs);
  }
  bool operator==(const PolicyRule&) const = default;
};

// Kind "User" | "Group" (apiGroup rbac.authorization.k8s.io) | "ServiceAccount" (apiGroup "",
// with a namespace).
struct Subject {
  std::string kind;
  std::string apiGroup;
  std::string name;
  std::string namespace_;
  template <class V>
  void Visit(V& v) {
    v("kind", kind, {.always = true, .required = true});
    v("apiGroup", apiGroup);
    v("name", name, {.always = true, .required = true});
    v("namespace", namespace_);
  }
  bool operator==(const Subject&) const = default;
};

struct RoleRef {
  std::string apiGroup;
  std::string kind;  // Role | ClusterRole
  std::string name;
  template <class V>
  void Visit(V& v) {
    v("apiGroup", apiGroup, {.always = true, .required = true});
    v("kind", kind, {.always = true, .required = true});
    v("name", name, {.always = true, .required = true});
  }
  bool operator==(const RoleRef&) const = default;
};

struct Role : TypedObject<Role> {
  static const TypeInfo& Type();
  std::vector<PolicyRule> rules;
  template <class V>
  void Visit(V& v) {
    v("metadata", metadata);
    v("rules", rules);
  }
  bool operator==(const Role& o) const { return metadata == o.metadata && rules == o.rules; }
};

// Which ClusterRoles an aggregated ClusterRole gathers its rules from: those whose labels match
// any of the selectors.
struct AggregationRule {
  std::vector<LabelSelector> clusterRoleSelectors;
  template <class V>
  void Visit(V& v) {
    v("clusterRoleSelectors", clusterRoleSelectors);
  }
  bool operator==(const AggregationRule&) const = default;
};

struct ClusterRole : TypedObject<ClusterRole> {
  static const TypeInfo& Type();
  std::vector<PolicyRule> rules;
  std::optional<AggregationRule> aggregationRule;
  template <class V>
  void Visit(V& v) {
    v("metadata", metadata);
    v("rules", rules);
    v("aggregationRule", aggregationRule);
  }
  bool operator==(const ClusterRole& o) const {
    return metadata == o.metadata && rules == o.rules && aggregationRule == o.aggregationRule;
  }
  // Whether it gathers rules from others (an aggregationRule with at least one selector).
  bool Aggregates() const {
    return aggregationRule && !aggregationRule->clusterRoleSelectors.empty();
  }
};

struct RoleBinding : TypedObject<RoleBinding> {
  static const TypeInfo& Type();
  std::vector<Subject> subjects;
  RoleRef roleRef;
  template <class V>
  void Visit(V& v) {
    v("metadata", metadata);
    v("subjects", subjects);
    v("roleRef", roleRef, {.always = true, .required = true});
  }
  bool operator==(const RoleBinding& o) const {
    return metadata == o.metadata && subjects == o.subjects && roleRef == o.roleRef;
  }
};

struct ClusterRoleBinding : TypedObject<ClusterRoleBinding> {
  static const TypeInfo& Type();
  std::vector<Subject> subjects;
  RoleRef roleRef;
  template <class V>
  void Visit(V& v) {
    v("metadata", metadata);
    v("subjects", subjects);
    v("roleRef", roleRef, {.always = true, .required = true});
  }
  bool operator==(const ClusterRoleBinding& o) const {
    return metadata == o.metadata && subjects == o.subjects && roleRef == o.roleRef;
  }
};

// Subjects' apiGroup (rbac.authorization.k8s.io for User and Group, "" for ServiceAccount) and
// roleRef.apiGroup when unset, as the v1 defaults.
void SetRoleBindingDefaults(RoleBinding& b);
void SetClusterRoleBindingDefaults(ClusterRoleBinding& b);

// Kubernetes' rbac validation: names are path segments; every rule has verbs; a rule is either
// about resources (apiGroups and resources required) or non-resource URLs (cluster roles only,
// nothing else with them); roleRef names rbac.authorization.k8s.io, a Role or ClusterRole
// (ClusterRole only for a ClusterRoleBinding) and a name; subjects are User, Group or
// ServiceAccount with the right apiGroup (a ServiceAccount of a ClusterRoleBinding needs a
// namespace); roleRef may not change; an aggregationRule has at least one valid selector.
void ValidateRole(const Role& r, FieldErrors& errs);
void ValidateRoleUpdate(const Role& r, const Role& old, FieldErrors& errs);
void ValidateClusterRole(const ClusterRole& r, FieldErrors& errs);
void ValidateClusterRoleUpdate(const ClusterRole& r, const ClusterRole& old, FieldErrors& errs);
void ValidateRoleBinding(const RoleBinding& b, FieldErrors& errs);
void ValidateRoleBindingUpdate(const RoleBinding& b, const RoleBinding& old, FieldErrors& errs);
void ValidateClusterRoleBinding(const ClusterRoleBinding& b, FieldErrors& errs);
void ValidateClusterRoleBindingUpdate(const ClusterRoleBinding& b, const ClusterRoleBinding& old,
                                      FieldErrors& errs);

}  // namespace allot::api
