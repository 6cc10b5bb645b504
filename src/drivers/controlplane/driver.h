// A control-plane DRA driver (KEP-3063): the part a vendor writes. Its controller allocates the
// claims whose spec.controllerName names it, negotiating the node with the scheduler through the
// pod's PodSchedulingContext. The Controller (controller.h) does everything else — watching
// claims, contexts and pods, the deletion-protection finalizer, allocation and deallocation
// writes, reporting unsuitable nodes — so a driver is these three calls:
//
//   class MyDriver final : public controlplane::Driver {
//     Status UnsuitableNodes(const api::Pod& pod, std::span<ClaimAllocation> claims,
//                            const std::vector<std::string>& nodes) override;
//     void Allocate(std::span<ClaimAllocation> claims, const std::string& node) override;
//     Status Deallocate(const api::ResourceClaim& claim) override;
//   };
//
// Thread safety: the Controller calls a Driver from several worker threads at once (different
// pods and claims); implementations must be thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "api/core/pod.h"
#include "api/resource/pod_scheduling_context.h"
#include "api/resource/types.h"
#include "common/status.h"

namespace allot::drivers::controlplane {

// One claim the driver is asked about.
struct ClaimAllocation {
  // pod.spec.resourceClaims[].name ("" for an Immediate claim, which has no pod).
  std::string pod_claim_name;
  std::shared_ptr<const api::ResourceClaim> claim;
  // Output of UnsuitableNodes: the nodes (of those asked about) where this claim cannot be
  // allocated, together with the pod's other claims of this driver.
  std::vector<std::string> unsuitable_nodes;
  // Output of Allocate: the allocation on success (status.allocation as it is to be written;
  // the Controller sets controllerName), else the reason in `error`.
  std::optional<api::AllocationResult> allocation;
  Status error;
};

class Driver {
 public:
  virtual ~Driver() = default;
  // For each claim, fills unsuitable_nodes with the nodes of `nodes` where it cannot be
  // allocated. Called with all of the pod's pending claims of this driver at once, so the
  // answer can account for them together. An error is retried later.
  virtual Status UnsuitableNodes(const api::Pod& pod, std::span<ClaimAllocation> claims,
                                 const std::vector<std::string>& nodes) = 0;
  // Allocates each claim for `node`; "" for Immediate allocation, where the driver picks (the
  // allocation's nodeSelector says where the claim can be used). Sets `allocation` or `error`
  // for every claim.
  virtual void Allocate(std::span<ClaimAllocation> claims, const std::string& node) = 0;
  // Releases what the claim's allocation holds. Idempotent; it also aborts an allocation of the
  // claim that is still in flight.
  virtual Status Deallocate(const api::ResourceClaim& claim) = 0;
};

}  // namespace allot::drivers::controlplane
