// AllocatedState: recorded uses by device ID, plus indexes by the inventory's dense indices.
//
// The source of truth is the exclusive counts of the inventory's devices (exclusive_, by index)
// and `uses` (device ID -> shares, and exclusive counts of devices outside the inventory);
// everything else indexed by DeviceIndex / CounterIndex is derived from them, so Rebase (which
// first names the indexed counts by ID) only re-derives, and Remove after Add restores the exact
// state (sums are recomputed from the shares, never subtracted).
#include "dra/allocated_state.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <utility>

namespace allot::dra {

using DeviceId = std::tuple<std::string, std::string, std::string>;
using Capacity = std::map<std::string, api::Quantity>;

struct AllocatedState::Impl {
  // A device's use that exclusive_ does not count: its shares, and exclusive uses of a device
  // outside the inventory (or beyond kMaxExclusive).
  struct Use {
    uint32_t exclusive = 0;
    std::multimap<std::string, Capacity> shares;  // shareID ("" when unset) -> consumed
    bool empty() const { return exclusive == 0 && shares.empty(); }
  };
  std::map<DeviceId, Use> uses;
  // Derived, by inventory index.
  std::unordered_map<DeviceIndex, Capacity> consumed;
  std::unordered_map<DeviceIndex, size_t> share_count;
  std::unordered_map<CounterIndex, api::Quantity> counters;
  // A ForReading() copy: `uses` left out; whether the original had any.
  bool read_only = false;
  bool read_only_nonempty = false;
};

AllocatedState::AllocatedState(std::shared_ptr<const Inventory> inventory)
    : inventory_(std::move(inventory)) {
  if (inventory_) {
    exclusive_.assign(inventory_->size(), 0);
    node_gen_.assign(inventory_->node_slots(), 0);
  }
}

AllocatedState::Impl& AllocatedState::Mutable() {
  if (rest_ == nullptr) {
    rest_ = std::make_shared<Impl>();
  } else if (rest_.use_count() > 1) {
    rest_ = std::make_shared<Impl>(*rest_);
  }
  return *rest_;
}

namespace {

// Adds (sign > 0) or removes the counters of device i.
void ApplyCounters(const Inventory& inv, DeviceIndex i, int sign,
                   std::unordered_map<CounterIndex, api::Quantity>& counters) {
  for (const Inventory::CounterUse& cu : inv.info(i).counters) {
    api::Quantity& q = counters[cu.counter];
    if (sign > 0) {
      q.Add(cu.amount);
    } else {
      q.Sub(cu.amount);
      if (q.IsZero()) counters.erase(cu.counter);
    }
  }
}

Capacity SumShares(const std::multimap<std::string, Capacity>& shares) {
  Capacity sum;
  for (const auto& [id, consumed] : shares) {
    for (const auto& [name, q] : consumed) sum[name].Add(q);
  }
  return sum;
}

}  // namespace

void AllocatedState::Apply(const api::AllocationResult& allocation, int sign) {
  for (const api::DeviceRequestAllocationResult& r : allocation.devices.results) {
    if (r.rare->adminAccess.value_or(false)) continue;
    std::optional<DeviceIndex> index;
    if (inventory_) index = inventory_->Find(r.driver, r.pool, r.device);
    if (index && !r.rare->shareID) {
      ApplyExclusive(*index, sign);
      continue;
    }
    Impl& m = Mutable();
    DeviceId id{r.driver, r.pool, r.device};
    auto it = m.uses.find(id);
    if (sign < 0 && it == m.uses.end()) continue;
    if (it == m.uses.end()) it = m.uses.emplace(id, Impl::Use{}).first;
    Impl::Use& use = it->second;
    const bool was_used = !use.empty() || (index && exclusive_[*index] > 0);
    const std::string share = r.rare->shareID.value_or("");
    if (r.rare->shareID) {
      if (sign > 0) {
        use.shares.emplace(share, r.rare->consumedCapacity);
      } else {
        auto [lo, hi] = use.shares.equal_range(share);
        for (auto s = lo; s != hi; ++s) {
          if (s->second == r.rare->consumedCapacity) {
            use.shares.erase(s);
            break;
          }
        }
      }
    } else if (sign > 0) {
      ++use.exclusive;  // a device outside the inventory
    } else if (use.exclusive > 0) {
      --use.exclusive;
    }
    const bool is_used = !use.empty() || (index && exclusive_[*index] > 0);
    Touched(index ? inventory_->home(*index) : Inventory::kNoHome);
    if (index) {
      if (use.shares.empty()) {
        m.consumed.erase(*index);
        m.share_count.erase(*index);
      } else {
        m.consumed[*index] = SumShares(use.shares);
        m.share_count[*index] = use.shares.size();
      }
      if (was_used != is_used) ApplyCounters(*inventory_, *index, is_used ? 1 : -1, m.counters);
    }
    if (use.empty()) m.uses.erase(it);
  }
}

namespace {

DeviceId IdOf(const Inventory& inv, DeviceIndex i) {
  const Inventory::DeviceRef& d = inv.device(i);
  return DeviceId{std::string(d.driver), std::string(d.pool), std::string(d.name)};
}

}  // namespace

void AllocatedState::ApplyExclusive(DeviceIndex i, int sign) {
  const bool was_used = IsInUse(i);
  if (sign > 0) {
    if (exclusive_[i] < kMaxExclusive) {
      ++exclusive_[i];
      ++exclusive_total_;
    } else {
      ++Mutable().uses[IdOf(*inventory_, i)].exclusive;  // beyond what the vector counts
    }
  } else {
    // Uses beyond the vector's count (only at its limit) go first.
    bool beyond = false;
    if (exclusive_[i] == kMaxExclusive && rest_ != nullptr) {
      Impl& m = Mutable();
      auto it = m.uses.find(IdOf(*inventory_, i));
      if (it != m.uses.end() && it->second.exclusive > 0) {
        beyond = true;
        --it->second.exclusive;
        if (it->second.empty()) m.uses.erase(it);
      }
    }
    if (!beyond) {
      if (exclusive_[i] == 0) return;  // nothing recorded to remove
      --exclusive_[i];
      --exclusive_total_;
    }
  }
  Touched(inventory_->home(i));
  const bool is_used = IsInUse(i);
  if (was_used != is_used && !inventory_->info(i).counters.empty()) {
    ApplyCounters(*inventory_, i, is_used ? 1 : -1, Mutable().counters);
  }
}

void AllocatedState::Touched(uint32_t home) {
  if (home < node_gen_.size()) {
    ++node_gen_[home];
  } else {
    ++shared_gen_;
  }
}

void AllocatedState::Add(const api::AllocationResult& allocation) { Apply(allocation, 1); }
void AllocatedState::Remove(const api::AllocationResult& allocation) { Apply(allocation, -1); }

void AllocatedState::Rebase(std::shared_ptr<const Inventory> inventory) {
  // Exclusive uses of the old inventory's devices are counted by index only: name them, so
  // that Reindex finds them in the new one (or remembers them by ID if they are gone).
  if (inventory_ && exclusive_total_ > 0) {
    Impl& m = Mutable();
    for (DeviceIndex i = 0; i < exclusive_.size(); ++i) {
      if (exclusive_[i] == 0) continue;
      m.uses[IdOf(*inventory_, i)].exclusive += exclusive_[i];
    }
  }
  inventory_ = std::move(inventory);
  Reindex();
}

void AllocatedState::Reindex() {
  exclusive_.assign(inventory_ ? inventory_->size() : 0, 0);
  exclusive_total_ = 0;
  node_gen_.assign(inventory_ ? inventory_->node_slots() : 0, 0);
  shared_gen_ = 0;
  if (rest_ == nullptr) return;
  Impl& m = Mutable();
  m.consumed.clear();
  m.share_count.clear();
  m.counters.clear();
  if (!inventory_) return;
  std::vector<DeviceIndex> used;
  for (auto it = m.uses.begin(); it != m.uses.end();) {
    const auto& [id, use] = *it;
    std::optional<DeviceIndex> index =
        inventory_->Find(std::get<0>(id), std::get<1>(id), std::get<2>(id));
    if (!index) {
      ++it;
      continue;
    }
    // Exclusive uses of a device in the inventory are counted in exclusive_ (up to its limit).
    const uint32_t moved = std::min<uint32_t>(it->second.exclusive, kMaxExclusive);
    exclusive_[*index] = static_cast<uint16_t>(moved);
    exclusive_total_ += moved;
    it->second.exclusive -= moved;
    if (!use.shares.empty()) {
      m.consumed[*index] = SumShares(use.shares);
      m.share_count[*index] = use.shares.size();
    }
    used.push_back(*index);
    it = it->second.empty() ? m.uses.erase(it) : std::next(it);
  }
  for (DeviceIndex i : used) ApplyCounters(*inventory_, i, 1, m.counters);
}

bool AllocatedState::IsInUse(DeviceIndex i) const {
  if (IsExclusivelyAllocated(i)) return true;
  return rest_ != nullptr && rest_->share_count.count(i) > 0;
}

const std::map<std::string, api::Quantity>* AllocatedState::ConsumedCapacity(DeviceIndex i) const {
  if (rest_ == nullptr) return nullptr;
  auto it = rest_->consumed.find(i);
  return it == rest_->consumed.end() ? nullptr : &it->second;
}

const api::Quantity* AllocatedState::ConsumedCounterAt(CounterIndex c) const {
  if (rest_ == nullptr) return nullptr;
  auto it = rest_->counters.find(c);
  return it == rest_->counters.end() ? nullptr : &it->second;
}

api::Quantity AllocatedState::ConsumedCounter(std::string_view driver, std::string_view pool,
                                              std::string_view counter_set,
                                              std::string_view counter) const {
  if (!inventory_) return api::Quantity();
  std::optional<CounterIndex> c = inventory_->FindCounter(driver, pool, counter_set, counter);
  if (!c) return api::Quantity();
  const api::Quantity* q = ConsumedCounterAt(*c);
  return q ? *q : api::Quantity();
}

size_t AllocatedState::ShareCount(DeviceIndex i) const {
  if (rest_ == nullptr) return 0;
  auto it = rest_->share_count.find(i);
  return it == rest_->share_count.end() ? 0 : it->second;
}

bool AllocatedState::empty() const {
  if (exclusive_total_ > 0) return false;
  if (rest_ == nullptr) return true;
  return rest_->read_only ? !rest_->read_only_nonempty : rest_->uses.empty();
}

AllocatedState AllocatedState::ForReading() const {
  AllocatedState out;
  out.inventory_ = inventory_;
  out.exclusive_ = exclusive_;
  out.exclusive_total_ = exclusive_total_;
  out.node_gen_ = node_gen_;
  out.shared_gen_ = shared_gen_;
  if (rest_ != nullptr) {
    auto impl = std::make_shared<Impl>();
    impl->consumed = rest_->consumed;
    impl->share_count = rest_->share_count;
    impl->counters = rest_->counters;
    impl->read_only = true;
    impl->read_only_nonempty = !empty();
    out.rest_ = std::move(impl);
  }
  return out;
}

}  // namespace allot::dra
