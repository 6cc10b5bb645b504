// The in-tree plugins and their registry.
//
//   PrioritySort                     QueueSort: priority, then age
//   SchedulingGates                  PreEnqueue: holds pods with spec.schedulingGates
//   NodeUnschedulable                Filter: spec.unschedulable nodes
//   NodeName                         PreFilter/Filter: spec.nodeName
//   TaintToleration                  Filter (NoSchedule/NoExecute) + Score (PreferNoSchedule)
//   NodeAffinity                     PreFilter/Filter (nodeSelector, required) + Score (preferred)
//   NodePorts                        PreFilter/Filter: host ports
//   NodeResourcesFit                 Filter + Score (LeastAllocated, MostAllocated,
//                                    RequestedToCapacityRatio)
//   NodeResourcesBalancedAllocation  Score
//   DynamicResources                 DRA: claims, structured allocation (plugin_dynamic_resources.h)
//   DefaultBinder                    Bind through Client::BindAsync
//
// Each plugin's failure reasons are Kubernetes' own strings (named constants in its header).
#pragma once

#include <string_view>

#include "dra/features.h"
#include "scheduler/framework_registry.h"

namespace allot::scheduler {

namespace names {
inline constexpr std::string_view kPrioritySort = "PrioritySort";
inline constexpr std::string_view kSchedulingGates = "SchedulingGates";
inline constexpr std::string_view kNodeUnschedulable = "NodeUnschedulable";
inline constexpr std::string_view kNodeName = "NodeName";
inline constexpr std::string_view kTaintToleration = "TaintToleration";
inline constexpr std::string_view kNodeAffinity = "NodeAffinity";
inline constexpr std::string_view kNodePorts = "NodePorts";
inline constexpr std::string_view kNodeResourcesFit = "NodeResourcesFit";
inline constexpr std::string_view kNodeResourcesBalancedAllocation =
    "NodeResourcesBalancedAllocation";
inline constexpr std::string_view kDefaultBinder = "DefaultBinder";
inline constexpr std::string_view kDynamicResources = "DynamicResources";
}  // namespace names

// A registry with every in-tree plugin; `features` configures DynamicResources.
Registry InTreeRegistry(const dra::Features& features = {});

}  // namespace allot::scheduler
