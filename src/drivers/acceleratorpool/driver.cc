#include "drivers/acceleratorpool/driver.h"

#include "api/resource/node_pinning.h"

namespace allot::drivers {

namespace {

// Accelerators the claim asks for: each request's count (1 by default).
int64_t Need(const api::ResourceClaim& claim) {
  int64_t n = 0;
  for (const api::DeviceRequest& r : claim.spec.devices.requests) {
    n += r.exactly && r.exactly->count > 0 ? r.exactly->count : 1;
  }
  return std::max<int64_t>(n, 1);
}

}  // namespace

AcceleratorPoolDriver::AcceleratorPoolDriver(AcceleratorPoolConfig config, NodeLookup nodes,
                                             Clock* clock)
    : config_(std::move(config)),
      nodes_(std::move(nodes)),
      clock_(clock ? *clock : RealClock::Instance()),
      rng_(config_.seed) {}

void AcceleratorPoolDriver::Interrupt() {
  {
    std::lock_guard<std::mutex> lock(pause_mu_);
    interrupted_ = true;
  }
  pause_cv_.notify_all();
}

void AcceleratorPoolDriver::Pause(std::chrono::microseconds d) {
  if (d.count() <= 0) return;
  std::unique_lock<std::mutex> lock(pause_mu_);
  if (interrupted_) return;
  clock_.WaitFor(pause_cv_, lock, d, [this] { return interrupted_; });
}

std::string AcceleratorPoolDriver::RackOf(const api::Node& node) const {
  for (const auto& [k, v] : config_.node_selector) {
    auto it = node.metadata.labels.find(k);
    if (it == node.metadata.labels.end() || it->second != v) return "";
  }
  if (auto r = config_.node_racks.find(node.metadata.name); r != config_.node_racks.end()) {
    return r->second;
  }
  auto it = node.metadata.labels.find(config_.rack_label);
  if (it == node.metadata.labels.end() || !config_.racks.contains(it->second)) return "";
  return it->second;
}

int64_t AcceleratorPoolDriver::FreeInRackLocked(const std::string& rack) const {
  auto cap = config_.racks.find(rack);
  if (cap == config_.racks.end()) return 0;
  auto used = used_slots_.find(rack);
  return cap->second - (used == used_slots_.end() ? 0 : static_cast<int64_t>(used->second.size()));
}

std::string AcceleratorPoolDriver::UnsuitableLocked(const std::string& node, int64_t need) const {
  auto n = nodes_(node);
  if (!n) return "node " + node + " is unknown";
  const std::string rack = RackOf(*n);
  if (rack.empty()) return "node " + node + " does not reach the accelerator pool";
  auto used = node_use_.find(node);
  if ((used == node_use_.end() ? 0 : used->second) + need > config_.per_node_limit) {
    return "node " + node + " would use more than " + std::to_string(config_.per_node_limit) +
           " accelerators";
  }
  if (FreeInRackLocked(rack) < need) return "rack " + rack + " has too few free accelerators";
  return "";
}

Status AcceleratorPoolDriver::UnsuitableNodes(const api::Pod&,
                                              std::span<controlplane::ClaimAllocation> claims,
                                              const std::vector<std::string>& nodes) {
  Pause(config_.answer_latency);
  int64_t need = 0;
  for (const auto& c : claims) need += Need(*c.claim);
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::string& node : nodes) {
    if (UnsuitableLocked(node, need).empty()) continue;
    for (auto& c : claims) c.unsuitable_nodes.push_back(node);
  }
  return Status::Ok();
}

void AcceleratorPoolDriver::Allocate(std::span<controlplane::ClaimAllocation> claims,
                                     const std::string& node) {
  Pause(config_.allocate_latency);
  std::lock_guard<std::mutex> lock(mu_);
  auto fail = [&](const std::string& why) {
    for (auto& c : claims) c.error = Status(StatusCode::kServiceUnavailable, why);
  };
  if (config_.failure_rate > 0 &&
      std::uniform_real_distribution<double>(0, 1)(rng_) < config_.failure_rate) {
    return fail("simulated allocation failure (failureRate " +
                std::to_string(config_.failure_rate) + ")");
  }
  int64_t need = 0;
  for (const auto& c : claims) {
    ReleaseLocked(c.claim->metadata.uid);  // allocating again replaces what it held
    need += Need(*c.claim);
  }
  std::string rack;
  if (node.empty()) {
    for (const auto& [r, cap] : config_.racks) {
      if (FreeInRackLocked(r) >= need &&
          (rack.empty() || FreeInRackLocked(r) > FreeInRackLocked(rack))) {
        rack = r;
      }
    }
    if (rack.empty()) return fail("no rack has " + std::to_string(need) + " free accelerators");
  } else {
    if (std::string why = UnsuitableLocked(node, need); !why.empty()) return fail(why);
    rack = RackOf(*nodes_(node));
    node_use_[node] += need;
  }
  std::set<int64_t>& used = used_slots_[rack];
  for (auto& c : claims) {
    Holding h{rack, node, {}};
    api::AllocationResult a;
    int64_t slot = 0;
    for (const api::DeviceRequest& r : c.claim->spec.devices.requests) {
      const int64_t n = r.exactly && r.exactly->count > 0 ? r.exactly->count : 1;
      for (int64_t i = 0; i < n; ++i) {
        while (used.count(slot)) ++slot;
        used.insert(slot);
        h.slots.push_back(slot);
        a.devices.results.push_back({.request = r.name,
                                     .driver = config_.driver,
                                     .pool = rack,
                                     .device = "acc-" + std::to_string(slot)});
      }
    }
    if (!node.empty()) {
      a.nodeSelector = api::PinnedTo(node);
    } else {
      api::NodeSelectorTerm term;
      for (const auto& [k, v] : config_.node_selector)
        term.matchExpressions.push_back({k, "In", {v}});
      term.matchExpressions.push_back({config_.rack_label, "In", {rack}});
      a.nodeSelector.emplace();
      a.nodeSelector->nodeSelectorTerms.push_back(std::move(term));
    }
    held_[c.claim->metadata.uid] = std::move(h);
    c.allocation = std::move(a);
  }
}

Status AcceleratorPoolDriver::Deallocate(const api::ResourceClaim& claim) {
  std::lock_guard<std::mutex> lock(mu_);
  ReleaseLocked(claim.metadata.uid);
  return Status::Ok();
}

void AcceleratorPoolDriver::ReleaseLocked(const std::string& claim_uid) {
  auto it = held_.find(claim_uid);
  if (it == held_.end()) return;
  const Holding& h = it->second;
  for (int64_t slot : h.slots) used_slots_[h.rack].erase(slot);
  if (!h.node.empty()) {
    node_use_[h.node] -= static_cast<int64_t>(h.slots.size());
    if (node_use_[h.node] <= 0) node_use_.erase(h.node);
  }
  held_.erase(it);
}

void AcceleratorPoolDriver::Restore(const api::ResourceClaim& claim) {
  const auto& alloc = claim.status.allocation;
  if (!alloc || alloc->controllerName != config_.driver) return;
  std::lock_guard<std::mutex> lock(mu_);
  ReleaseLocked(claim.metadata.uid);
  Holding h;
  h.node = alloc->nodeSelector ? api::PinnedNode(*alloc->nodeSelector) : "";
  for (const auto& r : alloc->devices.results) {
    if (r.driver != config_.driver || r.device.rfind("acc-", 0) != 0) continue;
    h.rack = r.pool;
    int64_t slot = std::strtoll(r.device.c_str() + 4, nullptr, 10);
    used_slots_[r.pool].insert(slot);
    h.slots.push_back(slot);
  }
  if (h.slots.empty()) return;
  if (!h.node.empty()) node_use_[h.node] += static_cast<int64_t>(h.slots.size());
  held_[claim.metadata.uid] = std::move(h);
}

AcceleratorPoolDriver::Usage AcceleratorPoolDriver::usage() const {
  std::lock_guard<std::mutex> lock(mu_);
  Usage u;
  for (const auto& [rack, slots] : used_slots_) {
    if (!slots.empty()) u.by_rack[rack] = static_cast<int64_t>(slots.size());
  }
  u.by_node = node_use_;
  return u;
}

}  // namespace allot::drivers
