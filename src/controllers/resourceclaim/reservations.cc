// The reservation sync of the resourceclaim controller (controller.h, item 6): claims from
// templates for a Reservation's template.spec.resourceClaims, recorded in its status, and the
// test that a reservation consumer is gone. Dropping the consumer, deallocating and deleting
// generated claims are the claim sync's (claims.cc), as for pods.
#include "api/machinery/owners.h"
#include "client/retry.h"
#include "controllers/resourceclaim/controller.h"
#include "controllers/resourceclaim/rules.h"

namespace allot::controllers {

namespace {

// The claims a reservation names in `ns`: directly, or generated and recorded in its status.
std::vector<std::string> ReservationClaimNames(const api::Reservation& r) {
  std::vector<std::string> out;
  if (!r.spec.template_) return out;
  for (const api::PodResourceClaim& pc : r.spec.template_->spec.resourceClaims) {
    if (pc.resourceClaimName) out.push_back(*pc.resourceClaimName);
  }
  for (const api::PodResourceClaimStatus& s : r.status.resourceClaimStatuses) {
    if (s.resourceClaimName) out.push_back(*s.resourceClaimName);
  }
  return out;
}

bool HoldsNothing(const api::Reservation& r) {
  return IsReservationTerminal(r) || r.metadata.rare->deletionTimestamp.has_value();
}

}  // namespace

void ResourceClaimController::OnReservation(const api::Reservation* old_r,
                                            const api::Reservation* r) {
  const api::Reservation* any = r ? r : old_r;
  if (!any || !any->spec.template_ || any->spec.template_->spec.resourceClaims.empty()) return;
  if (r && !HoldsNothing(*r)) {
    queue().Add(std::string(kReservationKeyPrefix) + "/" + r->metadata.name);
    return;
  }
  // Gone or finished: its claims' syncs drop it from reservedFor and delete what was
  // generated for it.
  const std::string ns = ReservationClaimNamespace(*any);
  for (const std::string& name : ReservationClaimNames(*any)) {
    queue().Add(std::string(kClaimKeyPrefix) + ns + "/" + name);
  }
}

Status ResourceClaimController::SyncReservation(const std::string& name) {
  api::ObjectPtr obj = reservations_ ? reservations_->Get("", name) : nullptr;
  if (!obj) return Status::Ok();
  const auto& r = *api::As<api::Reservation>(*obj);
  if (HoldsNothing(r) || !r.spec.template_) return Status::Ok();
  const std::string ns = ReservationClaimNamespace(r);
  std::map<std::string, std::string> new_statuses;  // entry -> claim name
  for (const api::PodResourceClaim& pc : r.spec.template_->spec.resourceClaims) {
    if (!pc.resourceClaimTemplateName) continue;  // the user's claim, named directly
    const api::PodResourceClaimStatus* recorded = nullptr;
    for (const auto& s : r.status.resourceClaimStatuses) {
      if (s.name == pc.name) recorded = &s;
    }
    if (recorded && recorded->resourceClaimName) {
      api::ObjectPtr claim = FindClaim(ns, *recorded->resourceClaimName);
      if (claim && api::IsControlledBy(claim->metadata, r.metadata.uid)) continue;
    }
    // Adopt one generated earlier whose name did not reach the status, else create it.
    api::ObjectPtr claim = FindOwnedClaim(ns, r.metadata.uid, pc.name);
    if (!claim) {
      api::OwnerReference owner;
      owner.apiVersion = api::Reservation::Type().api_version;
      owner.kind = "Reservation";
      owner.name = r.metadata.name;
      owner.uid = r.metadata.uid;
      Result<api::ObjectPtr> created = CreateFromTemplate(owner, ns, pc);
      if (!created.ok()) {
        events().Record(r, client::kEventTypeWarning, kReasonFailedResourceClaimCreation, "",
                        "PodResourceClaim " + pc.name + ": " + created.status().message());
        return Status(created.status().code(), "reservation " + r.metadata.name +
                                                   ", PodResourceClaim " + pc.name + ": " +
                                                   created.status().message());
      }
      claim = *created;
    }
    new_statuses[pc.name] = claim->metadata.name;
  }
  if (new_statuses.empty()) return Status::Ok();
  Result<api::ObjectPtr> written = client::UpdateWithRetry(
      client(), reservations_res_, "", name, client::Write::kStatus,
      [&](const api::Object& current) -> Result<client::Desired> {
        const auto* cur = api::As<api::Reservation>(current);
        if (!cur || cur->metadata.uid != r.metadata.uid || HoldsNothing(*cur)) {
          return client::Desired();
        }
        auto copy = std::make_unique<api::Reservation>(*cur);
        for (const auto& [entry, claim] : new_statuses) {
          auto& list = copy->status.resourceClaimStatuses;
          std::erase_if(list, [&](const auto& s) { return s.name == entry; });
          list.push_back({entry, claim});
        }
        return client::Desired(std::move(copy));
      });
  if (!written.ok()) {
    return Status(
        written.status().code(),
        "update reservation " + name + " resourceClaimStatuses: " + written.status().message());
  }
  return Status::Ok();
}

Result<bool> ResourceClaimController::ReservationGone(const std::string& name,
                                                      const std::string& uid) {
  api::ObjectPtr obj = reservations_->Get("", name);
  if (!obj || obj->metadata.uid != uid) {
    // The cache may be behind: only the API server can tell that it is really gone.
    Result<api::ObjectPtr> live = client().Get(reservations_res_, "", name);
    if (!live.ok()) {
      if (live.status().code() == StatusCode::kNotFound) return true;
      return live.status();
    }
    obj = *live;
    if (obj->metadata.uid != uid) return true;
  }
  return HoldsNothing(*api::As<api::Reservation>(*obj));
}

}  // namespace allot::controllers
