// The claim sync of the resourceclaim controller: drop consumers that will not run any more,
// deallocate a claim nobody uses, finish the deletion of unused claims, and delete generated
// claims whose pod is done.
//
// Why the deallocation rides on the consumer-removal write: the scheduler writes allocation and
// reservedFor together (PreBind), while a driver may allocate without reserving. Deallocating
// whenever reservedFor is empty would take an allocation away from a claim that was never used
// yet; deallocating in the same compare-and-swap write that removes the last consumer cannot
// race with a scheduler adding a new consumer meanwhile (that write moves the resourceVersion,
// ours fails with 409 and the retry sees the new consumer). For the same reason the finalizer
// is removed only after our own write cleared the allocation (or when the claim is being
// deleted): the scheduler adds the finalizer *before* it writes the allocation, so a claim with
// the finalizer and no allocation may be in the middle of PreBind.
#include <algorithm>
#include <optional>

#include "controllers/resourceclaim/controller.h"
#include "controllers/resourceclaim/rules.h"

namespace allot::controllers {

namespace {

bool HasFinalizer(const api::ResourceClaim& claim) {
  const auto& f = claim.metadata.finalizers;
  return std::find(f.begin(), f.end(), api::kResourceClaimFinalizer) != f.end();
}

void Deallocate(api::ResourceClaim& claim) {
  claim.status.allocation.reset();
  claim.status.devices.clear();  // driver-written per-device status must match the allocation
}

}  // namespace

Status ResourceClaimController::SyncClaim(const std::string& ns, const std::string& name) {
  api::ObjectPtr obj = claims_->Get(ns, name);
  if (!obj) return Status::Ok();
  const auto& claim = *api::As<api::ResourceClaim>(*obj);

  std::vector<api::ResourceClaimConsumerReference> valid;
  for (const api::ResourceClaimConsumerReference& ref : claim.status.reservedFor) {
    ALLOT_ASSIGN_OR_RETURN(bool gone, ConsumerGone(ns, ref));
    if (!gone) valid.push_back(ref);
  }
  if (valid.size() < claim.status.reservedFor.size()) {
    ALLOT_RETURN_IF_ERROR(ReleaseConsumers(claim, valid));
  } else if (valid.empty() && claim.metadata.rare->deletionTimestamp) {
    ALLOT_RETURN_IF_ERROR(FinishDeletion(claim));
  }
  if (valid.empty()) ALLOT_RETURN_IF_ERROR(DeleteIfOwnerDone(claim));
  return Status::Ok();
}

bool ResourceClaimController::ClaimSyncMayAct(const api::ResourceClaim& claim) const {
  if (claim.metadata.rare->deletionTimestamp) return true;  // FinishDeletion, perhaps
  for (const api::ResourceClaimConsumerReference& ref : claim.status.reservedFor) {
    std::optional<bool> gone = ConsumerGoneCached(claim.metadata.namespace_, ref);
    if (!gone || *gone) return true;  // ReleaseConsumers, or the API server to ask
  }
  if (!claim.status.reservedFor.empty()) return false;
  std::optional<bool> done = OwnerDoneCached(claim);  // DeleteIfOwnerDone
  return !done || *done;
}

std::optional<bool> ResourceClaimController::ConsumerGoneCached(
    const std::string& ns, const api::ResourceClaimConsumerReference& ref) const {
  if (reservations_ && api::IsReservationConsumer(ref)) return std::nullopt;  // ReservationGone
  // Only core pods (and reservations) are tracked; any other consumer is someone else's.
  if (!ref.apiGroup.empty() || ref.resource != "pods") return false;
  // Cheap and certain first: this uid was seen being removed.
  if (deleted_pods_.Has(ref.uid)) return true;
  api::ObjectPtr cached = pods_->Get(ns, ref.name);
  if (cached && cached->metadata.uid == ref.uid) return IsPodDone(*api::As<api::Pod>(*cached));
  return std::nullopt;  // the cache may be behind (PodGone)
}

Result<bool> ResourceClaimController::ConsumerGone(const std::string& ns,
                                                   const api::ResourceClaimConsumerReference& ref) {
  if (std::optional<bool> gone = ConsumerGoneCached(ns, ref)) return *gone;
  if (reservations_ && api::IsReservationConsumer(ref)) return ReservationGone(ref.name, ref.uid);
  return PodGone(ns, ref.name, ref.uid, /*check_done=*/true);
}

Result<bool> ResourceClaimController::PodGone(const std::string& ns, const std::string& name,
                                              const std::string& uid, bool check_done) {
  api::ObjectPtr obj = pods_->Get(ns, name);
  if (obj && obj->metadata.uid == uid) {
    return check_done && IsPodDone(*api::As<api::Pod>(*obj));
  }
  // Missing from the cache, or cached under another uid: the cache may simply be behind (the
  // scheduler reserves before Bind, maybe for a pod this informer has not delivered yet), so
  // only the API server can tell that the pod is really gone or replaced.
  Result<api::ObjectPtr> live = client().Get(pods_res_, ns, name);
  if (!live.ok()) {
    if (live.status().code() == StatusCode::kNotFound) return true;
    return live.status();
  }
  if ((*live)->metadata.uid != uid) return true;
  return check_done && IsPodDone(*api::As<api::Pod>(**live));
}

Status ResourceClaimController::ReleaseConsumers(
    const api::ResourceClaim& claim, std::vector<api::ResourceClaimConsumerReference> valid) {
  auto updated = std::make_unique<api::ResourceClaim>(claim);  // carries the resourceVersion
  updated->status.reservedFor = std::move(valid);
  if (updated->status.reservedFor.empty() && updated->status.allocation) {
    if (IsControlPlaneClaim(claim)) {
      // The driver deallocates (KEP-3063); an Immediate claim stays allocated for its next user.
      if (claim.spec.allocationMode != api::kClaimAllocationImmediate) {
        updated->status.deallocationRequested = true;
      }
    } else if (HasFinalizer(claim)) {
      Deallocate(*updated);  // allocated by the scheduler: releasing is clearing
    }
  }
  ALLOT_ASSIGN_OR_RETURN(api::ObjectPtr written,
                         client().UpdateStatus(claims_res_, std::move(updated)));
  const auto& now = *api::As<api::ResourceClaim>(*written);
  if (HasFinalizer(now) && !now.status.allocation && !IsControlPlaneClaim(now)) {
    return RemoveFinalizer(now);
  }
  return Status::Ok();
}

Status ResourceClaimController::FinishDeletion(const api::ResourceClaim& claim) {
  if (!HasFinalizer(claim)) return Status::Ok();
  // A control-plane claim's driver deallocates on deletion itself.
  if (IsControlPlaneClaim(claim) && claim.status.allocation) return Status::Ok();
  if (!claim.status.allocation) return RemoveFinalizer(claim);
  // Allocated and unused (e.g. allocated by a driver, never consumed), then deleted.
  auto updated = std::make_unique<api::ResourceClaim>(claim);
  Deallocate(*updated);
  ALLOT_ASSIGN_OR_RETURN(api::ObjectPtr written,
                         client().UpdateStatus(claims_res_, std::move(updated)));
  return RemoveFinalizer(*api::As<api::ResourceClaim>(*written));
}

Status ResourceClaimController::RemoveFinalizer(const api::ResourceClaim& claim) {
  auto updated = std::make_unique<api::ResourceClaim>(claim);  // carries the resourceVersion
  auto& f = updated->metadata.finalizers;
  f.erase(std::remove(f.begin(), f.end(), api::kResourceClaimFinalizer), f.end());
  Result<api::ObjectPtr> written = client().Update(claims_res_, std::move(updated));
  if (!written.ok() && written.status().code() != StatusCode::kNotFound) return written.status();
  return Status::Ok();
}

std::optional<bool> ResourceClaimController::OwnerDoneCached(
    const api::ResourceClaim& claim) const {
  // Already on its way.
  if (claim.metadata.rare->deletionTimestamp || deleted_claims_.Has(claim.metadata.uid)) {
    return false;
  }
  if (std::optional<PodRef> owner = OwningPod(claim)) {
    if (deleted_pods_.Has(owner->uid)) return true;
    // An owner missing from the cache is left to the garbage collector (no API call per
    // unowned claim); one cached under another uid is confirmed by PodGone.
    api::ObjectPtr cached = pods_->Get(claim.metadata.namespace_, owner->name);
    if (!cached) return false;
    if (cached->metadata.uid == owner->uid) return IsPodDone(*api::As<api::Pod>(*cached));
    return std::nullopt;
  }
  // Generated for a reservation: deleted once it is gone or holds nothing any more.
  if (reservations_ && OwningReservation(claim)) return std::nullopt;  // ReservationGone
  return false;                                                        // generated for neither
}

Status ResourceClaimController::DeleteIfOwnerDone(const api::ResourceClaim& claim) {
  std::optional<bool> cached = OwnerDoneCached(claim);
  bool done = cached.value_or(false);
  if (!cached) {
    if (std::optional<PodRef> owner = OwningPod(claim)) {
      ALLOT_ASSIGN_OR_RETURN(done, PodGone(claim.metadata.namespace_, owner->name, owner->uid,
                                           /*check_done=*/true));
    } else if (std::optional<PodRef> r = OwningReservation(claim)) {
      ALLOT_ASSIGN_OR_RETURN(done, ReservationGone(r->name, r->uid));
    }
  }
  if (!done) return Status::Ok();
  api::DeleteOptions opts;
  opts.precondition_uid = claim.metadata.uid;
  Result<api::DeleteResult> deleted =
      client().Delete(claims_res_, claim.metadata.namespace_, claim.metadata.name, opts);
  if (!deleted.ok() && deleted.status().code() != StatusCode::kNotFound) {
    return Status(deleted.status().code(), "delete claim " + claim.metadata.namespace_ + "/" +
                                               claim.metadata.name + ": " +
                                               deleted.status().message());
  }
  deleted_claims_.Add(claim.metadata.uid);
  return Status::Ok();
}

}  // namespace allot::controllers
