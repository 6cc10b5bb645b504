// The roles and bindings the server creates at startup when they are missing (Kubernetes'
// bootstrap policy, in Allot's terms; docs/security.md, Authorization):
//
//   cluster-admin                   everything; bound to the group system:masters
//   system:discovery                discovery, OpenAPI, /version, health; system:authenticated
//   system:basic-user               who am I and what may I do (self reviews); authenticated
//   system:public-info-viewer       /version and health; authenticated and unauthenticated
//   system:kube-scheduler           what `allot scheduler` reads and writes: pods, bindings,
//                                   claims' status, PodSchedulingContexts, reservations,
//                                   its lease; bound to the user system:kube-scheduler
//   system:kube-controller-manager  what `allot controllers` reads and writes (claims from
//                                   templates, disruption budgets, reservations, garbage
//                                   collection); bound to the user system:kube-controller-manager
//   system:node                     what a node (node-sim, the kubelet's part) needs; bound to
//                                   the group system:nodes, each node then held to its own
//                                   objects (apiserver/admission/restriction.h)
//   system:dra-driver               what a DRA driver needs (its ResourceSlices, claim status,
//                                   PodSchedulingContexts of KEP-3063); bound to the group
//                                   system:dra-drivers, each driver then held to its own
//                                   driver name
#pragma once

#include <string_view>
#include <vector>

#include "api/machinery/object.h"

namespace allot::api {

inline constexpr std::string_view kNodesGroup = "system:nodes";
inline constexpr std::string_view kNodeUserPrefix = "system:node:";
inline constexpr std::string_view kDriversGroup = "system:dra-drivers";
inline constexpr std::string_view kDriverUserPrefix = "system:dra-driver:";
inline constexpr std::string_view kSchedulerUser = "system:kube-scheduler";
inline constexpr std::string_view kControllerManagerUser = "system:kube-controller-manager";

std::vector<ObjectPtr> BootstrapClusterRoles();
std::vector<ObjectPtr> BootstrapClusterRoleBindings();

}  // namespace allot::api
