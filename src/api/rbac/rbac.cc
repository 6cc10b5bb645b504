#include "api/rbac/rbac.h"

#include "api/machinery/meta_validation.h"
#include "api/machinery/reflect.h"

namespace allot::api {

ALLOT_DEFINE_TYPE(Role, "rbac.authorization.k8s.io", "v1", "Role")
ALLOT_DEFINE_TYPE(ClusterRole, "rbac.authorization.k8s.io", "v1", "ClusterRole")
ALLOT_DEFINE_TYPE(RoleBinding, "rbac.authorization.k8s.io", "v1", "RoleBinding")
ALLOT_DEFINE_TYPE(ClusterRoleBinding, "rbac.authorization.k8s.io", "v1", "ClusterRoleBinding")

namespace {

constexpr std::string_view kServiceAccount = "ServiceAccount";
constexpr std::string_view kUser = "User";
constexpr std::string_view kGroup = "Group";

void DefaultSubjects(std::vector<Subject>& subjects, RoleRef& ref) {
  for (Subject& s : subjects) {
    if (!s.apiGroup.empty()) continue;
    if (s.kind == kUser || s.kind == kGroup) s.apiGroup = std::string(kRbacGroup);
  }
  if (ref.apiGroup.empty()) ref.apiGroup = std::string(kRbacGroup);
}

void ValidateRule(const PolicyRule& rule, bool namespaced, const Path& p, FieldErrors& errs) {
  if (rule.verbs.empty()) errs.Required(p.Child("verbs"), "verbs must contain at least one value");
  if (!rule.nonResourceURLs.empty()) {
    if (namespaced) {
      errs.InvalidRendered(p.Child("nonResourceURLs"), GoStringSlice(rule.nonResourceURLs),
                           "namespaced rules cannot apply to non-resource URLs");
    }
    if (!rule.apiGroups.empty() || !rule.resources.empty() || !rule.resourceNames.empty()) {
      errs.InvalidRendered(p.Child("nonResourceURLs"), GoStringSlice(rule.nonResourceURLs),
                           "rules cannot apply to both regular resources and non-resource URLs");
    }
    return;
  }
  if (rule.apiGroups.empty()) {
    errs.Required(p.Child("apiGroups"), "resource rules must supply at least one api group");
  }
  if (rule.resources.empty()) {
    errs.Required(p.Child("resources"), "resource rules must supply at least one resource");
  }
}

void ValidateRules(const std::vector<PolicyRule>& rules, bool namespaced, FieldErrors& errs) {
  for (size_t i = 0; i < rules.size(); ++i) {
    ValidateRule(rules[i], namespaced, Path("rules").Index(i), errs);
  }
}

void ValidateSubject(const Subject& s, bool namespaced, const Path& p, FieldErrors& errs) {
  if (s.name.empty()) errs.Required(p.Child("name"));
  if (s.kind == kServiceAccount) {
    if (!s.name.empty()) {
      for (const std::string& msg : NameIsDnsSubdomain(s.name, false)) {
        errs.Invalid(p.Child("name"), s.name, msg);
      }
    }
    if (!s.apiGroup.empty()) errs.NotSupported(p.Child("apiGroup"), s.apiGroup, {""});
    if (!namespaced && s.namespace_.empty()) errs.Required(p.Child("namespace"));
  } else if (s.kind == kUser || s.kind == kGroup) {
    if (s.apiGroup != kRbacGroup) errs.NotSupported(p.Child("apiGroup"), s.apiGroup, {kRbacGroup});
  } else {
    errs.NotSupported(p.Child("kind"), s.kind, {kServiceAccount, kUser, kGroup});
  }
}

void ValidateBinding(const RoleRef& ref, const std::vector<Subject>& subjects, bool namespaced,
                     FieldErrors& errs) {
  const Path role_ref("roleRef");
  if (ref.apiGroup != kRbacGroup) {
    errs.NotSupported(role_ref.Child("apiGroup"), ref.apiGroup, {kRbacGroup});
  }
  if (namespaced) {
    if (ref.kind != "Role" && ref.kind != "ClusterRole") {
      errs.NotSupported(role_ref.Child("kind"), ref.kind, {"Role", "ClusterRole"});
    }
  } else if (ref.kind != "ClusterRole") {
    errs.NotSupported(role_ref.Child("kind"), ref.kind, {"ClusterRole"});
  }
  if (ref.name.empty()) {
    errs.Required(role_ref.Child("name"));
  } else {
    for (const std::string& msg : NameIsPathSegment(ref.name, false)) {
      errs.Invalid(role_ref.Child("name"), ref.name, msg);
    }
  }
  for (size_t i = 0; i < subjects.size(); ++i) {
    ValidateSubject(subjects[i], namespaced, Path("subjects").Index(i), errs);
  }
}

void ValidateRoleRefUnchanged(const RoleRef& ref, const RoleRef& old, FieldErrors& errs) {
  if (ref == old) return;
  errs.InvalidRendered(Path("roleRef"),
                       "rbac.RoleRef{APIGroup:" + Quote(ref.apiGroup) +
                           ", Kind:" + Quote(ref.kind) + ", Name:" + Quote(ref.name) + "}",
                       "cannot change roleRef");
}

}  // namespace

void SetRoleBindingDefaults(RoleBinding& b) { DefaultSubjects(b.subjects, b.roleRef); }
void SetClusterRoleBindingDefaults(ClusterRoleBinding& b) {
  DefaultSubjects(b.subjects, b.roleRef);
}

void ValidateRole(const Role& r, FieldErrors& errs) {
  ValidateObjectMeta(r.metadata, /*namespaced=*/true, NameIsPathSegment, errs);
  ValidateRules(r.rules, true, errs);
}
void ValidateRoleUpdate(const Role& r, const Role& old, FieldErrors& errs) {
  ValidateObjectMetaUpdate(r.metadata, old.metadata, errs);
  ValidateRole(r, errs);
}
void ValidateClusterRole(const ClusterRole& r, FieldErrors& errs) {
  ValidateObjectMeta(r.metadata, /*namespaced=*/false, NameIsPathSegment, errs);
  ValidateRules(r.rules, false, errs);
  if (!r.aggregationRule) return;
  const Path selectors = Path("aggregationRule").Child("clusterRoleSelectors");
  if (r.aggregationRule->clusterRoleSelectors.empty()) {
    errs.Required(selectors, "at least one clusterRoleSelector required if aggregationRule is non-nil");
  }
  for (size_t i = 0; i < r.aggregationRule->clusterRoleSelectors.size(); ++i) {
    ValidateLabelSelector(r.aggregationRule->clusterRoleSelectors[i], selectors.Index(i), errs);
  }
}
void ValidateClusterRoleUpdate(const ClusterRole& r, const ClusterRole& old, FieldErrors& errs) {
  ValidateObjectMetaUpdate(r.metadata, old.metadata, errs);
  ValidateClusterRole(r, errs);
}
void ValidateRoleBinding(const RoleBinding& b, FieldErrors& errs) {
  ValidateObjectMeta(b.metadata, /*namespaced=*/true, NameIsPathSegment, errs);
  ValidateBinding(b.roleRef, b.subjects, true, errs);
}
void ValidateRoleBindingUpdate(const RoleBinding& b, const RoleBinding& old, FieldErrors& errs) {
  ValidateObjectMetaUpdate(b.metadata, old.metadata, errs);
  ValidateRoleRefUnchanged(b.roleRef, old.roleRef, errs);
  ValidateRoleBinding(b, errs);
}
void ValidateClusterRoleBinding(const ClusterRoleBinding& b, FieldErrors& errs) {
  ValidateObjectMeta(b.metadata, /*namespaced=*/false, NameIsPathSegment, errs);
  ValidateBinding(b.roleRef, b.subjects, false, errs);
}
void ValidateClusterRoleBindingUpdate(const ClusterRoleBinding& b, const ClusterRoleBinding& old,
                                      FieldErrors& errs) {
  ValidateObjectMetaUpdate(b.metadata, old.metadata, errs);
  ValidateRoleRefUnchanged(b.roleRef, old.roleRef, errs);
  ValidateClusterRoleBinding(b, errs);
}

}  // namespace allot::api
