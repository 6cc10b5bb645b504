#include "api/rbac/bootstrap_policy.h"

#include <memory>
#include <string>

#include "api/rbac/rbac.h"

namespace allot::api {

namespace {

using Strings = std::vector<std::string>;

const Strings kRead = {"get", "list", "watch"};
const Strings kWriteStatus = {"update", "patch"};
const Strings kEventVerbs = {"create", "patch", "update"};
const std::string kResourceGroup = "resource.k8s.io";
const std::string kCoordinationGroup = "coordination.k8s.io";
const std::string kKoordinatorGroup = "scheduling.koordinator.sh";

PolicyRule Rule(Strings verbs, Strings groups, Strings resources, Strings names = {}) {
  return PolicyRule{
      std::move(verbs), std::move(groups), std::move(resources), std::move(names), {}};
}

PolicyRule UrlRule(Strings verbs, Strings urls) {
  return PolicyRule{std::move(verbs), {}, {}, {}, std::move(urls)};
}

Strings Concat(Strings a, const Strings& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

ObjectPtr ClusterRoleOf(std::string name, std::vector<PolicyRule> rules) {
  auto r = std::make_shared<ClusterRole>();
  r->metadata.name = std::move(name);
  r->metadata.labels["kubernetes.io/bootstrapping"] = "rbac-defaults";
  r->metadata.annotations["rbac.authorization.kubernetes.io/autoupdate"] = "true";
  r->rules = std::move(rules);
  return r;
}

ObjectPtr BindingOf(std::string name, std::string role, std::vector<Subject> subjects) {
  auto b = std::make_shared<ClusterRoleBinding>();
  b->metadata.name = std::move(name);
  b->metadata.labels["kubernetes.io/bootstrapping"] = "rbac-defaults";
  b->metadata.annotations["rbac.authorization.kubernetes.io/autoupdate"] = "true";
  b->roleRef = RoleRef{std::string(kRbacGroup), "ClusterRole", std::move(role)};
  b->subjects = std::move(subjects);
  return b;
}

Subject Group(std::string_view name) {
  return Subject{"Group", std::string(kRbacGroup), std::string(name), ""};
}
Subject User(std::string_view name) {
  return Subject{"User", std::string(kRbacGroup), std::string(name), ""};
}

// Scheduling: what kube-scheduler's bootstrap role grants for the kinds Allot serves, plus
// Koordinator's reservations and the KEP-3063 PodSchedulingContexts it negotiates through.
std::vector<PolicyRule> SchedulerRules() {
  return {
      Rule(kEventVerbs, {""}, {"events"}),
      Rule({"create"}, {kCoordinationGroup}, {"leases"}),
      Rule({"get", "update"}, {kCoordinationGroup}, {"leases"}, {"allot-scheduler"}),
      Rule(kRead, {""}, {"nodes", "namespaces"}),
      Rule(Concat(kRead, {"delete"}), {""}, {"pods"}),  // delete: preemption's victims
      Rule({"create"}, {""}, {"pods/binding"}),
      Rule(kWriteStatus, {""}, {"pods/status"}),
      Rule(kRead, {"policy"}, {"poddisruptionbudgets"}),
      // What kube-scheduler's informers read: things that select pods, volumes and the CSI
      // objects behind them, the access-check reviews it may send.
      Rule(kRead, {""}, {"services", "replicationcontrollers"}),
      Rule(kRead, {"apps", "extensions"}, {"replicasets"}),
      Rule(kRead, {"apps"}, {"statefulsets"}),
      Rule(kRead, {""}, {"persistentvolumeclaims", "persistentvolumes"}),
      Rule({"create"}, {"authentication.k8s.io"}, {"tokenreviews"}),
      Rule({"create"}, {"authorization.k8s.io"}, {"subjectaccessreviews"}),
      Rule(kRead, {"storage.k8s.io"}, {"csinodes", "csidrivers", "csistoragecapacities"}),
      Rule({"get", "list", "watch"}, {"storage.k8s.io"}, {"volumeattachments"}),
      Rule(kEventVerbs, {"events.k8s.io"}, {"events"}),
      Rule({"get", "update", "list", "watch"}, {kCoordinationGroup}, {"leases"},
           {"kube-scheduler"}),
      Rule({"update"}, {""}, {"pods/finalizers"}),
      Rule(kRead, {kResourceGroup}, {"resourceclaims", "deviceclasses", "resourceslices",
                                     "devicetaintrules"}),
      Rule({"update", "patch"}, {kResourceGroup}, {"resourceclaims"}),  // its finalizer
      Rule(kWriteStatus, {kResourceGroup}, {"resourceclaims/status"}),
      Rule(Concat(kRead, {"create", "update", "patch", "delete"}), {kResourceGroup},
           {"podschedulingcontexts"}),
      Rule(Concat(kRead, {"update", "patch"}), {kKoordinatorGroup}, {"reservations"}),
      Rule(kWriteStatus, {kKoordinatorGroup}, {"reservations/status"}),
  };
}

// Allot's controllers: claims from templates and their deallocation, disruption budgets'
// status, reservations' lifecycle, and the garbage collector (which reads everything).
std::vector<PolicyRule> ControllerManagerRules() {
  return {
      Rule(kRead, {"*"}, {"*"}),
      Rule(kEventVerbs, {""}, {"events"}),
      Rule({"create"}, {kCoordinationGroup}, {"leases"}),
      Rule({"get", "update"}, {kCoordinationGroup}, {"leases"}, {"allot-controller-manager"}),
      Rule({"update", "patch", "delete"}, {""}, {"pods"}),
      Rule(kWriteStatus, {""}, {"pods/status"}),
      Rule({"create", "update", "patch", "delete"}, {kResourceGroup}, {"resourceclaims"}),
      Rule(kWriteStatus, {kResourceGroup}, {"resourceclaims/status"}),
      // A bound pod whose control-plane claim is still unallocated gets its context here.
      Rule({"create", "update", "patch", "delete"}, {kResourceGroup}, {"podschedulingcontexts"}),
      Rule(kWriteStatus, {"policy"}, {"poddisruptionbudgets/status"}),
      Rule({"create", "update", "patch", "delete"}, {kKoordinatorGroup}, {"reservations"}),
      Rule(kWriteStatus, {kKoordinatorGroup}, {"reservations/status"}),
      // The clusterrole-aggregation controller writes rules it does not hold itself.
      Rule({"update", "patch", "escalate"}, {std::string(kRbacGroup)}, {"clusterroles"}),
  };
}

// A node: its Node and Lease, its pods' status, its ResourceSlices — the restriction checks
// narrow each write to the node's own objects.
std::vector<PolicyRule> NodeRules() {
  return {
      Rule(Concat(kRead, {"create", "update", "patch", "delete"}), {""}, {"nodes"}),
      Rule(kWriteStatus, {""}, {"nodes/status"}),
      Rule(Concat(kRead, {"delete"}), {""}, {"pods"}),
      Rule(kWriteStatus, {""}, {"pods/status"}),
      Rule(kEventVerbs, {""}, {"events"}),
      Rule({"get"}, {""}, {"namespaces"}),
      Rule({"get", "create", "update", "patch", "delete"}, {kCoordinationGroup}, {"leases"}),
      Rule(kRead, {kResourceGroup}, {"resourceclaims", "deviceclasses"}),
      Rule(Concat(kRead, {"create", "update", "patch", "delete", "deletecollection"}),
           {kResourceGroup}, {"resourceslices"}),
  };
}

// A DRA driver: its ResourceSlices, its entries in claims' status, and what a KEP-3063
// control-plane controller negotiates with; the restriction checks narrow each write to the
// driver's own name.
std::vector<PolicyRule> DriverRules() {
  return {
      Rule(Concat(kRead, {"create", "update", "patch", "delete", "deletecollection"}),
           {kResourceGroup}, {"resourceslices"}),
      Rule(kRead, {kResourceGroup}, {"resourceclaims", "deviceclasses", "podschedulingcontexts"}),
      Rule(kWriteStatus, {kResourceGroup},
           {"resourceclaims/status", "podschedulingcontexts/status"}),
      Rule({"update", "patch"}, {kResourceGroup}, {"resourceclaims"}),  // its finalizer
      Rule(kRead, {""}, {"nodes", "pods"}),
      Rule(kEventVerbs, {""}, {"events"}),
      Rule({"get", "create", "update"}, {kCoordinationGroup}, {"leases"}),
  };
}

const Strings kDiscoveryUrls = {"/api",     "/api/*",   "/apis",    "/apis/*",
                                "/healthz", "/livez",   "/openapi", "/openapi/*",
                                "/readyz",  "/version", "/version/"};
const Strings kPublicInfoUrls = {"/healthz", "/livez", "/readyz", "/version", "/version/"};

}  // namespace

std::vector<ObjectPtr> BootstrapClusterRoles() {
  return {
      ClusterRoleOf("cluster-admin", {Rule({"*"}, {"*"}, {"*"}), UrlRule({"*"}, {"*"})}),
      ClusterRoleOf("system:discovery", {UrlRule({"get"}, kDiscoveryUrls)}),
      ClusterRoleOf("system:public-info-viewer", {UrlRule({"get"}, kPublicInfoUrls)}),
      ClusterRoleOf("system:basic-user",
                    {Rule({"create"}, {"authorization.k8s.io"},
                          {"selfsubjectaccessreviews", "selfsubjectrulesreviews"}),
                     Rule({"create"}, {"authentication.k8s.io"}, {"selfsubjectreviews"})}),
      ClusterRoleOf(std::string(kSchedulerUser), SchedulerRules()),
      // Volume binding's part of scheduling, bound to the scheduler as upstream does.
      ClusterRoleOf("system:volume-scheduler",
                    {Rule(Concat(kRead, {"update", "patch"}), {""}, {"persistentvolumes"}),
                     Rule(kRead, {"storage.k8s.io"}, {"storageclasses"}),
                     Rule(Concat(kRead, {"update", "patch"}), {""}, {"persistentvolumeclaims"})}),
      ClusterRoleOf(std::string(kControllerManagerUser), ControllerManagerRules()),
      ClusterRoleOf("system:node", NodeRules()),
      ClusterRoleOf("system:dra-driver", DriverRules()),
  };
}

std::vector<ObjectPtr> BootstrapClusterRoleBindings() {
  const std::string_view authenticated = "system:authenticated";
  return {
      BindingOf("cluster-admin", "cluster-admin", {Group("system:masters")}),
      BindingOf("system:discovery", "system:discovery", {Group(authenticated)}),
      BindingOf("system:public-info-viewer", "system:public-info-viewer",
                {Group(authenticated), Group("system:unauthenticated")}),
      BindingOf("system:basic-user", "system:basic-user", {Group(authenticated)}),
      BindingOf(std::string(kSchedulerUser), std::string(kSchedulerUser), {User(kSchedulerUser)}),
      BindingOf("system:volume-scheduler", "system:volume-scheduler", {User(kSchedulerUser)}),
      BindingOf(std::string(kControllerManagerUser), std::string(kControllerManagerUser),
                {User(kControllerManagerUser)}),
      BindingOf("system:node", "system:node", {Group(kNodesGroup)}),
      BindingOf("system:dra-driver", "system:dra-driver", {Group(kDriversGroup)}),
  };
}

}  // namespace allot::api
