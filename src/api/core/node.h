// core/v1 Node (k8s.io/api core/v1/types.go, Kubernetes 1.34). Include through api/core/types.h.
//
// Typed: everything the scheduler and `kubectl get nodes` read (capacity, allocatable, taints,
// conditions, addresses, nodeInfo, images). Kept verbatim: configSource, daemonEndpoints,
// volumesAttached, runtime handlers and features.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/machinery/field.h"
#include "api/machinery/meta.h"
#include "api/machinery/object.h"

namespace allot::api {

struct NodeSpec {
  std::string podCIDR;
  std::vector<std::string> podCIDRs;  // at most one per IP family; podCIDRs[0] == podCIDR
  std::string providerID;
  bool unschedulable = false;
  std::vector<Taint> taints;
  RawJson configSource;  // NodeConfigSource (deprecated)
  std::string externalID;  // deprecated
  template <class V> void Visit(V& v) {
    v("podCIDR", podCIDR);
    v("podCIDRs", podCIDRs, {.set = true});
    v("providerID", providerID);
    v("unschedulable", unschedulable);
    v("taints", taints, {.atomic = true});
    v("configSource", configSource);
    v("externalID", externalID);
  }
  bool operator==(const NodeSpec&) const = default;
};

struct NodeCondition {
  std::string type;    // Ready | MemoryPressure | DiskPressure | PIDPressure | NetworkUnavailable
  std::string status;  // True | False | Unknown
  std::optional<Time> lastHeartbeatTime;   // written as null when unset, as Go does
  std::optional<Time> lastTransitionTime;  // written as null when unset, as Go does
  std::string reason;
  std::string message;
  template <class V> void Visit(V& v) {
    v("type", type, {.always = true, .required = true});
    v("status", status, {.always = true, .required = true});
    v("lastHeartbeatTime", lastHeartbeatTime, {.always = true});
    v("lastTransitionTime", lastTransitionTime, {.always = true});
    v("reason", reason);
    v("message", message);
  }
  bool operator==(const NodeCondition&) const = default;
};

struct NodeAddress {
  std::string type;  // Hostname | InternalIP | ExternalIP | InternalDNS | ExternalDNS
  std::string address;
  template <class V> void Visit(V& v) {
    v("type", type, {.always = true, .required = true});
    v("address", address, {.always = true, .required = true});
  }
  bool operator==(const NodeAddress&) const = default;
};

// All members are written even when empty, as Go does (no omitempty).
struct NodeSystemInfo {
  std::string machineID;
  std::string systemUUID;
  std::string bootID;
  std::string kernelVersion;
  std::string osImage;
  std::string containerRuntimeVersion;
  std::string kubeletVersion;
  std::string kubeProxyVersion;
  std::string operatingSystem;
  std::string architecture;
  RawJson swap;  // NodeSwapStatus
  template <class V> void Visit(V& v) {
    v("machineID", machineID, {.always = true});
    v("systemUUID", systemUUID, {.always = true});
    v("bootID", bootID, {.always = true});
    v("kernelVersion", kernelVersion, {.always = true});
    v("osImage", osImage, {.always = true});
    v("containerRuntimeVersion", containerRuntimeVersion, {.always = true});
    v("kubeletVersion", kubeletVersion, {.always = true});
    v("kubeProxyVersion", kubeProxyVersion, {.always = true});
    v("operatingSystem", operatingSystem, {.always = true});
    v("architecture", architecture, {.always = true});
    v("swap", swap);
  }
  bool operator==(const NodeSystemInfo&) const = default;
};

// A container image present on the node (ImageLocality scoring).
struct ContainerImage {
  std::vector<std::string> names;
  int64_t sizeBytes = 0;
  template <class V> void Visit(V& v) {
    v("names", names, {.atomic = true});
    v("sizeBytes", sizeBytes);
  }
  bool operator==(const ContainerImage&) const = default;
};

struct NodeStatus {
  ResourceList capacity;
  ResourceList allocatable;  // defaults to capacity
  std::string phase;         // deprecated
  std::vector<NodeCondition> conditions;
  std::vector<NodeAddress> addresses;
  RawJson daemonEndpoints;  // NodeDaemonEndpoints
  NodeSystemInfo nodeInfo;
  std::vector<ContainerImage> images;
  std::vector<std::string> volumesInUse;
  std::vector<RawJson> volumesAttached;  // AttachedVolume
  RawJson config;                        // NodeConfigStatus
  std::vector<RawJson> runtimeHandlers;  // NodeRuntimeHandler
  RawJson features;                      // NodeFeatures
  template <class V> void Visit(V& v) {
    v("capacity", capacity);
    v("allocatable", allocatable);
    v("phase", phase);
    v("conditions", conditions, {.merge_key = "type"});
    v("addresses", addresses, {.merge_key = "type"});
    v("daemonEndpoints", daemonEndpoints);
    v("nodeInfo", nodeInfo);
    v("images", images, {.atomic = true});
    v("volumesInUse", volumesInUse, {.atomic = true});
    v("volumesAttached", volumesAttached, {.atomic = true});
    v("config", config);
    v("runtimeHandlers", runtimeHandlers, {.atomic = true});
    v("features", features);
  }
  bool operator==(const NodeStatus&) const = default;
};

struct Node : TypedObject<Node> {
  static const TypeInfo& Type();
  NodeSpec spec;
  NodeStatus status;
  template <class V> void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec);
    v("status", status);
  }
  bool operator==(const Node& o) const {
    return metadata == o.metadata && spec == o.spec && status == o.status;
  }
};

}  // namespace allot::api
