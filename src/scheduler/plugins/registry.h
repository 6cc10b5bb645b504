// The in-tree plugins' registry. One folder per plugin under scheduler/plugins/:
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
//   DynamicResources                 DRA: claims, structured allocation
//                                    (plugins/dynamicresources/)
//   DefaultBinder                    Bind through Client::BindAsync
//
// Each plugin's failure reasons are Kubernetes' own strings (named constants in its header).
#pragma once

#include <string_view>

#include "dra/features.h"
#include "scheduler/framework/registry.h"
#include "scheduler/plugins/names.h"

namespace allot::scheduler {

// A registry with every in-tree plugin; `features` configures DynamicResources.
Registry InTreeRegistry(const dra::Features& features = {});

}  // namespace allot::scheduler
