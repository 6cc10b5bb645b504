// VerdictCache: the allocator's answer for a node, reused by later pods whose claims ask the
// same (an equivalence class of pods, for pods from one template).
//
// Filter runs the allocator on hundreds of nodes per pod. Pods whose claims come from one
// template ask exactly the same thing, and between two such pods most nodes did not change: the
// answer for them is the same. A class is keyed by everything the answer depends on besides
// the node:
//   the inventory (its identity: a rebuilt inventory starts new classes), the specs of the
//   pod's unallocated claims in order, whether the namespace allows admin access, and the
//   generation of the device classes (bumped on every DeviceClass change);
// and a verdict for a node is valid while the node is the same object version (labels decide
// which non-local devices it reaches) and AllocatedState's change counters for the node's slot
// and for shared devices are where they were (dra/allocated_state.h). Verdicts that ran out of
// search budget are not kept.
//
// A verdict may also assume held devices (dra::HeldDevices without a reservation): the devices
// preemption's dry run frees and those promised to pods nominated to the node. It answers only
// a search with exactly those devices; a node keeps a few such verdicts side by side, since one
// dry run asks about each step of its reprieves and every later preemptor asks the same.
//
// Threading (the scheduling cycle's own): Lookup and Record run on the scheduling thread, Find
// from Filter's threads during the cycle; a class is never written while Filter runs, because
// Record is called only after Filter (PreScore, PostFilter or Reserve).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/resource/types.h"
#include "dra/allocator.h"
#include "dra/inventory.h"

namespace allot::scheduler {

class VerdictCache {
 public:
  struct Verdict {
    std::string node_version;  // the Node's resourceVersion
    uint64_t node_gen = 0;
    uint64_t shared_gen = 0;
    bool feasible = false;
    int64_t score = 0;   // when feasible
    std::string reason;  // when not
    // The held devices assumed (HeldDevices::devices and ::taken; sorted), none for a plain one.
    std::vector<dra::DeviceIndex> usable;
    std::vector<dra::DeviceIndex> taken;
    // The node's slot in the class's inventory (Inventory::NodeSlot), so that a Filter that
    // finds the node's verdicts need not look the slot up by name as well.
    uint32_t slot = dra::Inventory::kNoHome;
  };

  // A node as the cache keys it: its NodeInfo::index(), a dense number, and its name, which a
  // lookup checks (an index is reused once its node is gone).
  struct NodeKey {
    uint32_t index = 0;
    std::string name;
  };

  // The verdicts kept for one node of a class.
  struct NodeVerdicts {
    std::string node;                         // whose they are ("": nobody's)
    uint32_t slot = dra::Inventory::kNoHome;  // as Verdict::slot
    std::vector<Verdict> verdicts;            // oldest first
    // The verdict still valid for these versions and made with the same held devices (`held`
    // null: none), else null.
    const Verdict* Find(const std::string& node_version, uint64_t node_gen, uint64_t shared_gen,
                        const dra::HeldDevices* held = nullptr) const;
  };

  // Verdicts kept per node (the plain one and those assuming held devices).
  static constexpr size_t kVerdictsPerNode = 8;

  // Whether a verdict may assume `held`: only devices freed or promised, no reservation.
  static bool Cacheable(const dra::HeldDevices* held) {
    return !held || (held->reserved.empty() && !held->restricted);
  }

  class Class {
   public:
    // The verdict for the node (`index`, `node`: NodeKey) if still valid for these versions and
    // made with the same held devices (`held` null: none), else null.
    const Verdict* Find(uint32_t index, std::string_view node, const std::string& node_version,
                        uint64_t node_gen, uint64_t shared_gen,
                        const dra::HeldDevices* held = nullptr) const;
    // What is kept for the node, if anything (one lookup serves the slot and the find): an
    // index into a vector and a name compare, no hashing (Filter asks for every node).
    const NodeVerdicts* ForNode(uint32_t index, std::string_view node) const;

   private:
    friend class VerdictCache;
    std::shared_ptr<const dra::Inventory> inventory;
    std::vector<api::ResourceClaimSpec> specs;
    bool admin_access = false;
    uint64_t classes_gen = 0;
    std::vector<NodeVerdicts> by_index;  // by NodeKey::index
  };

  explicit VerdictCache(size_t max_classes = 32) : max_classes_(max_classes) {}

  // The class for these inputs, created if new (the least recently used one is dropped beyond
  // max_classes). Never null.
  std::shared_ptr<Class> Lookup(const std::shared_ptr<const dra::Inventory>& inventory,
                                const std::vector<const api::ResourceClaimSpec*>& specs,
                                bool admin_access, uint64_t classes_gen);
  // Keeps fresh verdicts (the node, a verdict with the node's slot) computed during a cycle.
  static void Record(Class& c, std::vector<std::pair<NodeKey, Verdict>>& fresh);

  size_t size() const { return classes_.size(); }

 private:
  const size_t max_classes_;
  std::vector<std::shared_ptr<Class>> classes_;  // most recently used last
};

}  // namespace allot::scheduler
