// Pods nominated to a node hold devices there (docs/preemption.md, "Devices").
//
// Filter counts the pods nominated to a node with a priority at least the incoming pod's as
// running there (Framework::RunFilterPluginsWithNominatedPods). For CPU that keeps the space a
// victim freed for its preemptor; for devices it takes this: when such a pod is added to the
// node's copy of the cycle state, the devices its unallocated structured claims would be given
// on the node (the allocator's own choice, after what is in use and what earlier nominated pods
// take) are marked taken, and the incoming pod's search may not use them.
#include <algorithm>

#include "dra/allocator.h"
#include "scheduler/plugins/dynamicresources/dynamic_resources.h"
#include "scheduler/plugins/dynamicresources/state.h"

namespace allot::scheduler {

using dra_plugin::DraState;

namespace {

// Nominated pods kept in the cache before it is emptied (nominated pods are few; this only
// bounds what pods that bound or went away leave behind).
constexpr size_t kMaxNominatedEntries = 4096;
// Answers kept per nominated pod and node (one per state a dry run's reprieve steps ask about).
constexpr size_t kTakesPerNode = 4;

}  // namespace

void DynamicResources::TakeForNominated(DraState& s, const PodInfo& nominated,
                                        const api::Node& node) const {
  const api::Pod& pod = *nominated.pod;
  if (!s.view.inventory || !s.view.in_use || pod.spec.resourceClaims.empty()) return;
  // Every Filter of every pod on this node asks the same question while nothing changes.
  const uint32_t slot = s.view.inventory->NodeSlot(node.metadata.name);
  const uint64_t node_gen = s.view.in_use->node_generation(slot);
  const uint64_t shared_gen = s.view.in_use->shared_generation();
  std::shared_ptr<const dra::Allocator> allocator;
  bool known = false;
  {
    std::lock_guard<std::mutex> lock(nominated_mu_);
    auto it = nominated_.find(pod.metadata.uid);
    // The same pod version and inventory; a change to one of its claims drops the entry.
    if (it != nominated_.end() && it->second.inventory == s.view.inventory &&
        it->second.pod_version == pod.metadata.resourceVersion) {
      known = true;
      allocator = it->second.allocator;
      auto t = it->second.by_node.find(node.metadata.name);
      if (t != it->second.by_node.end()) {
        for (const NominatedTake& k : t->second) {
          if (k.node_gen != node_gen || k.shared_gen != shared_gen ||
              k.before != s.nominated_taken || (k.used_freed && k.freed != s.freed)) {
            continue;
          }
          s.nominated_taken.insert(s.nominated_taken.end(), k.takes.begin(), k.takes.end());
          std::sort(s.nominated_taken.begin(), s.nominated_taken.end());
          return;
        }
      }
    }
  }
  if (!known) {
    const uint64_t seq = claim_changes_.load();
    ClaimList claims;
    if (!GatherClaims(pod, claims).IsSuccess()) return;  // not ready to allocate anyway
    ClaimList unallocated;
    for (auto& c : claims) {
      if (!c->status.allocation && c->spec.controllerName.empty()) unallocated.push_back(c);
    }
    if (!unallocated.empty()) {
      auto created = NewAllocator(pod.metadata.namespace_, s.view.inventory, unallocated);
      if (created.ok()) allocator = std::move(created).value();
    }
    std::lock_guard<std::mutex> lock(nominated_mu_);
    if (nominated_.size() >= kMaxNominatedEntries) {
      nominated_.clear();
      victims_.clear();
      nominated_by_claim_.clear();
    }
    // A claim that changed while they were gathered may have been read before the change.
    if (claim_changes_.load() == seq) {
      for (const auto& c : claims) {
        Remember(c->metadata.namespace_ + "/" + c->metadata.name, pod.metadata.uid);
      }
      nominated_[pod.metadata.uid] = {
          pod.metadata.resourceVersion, s.view.inventory, allocator, {}};
    } else {
      nominated_.erase(pod.metadata.uid);
    }
  }
  if (!allocator) return;  // its claims cannot be allocated: it holds nothing
  auto allocate = [&](const std::vector<dra::DeviceIndex>& usable) {
    dra::HeldDevices held;
    held.taken = s.nominated_taken;
    held.devices = usable;
    dra::Allocator::Outcome out = allocator->Allocate(node, *s.view.in_use, &held);
    std::vector<dra::DeviceIndex> takes;
    if (out.result != dra::Allocator::Outcome::Result::kAllocated) return takes;
    for (const api::AllocationResult& a : out.allocations) {
      for (const auto& d : a.devices.results) {
        if (d.rare->adminAccess.value_or(false) || d.rare->shareID) continue;
        std::optional<dra::DeviceIndex> i = s.view.inventory->Find(d.driver, d.pool, d.device);
        if (i) takes.push_back(*i);
      }
    }
    return takes;
  };
  // Free devices first. When they do not suffice, the devices preemption's dry run frees are the
  // nominated pod's before the incoming pod's: its own victims' may still be in use (their
  // claims not yet released), and holding nothing then would let a second preemptor count on
  // the device its victim frees.
  std::vector<dra::DeviceIndex> takes = allocate({});
  const bool used_freed = takes.empty() && !s.freed.empty();
  if (used_freed) takes = allocate(s.freed);
  {
    std::lock_guard<std::mutex> lock(nominated_mu_);
    auto it = nominated_.find(pod.metadata.uid);
    if (it != nominated_.end() && it->second.allocator == allocator) {
      std::vector<NominatedTake>& kept = it->second.by_node[node.metadata.name];
      std::erase_if(kept, [&](const NominatedTake& k) {
        return k.node_gen != node_gen || k.shared_gen != shared_gen;  // never valid again
      });
      if (kept.size() >= kTakesPerNode) kept.erase(kept.begin());
      kept.push_back({node_gen, shared_gen, s.nominated_taken, used_freed,
                      used_freed ? s.freed : std::vector<dra::DeviceIndex>(), takes});
    }
  }
  s.nominated_taken.insert(s.nominated_taken.end(), takes.begin(), takes.end());
  std::sort(s.nominated_taken.begin(), s.nominated_taken.end());
  s.nominated_taken.erase(std::unique(s.nominated_taken.begin(), s.nominated_taken.end()),
                          s.nominated_taken.end());
}

void DynamicResources::ClaimChangedForNominated(const api::Object& claim) {
  std::string key = claim.metadata.namespace_ + "/" + claim.metadata.name;
  std::lock_guard<std::mutex> lock(nominated_mu_);
  ++claim_changes_;
  auto it = nominated_by_claim_.find(key);
  if (it == nominated_by_claim_.end()) return;
  for (const std::string& uid : it->second) {
    nominated_.erase(uid);
    victims_.erase(uid);
  }
  nominated_by_claim_.erase(it);
}

void DynamicResources::Remember(std::string claim_key, const std::string& pod_uid) const {
  std::vector<std::string>& uids = nominated_by_claim_[std::move(claim_key)];
  if (std::find(uids.begin(), uids.end(), pod_uid) == uids.end()) uids.push_back(pod_uid);
}

}  // namespace allot::scheduler
