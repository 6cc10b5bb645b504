// The API objects a simulated kubelet writes for its node: the Node itself (from a template),
// its Lease in kube-node-lease, and the status heartbeat. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "api/core/types.h"
#include "common/status.h"
#include "common/time.h"

namespace allot::node {

inline constexpr char kNodeLeaseNamespace[] = "kube-node-lease";
inline constexpr char kHostnameLabel[] = "kubernetes.io/hostname";
// Marks nodes registered by a NodeSimulator (value: "true").
inline constexpr char kSimulatedAnnotation[] = "allot.dev/simulated-node";

// What every node of one simulator shares.
struct NodeShape {
  // Labels, annotations, taints, unschedulable, capacity and allocatable are taken from it;
  // its name, spec.podCIDR(s), spec.providerID and status conditions are ignored.
  api::Node node_template;
  std::string kubelet_version = "v1.37.0-allot";
};

// Parses a node template manifest (YAML or JSON, kind Node; apiVersion/kind may be omitted).
// Unknown fields are errors, so a typo in the template is reported rather than ignored. An empty
// capacity defaults to cpu 32, memory 256Gi, pods 110; allocatable defaults to capacity.
Result<api::Node> ParseNodeTemplate(std::string_view manifest);
// The built-in template used when none is given.
api::Node DefaultNodeTemplate();

// A complete Node for registration: template fields, name, hostname/os/arch labels, podCIDR and
// addresses for `index` (node/addresses.h), nodeInfo, and Ready (plus the three pressure
// conditions, False) with heartbeat and transition times `now`.
std::unique_ptr<api::Node> MakeNode(const NodeShape& shape, const std::string& name, int64_t index,
                                    Time now);
// Copies what the simulator owns in status (capacity, allocatable, conditions, addresses,
// nodeInfo) from `fresh` into `existing`: used to adopt a node that is already registered.
void AdoptNodeStatus(const api::Node& fresh, api::Node& existing);

// The node's Lease: holderIdentity = node name, leaseDurationSeconds, renewTime = now, owned by
// the Node (so the garbage collector removes it with the node) when `node_uid` is not empty.
std::unique_ptr<api::Lease> MakeNodeLease(const std::string& node_name, const std::string& node_uid,
                                          int32_t duration_seconds, Time now);
// A copy of `lease` renewed at `now` (resourceVersion kept, for compare-and-swap), held by the
// node and, when `node_uid` is not empty, owned by it (a re-registered node has a new uid).
std::unique_ptr<api::Lease> RenewedLease(const api::Lease& lease, const std::string& node_uid,
                                         int32_t duration_seconds, Time now);

// Strategic-merge patch of node status refreshing lastHeartbeatTime of the four conditions
// MakeNode writes (Ready True, the pressures False); lastTransitionTime is left alone.
std::string NodeHeartbeatPatch(Time now);

}  // namespace allot::node
