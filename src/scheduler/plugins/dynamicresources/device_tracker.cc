#include "scheduler/plugins/dynamicresources/device_tracker.h"

#include <utility>

#include "api/koordinator/reservation.h"

namespace allot::scheduler {

DeviceTracker::DeviceTracker(SliceLister list_slices) : list_slices_(std::move(list_slices)) {}

void DeviceTracker::SlicesChanged() {
  std::lock_guard<std::mutex> lock(mu_);
  slices_dirty_ = true;
}

DeviceTracker::AllocationPtr DeviceTracker::EffectiveLocked(const std::string& uid) const {
  if (auto it = assumed_.find(uid); it != assumed_.end()) return it->second.allocation;
  if (auto it = seen_.find(std::string_view(uid)); it != seen_.end()) return it->second;
  return nullptr;
}

void DeviceTracker::ReplaceLocked(const api::AllocationResult* before,
                                  const api::AllocationResult* after) {
  if (before == after) return;
  if (before && after && *before == *after) return;
  if (before) state_.Remove(*before);
  if (after) state_.Add(*after);
  published_.reset();
}

void DeviceTracker::ClaimChanged(const std::shared_ptr<const api::ResourceClaim>& old_claim,
                                 const std::shared_ptr<const api::ResourceClaim>& new_claim) {
  const api::ResourceClaim* c = new_claim ? new_claim.get() : old_claim.get();
  if (!c) return;
  const std::string& uid = c->metadata.uid;
  std::lock_guard<std::mutex> lock(mu_);
  // Holds the allocation alive while the map entry it lives in is replaced.
  AllocationPtr before = EffectiveLocked(uid);

  if (new_claim && new_claim->status.allocation) {
    // Shares the claim: the allocation lives as long as the entry names it.
    AllocationPtr allocation(new_claim, &*new_claim->status.allocation);
    auto it = seen_.find(std::string_view(uid));
    if (it == seen_.end()) {
      seen_.emplace(UidView{new_claim->metadata.uid}, std::move(allocation));
    } else {
      it->second = std::move(allocation);
      it->first.uid = new_claim->metadata.uid;  // the claim the entry now keeps alive
    }
    // Our write came back (or someone else's won): the informer is authoritative from now on.
    if (auto it = assumed_.find(uid); it != assumed_.end() && it->second.written) {
      assumed_.erase(it);
    }
  } else {
    if (auto it = seen_.find(std::string_view(uid)); it != seen_.end()) seen_.erase(it);
    // A deleted claim takes any assumption with it.
    if (!new_claim) assumed_.erase(uid);
  }
  AllocationPtr after = EffectiveLocked(uid);
  ReplaceLocked(before.get(), after.get());
  UpdateHeldLocked(uid, new_claim.get());
}

void DeviceTracker::UpdateHeldLocked(const std::string& uid, const api::ResourceClaim* claim) {
  std::pair<std::vector<std::string>, std::vector<HeldDevice>> entry;
  if (claim && claim->status.allocation) {
    for (const api::ResourceClaimConsumerReference& ref : claim->status.reservedFor) {
      if (api::IsReservationConsumer(ref)) entry.first.push_back(ref.uid);
    }
    if (!entry.first.empty()) {
      for (const api::DeviceRequestAllocationResult& r :
           claim->status.allocation->devices.results) {
        if (r.rare->adminAccess.value_or(false) || r.rare->shareID) continue;
        entry.second.push_back({r.driver, r.pool, r.device});
      }
    }
  }
  auto it = reservation_claims_.find(uid);
  if (entry.first.empty()) {
    if (it == reservation_claims_.end()) return;
    reservation_claims_.erase(it);
  } else {
    if (it != reservation_claims_.end() && it->second == entry) return;
    reservation_claims_[uid] = std::move(entry);
  }
  held_.reset();
}

DeviceTracker::View DeviceTracker::Current() {
  bool rebuild;
  {
    std::lock_guard<std::mutex> lock(mu_);
    rebuild = slices_dirty_;
    slices_dirty_ = false;
  }
  if (rebuild) {
    // Listed and built without the lock: slices may be many, informer handlers must not wait.
    std::shared_ptr<const dra::Inventory> inv = dra::Inventory::Build(list_slices_());
    std::lock_guard<std::mutex> lock(mu_);
    inventory_ = std::move(inv);
    state_.Rebase(inventory_);
    published_.reset();
    ++builds_;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (!published_) published_ = std::make_shared<const dra::AllocatedState>(state_.ForReading());
  if (!held_) {
    auto held = std::make_shared<HeldByReservation>();
    for (const auto& [claim, entry] : reservation_claims_) {
      for (const std::string& r : entry.first) {
        auto& devices = (*held)[r];
        devices.insert(devices.end(), entry.second.begin(), entry.second.end());
      }
    }
    held_ = std::move(held);
  }
  return View{inventory_, published_, held_};
}

void DeviceTracker::Assume(const std::string& claim_uid, const api::AllocationResult& allocation) {
  std::lock_guard<std::mutex> lock(mu_);
  AllocationPtr before = EffectiveLocked(claim_uid);
  auto chosen = std::make_shared<const api::AllocationResult>(allocation);
  assumed_[claim_uid] = Assumed{chosen, false};
  ReplaceLocked(before.get(), chosen.get());
}

void DeviceTracker::Written(const std::string& claim_uid) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = assumed_.find(claim_uid);
  if (it == assumed_.end()) return;
  auto seen = seen_.find(std::string_view(claim_uid));
  if (seen != seen_.end()) {
    // The informer was faster than the write's return.
    AllocationPtr before = std::move(it->second.allocation);
    assumed_.erase(it);
    ReplaceLocked(before.get(), seen->second.get());
  } else {
    it->second.written = true;
  }
}

void DeviceTracker::Forget(const std::string& claim_uid) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = assumed_.find(claim_uid);
  if (it == assumed_.end() || it->second.written) return;
  AllocationPtr before = std::move(it->second.allocation);
  assumed_.erase(it);
  ReplaceLocked(before.get(), EffectiveLocked(claim_uid).get());
}

bool DeviceTracker::IsAssumed(const std::string& claim_uid) const {
  std::lock_guard<std::mutex> lock(mu_);
  return assumed_.count(claim_uid) > 0;
}

size_t DeviceTracker::assumed_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return assumed_.size();
}

uint64_t DeviceTracker::inventory_builds() const {
  std::lock_guard<std::mutex> lock(mu_);
  return builds_;
}

}  // namespace allot::scheduler
