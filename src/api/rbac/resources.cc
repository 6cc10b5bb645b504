// Strategy for roles, clusterroles, rolebindings, clusterrolebindings
// (rbac.authorization.k8s.io/v1): kubectl's columns (NAME CREATED AT; NAME ROLE AGE [USERS
// GROUPS SERVICEACCOUNTS]), and the bootstrap policy created at startup (bootstrap_policy.h).
#include "api/machinery/resources.h"

#include "api/machinery/strategy_hooks.h"
#include "api/rbac/bootstrap_policy.h"
#include "api/rbac/rbac.h"

namespace allot::api {

namespace {

const char kCreatedAtDoc[] =
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created.";

std::vector<TableCell> CreatedAtRow(const Object& obj, Time) {
  return {obj.metadata.creationTimestamp ? obj.metadata.creationTimestamp->ToRfc3339()
                                         : std::string()};
}

std::string Join(const std::vector<Subject>& subjects, std::string_view kind, bool with_ns) {
  std::string out;
  for (const Subject& s : subjects) {
    if (s.kind != kind) continue;
    if (!out.empty()) out += ", ";
    if (with_ns) out += s.namespace_ + "/";
    out += s.name;
  }
  return out;
}

template <class Binding>
std::vector<TableCell> BindingRow(const Object& obj, Time now) {
  const auto& b = static_cast<const Binding&>(obj);
  return {b.roleRef.kind + "/" + b.roleRef.name, AgeCell(obj, now), Join(b.subjects, "User", false),
          Join(b.subjects, "Group", false), Join(b.subjects, "ServiceAccount", true)};
}

std::vector<TableColumn> RoleColumns() { return {{"Created At", "date", "", kCreatedAtDoc, 0}}; }

std::vector<TableColumn> BindingColumns() {
  return {{"Role", "string", "", "RoleRef is the reference to the role being bound.", 0},
          {"Age", "string", "", kCreatedAtDoc, 0},
          {"Users", "string", "", "Users in the binding", 1},
          {"Groups", "string", "", "Groups in the binding", 1},
          {"ServiceAccounts", "string", "", "ServiceAccounts in the binding", 1}};
}

ResourceInfo Base(std::string resource, std::string singular, const TypeInfo& type,
                  bool namespaced) {
  return NewResourceInfo(std::string(kRbacGroup), "v1", std::move(resource), std::move(singular),
                         type, namespaced);
}

}  // namespace

void RegisterRbacResources(ResourceRegistry& registry) {
  ResourceInfo roles = Base("roles", "role", Role::Type(), true);
  roles.validate = hooks::Validate<Role, ValidateRole>;
  roles.validate_update = hooks::ValidateUpdate<Role, ValidateRoleUpdate>;
  roles.columns = RoleColumns();
  roles.row = CreatedAtRow;
  registry.Add(std::move(roles));

  ResourceInfo cluster_roles = Base("clusterroles", "clusterrole", ClusterRole::Type(), false);
  cluster_roles.validate = hooks::Validate<ClusterRole, ValidateClusterRole>;
  cluster_roles.validate_update = hooks::ValidateUpdate<ClusterRole, ValidateClusterRoleUpdate>;
  cluster_roles.columns = RoleColumns();
  cluster_roles.row = CreatedAtRow;
  cluster_roles.bootstrap = BootstrapClusterRoles;
  registry.Add(std::move(cluster_roles));

  ResourceInfo bindings = Base("rolebindings", "rolebinding", RoleBinding::Type(), true);
  bindings.default_fn = hooks::Default<RoleBinding, SetRoleBindingDefaults>;
  bindings.validate = hooks::Validate<RoleBinding, ValidateRoleBinding>;
  bindings.validate_update = hooks::ValidateUpdate<RoleBinding, ValidateRoleBindingUpdate>;
  bindings.columns = BindingColumns();
  bindings.row = BindingRow<RoleBinding>;
  registry.Add(std::move(bindings));

  ResourceInfo cluster_bindings =
      Base("clusterrolebindings", "clusterrolebinding", ClusterRoleBinding::Type(), false);
  cluster_bindings.default_fn = hooks::Default<ClusterRoleBinding, SetClusterRoleBindingDefaults>;
  cluster_bindings.validate = hooks::Validate<ClusterRoleBinding, ValidateClusterRoleBinding>;
  cluster_bindings.validate_update =
      hooks::ValidateUpdate<ClusterRoleBinding, ValidateClusterRoleBindingUpdate>;
  cluster_bindings.columns = BindingColumns();
  cluster_bindings.row = BindingRow<ClusterRoleBinding>;
  cluster_bindings.bootstrap = BootstrapClusterRoleBindings;
  registry.Add(std::move(cluster_bindings));
}

}  // namespace allot::api
