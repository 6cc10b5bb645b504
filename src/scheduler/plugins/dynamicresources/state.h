// Internals of the DynamicResources plugin shared by its source files (README.md lists them).
// Not for use elsewhere.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/machinery/resources.h"
#include "api/resource/pod_scheduling_context.h"
#include "api/resource/types.h"
#include "dra/allocator.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/status.h"
#include "scheduler/plugins/dynamicresources/binding_waiter.h"
#include "scheduler/plugins/dynamicresources/controller_claims.h"
#include "scheduler/plugins/dynamicresources/device_tracker.h"
#include "scheduler/plugins/dynamicresources/verdict_cache.h"

namespace allot::scheduler::dra_plugin {

class ClaimWrites;  // claim_writes.h

// reservedFor may hold at most this many consumers (resource.k8s.io/v1
// ResourceClaimReservedForMaxSize).
constexpr size_t kReservedForMaxSize = 256;

inline std::shared_ptr<const api::ResourceClaim> AsClaim(const api::ObjectPtr& obj) {
  if (!obj || !api::As<api::ResourceClaim>(*obj)) return nullptr;
  return std::static_pointer_cast<const api::ResourceClaim>(obj);
}

inline std::shared_ptr<const api::PodSchedulingContext> AsContext(const api::ObjectPtr& obj) {
  if (!obj || !api::As<api::PodSchedulingContext>(*obj)) return nullptr;
  return std::static_pointer_cast<const api::PodSchedulingContext>(obj);
}

inline bool ReservedFor(const api::ResourceClaim& claim, const std::string& pod_uid) {
  for (const auto& r : claim.status.reservedFor) {
    if (r.uid == pod_uid) return true;
  }
  return false;
}

struct FilterResults {
  std::mutex mu;
  // Filter's verdict per feasible node: the allocator's preference score. The allocation itself
  // is computed again for the chosen node only (same inputs, same answer), so Filter builds no
  // result objects.
  std::map<std::string, int64_t, std::less<>> score_by_node;
  // Allocated claims whose node selector ruled nodes out: claim index -> how many nodes.
  std::map<size_t, size_t> unavailable;
  // Verdicts Filter computed (not found in the cache), recorded into the pod's class after
  // Filter (PreScore, PostFilter or Reserve).
  std::vector<std::pair<VerdictCache::NodeKey, VerdictCache::Verdict>> fresh;
};

using ClaimsOfPod = std::vector<std::shared_ptr<const api::ResourceClaim>>;

// An allocated claim of a pod preemption's dry run removes, with its exclusive devices.
struct RemovedClaim {
  std::shared_ptr<const api::ResourceClaim> claim;
  std::vector<dra::DeviceIndex> devices;
};

// What one attempt knows, from PreFilter to PreBind / Unreserve.
struct DraState {
  std::vector<std::shared_ptr<const api::ResourceClaim>> claims;  // the pod's, spec order
  std::vector<size_t> to_allocate;                                // indices into claims
  std::shared_ptr<const dra::Allocator> allocator;
  DeviceTracker::View view;
  std::shared_ptr<FilterResults> filter_results = std::make_shared<FilterResults>();
  std::shared_ptr<VerdictCache::Class> verdicts;  // the pod's equivalence class
  bool has_preferences = false;
  // KEP-3063 (controller_claims.h): the claims that wait for their control-plane controller,
  // the pod's PodSchedulingContext as the informer had it (null: none yet, or one left by an
  // earlier pod of the same name), and the selected node its drivers may be allocating for.
  std::vector<PendingControllerClaim> pending_controller;
  std::shared_ptr<const api::PodSchedulingContext> context;
  std::string node_in_allocation;
  // Nodes the drivers of every pending controller claim were asked about and found suitable
  // (sorted): Score prefers them, so the next selectedNode is one the drivers accept.
  std::vector<std::string> vetted;
  // Nodes other negotiating pods asked drivers to allocate on (how many pods): Score spreads
  // selections, since capacity only the drivers know is likely taken where others wait.
  std::map<std::string, int, std::less<>> contended;
  // Reserve: what PreBind publishes in the context (only while controller claims are pending),
  // and the structured claims (uids) whose devices on its selectedNode the pod holds while the
  // drivers allocate — assumed in the DeviceTracker; kept past Unreserve once PreBind handed
  // them to Negotiations (hold_kept), released otherwise.
  std::optional<api::PodSchedulingContextSpec> publish;
  std::vector<std::string> held;
  bool hold_kept = false;
  // Reserve onwards: per claim, the allocation chosen for it (unallocated claims only), and
  // whether PreBind added the pod to its reservedFor.
  std::vector<std::optional<api::AllocationResult>> chosen;
  // One byte per claim, not vector<bool>: PreBind's write callbacks set their own claim's
  // entry, possibly on different threads at once (claim_writes.cc).
  std::vector<uint8_t> reserved;
  // Per claim: its resourceVersion after PreBind's write ("" when not written), so the binding
  // wait does not mistake an informer that has not seen the write yet for a deallocation.
  std::vector<std::string> written_rv;
  // PreBind onwards: the claims whose allocation carries binding conditions (the pod waits for
  // them), when PreBind began (in the handle's Clock), and whether the wait failed or timed out
  // (Unreserve then takes the pod out of those claims and clears the allocations nobody else
  // holds, so the devices can be picked anew).
  std::vector<BindingWaiter::ClaimRef> waiting;
  // PreBind's claim writes while they are in flight (claim_writes.cc); AwaitPreBind continues
  // from their end.
  std::shared_ptr<ClaimWrites> writes;
  std::chrono::steady_clock::time_point prebind_start;
  bool binding_failed = false;
  bool abandoned = false;  // the scheduler stopped while the pod waited: leave the claims be
  bool nominated = false;  // PreBind set pod.status.nominatedNodeName
  // Preemption's dry run (PreFilterExtensions): the pods removed from the node, with their
  // allocated claims, and the devices of the claims only removed pods hold (sorted; in use
  // exactly once), which Filter then counts as free for this pod.
  std::map<std::string, std::vector<RemovedClaim>, std::less<>> removed;
  std::vector<dra::DeviceIndex> freed;
  // Filter with nominated pods (nominated.cc), in the node's own copy of the state: the devices
  // the pods nominated to the node will take there (sorted), which this pod may not use.
  std::vector<dra::DeviceIndex> nominated_taken;
};
inline const StateKey<DraState> kDraStateKey("PreFilterDynamicResources");

inline Status Unschedulable(std::string reason) {
  return Status(Code::kUnschedulable, std::move(reason));
}
inline Status Unresolvable(std::string reason) {
  return Status(Code::kUnschedulableAndUnresolvable, std::move(reason));
}

}  // namespace allot::scheduler::dra_plugin
