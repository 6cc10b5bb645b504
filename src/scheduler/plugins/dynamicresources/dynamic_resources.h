// DynamicResources: Dynamic Resource Allocation with structured parameters (docs/architecture.md §3).
//
//   PreEnqueue  every claim of the pod exists, is not being deleted, and (for claims from
//               templates) was created for this pod; otherwise the pod waits, gated.
//   PreFilter   gathers the claims. An allocated claim must have room in reservedFor (or list
//               the pod already) and later limits the nodes to its allocation's node selector;
//               unallocated claims get an Allocator (classes resolved, selectors compiled and
//               evaluated once over the inventory). Skip when the pod has no claims.
//   Filter      per node, in parallel: allocated claims' node selectors, then the allocator,
//               whose verdict is reused from earlier pods with the same claims while the node's
//               devices are unchanged (VerdictCache). The outcome is kept for Score and Reserve.
//   PostFilter  when no node fits, deallocates one allocated claim of the pod that nobody has
//               reserved (it was allocated for a node that no longer works), so the next
//               attempt can allocate it anew.
//   Score       prefers nodes where earlier firstAvailable alternatives (and devices without
//               binding conditions) were used.
//   Reserve     the chosen allocations become "assumed" in the DeviceTracker: no later pod can
//               get the same devices, even while this pod is still binding.
//   Unreserve   drops what was assumed and not yet written; removes the pod from reservedFor if
//               PreBind already added it.
//   PreBind     per claim: adds the delete-protection finalizer (update), then writes
//               status.allocation (with allocationTimestamp) and appends the pod to reservedFor
//               (status update), retrying on conflicts from fresh reads. When a claim's
//               allocation carries binding conditions (KEP-5007) PreBind answers Wait: the pod
//               gets nominatedNodeName and a BindingConditionsPending event, and AwaitPreBind
//               hands it to the BindingWaiter (binding_waiter.h), which ends the wait from
//               claim events (all conditions True: bind; a failure condition True, or
//               bindingTimeout since allocationTimestamp: fail). After a failure Unreserve
//               takes the pod out of those claims' reservedFor and, unless another consumer
//               still holds a claim, clears its allocation and device statuses, so the next
//               attempt allocates anew. A restarted scheduler finds the claims allocated and
//               reserved for the pod and waits again (or binds) from their state.
//   Events      claims (of the pod, or releasing devices), slices, classes, and pod updates that
//               record generated claims.
//
// The plugin shares the process's informers for resourceclaims, resourceslices, deviceclasses
// and namespaces (Handle::informers()); without them (unit tests without a client) it treats
// pods with claims as unschedulable.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cel/cel.h"
#include "dra/features.h"
#include "scheduler/framework/interface.h"
#include "scheduler/plugins/dynamicresources/binding_waiter.h"
#include "scheduler/plugins/dynamicresources/device_tracker.h"
#include "scheduler/plugins/dynamicresources/verdict_cache.h"
#include "scheduler/plugins/registry.h"

namespace allot::client {
class Informer;
}  // namespace allot::client

namespace allot::scheduler {

// Kubernetes' reasons.
inline constexpr std::string_view kErrReasonCannotAllocate = "cannot allocate all claims";
inline constexpr std::string_view kErrReasonClaimNotOnNode =
    "resourceclaim not available on the node";
inline constexpr std::string_view kErrReasonClaimInUse = "resourceclaim in use";

struct DynamicResourcesArgs {
  // Upper bound on allocator search steps per node (Allot's replacement for kube's 10 s
  // filterTimeout: a bound on work rather than on wall time).
  uint64_t max_allocation_steps = 1'000'000;
  // bindingTimeout: how long after a claim's allocationTimestamp PreBind waits for its binding
  // conditions (Kubernetes' default, 600 s).
  std::chrono::seconds binding_timeout{600};
};
// Parses the plugin's pluginConfig args (JSON object; "" = defaults). Unknown fields are errors.
// bindingTimeout is a Go duration ("10m0s", "30s"), at least 1s. Kubernetes' filterTimeout is
// accepted so its configurations load, and not used: maxAllocationSteps bounds Filter's work.
Result<DynamicResourcesArgs> ParseDynamicResourcesArgs(std::string_view json);

class DynamicResources final : public PreEnqueuePlugin,
                               public PreFilterPlugin,
                               public FilterPlugin,
                               public PostFilterPlugin,
                               public PreScorePlugin,
                               public ScorePlugin,
                               public NormalizeScorePlugin,
                               public ReservePlugin,
                               public PreBindPlugin,
                               public DeadlinePlugin,
                               public EnqueueExtensions {
 public:
  DynamicResources(Handle& handle, dra::Features features, DynamicResourcesArgs args);
  ~DynamicResources() override;

  std::string_view Name() const override { return names::kDynamicResources; }
  Status PreEnqueue(const api::Pod& pod) const override;
  Status PreFilter(CycleState& state, const PodInfo& pod, PreFilterResult& result) override;
  Status Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const override;
  Status PostFilter(CycleState& state, const PodInfo& pod, const NodeToStatus& statuses,
                    PostFilterResult& result) override;
  Status PreScore(CycleState& state, const PodInfo& pod,
                  std::span<const NodeInfo* const> nodes) override;
  Status Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
               int64_t& score) const override;
  Status NormalizeScore(const CycleState& state, const PodInfo& pod,
                        std::span<NodeScore> scores) const override;
  Status Reserve(CycleState& state, const PodInfo& pod, const std::string& node) override;
  void Unreserve(CycleState& state, const PodInfo& pod, const std::string& node) override;
  Status PreBind(CycleState& state, const PodInfo& pod, const std::string& node) override;
  // Skip for pods without claims.
  Status PreBindPreFlight(const CycleState& state, const PodInfo& pod,
                          const std::string& node) const override;
  void AwaitPreBind(CycleState& state, const PodInfo& pod, const std::string& node,
                    std::function<void(Status)> done) override;
  void CheckDeadlines() override;
  void AbandonWaits() override;
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

  DeviceTracker& tracker() { return *tracker_; }
  BindingWaiter& binding_waiter() { return *waiter_; }

 private:
  using ClaimList = std::vector<std::shared_ptr<const api::ResourceClaim>>;
  // The pod's claims from the informer, in spec order; a rejection when one is missing.
  Status GatherClaims(const api::Pod& pod, ClaimList& out) const;
  // `written_rv`: the claim's resourceVersion after the write (when one was needed).
  allot::Status WriteClaim(const PodInfo& pod, const api::ResourceClaim& claim,
                           const api::AllocationResult* allocation, std::string* written_rv);
  bool AdminAccessAllowed(const std::string& ns) const;
  // Keeps the verdicts this cycle's Filter computed in the pod's equivalence class.
  static void RecordVerdicts(CycleState& state);
  // scheduler/plugins/dynamicresources/binding_conditions.cc
  // After the claims are written: the claims whose allocation has binding conditions; Wait
  // (with nominatedNodeName and an event) if there are any.
  Status StartBindingWait(CycleState& state, const PodInfo& pod, const std::string& node);
  // Unreserve after a failed or timed-out wait: clears the waited-for claims' allocation.
  void ClearFailedAllocations(CycleState& state, const PodInfo& pod);
  void SetNominatedNode(const PodInfo& pod, const std::string& node);
  void ObservePreBind(std::string_view status, bool requires_binding_conditions,
                      std::chrono::steady_clock::time_point start);

  Handle& handle_;
  dra::Features features_;
  DynamicResourcesArgs args_;
  cel::ProgramCache programs_;
  client::Informer* claims_ = nullptr;
  client::Informer* slices_ = nullptr;
  client::Informer* classes_ = nullptr;
  client::Informer* namespaces_ = nullptr;
  std::unique_ptr<DeviceTracker> tracker_;
  std::unique_ptr<BindingWaiter> waiter_;
  VerdictCache verdicts_;                        // scheduling thread (see its header)
  std::atomic<uint64_t> classes_generation_{0};  // bumped on every DeviceClass event
};

}  // namespace allot::scheduler
