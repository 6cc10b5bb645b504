// DynamicResources: Dynamic Resource Allocation with structured parameters (docs/architecture.md
// §3).
//
//   PreEnqueue  every claim of the pod exists, is not being deleted, and (for claims from
//               templates) was created for this pod; otherwise the pod waits, gated.
//   PreFilter   gathers the claims. An allocated claim must have room in reservedFor (or list
//               the pod already) and later limits the nodes to its allocation's node selector;
//               unallocated claims get an Allocator (classes resolved, selectors compiled and
//               evaluated once over the inventory). Skip when the pod has no claims.
//               Unallocated claims with a spec.controllerName (KEP-3063) are left to their
//               driver's controller: their classes are looked up and the pod's
//               PodSchedulingContext read; when its selectedNode is being allocated for, the
//               pod is narrowed to that node.
//   Filter      per node, in parallel: allocated claims' node selectors; controller claims'
//               class suitableNodes and the nodes their drivers reported unsuitable; then the
//               allocator, whose verdict is reused from earlier pods with the same claims while
//               the node's devices are unchanged (VerdictCache). The outcome is kept for Score
//               and Reserve.
//   PostFilter  when no node fits: withdraws a selectedNode that no longer fits; otherwise
//               deallocates one allocated claim of the pod that nobody else has reserved (it
//               was allocated for nodes that no longer work), so the next attempt can allocate
//               it anew — the claim that ruled out the most nodes, the first in the pod's spec
//               on a tie, with an Event saying so. Structured claims lose their allocation;
//               controller claims get deallocationRequested (after selectedNode is withdrawn,
//               so their driver does not allocate again). The writes go to a background writer.
//   Score       prefers nodes where earlier firstAvailable alternatives (and devices without
//               binding conditions) were used.
//   Reserve     the chosen allocations become "assumed" in the DeviceTracker: no later pod can
//               get the same devices, even while this pod is still binding. While controller
//               claims are pending, Reserve instead decides what the context should say
//               (controller_claims.h: potentialNodes from the cycle's NodeRanking, selectedNode)
//               and writes nothing; when it selects a node, the devices of the pod's structured
//               claims there are assumed and held while the drivers allocate (Negotiations::
//               Hold), so no other pod takes them; the pod's next PreFilter releases them.
//   Unreserve   drops what was assumed and not yet written; removes the pod from reservedFor if
//               PreBind already added it.
//   PreBind     per claim: adds the delete-protection finalizer (update), then writes
//               status.allocation (with allocationTimestamp) and appends the pod to reservedFor
//               (status update), retrying on conflicts from fresh reads. No thread waits on
//               these writes: PreBind sends them and answers Wait, and AwaitPreBind goes on
//               from the last one's completion (claim_writes.h). When a claim's
//               allocation carries binding conditions (KEP-5007) PreBind answers Wait: the pod
//               gets nominatedNodeName and a BindingConditionsPending event, and AwaitPreBind
//               hands it to the BindingWaiter (binding_waiter.h), which ends the wait from
//               claim events (all conditions True: bind; a failure condition True, or
//               bindingTimeout since allocationTimestamp: fail). After a failure Unreserve
//               takes the pod out of those claims' reservedFor and, unless another consumer
//               still holds a claim, clears its allocation and device statuses, so the next
//               attempt allocates anew. A restarted scheduler finds the claims allocated and
//               reserved for the pod and waits again (or binds) from their state.
//               While controller claims are pending, PreBind only publishes the context
//               (create or update, none when it already says that) and answers Pending
//               "waiting for resource driver(s) …": the pod waits among the unschedulable pods,
//               without backoff, until a context or claim event of its own moves it; a driver
//               that does not answer within controllerAnswerTimeout gets an Event and a metric
//               and the pod is retried (Negotiations). The round that finds every controller
//               claim allocated (the driver adds the pod to reservedFor) binds as usual.
//   PostBind    deletes the pod's PodSchedulingContext.
//   Events      claims (of the pod, or releasing devices), slices, classes, the pod's
//               PodSchedulingContext (drivers' answers, a withdrawn selectedNode, deletion),
//               and pod updates that record generated claims.
//
// The plugin shares the process's informers for resourceclaims, resourceslices, deviceclasses,
// namespaces and podschedulingcontexts (Handle::informers()); without them (unit tests without
// a client) it treats pods with claims as unschedulable.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cel/cel.h"
#include "common/task_pool.h"
#include "dra/features.h"
#include "scheduler/framework/interface.h"
#include "scheduler/plugins/dynamicresources/binding_waiter.h"
#include "scheduler/plugins/dynamicresources/device_tracker.h"
#include "scheduler/plugins/dynamicresources/negotiations.h"
#include "scheduler/plugins/dynamicresources/verdict_cache.h"
#include "scheduler/plugins/registry.h"

namespace allot::client {
class Informer;
}  // namespace allot::client

namespace allot::dra {
class Allocator;
class Inventory;
}  // namespace allot::dra

namespace allot::scheduler {

namespace dra_plugin {
struct DraState;
struct FilterResults;
struct RemovedClaim;
struct PendingControllerClaim;
}  // namespace dra_plugin

// Kubernetes' reasons.
inline constexpr std::string_view kErrReasonCannotAllocate = "cannot allocate all claims";
inline constexpr std::string_view kErrReasonClaimNotOnNode =
    "resourceclaim not available on the node";
inline constexpr std::string_view kErrReasonClaimInUse = "resourceclaim in use";
inline constexpr std::string_view kErrReasonClassNodeFilter =
    "excluded by resource class node filter";
inline constexpr std::string_view kErrReasonUnsuitable =
    "resourceclaim cannot be allocated for the node (unsuitable)";

struct DynamicResourcesArgs {
  // Upper bound on allocator search steps per node (Allot's replacement for kube's 10 s
  // filterTimeout: a bound on work rather than on wall time).
  uint64_t max_allocation_steps = 1'000'000;
  // bindingTimeout: how long after a claim's allocationTimestamp PreBind waits for its binding
  // conditions (Kubernetes' default, 600 s).
  std::chrono::seconds binding_timeout{600};
  // KEP-3063: how long a control-plane driver may take to answer a pod's PodSchedulingContext
  // (or to allocate for its selectedNode) before the pod gets an Event, the driver a
  // timeout in scheduler_dra_controller_answer_timeouts_total, and the pod another round.
  std::chrono::seconds controller_answer_timeout{30};
  // Per-driver overrides of controller_answer_timeout (driver name -> timeout).
  std::map<std::string, std::chrono::seconds, std::less<>> controller_answer_timeouts;
};
// Parses the plugin's pluginConfig args (JSON object; "" = defaults). Unknown fields are errors.
// bindingTimeout and controllerAnswerTimeout are Go durations ("10m0s", "30s"), at least 1s;
// controllerAnswerTimeouts maps driver names to such durations. Kubernetes' filterTimeout is
// accepted so its configurations load, and not used: maxAllocationSteps bounds Filter's work.
Result<DynamicResourcesArgs> ParseDynamicResourcesArgs(std::string_view json);

class DynamicResources final : public PreEnqueuePlugin,
                               public PreFilterPlugin,
                               public PreFilterExtensions,
                               public FilterPlugin,
                               public PostFilterPlugin,
                               public PreScorePlugin,
                               public ScorePlugin,
                               public NormalizeScorePlugin,
                               public ReservePlugin,
                               public PreBindPlugin,
                               public PostBindPlugin,
                               public DeadlinePlugin,
                               public EnqueueExtensions {
 public:
  DynamicResources(Handle& handle, dra::Features features, DynamicResourcesArgs args);
  ~DynamicResources() override;

  std::string_view Name() const override { return names::kDynamicResources; }
  Status PreEnqueue(const api::Pod& pod) const override;
  Status PreFilter(CycleState& state, const PodInfo& pod, PreFilterResult& result) override;
  // Preemption's dry run: a removed pod's claims that no remaining pod holds free their devices
  // for this pod; adding it back takes them again. A pod nominated to the node (Filter with
  // nominated pods) takes the devices its unallocated claims would get there first, so the
  // devices a victim freed stay its preemptor's (nominated.cc).
  Status AddPod(CycleState& state, const PodInfo& pod, const PodInfo& added,
                const NodeInfo& node) const override;
  Status RemovePod(CycleState& state, const PodInfo& pod, const PodInfo& removed,
                   const NodeInfo& node) const override;
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
  // Only publishing a PodSchedulingContext blocks; the claim writes are asynchronous.
  bool PreBindMayBlock(const CycleState& state, const PodInfo& pod,
                       const std::string& node) const override;
  void AwaitPreBind(CycleState& state, const PodInfo& pod, const std::string& node,
                    std::function<void(Status)> done) override;
  void PostBind(CycleState& state, const PodInfo& pod, const std::string& node) override;
  void CheckDeadlines() override;
  void AbandonWaits() override;
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

  DeviceTracker& tracker() { return *tracker_; }
  BindingWaiter& binding_waiter() { return *waiter_; }
  Negotiations& negotiations() { return negotiations_; }

 private:
  using ClaimList = std::vector<std::shared_ptr<const api::ResourceClaim>>;
  // The pod's claims from the informer, in spec order; a rejection when one is missing.
  // `entries` (optional) gets each claim's pod.spec.resourceClaims[].name.
  Status GatherClaims(const api::Pod& pod, ClaimList& out,
                      std::vector<std::string>* entries = nullptr) const;
  // PreFilter for a claim that waits for its control-plane controller: its classes. A rejection
  // when a class does not exist or the claim is Immediate (its driver allocates it alone).
  Status AddPendingControllerClaim(size_t index, const std::string& entry,
                                   const api::ResourceClaim& claim,
                                   std::vector<dra_plugin::PendingControllerClaim>& out) const;
  // PreFilter: reads the pod's PodSchedulingContext into the state (answers, node in allocation).
  void ReadContext(const api::Pod& pod, dra_plugin::DraState& s);
  // scheduler/plugins/dynamicresources/negotiation.cc
  // PreBind while controller claims are pending: writes the context; Pending.
  Status PublishContext(dra_plugin::DraState& s, const PodInfo& pod);
  // Reserve for the selected node: assumes its structured claims' devices there, into s.held.
  void HoldStructured(dra_plugin::DraState& s, const std::string& node);
  // Drops held assumptions (claim uids) from the DeviceTracker.
  void ReleaseHeld(std::vector<std::string> claim_uids);
  // PostFilter's writes, on the background writer.
  void WithdrawSelectedNode(const api::PodSchedulingContext& context);
  Status DeallocateUnavailableClaim(dra_plugin::DraState& s, const PodInfo& pod);
  std::chrono::seconds AnswerTimeout(std::string_view driver) const;
  // PreBind with every controller claim allocated: the negotiation's metrics, if it had one.
  void ObserveNegotiation(const PodInfo& pod);
  // CheckDeadlines: drivers past their answer deadline (an Event, a metric, another round).
  void ExpireNegotiations();
  // scheduler/plugins/dynamicresources/claim_writes.cc
  // PreBind's writes of one claim (the finalizer, then allocation and reservedFor), without
  // blocking; `done` gets the outcome and the claim's resourceVersion after the write ("" when
  // none was needed), on the client's completion thread.
  void WriteClaimAsync(const PodInfo& pod, const api::ResourceClaim& claim,
                       const api::AllocationResult* allocation,
                       std::function<void(allot::Status, std::string)> done);
  // After every claim is written: the reservation's devices, or the binding-conditions wait.
  Status ClaimsWritten(CycleState& state, const PodInfo& pod, const std::string& node);
  bool AdminAccessAllowed(const std::string& ns) const;
  // An allocator for `claims` of a pod in `ns` with this plugin's features, CEL cache, classes
  // and step budget; `admin_access_allowed` (optional) gets whether `ns` allows adminAccess.
  Result<std::unique_ptr<dra::Allocator>> NewAllocator(
      const std::string& ns, std::shared_ptr<const dra::Inventory> inventory,
      std::vector<std::shared_ptr<const api::ResourceClaim>> claims,
      bool* admin_access_allowed = nullptr) const;
  // The dry run's freed devices from s.removed.
  void RecomputeFreed(dra_plugin::DraState& s) const;
  // scheduler/plugins/dynamicresources/nominated.cc
  // Adds to s.nominated_taken the devices `nominated`'s unallocated structured claims would
  // take on the node, given what is in use and taken already.
  void TakeForNominated(dra_plugin::DraState& s, const PodInfo& nominated,
                        const api::Node& node) const;
  // The DeviceClass from the informer; null when it does not exist.
  std::shared_ptr<const api::DeviceClass> Class(std::string_view name) const;
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
  mutable cel::ProgramCache programs_;  // thread-safe; Filter's AddPod compiles too
  client::Informer* claims_ = nullptr;
  client::Informer* slices_ = nullptr;
  client::Informer* classes_ = nullptr;
  client::Informer* namespaces_ = nullptr;
  client::Informer* contexts_ = nullptr;
  std::unique_ptr<DeviceTracker> tracker_;
  std::unique_ptr<BindingWaiter> waiter_;
  VerdictCache verdicts_;  // scheduling thread (see its header)
  // The state of the last cycle that reached PostFilter: the verdicts preemption's dry run
  // computes after PostFilter recorded the others are recorded by the next PreFilter, when no
  // Filter runs (scheduling thread).
  struct Unrecorded {
    std::shared_ptr<VerdictCache::Class> verdicts;
    std::shared_ptr<dra_plugin::FilterResults> results;
  };
  Unrecorded unrecorded_;
  std::atomic<uint64_t> classes_generation_{0};  // bumped on every DeviceClass event
  Negotiations negotiations_;
  // TakeForNominated's cache, by nominated pod uid: its allocator (null when it has no
  // unallocated structured claims, or they cannot be allocated), valid for that version of the
  // pod and the inventory until one of its claims changes (the claim handler drops the entry),
  // and per node the devices it takes there, valid while the node's in-use generations and the
  // devices taken before it are the same. Emptied when it grows past a bound.
  struct NominatedTake {
    uint64_t node_gen = 0, shared_gen = 0;
    std::vector<uint32_t> before;  // s.nominated_taken on entry
    bool used_freed = false;       // free devices did not suffice: took from s.freed
    std::vector<uint32_t> freed;   // s.freed then (preemption's dry run)
    std::vector<uint32_t> takes;
  };
  struct NominatedEntry {
    std::string pod_version;  // the pod's resourceVersion
    std::shared_ptr<const dra::Inventory> inventory;
    std::shared_ptr<const dra::Allocator> allocator;
    std::unordered_map<std::string, std::vector<NominatedTake>> by_node;
  };
  mutable std::mutex nominated_mu_;
  mutable std::unordered_map<std::string, NominatedEntry> nominated_;  // guarded by nominated_mu_
  // Preemption's dry run asks about the same victims over and over: their allocated claims and
  // the exclusive devices those hold (inventory indices), by pod uid, for one version of the pod
  // and the inventory, until one of its claims changes. Guarded by nominated_mu_.
  using VictimClaims = std::vector<dra_plugin::RemovedClaim>;
  struct VictimEntry {
    std::string pod_version;
    std::shared_ptr<const dra::Inventory> inventory;
    std::shared_ptr<const VictimClaims> claims;
  };
  static constexpr size_t kMaxVictimEntries = 1 << 16;
  mutable std::unordered_map<std::string, VictimEntry> victims_;
  std::shared_ptr<const VictimClaims> VictimClaimsOf(
      const api::Pod& pod, const std::shared_ptr<const dra::Inventory>& inventory) const;
  // "<namespace>/<claim>" -> the uids of the pods whose entries (nominated_, victims_) used it;
  // guarded by nominated_mu_. claim_changes_ counts claim events (written under nominated_mu_),
  // so an entry gathered across a change is not kept.
  mutable std::unordered_map<std::string, std::vector<std::string>> nominated_by_claim_;
  mutable std::atomic<uint64_t> claim_changes_{0};
  void Remember(std::string claim_key, const std::string& pod_uid) const;  // nominated_mu_ held
  // A claim changed: forgets what the caches above knew about the pods that use it.
  void ClaimChangedForNominated(const api::Object& claim);
  // PostFilter's and PostBind's API writes, off the scheduling thread. Declared last: it is
  // stopped (its queued writes run) before the members they use go away.
  TaskPool writer_{1, "sched-dra-write"};
};

}  // namespace allot::scheduler
