// Search: one Allocator::Allocate call (one pod, one node). Private to src/dra.
//
// The shape of the search, and why it cannot blow up the way a plain depth-first search does
// (kubernetes issue 131730: asking for N devices when N-1 are usable tries every combination):
//
//  1. Alternatives first: the firstAvailable requests get their alternatives fixed in claim
//     and request order, each checked with Feasible(), before any device is picked; the device
//     search then runs with those alternatives and, when it fails, the next alternative vector
//     is tried. So the solution uses the lexicographically earliest feasible alternatives
//     (Kubernetes' depth-first search does not promise that: device choices of an earlier
//     request can push a later one to a later alternative).
//     Devices are then searched request by request: "All" requests (no choice), then requests
//     with firstAvailable, then ExactCount requests by slack (usable candidates minus count,
//     most constrained first). Within a request devices are taken as combinations, never
//     permutations, in the inventory's preference order.
//  2. Before searching, and at every request boundary once anything has failed, Feasible()
//     checks a relaxation: every remaining request must be able to get its count from devices
//     that are still free and compatible with the constraints bound so far, and all of them
//     together must fit (a bipartite b-matching of requests to devices, i.e. Hall's condition
//     on every group of requests); distinctAttribute needs enough distinct unused values;
//     an unbound matchAttribute needs one value that every in-scope request can be served
//     from. Shared devices count as unlimited, counters are ignored: it only ever rejects
//     states that have no solution.
//  3. matchAttribute is searched value-first: at the first in-scope request the search
//     branches over the attribute values of its candidates (in preference order), skipping
//     values with too few devices and values for which Feasible() fails, and then only
//     considers devices with that value.
//  4. Symmetry: devices are grouped into classes of interchangeable devices (same candidate
//     membership for every alternative, same constraint attribute values, same counter
//     consumption, not shared). After a device of a class failed at some slot, other unused devices
//     of the same class are not tried at that slot; and a failed request boundary is memoised by a
//     128-bit hash of the state up to such permutations (pick multiset by class, constraint
//     bindings, shares, results per claim; for claims without requests left only which
//     devices they took), so an equivalent state is never searched twice.
//  5. Whatever remains is bounded by max_steps (one step = one device tried for one slot);
//     running out is reported as an error, never as "does not fit".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "dra/allocator_internal.h"

namespace allot::dra {

struct PairHash {
  size_t operator()(const std::pair<uint64_t, uint64_t>& p) const {
    return static_cast<size_t>(p.first ^ (p.second * 0x9e3779b97f4a7c15ULL));
  }
};

class Search {
 public:
  // `build_results` false: the outcome carries result, score and steps only (Filter).
  // `held`: devices a reservation holds for the pod (HeldDevices in allocator.h), or null.
  Search(const Allocator::Impl& impl, const api::Node& node, const AllocatedState& in_use,
         const HeldDevices* held, bool build_results = true);
  Allocator::Outcome Run();

 private:
  bool build_results_ = true;
  static constexpr uint32_t kNone = UINT32_MAX;

  // A device usable from the node (position in reachable_ = local id).
  struct Local {
    DeviceIndex global = 0;
    bool shared = false;       // allowMultipleAllocations with DRAConsumableCapacity
    bool counters = false;     // consumes shared counters (DRAPartitionableDevices)
    bool prior_share = false;  // `in_use` already has shares of it
    bool held = false;         // held for the pod: usable, its counters consumed already
    bool reserved = false;     // held by the pod's reservation (Restricted), maybe not for it
    bool taken = false;        // promised to a pod nominated to the node: never usable
    uint32_t picks = 0;        // picks of a non-shared device in this call
    uint32_t shares = 0;       // shares of a shared device picked in this call
    uint32_t share_slot = kNone;
    uint32_t cls = 0;  // symmetry class (valid once classes_ready_)
  };
  // The usable candidates of one alternative on this node, in preference order.
  struct AltState {
    std::vector<uint32_t> list;                              // local ids
    std::vector<const std::vector<api::Quantity>*> amounts;  // per list entry; shared only
    bool blocked = false;  // All without adminAccess: some matching device is in use
    // For matchAttribute constraints in scope: list positions by attribute value, built on
    // first use, so a bound constraint only visits devices with its value.
    std::vector<std::pair<uint32_t, std::unordered_map<int32_t, std::vector<uint32_t>>>> by_value;
  };
  struct ConState {
    int32_t value = -1;          // matchAttribute: the bound value id
    uint32_t count = 0;          // matchAttribute: devices picked in scope
    uint32_t pins = 0;           // matchAttribute: value fixed by a branch
    std::vector<uint16_t> used;  // distinctAttribute: picks per value id
  };
  struct PickRec {
    uint32_t alt;
    uint32_t local;
    uint32_t claim;
    uint32_t list_pos;
    bool counted;  // consumed counters
  };

  // Setup.
  bool Prepare();
  void BuildAltStates();
  // For an alternative the reservation serves: held devices first; Restricted: only them.
  void ApplyHeld(AltState& st);
  void BuildOrder();
  bool CheckResultLimits();
  // Search.
  bool ChooseAlternatives(size_t k);
  bool WithinResultLimit(uint32_t claim) const;
  bool SolveFrom(size_t pos);
  bool SolveAlternative(size_t pos, uint32_t alt);
  bool Branch(size_t pos, uint32_t alt, size_t next_constraint);
  bool PickAll(size_t pos, uint32_t alt);
  bool PickCount(size_t pos, uint32_t alt, int64_t picked, size_t start);
  // The list positions PickCount has to visit: those with the bound value of an in-scope
  // matchAttribute constraint, or nullptr for all.
  const std::vector<uint32_t>* Positions(uint32_t alt);
  bool CanPick(uint32_t alt, uint32_t list_pos);
  void DoPick(uint32_t alt, uint32_t list_pos);
  void UndoPick();
  bool Step();
  int64_t Need(uint32_t alt) const;
  bool InScope(uint32_t con, uint32_t alt) const;
  int32_t ValueOf(uint32_t con, uint32_t local) const;
  api::Quantity& CounterLeft(CounterIndex c);
  // Feasibility, symmetry, memo (allocator_feasibility.cc).
  bool Feasible(size_t pos);
  bool Augment(uint32_t q);
  bool CheckDistinct(size_t first_slot) const;
  bool CheckMatch(size_t first_slot) const;
  bool RelaxedUsable(uint32_t alt, uint32_t local) const;
  void EnsureClasses();
  std::pair<uint64_t, uint64_t> StateKey(size_t pos) const;
  // Result.
  Allocator::Outcome Success();
  Allocator::Outcome Failure();

  const Allocator::Impl& impl_;
  const Inventory& inv_;
  const api::Node& node_;
  const AllocatedState& in_use_;
  const HeldDevices* held_;

  std::vector<DeviceIndex> reachable_;
  std::vector<Local> locals_;
  std::vector<std::vector<api::Quantity>> remaining_;  // by share_slot, aligned with capacity
  std::unordered_map<CounterIndex, api::Quantity> counter_left_;
  std::vector<uint16_t> claim_picks_;      // [local * claims + claim]
  std::vector<AltState> alts_;             // by alternative
  std::vector<ConState> cons_;             // by constraint
  std::vector<uint32_t> order_;            // requests in search order
  std::vector<size_t> last_pos_;           // by claim: the last position of its requests in order_
  std::vector<uint32_t> fixed_;            // by request: its alternative once fixed, else kNone
  std::vector<uint32_t> first_available_;  // requests with firstAvailable, in claim order
  std::vector<uint32_t> chosen_;           // by request
  std::vector<uint32_t> results_;          // by claim
  std::vector<PickRec> picks_;
  std::optional<std::string> incomplete_pool_;
  bool has_all_ = false;

  uint64_t steps_ = 0;
  bool aborted_ = false;
  uint64_t failures_ = 0;
  bool classes_ready_ = false;
  uint64_t level_ = 0;
  std::vector<uint64_t> tried_;  // by class: the level at which it last failed
  std::unordered_set<std::pair<uint64_t, uint64_t>, PairHash> memo_;
  std::string detail_;           // reason detail for failures found before / during the search
  bool limit_exceeded_ = false;  // detail_ is the claim result limit: it wins over others

  // Scratch for Feasible: per remaining request (slot), its need, whether all its usable
  // alternatives are in scope of a constraint, and its candidates (local ids).
  struct Slot {
    uint32_t request;
    int64_t need;
    int64_t flow_need;  // need minus shared candidates (shared devices serve everyone)
    bool admin;         // admin requests take no device away: not in the b-matching
    std::vector<uint32_t> usable_alts;
    std::vector<uint32_t> cands;
  };
  std::vector<Slot> slots_;
  size_t slot_count_ = 0;
  std::vector<uint32_t> stamp_;
  uint32_t stamp_gen_ = 0;
  std::vector<int32_t> owner_;
  std::vector<uint32_t> visit_;
  uint32_t visit_gen_ = 0;
};

}  // namespace allot::dra
