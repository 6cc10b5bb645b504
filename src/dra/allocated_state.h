// AllocatedState: which devices of an Inventory are taken, and how much of what is shared.
//
// Three kinds of use, as Kubernetes counts them:
//   * exclusive: a device allocated without adminAccess to some claim (at most once);
//   * shares of a device with allowMultipleAllocations (DRAConsumableCapacity): the capacity
//     each share consumes, summed per device;
//   * counters consumed from a slice's sharedCounters (DRAPartitionableDevices), summed per
//     (driver, pool, counterSet, counter). A device consumes its counters once while it has any
//     use (a shared device does not consume them again per share), as Kubernetes counts them.
// A result with a shareID is a share; one without is exclusive. Admin-access results never
// count as use. Results naming devices that are not in the
// inventory (their slice is gone or incomplete) are remembered by ID, so a device that comes
// back is still known to be taken.
//
// Thread safety: none. The scheduler keeps one master copy and gives each cycle its own copy
// (copying is a few vector copies), which Filter reads from many threads.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "api/resource/types.h"
#include "dra/inventory.h"

namespace allot::dra {

class AllocatedState {
 public:
  AllocatedState() = default;
  explicit AllocatedState(std::shared_ptr<const Inventory> inventory);

  // Adds / removes the use recorded in one claim's allocation. Remove(x) after Add(x) restores
  // the state exactly.
  void Add(const api::AllocationResult& allocation);
  void Remove(const api::AllocationResult& allocation);
  // Re-indexes against a new inventory, keeping every recorded use.
  void Rebase(std::shared_ptr<const Inventory> inventory);

  const Inventory* inventory() const { return inventory_.get(); }
  // How many claims have device i allocated exclusively (more than one only where a
  // reservation's claim and its owner's claim share it).
  uint32_t ExclusiveUses(DeviceIndex i) const { return i < exclusive_.size() ? exclusive_[i] : 0; }
  bool IsExclusivelyAllocated(DeviceIndex i) const {
    return i < exclusive_.size() && exclusive_[i] > 0;
  }
  // Any use at all (exclusive or shares): an allocationMode All request without adminAccess
  // needs every matching device to be entirely free.
  bool IsInUse(DeviceIndex i) const;
  // Capacity already consumed by shares of device i (empty if none).
  const std::map<std::string, api::Quantity>* ConsumedCapacity(DeviceIndex i) const;
  // Amount of counter (driver, pool, counterSet, counter) consumed so far (0 if none).
  api::Quantity ConsumedCounter(std::string_view driver, std::string_view pool,
                                std::string_view counter_set, std::string_view counter) const;
  // The same by the inventory's counter index; nullptr when nothing was consumed.
  const api::Quantity* ConsumedCounterAt(CounterIndex c) const;
  // Share IDs in use for device i.
  size_t ShareCount(DeviceIndex i) const;
  // Whether nothing at all is recorded (no use, also none outside the inventory).
  bool empty() const;

  // Change counters, for caching what a node can allocate: every Add / Remove bumps the
  // counter of the home slot of each device it touches (Inventory::home), or the shared
  // counter for devices without a home (and for devices outside the inventory). What a node
  // can allocate is unchanged while its slot's counter and the shared counter are (for the
  // same inventory). Rebase resets them.
  uint64_t node_generation(uint32_t slot) const {
    return slot < node_gen_.size() ? node_gen_[slot] : 0;
  }
  uint64_t shared_generation() const { return shared_gen_; }

  // A copy for reading only (Allocate): what is in use, without the per-device bookkeeping that
  // Add / Remove / Rebase need. Taking one costs a copy of the derived state only, and the
  // original stays the sole owner of its bookkeeping, so its next Add copies nothing. Add,
  // Remove and Rebase on the copy are errors.
  AllocatedState ForReading() const;

  struct Impl;

 private:
  std::shared_ptr<const Inventory> inventory_;
  // By DeviceIndex: exclusive allocations (normally 0 or 1) of the inventory's devices. The
  // count lives here only, not also in rest_ by device ID: a claim's device costs no map node
  // (about 200 bytes each; docs/performance.md). Rebase names them by ID before re-indexing.
  // Past kMaxExclusive for one device (never in practice) the rest is counted in rest_.
  std::vector<uint16_t> exclusive_;
  static constexpr uint16_t kMaxExclusive = 0xffff;
  size_t exclusive_total_ = 0;  // the sum of exclusive_
  // Everything else (shares, counters, devices outside the inventory) lives in maps keyed by
  // device ID; see allocated_state.cc.
  std::shared_ptr<Impl> rest_;      // copy-on-write
  std::vector<uint64_t> node_gen_;  // by Inventory node slot
  uint64_t shared_gen_ = 0;

  Impl& Mutable();
  void Apply(const api::AllocationResult& allocation, int sign);
  // An exclusive use (sign +1 / -1) of the inventory's device i.
  void ApplyExclusive(DeviceIndex i, int sign);
  // Bumps the change counter of node slot `home` (the shared one for kNoHome or beyond).
  void Touched(uint32_t home);
  void Reindex();
};

}  // namespace allot::dra
