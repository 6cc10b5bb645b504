// Inventory::Impl, shared by inventory.cc (building, node lookup) and inventory_cache.cc
// (selector and attribute caches). Private to src/dra.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "dra/inventory.h"

namespace allot::dra {

struct Inventory::Impl {
  // Slices of complete pools, kept alive for the DeviceRef pointers.
  std::vector<std::shared_ptr<const api::ResourceSlice>> slices;
  std::vector<DeviceRef> devices;
  bool tiered = false;  // some device is not node-local, or has binding conditions
  std::vector<DeviceInfo> infos;
  std::unordered_map<std::string, DeviceIndex> by_id;  // "driver/pool/device"

  // Reachability. Node-local devices by node name; devices usable everywhere; devices behind a
  // node selector, grouped by selector so each selector is matched once per node.
  std::unordered_map<std::string, std::vector<DeviceIndex>> by_node;
  // Slots of the nodes in by_node, and each device's home slot (kNoHome: not node-local).
  std::unordered_map<std::string, uint32_t> node_slot;
  std::vector<uint32_t> home;
  std::vector<DeviceIndex> all_nodes;
  struct SelectorGroup {
    const api::NodeSelector* selector;
    std::vector<DeviceIndex> devices;  // ascending
  };
  std::vector<SelectorGroup> selector_groups;

  std::vector<std::string> incomplete;
  // Newest-generation slices of incomplete pools, with the pool name, for "All" requests.
  std::vector<std::pair<std::string, std::shared_ptr<const api::ResourceSlice>>> incomplete_slices;

  std::vector<std::string> pool_names;
  std::vector<CounterInfo> counters;
  std::unordered_map<std::string, CounterIndex> counter_by_key;  // CounterKey(...)

  // Caches (see Evaluate / Attribute). Entries are created under `mu` and filled once, outside
  // the lock, through their once_flag.
  struct SelectorEntry {
    std::once_flag once;
    std::shared_ptr<const SelectorResults> result;
  };
  struct AttributeEntry {
    std::once_flag once;
    std::shared_ptr<const AttributeValues> result;
  };
  mutable std::mutex mu;
  mutable std::unordered_map<std::string, std::shared_ptr<SelectorEntry>> selector_cache;
  mutable std::unordered_map<std::string, std::shared_ptr<AttributeEntry>> attribute_cache;
  mutable std::unordered_map<std::string, std::shared_ptr<const void>> derived;
};

std::string CounterKey(std::string_view driver, std::string_view pool, std::string_view set,
                       std::string_view counter);

}  // namespace allot::dra
