// The in-tree plugins' names, as configuration and metrics spell them.
#pragma once

#include <string_view>

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
inline constexpr std::string_view kReservation = "Reservation";
inline constexpr std::string_view kDefaultPreemption = "DefaultPreemption";
}  // namespace names

}  // namespace allot::scheduler
