// Inventory: every device the allocator may hand out, built from the ResourceSlices.
//
// Only complete pools of their newest generation count (a pool is complete when the slices of
// its highest generation number resourceSliceCount); pools with duplicate device names are
// left out too (Kubernetes calls them invalid). Devices get dense indices so allocation state
// is a few vectors rather than maps of strings. An Inventory is immutable; the scheduler builds
// a new one when slices change, and everything derived from it (selector results,
// AllocatedState) is tied to that version.
//
// Device order. Indices follow the allocator's preference, so "ascending" is also "preferred
// first": node-local devices (slice or device nodeName) without binding conditions, then other
// devices without binding conditions (nodeSelector / allNodes: fabric already usable), then
// node-local devices with binding conditions, then the rest with binding conditions (fabric
// still to attach); within a tier by driver, pool, slice name and position in the slice.
//
// Binding conditions, early-draft compatibility (docs/architecture.md §5.4): a device with the
// boolean attribute kubernetes.io/needs-attaching = true and no bindingConditions of its own is
// treated as having bindingConditions [kubernetes.io/is-attached], bindingFailureConditions
// [kubernetes.io/attach-failed] and bindsToNode true. DeviceInfo carries the effective values.
//
// Thread safety: immutable after Build, except the selector-result and attribute caches, which
// are internally synchronized (concurrent callers compute an entry once). Safe to share
// between threads.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/core/types.h"
#include "api/resource/types.h"
#include "common/status.h"

namespace allot::cel {
class DeviceSelectorProgram;
}  // namespace allot::cel

namespace allot::dra {

using DeviceIndex = uint32_t;
using CounterIndex = uint32_t;

class Inventory {
 public:
  struct DeviceRef {
    const api::ResourceSlice* slice;  // kept alive by the inventory
    const api::Device* device;
    std::string_view driver;
    std::string_view pool;
    std::string_view name;
  };

  // One counter consumed by a device: which shared counter, and how much.
  struct CounterUse {
    CounterIndex counter;
    api::Quantity amount;
  };

  // Facts about a device the allocator needs on every attempt, computed once in Build.
  struct DeviceInfo {
    uint32_t pool = 0;  // index into pool_names()
    // Reachable through the slice's or the device's nodeName (the allocation pins the node).
    bool node_local = false;
    bool per_device_node_selection = false;  // the slice sets perDeviceNodeSelection
    // Effective KEP-5007 fields (see the compatibility note above).
    bool binds_to_node = false;
    const std::vector<std::string>* binding_conditions = nullptr;          // never null
    const std::vector<std::string>* binding_failure_conditions = nullptr;  // never null
    // Where the device is usable: the node name, the node selector, or neither (allNodes).
    const std::string* node_name = nullptr;
    const api::NodeSelector* node_selector = nullptr;
    // consumesCounters resolved against the pool's sharedCounters (unknown counters dropped).
    std::vector<CounterUse> counters;
    bool has_binding_conditions() const { return !binding_conditions->empty(); }
  };

  struct CounterInfo {
    uint32_t pool;
    std::string counter_set;
    std::string name;
    api::Quantity capacity;
  };

  static std::shared_ptr<const Inventory> Build(
      std::vector<std::shared_ptr<const api::ResourceSlice>> slices);

  size_t size() const;
  // Where a change in the use of a device can matter. A node-local device (slice or device
  // nodeName) without shared counters is "homed" on its node: using or releasing it can only
  // change what that node can allocate. Every other device has kNoHome. Nodes with homed
  // devices have dense slots 0 .. node_slots()-1 (AllocatedState counts changes per slot).
  static constexpr uint32_t kNoHome = 0xffffffffu;
  uint32_t home(DeviceIndex i) const;
  uint32_t node_slots() const;
  uint32_t NodeSlot(const std::string& node) const;  // kNoHome without homed devices

  // Whether some device is not node-local or has binding conditions: then nodes may differ in
  // the preference tiers they offer (see the order above), and scoring them matters.
  bool tiered() const;
  const DeviceRef& device(DeviceIndex i) const;
  const DeviceInfo& info(DeviceIndex i) const;
  std::optional<DeviceIndex> Find(std::string_view driver, std::string_view pool,
                                  std::string_view device) const;
  // The devices usable from `node`, ascending: slices with spec.nodeName == node, slices whose
  // nodeSelector matches it, allNodes slices, and per-device node selection.
  void DevicesForNode(const api::Node& node, std::vector<DeviceIndex>& out) const;
  // Pools left out because they are incomplete ("driver/pool"), for messages.
  const std::vector<std::string>& incomplete_pools() const;
  // The first incomplete pool ("driver/pool") with a slice of its newest generation that
  // targets `node`, if any. Requests for "All" devices cannot be satisfied while one exists.
  std::optional<std::string> IncompletePoolForNode(const api::Node& node) const;

  // Pools ("driver/pool") by DeviceInfo::pool, and the shared counters of complete pools.
  const std::vector<std::string>& pool_names() const;
  size_t counter_count() const;
  const CounterInfo& counter(CounterIndex c) const;
  std::optional<CounterIndex> FindCounter(std::string_view driver, std::string_view pool,
                                          std::string_view counter_set,
                                          std::string_view counter) const;

  // The selector's verdict for every device (1 match, 0 no match, -1 evaluation error), computed
  // once per (expression, inventory) and shared. `first_error` receives the first evaluation
  // error message ("" if none).
  struct SelectorResults {
    std::vector<int8_t> verdict;
    std::string first_error;
  };
  std::shared_ptr<const SelectorResults> Evaluate(const cel::DeviceSelectorProgram& program) const;

  // The value of one attribute for every device, interned: id[i] is -1 when device i lacks the
  // attribute, else an index into `values`. Two devices have the same id exactly when their
  // values have the same type and value. `name` is fully qualified ("domain/id"); a device's
  // unqualified attribute belongs to its driver's domain (a qualified spelling wins).
  // Computed once per (name, inventory).
  struct AttributeValues {
    std::vector<int32_t> id;
    std::vector<std::string> values;  // "int:5", "string:a", "bool:true", "version:1.0.0"
  };
  std::shared_ptr<const AttributeValues> Attribute(std::string_view name) const;

  // A cache for data other components derive from this inventory (the allocator keeps its
  // candidate sets here, so pods with the same requests share them). FindDerived returns what
  // AddDerived stored under `key`, or nullptr; AddDerived keeps the first value stored under a
  // key and returns the value in the cache. Thread-safe.
  std::shared_ptr<const void> FindDerived(std::string_view key) const;
  std::shared_ptr<const void> AddDerived(std::string key, std::shared_ptr<const void> value) const;

  struct Impl;
  ~Inventory();

 private:
  Inventory();
  std::unique_ptr<Impl> impl_;
};

// The device's attribute `name` ("domain/id"), looked up as Kubernetes does: the qualified key
// first, then the unqualified id when the domain is the driver's. nullptr when absent.
const api::DeviceAttribute* LookupAttribute(const api::Device& device, std::string_view driver,
                                            std::string_view name);

}  // namespace allot::dra
