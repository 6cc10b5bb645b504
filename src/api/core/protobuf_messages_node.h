// Protobuf field numbers of Namespace, Event and Node (k8s.io/api core/v1/generated.proto) and
// Lease (k8s.io/api coordination/v1/generated.proto). See api/machinery/protobuf_fields.h.
#pragma once

#include "api/machinery/protobuf_fields.h"
#include "api/core/types.h"
#include "api/machinery/protobuf_messages.h"

namespace allot::api {

// --- Namespace -------------------------------------------------------------------------------

template <>
struct ProtoMessage<NamespaceSpec> {
  static constexpr ProtoField kFields[] = {{"finalizers", 1}};
};

template <>
struct ProtoMessage<NamespaceCondition> {
  static constexpr ProtoField kFields[] = {
      {"type", 1}, {"status", 2}, {"lastTransitionTime", 4}, {"reason", 5}, {"message", 6}};
};

template <>
struct ProtoMessage<NamespaceStatus> {
  static constexpr ProtoField kFields[] = {{"phase", 1}, {"conditions", 2}};
};

template <>
struct ProtoMessage<Namespace> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}, {"status", 3}};
};

// --- Event -----------------------------------------------------------------------------------

template <>
struct ProtoMessage<EventSource> {
  static constexpr ProtoField kFields[] = {{"component", 1}, {"host", 2}};
};

template <>
struct ProtoMessage<EventSeries> {
  static constexpr ProtoField kFields[] = {{"count", 1}, {"lastObservedTime", 2}};
};

template <>
struct ProtoMessage<Event> {
  static constexpr ProtoField kFields[] = {
      {"metadata", 1},
      {"involvedObject", 2},
      {"reason", 3},
      {"message", 4},
      {"source", 5},
      {"firstTimestamp", 6},
      {"lastTimestamp", 7},
      {"count", 8},
      {"type", 9},
      {"eventTime", 10},
      {"series", 11},
      {"action", 12},
      {"related", 13},
      {"reportingComponent", 14},
      {"reportingInstance", 15}};
};

// --- Lease (coordination.k8s.io/v1) ----------------------------------------------------------

template <>
struct ProtoMessage<LeaseSpec> {
  static constexpr ProtoField kFields[] = {
      {"holderIdentity", 1}, {"leaseDurationSeconds", 2}, {"acquireTime", 3},
      {"renewTime", 4},      {"leaseTransitions", 5},     {"strategy", 6},
      {"preferredHolder", 7}};
};

template <>
struct ProtoMessage<Lease> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}};
};

// --- Node ------------------------------------------------------------------------------------

template <>
struct ProtoMessage<NodeSpec> {
  static constexpr ProtoField kFields[] = {
      {"podCIDR", 1},
      {"podCIDRs", 7},
      {"providerID", 3},
      {"unschedulable", 4},
      {"taints", 5},
      {"configSource", 6, ProtoAs::kOpaque, 0, "k8s.io.api.core.v1.NodeConfigSource"},
      {"externalID", 2}};
};

template <>
struct ProtoMessage<NodeCondition> {
  static constexpr ProtoField kFields[] = {
      {"type", 1},   {"status", 2}, {"lastHeartbeatTime", 3}, {"lastTransitionTime", 4},
      {"reason", 5}, {"message", 6}};
};

template <>
struct ProtoMessage<NodeAddress> {
  static constexpr ProtoField kFields[] = {{"type", 1}, {"address", 2}};
};

template <>
struct ProtoMessage<NodeSystemInfo> {
  static constexpr ProtoField kFields[] = {
      {"machineID", 1},
      {"systemUUID", 2},
      {"bootID", 3},
      {"kernelVersion", 4},
      {"osImage", 5},
      {"containerRuntimeVersion", 6},
      {"kubeletVersion", 7},
      {"kubeProxyVersion", 8},
      {"operatingSystem", 9},
      {"architecture", 10},
      {"swap", 11, ProtoAs::kOpaque, 0, "k8s.io.api.core.v1.NodeSwapStatus"}};
};

template <>
struct ProtoMessage<ContainerImage> {
  static constexpr ProtoField kFields[] = {{"names", 1}, {"sizeBytes", 2}};
};

template <>
struct ProtoMessage<NodeStatus> {
  static constexpr ProtoField kFields[] = {
      {"capacity", 1},
      {"allocatable", 2},
      {"phase", 3},
      {"conditions", 4},
      {"addresses", 5},
      {"daemonEndpoints", 6, ProtoAs::kOpaque, 0, "k8s.io.api.core.v1.NodeDaemonEndpoints"},
      {"nodeInfo", 7},
      {"images", 8},
      {"volumesInUse", 9},
      {"volumesAttached", 10, ProtoAs::kOpaque, 0, "k8s.io.api.core.v1.AttachedVolume"},
      {"config", 11, ProtoAs::kOpaque, 0, "k8s.io.api.core.v1.NodeConfigStatus"},
      {"runtimeHandlers", 12, ProtoAs::kOpaque, 0, "k8s.io.api.core.v1.NodeRuntimeHandler"},
      {"features", 13, ProtoAs::kOpaque, 0, "k8s.io.api.core.v1.NodeFeatures"}};
};

template <>
struct ProtoMessage<Node> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}, {"status", 3}};
};

}  // namespace allot::api
