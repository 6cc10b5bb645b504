// KEP-3063 decisions of the DynamicResources plugin: what a pod's PodSchedulingContext should say
// and whom the pod waits for. Pure functions over the cycle's inputs, so the rules are tested
// without a scheduler (docs/architecture.md §5.1 walks through the negotiation).
//
//   potentialNodes  the best-scored feasible nodes (at most 128, ties by name), with the chosen
//                   node and the last selectedNode (if still feasible) always in. A published
//                   set is kept while it holds the chosen node and no driver reported any of its
//                   nodes unsuitable: drivers are not asked again for nothing. Once drivers rule
//                   nodes out, those fail Filter and the next set moves on to the next-best
//                   nodes, so more than 128 feasible nodes are covered in turn, never sampled.
//   selectedNode    the chosen node once every pending controller claim has an answer in the
//                   context's status, or at once when exactly one controller claim is pending
//                   (its driver checks the selected node in the same pass in which it answers,
//                   so waiting for the answer first would only cost a round). Upstream's rule
//                   left a pod with structured claims and two answered controller claims
//                   waiting forever; here structured claims play no part: the scheduler
//                   allocates them itself once the controller claims are allocated.
//   in allocation   a published selectedNode that no pending claim's driver reported unsuitable:
//                   the drivers may be allocating there, so the next round stays on it
//                   (PreFilter narrows to it) rather than leave claims allocated on two nodes.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "api/resource/pod_scheduling_context.h"
#include "api/resource/types.h"
#include "scheduler/framework/node_ranking.h"

namespace allot::scheduler::dra_plugin {

// PodSchedulingContext node lists hold at most this many names.
inline constexpr size_t kMaxContextNodes = 128;

// A claim of the pod that waits for its control-plane controller to allocate it.
struct PendingControllerClaim {
  size_t index = 0;            // into the pod's claims (DraState::claims)
  std::string pod_claim_name;  // pod.spec.resourceClaims[].name: its key in the context status
  std::string driver;          // spec.controllerName
  // Per device request, the classes that may serve it (one for `exactly`, the alternatives of
  // `firstAvailable`). A node passes a request when one of them has no suitableNodes or
  // suitableNodes match the node.
  std::vector<std::vector<std::shared_ptr<const api::DeviceClass>>> classes;
  bool answered = false;                // the context's status has an entry for the claim
  std::vector<std::string> unsuitable;  // that entry's unsuitableNodes, sorted
  bool Unsuitable(const std::string& node) const;
};

// Whether every request of the claim has a class that allows `node` (labels of the node).
bool ClassesAllow(const PendingControllerClaim& claim, const api::Node& node);

// The published selectedNode when the drivers may be allocating for it ("" otherwise).
std::string NodeInAllocation(const api::PodSchedulingContext* context,
                             std::span<const PendingControllerClaim> pending);

// The nodes the drivers of every pending claim were asked about (potentialNodes and
// selectedNode) and did not rule out, sorted; empty unless every pending claim has an answer.
std::vector<std::string> VettedNodes(const api::PodSchedulingContext* context,
                                     std::span<const PendingControllerClaim> pending);

// What the context should say after a round that chose `host` (see the header comment).
// `ranking`: the feasible nodes with their final scores (empty: just the host); `current`: the
// context as published (null: none yet).
api::PodSchedulingContextSpec DecideContext(const std::string& host,
                                            const std::vector<NodeRanking::Entry>& ranking,
                                            const api::PodSchedulingContextSpec* current,
                                            std::span<const PendingControllerClaim> pending,
                                            size_t max_nodes = kMaxContextNodes);

// The drivers the pod waits for once `published` is out: all pending claims' drivers when a
// node is selected (they must allocate), else those of claims without an answer. Sorted, unique.
std::vector<std::string> AwaitedDrivers(const api::PodSchedulingContextSpec& published,
                                        std::span<const PendingControllerClaim> pending);

// "waiting for resource driver a.example.com to provide information", "waiting for resource
// drivers a.example.com, b.example.com to allocate the pod's claims" (once a node is selected;
// the context names it).
std::string WaitingMessage(const std::vector<std::string>& drivers,
                           const std::string& selected_node);

}  // namespace allot::scheduler::dra_plugin
