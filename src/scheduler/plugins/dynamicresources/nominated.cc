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

// Entries kept in the allocator cache before it is emptied (nominated pods are few; this only
// bounds what pods that bound or went away leave behind).
constexpr size_t kMaxNominatedEntries = 4096;

}  // namespace

std::shared_ptr<const dra::Allocator> DynamicResources::NominatedAllocator(
    const api::Pod& pod, const DraState& s) const {
  ClaimList claims;
  if (!GatherClaims(pod, claims).IsSuccess()) return nullptr;  // not ready to allocate anyway
  std::vector<std::shared_ptr<const api::ResourceClaim>> unallocated;
  std::vector<std::string> versions;
  for (const auto& c : claims) {
    if (c->status.allocation || !c->spec.controllerName.empty()) continue;
    unallocated.push_back(c);
    versions.push_back(c->metadata.uid + "/" + c->metadata.resourceVersion);
  }
  if (unallocated.empty()) return nullptr;
  {
    std::lock_guard<std::mutex> lock(nominated_mu_);
    auto it = nominated_.find(pod.metadata.uid);
    if (it != nominated_.end() && it->second.inventory == s.view.inventory &&
        it->second.claim_versions == versions) {
      return it->second.allocator;
    }
  }
  auto created = NewAllocator(pod.metadata.namespace_, s.view.inventory, std::move(unallocated));
  std::shared_ptr<const dra::Allocator> allocator;
  if (created.ok()) allocator = std::move(created).value();
  std::lock_guard<std::mutex> lock(nominated_mu_);
  if (nominated_.size() >= kMaxNominatedEntries) nominated_.clear();
  nominated_[pod.metadata.uid] = {std::move(versions), s.view.inventory, allocator};
  return allocator;
}

void DynamicResources::TakeForNominated(DraState& s, const PodInfo& nominated,
                                        const api::Node& node) const {
  if (!s.view.inventory || !s.view.in_use || nominated.pod->spec.resourceClaims.empty()) return;
  std::shared_ptr<const dra::Allocator> allocator = NominatedAllocator(*nominated.pod, s);
  if (!allocator) return;
  // Every Filter of every pod on this node asks the same question while nothing changes.
  const uint32_t slot = s.view.inventory->NodeSlot(node.metadata.name);
  const uint64_t node_gen = s.view.in_use->node_generation(slot);
  const uint64_t shared_gen = s.view.in_use->shared_generation();
  const std::string key = nominated.uid() + "/" + node.metadata.name;
  {
    std::lock_guard<std::mutex> lock(nominated_mu_);
    auto it = nominated_takes_.find(key);
    if (it != nominated_takes_.end() && it->second.allocator == allocator &&
        it->second.node_gen == node_gen && it->second.shared_gen == shared_gen &&
        it->second.before == s.nominated_taken) {
      s.nominated_taken.insert(s.nominated_taken.end(), it->second.takes.begin(),
                               it->second.takes.end());
      std::sort(s.nominated_taken.begin(), s.nominated_taken.end());
      return;
    }
  }
  dra::HeldDevices taken;
  taken.taken = s.nominated_taken;
  dra::Allocator::Outcome out = allocator->Allocate(node, *s.view.in_use, &taken);
  std::vector<dra::DeviceIndex> takes;
  if (out.result == dra::Allocator::Outcome::Result::kAllocated) {  // else it holds nothing
    for (const api::AllocationResult& a : out.allocations) {
      for (const auto& d : a.devices.results) {
        if (d.adminAccess.value_or(false) || d.shareID) continue;
        std::optional<dra::DeviceIndex> i = s.view.inventory->Find(d.driver, d.pool, d.device);
        if (i) takes.push_back(*i);
      }
    }
  }
  {
    std::lock_guard<std::mutex> lock(nominated_mu_);
    if (nominated_takes_.size() >= kMaxNominatedEntries) nominated_takes_.clear();
    nominated_takes_[key] = {allocator, node_gen, shared_gen, s.nominated_taken, takes};
  }
  s.nominated_taken.insert(s.nominated_taken.end(), takes.begin(), takes.end());
  std::sort(s.nominated_taken.begin(), s.nominated_taken.end());
  s.nominated_taken.erase(std::unique(s.nominated_taken.begin(), s.nominated_taken.end()),
                          s.nominated_taken.end());
}

}  // namespace allot::scheduler
