// The structured-parameters allocator: finds devices for a pod's unallocated claims on one node.
//
//   Allocator::Create (the scheduler's PreFilter, once per pod): resolves each request's device
//   class, compiles class and request selectors (through options.compile) and evaluates them over
//   the inventory (results cached in the Inventory), giving every (sub)request its candidate
//   devices.
//   Allocator::Allocate (Filter, once per node, from many threads): picks devices among the
//   candidates usable from the node and not taken in `in_use`, honouring count / All,
//   firstAvailable order, matchAttribute / distinctAttribute constraints, admin access, taints
//   and tolerations, shared counters and consumable capacity, and at most 32 results per claim.
//
// Search is bounded: before searching, counting arguments rule out shapes that cannot fit
// (fewer candidates than devices asked, per request and summed over requests sharing
// candidates); the search orders candidates, prunes on constraints early and memoises failed
// sub-states; whatever remains is capped by `max_steps`, and running out is an error that says
// so ("allocation search exceeded its budget of N steps"), never a silent false. The details
// are in allocator_search.h.
//
// Choices where Kubernetes leaves room (all documented where they are made):
//   * firstAvailable: the solution uses the lexicographically earliest feasible alternatives
//     (in claim and request order); Kubernetes' depth-first search may settle for a later one.
//   * Devices are preferred in the inventory's order (node-local, then other devices without
//     binding conditions, then devices with them); see inventory.h.
//   * A claim config listing several requests is copied once (Kubernetes appends it once per
//     listed request).
//   * adminAccess picks do not consume shared counters (AllocatedState ignores them as well).
//   * Share IDs are derived from the claim's UID and the result's index (MakeShareID in
//     allocator_internal.h), not random: the same allocation always gets the same IDs.
//
// `in_use` should be based on the allocator's inventory (AllocatedState::Rebase); if it is not,
// Allocate rebases a copy first, on every call.
//
// Messages follow kube-scheduler's DynamicResources plugin where it has one ("cannot allocate
// all claims", "resourceclaim not found", "device class X does not exist" ...).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/core/types.h"
#include "api/resource/types.h"
#include "common/status.h"
#include "dra/allocated_state.h"
#include "dra/features.h"
#include "dra/inventory.h"

namespace allot::cel {
class DeviceSelectorProgram;
}  // namespace allot::cel

namespace allot::dra {

using ClassLookup = std::function<std::shared_ptr<const api::DeviceClass>(std::string_view name)>;
// Compiles a selector expression (in production cel::ProgramCache::Get; tests inject fakes).
using SelectorCompiler = std::function<Result<std::shared_ptr<const cel::DeviceSelectorProgram>>(
    std::string_view expression)>;

// The status code of Create errors that mean "unschedulable until something changes" (Allot's
// Status has no FailedPrecondition; Forbidden is the closest Kubernetes reason).
inline constexpr StatusCode kUnschedulableCode = StatusCode::kForbidden;

struct AllocatorOptions {
  Features features;
  SelectorCompiler compile;  // required
  // Whether the claims' namespace carries resource.kubernetes.io/admin-access=true.
  bool admin_access_allowed = false;
  // Upper bound on search steps per Allocate call (one step = one device tried for one slot,
  // or one firstAvailable alternative tried; devices already taken in this call are skipped
  // without a step).
  uint64_t max_steps = 1'000'000;
};

// Devices a Reservation holds for the pod being allocated for (docs/reservations.md,
// "Devices"): `in_use` counts each of them once, for the reservation's own claim, and no other
// consumer uses them, so this pod may take them all the same.
//   Aligned (restricted false): an alternative tries held devices before any other.
//   Restricted: an alternative whose candidates include a device the reservation holds
//   (`reserved`, usable by this pod or already taken by another owner) takes held devices only
//   ("what the reservation holds comes only from it"); alternatives the reservation cannot
//   serve are not affected.
// `taken`: devices free in `in_use` that pods nominated to the node will take (preemption keeps
// what a victim freed for its preemptor): never usable by this pod, held or not. Their shared
// counters are not charged.
struct HeldDevices {
  // Sorted, unique; indices into the allocator's inventory.
  std::vector<DeviceIndex> devices;   // usable by this pod
  std::vector<DeviceIndex> reserved;  // everything the reservation holds (Restricted only)
  std::vector<DeviceIndex> taken;     // promised to pods nominated to the node
  bool restricted = false;
};

class Allocator {
 public:
  // Errors: problems that keep the pod unschedulable until an object changes come back with
  // code kUnschedulableCode and the message to show ("request gpu: device class
  // gpu.example.com does not exist", "request gpu: adminAccess is not allowed in namespace ns",
  // "claim ns/c, request r: has subrequests, but the DRAPrioritizedList feature is disabled");
  // a selector that does not compile comes back as kInvalid ("class c: selector #0: CEL compile
  // error: ..."); a missing options.compile as kInternalError.
  // `claims` must all be unallocated (an allocated claim, or with DRAControlPlaneController a
  // claim with spec.controllerName, is a kUnschedulableCode error); their order is the order
  // of results.
  static Result<std::unique_ptr<Allocator>> Create(
      const AllocatorOptions& options, std::shared_ptr<const Inventory> inventory,
      std::vector<std::shared_ptr<const api::ResourceClaim>> claims, const ClassLookup& classes);
  ~Allocator();

  struct Outcome {
    enum class Result { kAllocated, kUnschedulable, kError };
    Result result = Result::kUnschedulable;
    // When not allocated: why. Always starts with "cannot allocate all claims"; a detail may
    // follow in parentheses: the first selector evaluation error on a device usable from the
    // node ("cannot allocate all claims (CEL runtime error: no such key: index)"), the claim
    // result limit ("(claim ns/c: number of requested devices 40 exceeds the claim limit of
    // 32)"), an incomplete pool for an All request ("(claim ns/c, request r: asks for all
    // devices, but resource pool d/p is currently being updated)"), or, with kError, the
    // budget ("(allocation search exceeded its budget of N steps)").
    std::string reason;
    // When allocated: one per claim, in the claims' order. nodeSelector is set (the node, when
    // a device is node-local or bindsToNode; the slice's selector; unset for allNodes devices);
    // allocationTimestamp is left for the caller.
    std::vector<api::AllocationResult> allocations;
    // Preference for this node, higher is better:
    //   kAlternativeWeight * (sum over firstAvailable requests of the number of alternatives
    //   after the one used)  -  (sum over results of the device's tier),
    // where the tier is 0 for a node-local device (slice or device nodeName) without binding
    // conditions, 1 for another device without binding conditions (nodeSelector / allNodes),
    // 2 for a node-local device with binding conditions and 3 for another one with them (fabric
    // still to attach). So earlier alternatives always win; then node-local > already usable
    // fabric > fabric still to attach (docs/architecture.md §3 step 5). 0 when only node-local
    // devices without binding conditions and no later alternatives are used. Within one node the
    // search prefers devices in the same tier order (see inventory.h).
    static constexpr int64_t kAlternativeWeight = 1 << 16;
    int64_t score = 0;
    uint64_t steps = 0;  // work done, for tests and logs
  };

  // Thread-safe (const); called concurrently for different nodes. `held`: devices a
  // reservation holds for this pod (may be null).
  Outcome Allocate(const api::Node& node, const AllocatedState& in_use,
                   const HeldDevices* held = nullptr) const;
  // The same search without building the results (allocations stays empty): what Filter needs
  // for every node; Allocate with the same `in_use` then gives the chosen node's results.
  Outcome Check(const api::Node& node, const AllocatedState& in_use,
                const HeldDevices* held = nullptr) const;

  struct Impl;

 private:
  explicit Allocator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace allot::dra
