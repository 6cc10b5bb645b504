// DeviceTracker: the DynamicResources plugin's picture of devices between scheduling cycles —
// the Inventory built from ResourceSlices and which of its devices are in use.
//
// "In use" is the union, per claim, of the claim's *effective* allocation:
//   * the allocation the plugin chose for it and has not yet seen back from the informer
//     (assumed at Reserve; it stays assumed after PreBind wrote it, until the informer delivers
//     a claim with an allocation, so the devices are never free in between), else
//   * the allocation in the claim as the informer last delivered it.
// Every change to a claim's effective allocation is applied to one AllocatedState
// incrementally (remove the old, add the new), so no cycle recomputes it from all claims.
//
// It also knows which devices Reservations hold: the devices allocated to claims whose
// status.reservedFor names a reservation (docs/reservations.md, "Devices"), by reservation uid,
// from the claims as the informer delivered them.
//
// Thread safety: all methods may be called from any thread (informer handlers, the scheduling
// thread, binding workers); one mutex guards the state and is held only for map updates and
// the copy a cycle takes.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource/types.h"
#include "dra/allocated_state.h"
#include "dra/inventory.h"

namespace allot::scheduler {

class DeviceTracker {
 public:
  using SliceLister = std::function<std::vector<std::shared_ptr<const api::ResourceSlice>>()>;
  explicit DeviceTracker(SliceLister list_slices);

  // --- informer events ---
  // Some ResourceSlice changed: the inventory is rebuilt on the next View().
  void SlicesChanged();
  // A claim was added (old null), updated, or deleted (new null). The tracker keeps the
  // informer's claim (sharing it) rather than a copy of its allocation.
  void ClaimChanged(const std::shared_ptr<const api::ResourceClaim>& old_claim,
                    const std::shared_ptr<const api::ResourceClaim>& new_claim);

  // --- scheduling cycle ---
  // A device a reservation's claim holds (exclusively: no adminAccess, no share).
  struct HeldDevice {
    std::string driver;
    std::string pool;
    std::string device;
    bool operator==(const HeldDevice&) const = default;
  };
  using HeldByReservation = std::map<std::string, std::vector<HeldDevice>, std::less<>>;
  struct View {
    std::shared_ptr<const dra::Inventory> inventory;
    std::shared_ptr<const dra::AllocatedState> in_use;
    std::shared_ptr<const HeldByReservation> held;  // never null
  };
  // The current inventory (rebuilt first if slices changed) and a copy of the in-use state that
  // the cycle's Filter calls may read concurrently.
  View Current();

  // --- assumed allocations (Reserve .. informer) ---
  // The plugin chose `allocation` for the claim (Reserve).
  void Assume(const std::string& claim_uid, const api::AllocationResult& allocation);
  // The allocation was written to the API (PreBind). The assumption ends once the informer
  // shows the claim allocated.
  void Written(const std::string& claim_uid);
  // The pod's attempt failed before the allocation was written (Unreserve): drop it.
  void Forget(const std::string& claim_uid);

  // Whether an allocation for the claim is assumed and not yet seen back.
  bool IsAssumed(const std::string& claim_uid) const;

  // For tests and invariant checks.
  size_t assumed_count() const;
  uint64_t inventory_builds() const;

 private:
  using AllocationPtr = std::shared_ptr<const api::AllocationResult>;
  struct Assumed {
    AllocationPtr allocation;  // never null
    bool written = false;
  };
  // The effective allocation of a claim (null: none); callers hold mu_.
  AllocationPtr EffectiveLocked(const std::string& uid) const;
  void ReplaceLocked(const api::AllocationResult* before, const api::AllocationResult* after);
  // Records which reservations the claim (null: deleted) is held for, and their devices.
  void UpdateHeldLocked(const std::string& uid, const api::ResourceClaim* claim);

  SliceLister list_slices_;
  mutable std::mutex mu_;
  bool slices_dirty_ = true;                              // guarded by mu_
  std::shared_ptr<const dra::Inventory> inventory_;       // guarded by mu_
  dra::AllocatedState state_;                             // guarded by mu_
  std::shared_ptr<const dra::AllocatedState> published_;  // guarded by mu_; null when stale
  // Claim uid -> the allocation in the claim the informer delivered last (sharing the claim).
  // The key views the uid of that same claim, which the allocation keeps alive; ClaimChanged
  // re-points it when a newer claim replaces the entry (a uid string per claim saved).
  struct UidView {
    mutable std::string_view uid;
  };
  struct UidViewLess {
    using is_transparent = void;
    bool operator()(const UidView& a, const UidView& b) const { return a.uid < b.uid; }
    bool operator()(const UidView& a, std::string_view b) const { return a.uid < b; }
    bool operator()(std::string_view a, const UidView& b) const { return a < b.uid; }
  };
  std::map<UidView, AllocationPtr, UidViewLess> seen_;
  std::map<std::string, Assumed> assumed_;                // claim uid -> chosen allocation
  // Claims held by reservations: claim uid -> (reservation uids, devices); guarded by mu_.
  std::map<std::string, std::pair<std::vector<std::string>, std::vector<HeldDevice>>>
      reservation_claims_;
  std::shared_ptr<const HeldByReservation> held_;  // guarded by mu_; null when stale
  uint64_t builds_ = 0;                            // guarded by mu_
};

}  // namespace allot::scheduler
