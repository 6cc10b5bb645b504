// Protobuf field numbers of the resource.k8s.io kinds (k8s.io/api resource/v1/generated.proto;
// PodSchedulingContext and the Allot control-plane-controller fields from
// resource/v1alpha3/generated.proto of Kubernetes 1.31). See api/machinery/protobuf_fields.h.
#pragma once

#include "api/machinery/protobuf_fields.h"
#include "api/machinery/protobuf_messages.h"
#include "api/resource/device_taint_rule.h"
#include "api/resource/pod_scheduling_context.h"
#include "api/resource/types.h"

namespace allot::api {

// --- shared pieces ------------------------------------------------------------------------------

template <>
struct ProtoMessage<CELDeviceSelector> {
  static constexpr ProtoField kFields[] = {{"expression", 1}};
};

template <>
struct ProtoMessage<DeviceSelector> {
  static constexpr ProtoField kFields[] = {{"cel", 1}};
};

template <>
struct ProtoMessage<OpaqueDeviceConfiguration> {
  static constexpr ProtoField kFields[] = {{"driver", 1},
                                           {"parameters", 2, ProtoAs::kRawExtension}};
};

template <>
struct ProtoMessage<DeviceClassConfiguration> {
  static constexpr ProtoField kFields[] = {
      {"opaque", 1, ProtoAs::kEmbedded, 1}};  // Go embeds DeviceConfiguration
};

template <>
struct ProtoMessage<DeviceToleration> {
  static constexpr ProtoField kFields[] = {
      {"key", 1}, {"operator", 2}, {"value", 3}, {"effect", 4}, {"tolerationSeconds", 5}};
};

template <>
struct ProtoMessage<CapacityRequirements> {
  static constexpr ProtoField kFields[] = {{"requests", 1}};
};

// --- DeviceClass --------------------------------------------------------------------------------

template <>
struct ProtoMessage<DeviceClassSpec> {
  static constexpr ProtoField kFields[] = {
      {"selectors", 1},
      {"config", 2},
      {"suitableNodes", 3},  // v1alpha3 DeviceClassSpec.suitableNodes; unused in v1
      {"extendedResourceName", 4}};
};

template <>
struct ProtoMessage<DeviceClass> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}};
};

// --- ResourceClaim spec -------------------------------------------------------------------------

template <>
struct ProtoMessage<ExactDeviceRequest> {
  static constexpr ProtoField kFields[] = {
      {"deviceClassName", 1}, {"selectors", 2},   {"allocationMode", 3}, {"count", 4},
      {"adminAccess", 5},     {"tolerations", 6}, {"capacity", 7}};
};

template <>
struct ProtoMessage<DeviceSubRequest> {
  static constexpr ProtoField kFields[] = {
      {"name", 1},  {"deviceClassName", 2}, {"selectors", 3}, {"allocationMode", 4},
      {"count", 5}, {"tolerations", 6},     {"capacity", 7}};
};

template <>
struct ProtoMessage<DeviceRequest> {
  static constexpr ProtoField kFields[] = {{"name", 1}, {"exactly", 2}, {"firstAvailable", 3}};
};

template <>
struct ProtoMessage<DeviceConstraint> {
  static constexpr ProtoField kFields[] = {
      {"requests", 1}, {"matchAttribute", 2}, {"distinctAttribute", 3}};
};

template <>
struct ProtoMessage<DeviceClaimConfiguration> {
  static constexpr ProtoField kFields[] = {
      {"requests", 1},
      {"opaque", 2, ProtoAs::kEmbedded, 1}};  // Go embeds DeviceConfiguration
};

template <>
struct ProtoMessage<DeviceClaim> {
  static constexpr ProtoField kFields[] = {{"requests", 1}, {"constraints", 2}, {"config", 3}};
};

template <>
struct ProtoMessage<ResourceClaimSpec> {
  static constexpr ProtoField kFields[] = {
      {"devices", 1},
      {"controllerName", 2},   // v1alpha3 ResourceClaimSpec.controller (string); unused in v1
      {"allocationMode", kFirstAllotField}};  // KEP-3063's mode: Allot's own field
};

// --- ResourceClaim status -----------------------------------------------------------------------

template <>
struct ProtoMessage<ResourceClaimConsumerReference> {
  static constexpr ProtoField kFields[] = {
      {"apiGroup", 1}, {"resource", 3}, {"name", 4}, {"uid", 5}};
};

template <>
struct ProtoMessage<DeviceRequestAllocationResult> {
  static constexpr ProtoField kFields[] = {{"request", 1},
                                           {"driver", 2},
                                           {"pool", 3},
                                           {"device", 4},
                                           {"adminAccess", 5},
                                           {"tolerations", 6},
                                           {"bindingConditions", 7},
                                           {"bindingFailureConditions", 8},
                                           {"shareID", 9},
                                           {"consumedCapacity", 10}};
};

template <>
struct ProtoMessage<DeviceAllocationConfiguration> {
  static constexpr ProtoField kFields[] = {
      {"source", 1},
      {"requests", 2},
      {"opaque", 3, ProtoAs::kEmbedded, 1}};  // Go embeds DeviceConfiguration
};

template <>
struct ProtoMessage<DeviceAllocationResult> {
  static constexpr ProtoField kFields[] = {{"results", 1}, {"config", 2}};
};

template <>
struct ProtoMessage<AllocationResult> {
  static constexpr ProtoField kFields[] = {
      {"devices", 1},
      {"nodeSelector", 3},
      {"controllerName", 4},  // v1alpha3 AllocationResult.controller (string); unused in v1
      {"allocationTimestamp", 5}};
};

template <>
struct ProtoMessage<NetworkDeviceData> {
  static constexpr ProtoField kFields[] = {
      {"interfaceName", 1}, {"ips", 2}, {"hardwareAddress", 3}};
};

template <>
struct ProtoMessage<AllocatedDeviceStatus> {
  static constexpr ProtoField kFields[] = {{"driver", 1},     {"pool", 2},
                                           {"device", 3},     {"shareID", 7},
                                           {"conditions", 4}, {"data", 5, ProtoAs::kRawExtension},
                                           {"networkData", 6}};
};

template <>
struct ProtoMessage<ResourceClaimStatus> {
  static constexpr ProtoField kFields[] = {
      {"allocation", 1},
      {"reservedFor", 2},
      {"deallocationRequested", 3},  // v1alpha3 ResourceClaimStatus; unused in v1
      {"devices", 4}};
};

template <>
struct ProtoMessage<ResourceClaim> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}, {"status", 3}};
};

// --- ResourceClaimTemplate ----------------------------------------------------------------------

template <>
struct ProtoMessage<ResourceClaimTemplateSpec> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}};
};

template <>
struct ProtoMessage<ResourceClaimTemplate> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}};
};

// --- ResourceSlice ------------------------------------------------------------------------------

template <>
struct ProtoMessage<ResourcePool> {
  static constexpr ProtoField kFields[] = {
      {"name", 1}, {"generation", 2}, {"resourceSliceCount", 3}};
};

template <>
struct ProtoMessage<DeviceAttribute> {
  static constexpr ProtoField kFields[] = {{"int", 2}, {"bool", 3}, {"string", 4}, {"version", 5}};
};

template <>
struct ProtoMessage<CapacityRequestPolicyRange> {
  static constexpr ProtoField kFields[] = {{"min", 1}, {"max", 2}, {"step", 3}};
};

template <>
struct ProtoMessage<CapacityRequestPolicy> {
  static constexpr ProtoField kFields[] = {{"default", 1}, {"validValues", 3}, {"validRange", 4}};
};

template <>
struct ProtoMessage<DeviceCapacity> {
  static constexpr ProtoField kFields[] = {{"value", 1}, {"requestPolicy", 2}};
};

template <>
struct ProtoMessage<Counter> {
  static constexpr ProtoField kFields[] = {{"value", 1}};
};

template <>
struct ProtoMessage<DeviceCounterConsumption> {
  static constexpr ProtoField kFields[] = {{"counterSet", 1}, {"counters", 2}};
};

template <>
struct ProtoMessage<DeviceTaint> {
  static constexpr ProtoField kFields[] = {
      {"key", 1}, {"value", 2}, {"effect", 3}, {"timeAdded", 4}};
};

template <>
struct ProtoMessage<DeviceTaintSelector> {
  static constexpr ProtoField kFields[] = {{"driver", 2}, {"pool", 3}, {"device", 4}};
};

template <>
struct ProtoMessage<DeviceTaintRuleSpec> {
  static constexpr ProtoField kFields[] = {{"deviceSelector", 1}, {"taint", 2}};
};

template <>
struct ProtoMessage<DeviceTaintRuleStatus> {
  static constexpr ProtoField kFields[] = {{"conditions", 1}};
};

template <>
struct ProtoMessage<DeviceTaintRule> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}, {"status", 3}};
};

template <>
struct ProtoMessage<Device> {
  static constexpr ProtoField kFields[] = {{"name", 1},
                                           {"attributes", 2},
                                           {"capacity", 3},
                                           {"consumesCounters", 4},
                                           {"nodeName", 5},
                                           {"nodeSelector", 6},
                                           {"allNodes", 7},
                                           {"taints", 8},
                                           {"bindsToNode", 9},
                                           {"bindingConditions", 10},
                                           {"bindingFailureConditions", 11},
                                           {"allowMultipleAllocations", 12}};
};

template <>
struct ProtoMessage<CounterSet> {
  static constexpr ProtoField kFields[] = {{"name", 1}, {"counters", 2}};
};

template <>
struct ProtoMessage<ResourceSliceSpec> {
  static constexpr ProtoField kFields[] = {{"driver", 1},
                                           {"pool", 2},
                                           {"nodeName", 3},
                                           {"nodeSelector", 4},
                                           {"allNodes", 5},
                                           {"devices", 6},
                                           {"perDeviceNodeSelection", 7},
                                           {"sharedCounters", 8}};
};

template <>
struct ProtoMessage<ResourceSlice> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}};
};

// --- PodSchedulingContext (resource.k8s.io/v1alpha3) --------------------------------------------

template <>
struct ProtoMessage<PodSchedulingContextSpec> {
  static constexpr ProtoField kFields[] = {{"selectedNode", 1}, {"potentialNodes", 2}};
};

template <>
struct ProtoMessage<ResourceClaimSchedulingStatus> {
  static constexpr ProtoField kFields[] = {{"name", 1}, {"unsuitableNodes", 2}};
};

template <>
struct ProtoMessage<PodSchedulingContextStatus> {
  static constexpr ProtoField kFields[] = {{"resourceClaims", 1}};
};

template <>
struct ProtoMessage<PodSchedulingContext> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}, {"status", 3}};
};

}  // namespace allot::api
