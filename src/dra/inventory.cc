// Inventory::Build (pool completeness, device order, reachability index) and lookups.
#include "dra/inventory.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "api/machinery/selector.h"
#include "dra/inventory_internal.h"

namespace allot::dra {
namespace {

constexpr std::string_view kNeedsAttaching = "kubernetes.io/needs-attaching";

const std::vector<std::string>& DraftBindingConditions() {
  static const std::vector<std::string> v{"kubernetes.io/is-attached"};
  return v;
}
const std::vector<std::string>& DraftFailureConditions() {
  static const std::vector<std::string> v{"kubernetes.io/attach-failed"};
  return v;
}

using SlicePtr = std::shared_ptr<const api::ResourceSlice>;

// The slices of one pool at its newest generation.
struct PoolSlices {
  std::string driver;
  std::string name;
  std::vector<SlicePtr> newest;
};

// Groups slices by (driver, pool), keeping only the newest generation of each pool.
std::map<std::pair<std::string, std::string>, PoolSlices> GroupPools(
    const std::vector<SlicePtr>& slices) {
  std::map<std::pair<std::string, std::string>, PoolSlices> pools;
  for (const SlicePtr& s : slices) {
    if (s == nullptr) continue;
    auto key = std::make_pair(s->spec.driver, s->spec.pool.name);
    PoolSlices& p = pools[key];
    p.driver = key.first;
    p.name = key.second;
    if (!p.newest.empty()) {
      int64_t gen = p.newest.front()->spec.pool.generation;
      if (s->spec.pool.generation < gen) continue;
      if (s->spec.pool.generation > gen) p.newest.clear();
    }
    p.newest.push_back(s);
  }
  for (auto& [key, p] : pools) {
    std::sort(p.newest.begin(), p.newest.end(), [](const SlicePtr& a, const SlicePtr& b) {
      return std::tie(a->metadata.name, a->metadata.uid) <
             std::tie(b->metadata.name, b->metadata.uid);
    });
  }
  return pools;
}

bool HasDuplicateDeviceNames(const PoolSlices& p) {
  std::set<std::string_view> names;
  for (const SlicePtr& s : p.newest) {
    for (const api::Device& d : s->spec.devices) {
      if (!names.insert(d.name).second) return true;
    }
  }
  return false;
}

bool NeedsAttachingDraft(const api::Device& d, std::string_view driver) {
  if (!d.bindingConditions.empty()) return false;
  const api::DeviceAttribute* a = LookupAttribute(d, driver, kNeedsAttaching);
  return a != nullptr && a->boolValue.value_or(false);
}

// Fills the scope fields of `info` (node name or node selector; allNodes sets neither).
void SetScope(const api::ResourceSlice& s, const api::Device& d, Inventory::DeviceInfo& info) {
  const api::ResourceSliceSpec& spec = s.spec;
  if (spec.perDeviceNodeSelection.value_or(false)) {
    info.per_device_node_selection = true;
    if (d.nodeName && !d.nodeName->empty()) {
      info.node_name = &*d.nodeName;
      info.node_local = true;
    } else if (d.nodeSelector) {
      info.node_selector = &*d.nodeSelector;
    }
    return;
  }
  if (spec.nodeName && !spec.nodeName->empty()) {
    info.node_name = &*spec.nodeName;
    info.node_local = true;
  } else if (spec.nodeSelector) {
    info.node_selector = &*spec.nodeSelector;
  }
}

bool AllNodes(const api::ResourceSlice& s, const api::Device& d) {
  if (s.spec.perDeviceNodeSelection.value_or(false)) return d.allNodes.value_or(false);
  return s.spec.allNodes.value_or(false);
}

int Tier(const Inventory::DeviceInfo& info) {
  return (info.has_binding_conditions() ? 2 : 0) + (info.node_local ? 0 : 1);
}

}  // namespace

std::string CounterKey(std::string_view driver, std::string_view pool, std::string_view set,
                       std::string_view counter) {
  std::string key;
  key.reserve(driver.size() + pool.size() + set.size() + counter.size() + 3);
  key.append(driver).push_back('/');
  key.append(pool).push_back('\0');
  key.append(set).push_back('\0');
  key.append(counter);
  return key;
}

const api::DeviceAttribute* LookupAttribute(const api::Device& device, std::string_view driver,
                                            std::string_view name) {
  auto it = device.attributes.find(std::string(name));
  if (it != device.attributes.end()) return &it->second;
  size_t slash = name.find('/');
  if (slash == std::string_view::npos || name.substr(0, slash) != driver) return nullptr;
  it = device.attributes.find(std::string(name.substr(slash + 1)));
  return it == device.attributes.end() ? nullptr : &it->second;
}

Inventory::Inventory() : impl_(std::make_unique<Impl>()) {}
Inventory::~Inventory() = default;

std::shared_ptr<const Inventory> Inventory::Build(std::vector<SlicePtr> slices) {
  std::shared_ptr<Inventory> inv(new Inventory());
  Impl& m = *inv->impl_;
  struct Pending {
    int tier;
    uint32_t pool;
    uint32_t slice;  // index into m.slices (slices are appended in (driver, pool, name) order)
    uint32_t pos;
    DeviceInfo info;
  };
  std::vector<Pending> pending;
  for (auto& [key, p] : GroupPools(slices)) {
    std::string pool_id = p.driver + "/" + p.name;
    const int64_t want = p.newest.front()->spec.pool.resourceSliceCount;
    if (static_cast<int64_t>(p.newest.size()) != want) {
      m.incomplete.push_back(pool_id);
      for (const SlicePtr& s : p.newest) m.incomplete_slices.emplace_back(pool_id, s);
      continue;
    }
    if (HasDuplicateDeviceNames(p)) continue;  // invalid pool, as Kubernetes treats it
    const uint32_t pool_index = static_cast<uint32_t>(m.pool_names.size());
    m.pool_names.push_back(pool_id);
    for (const SlicePtr& s : p.newest) {
      for (const api::CounterSet& set : s->spec.sharedCounters) {
        for (const auto& [name, c] : set.counters) {
          std::string ck = CounterKey(p.driver, p.name, set.name, name);
          if (m.counter_by_key.count(ck)) continue;
          m.counter_by_key.emplace(std::move(ck), static_cast<CounterIndex>(m.counters.size()));
          m.counters.push_back(CounterInfo{pool_index, set.name, name, c.value});
        }
      }
    }
    for (const SlicePtr& s : p.newest) {
      const uint32_t slice_index = static_cast<uint32_t>(m.slices.size());
      m.slices.push_back(s);
      for (size_t pos = 0; pos < s->spec.devices.size(); ++pos) {
        const api::Device& d = s->spec.devices[pos];
        DeviceInfo info;
        info.pool = pool_index;
        SetScope(*s, d, info);
        info.binds_to_node = d.bindsToNode.value_or(false);
        info.binding_conditions = &d.bindingConditions;
        info.binding_failure_conditions = &d.bindingFailureConditions;
        if (NeedsAttachingDraft(d, p.driver)) {
          info.binds_to_node = true;
          info.binding_conditions = &DraftBindingConditions();
          info.binding_failure_conditions = d.bindingFailureConditions.empty()
                                                ? &DraftFailureConditions()
                                                : &d.bindingFailureConditions;
        }
        for (const api::DeviceCounterConsumption& cc : d.consumesCounters) {
          for (const auto& [name, c] : cc.counters) {
            auto it = m.counter_by_key.find(CounterKey(p.driver, p.name, cc.counterSet, name));
            if (it != m.counter_by_key.end()) info.counters.push_back({it->second, c.value});
          }
        }
        pending.push_back(Pending{Tier(info), pool_index, slice_index, static_cast<uint32_t>(pos),
                                  std::move(info)});
      }
    }
  }
  std::stable_sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
    return std::tie(a.tier, a.slice, a.pos) < std::tie(b.tier, b.slice, b.pos);
  });
  for (const Pending& e : pending) m.tiered = m.tiered || e.tier > 0;
  m.devices.reserve(pending.size());
  m.infos.reserve(pending.size());
  std::map<const api::NodeSelector*, size_t> group_of;
  for (Pending& e : pending) {
    const api::ResourceSlice* s = m.slices[e.slice].get();
    const api::Device& d = s->spec.devices[e.pos];
    const DeviceIndex index = static_cast<DeviceIndex>(m.devices.size());
    m.devices.push_back(DeviceRef{s, &d, s->spec.driver, s->spec.pool.name, d.name});
    m.by_id.emplace(s->spec.driver + "/" + s->spec.pool.name + "/" + d.name, index);
    if (e.info.node_name != nullptr) {
      m.by_node[*e.info.node_name].push_back(index);
    } else if (e.info.node_selector != nullptr) {
      auto [it, added] = group_of.emplace(e.info.node_selector, m.selector_groups.size());
      if (added) m.selector_groups.push_back({e.info.node_selector, {}});
      m.selector_groups[it->second].devices.push_back(index);
    } else if (AllNodes(*s, d)) {
      m.all_nodes.push_back(index);
    }
    m.infos.push_back(std::move(e.info));
  }
  m.home.assign(m.devices.size(), kNoHome);
  for (const auto& [node, devices] : m.by_node) {
    const uint32_t slot = static_cast<uint32_t>(m.node_slot.size());
    m.node_slot.emplace(node, slot);
    for (DeviceIndex d : devices) {
      // Shared counters may tie a device to others elsewhere: such a device has no home.
      if (m.infos[d].counters.empty()) m.home[d] = slot;
    }
  }
  return inv;
}

size_t Inventory::size() const { return impl_->devices.size(); }
bool Inventory::tiered() const { return impl_->tiered; }
uint32_t Inventory::home(DeviceIndex i) const { return impl_->home[i]; }
uint32_t Inventory::node_slots() const { return static_cast<uint32_t>(impl_->node_slot.size()); }
uint32_t Inventory::NodeSlot(const std::string& node) const {
  auto it = impl_->node_slot.find(node);
  return it == impl_->node_slot.end() ? kNoHome : it->second;
}
const Inventory::DeviceRef& Inventory::device(DeviceIndex i) const { return impl_->devices[i]; }
const Inventory::DeviceInfo& Inventory::info(DeviceIndex i) const { return impl_->infos[i]; }
const std::vector<std::string>& Inventory::incomplete_pools() const { return impl_->incomplete; }
const std::vector<std::string>& Inventory::pool_names() const { return impl_->pool_names; }
size_t Inventory::counter_count() const { return impl_->counters.size(); }
const Inventory::CounterInfo& Inventory::counter(CounterIndex c) const {
  return impl_->counters[c];
}

std::optional<DeviceIndex> Inventory::Find(std::string_view driver, std::string_view pool,
                                           std::string_view device) const {
  std::string key;
  key.reserve(driver.size() + pool.size() + device.size() + 2);
  key.append(driver).push_back('/');
  key.append(pool).push_back('/');
  key.append(device);
  auto it = impl_->by_id.find(key);
  if (it == impl_->by_id.end()) return std::nullopt;
  return it->second;
}

std::optional<CounterIndex> Inventory::FindCounter(std::string_view driver, std::string_view pool,
                                                   std::string_view counter_set,
                                                   std::string_view counter) const {
  auto it = impl_->counter_by_key.find(CounterKey(driver, pool, counter_set, counter));
  if (it == impl_->counter_by_key.end()) return std::nullopt;
  return it->second;
}

void Inventory::DevicesForNode(const api::Node& node, std::vector<DeviceIndex>& out) const {
  out.clear();
  // Every source is ascending; merging keeps the whole ascending.
  auto append = [&](const std::vector<DeviceIndex>& v) {
    if (v.empty()) return;
    const size_t mid = out.size();
    out.insert(out.end(), v.begin(), v.end());
    if (mid > 0 && out[mid] < out[mid - 1]) {
      std::inplace_merge(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(mid), out.end());
    }
  };
  auto local = impl_->by_node.find(node.metadata.name);
  if (local != impl_->by_node.end()) append(local->second);
  append(impl_->all_nodes);
  for (const Impl::SelectorGroup& g : impl_->selector_groups) {
    if (api::MatchesNodeSelector(*g.selector, node.metadata.labels, node.metadata.name)) {
      append(g.devices);
    }
  }
}

std::optional<std::string> Inventory::IncompletePoolForNode(const api::Node& node) const {
  for (const auto& [pool, s] : impl_->incomplete_slices) {
    const api::ResourceSliceSpec& spec = s->spec;
    bool reachable = false;
    if (spec.nodeName && !spec.nodeName->empty()) {
      reachable = *spec.nodeName == node.metadata.name;
    } else if (spec.allNodes.value_or(false)) {
      reachable = true;
    } else if (spec.nodeSelector) {
      reachable =
          api::MatchesNodeSelector(*spec.nodeSelector, node.metadata.labels, node.metadata.name);
    } else if (spec.perDeviceNodeSelection.value_or(false)) {
      for (const api::Device& d : spec.devices) {
        if ((d.nodeName && *d.nodeName == node.metadata.name) || d.allNodes.value_or(false) ||
            (d.nodeSelector &&
             api::MatchesNodeSelector(*d.nodeSelector, node.metadata.labels, node.metadata.name))) {
          reachable = true;
          break;
        }
      }
    }
    if (reachable) return pool;
  }
  return std::nullopt;
}

}  // namespace allot::dra
