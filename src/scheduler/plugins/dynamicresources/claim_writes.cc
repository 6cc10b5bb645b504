// DynamicResources, PreBind: writing each claim of the pod (the delete-protection finalizer, then
// status.allocation and the pod in reservedFor), retried on conflicts from fresh reads; then the
// wait for binding conditions (binding_conditions.cc).
#include <algorithm>

#include "api/koordinator/reservation.h"
#include "api/resource/types.h"
#include "client/client.h"
#include "client/retry.h"
#include "common/time.h"
#include "scheduler/framework/reservation_info.h"
#include "scheduler/plugins/dynamicresources/dynamic_resources.h"
#include "scheduler/plugins/dynamicresources/state.h"

namespace allot::scheduler {

using namespace dra_plugin;  // NOLINT: the plugin's own internals

allot::Status DynamicResources::WriteClaim(const PodInfo& pod, const api::ResourceClaim& claim,
                                           const api::AllocationResult* allocation,
                                           std::string* written_rv) {
  client::Client* c = handle_.client();
  if (!c) return allot::InternalError("no API client");
  const std::string& ns = claim.metadata.namespace_;
  const std::string& name = claim.metadata.name;
  auto conflict = [&](std::string_view why) {
    return allot::ConflictError("resourceclaims.resource.k8s.io", name, why);
  };
  // The claim as read, if it is still the one the pod was scheduled with.
  auto same_claim = [&](const api::Object& o) -> Result<const api::ResourceClaim*> {
    const auto* cur = api::As<api::ResourceClaim>(o);
    if (!cur) return allot::InternalError("not a ResourceClaim");
    if (cur->metadata.uid != claim.metadata.uid) return conflict("the claim was replaced");
    if (cur->metadata.deletionTimestamp) return conflict("the claim is being deleted");
    return cur;
  };
  api::ObjectPtr current = std::make_shared<api::ResourceClaim>(claim);
  // 1. The finalizer first, so that nobody deletes an allocated claim under a running pod.
  if (allocation) {
    ALLOT_ASSIGN_OR_RETURN(
        current,
        client::UpdateWithRetry(
            *c, api::ResourceFor<api::ResourceClaim>(), ns, name, client::Write::kUpdate,
            [&](const api::Object& o) -> Result<client::Desired> {
              ALLOT_ASSIGN_OR_RETURN(const api::ResourceClaim* cur, same_claim(o));
              const auto& fin = cur->metadata.finalizers;
              if (std::find(fin.begin(), fin.end(), api::kResourceClaimFinalizer) != fin.end()) {
                return client::Desired();
              }
              auto copy = std::make_unique<api::ResourceClaim>(*cur);
              copy->metadata.finalizers.emplace_back(api::kResourceClaimFinalizer);
              return client::Desired(std::move(copy));
            },
            current));
  }
  // 2. Allocation and reservation in one status write.
  bool wrote = false;
  ALLOT_ASSIGN_OR_RETURN(
      api::ObjectPtr written,
      client::UpdateWithRetry(
          *c, api::ResourceFor<api::ResourceClaim>(), ns, name, client::Write::kStatus,
          [&](const api::Object& o) -> Result<client::Desired> {
            wrote = false;
            ALLOT_ASSIGN_OR_RETURN(const api::ResourceClaim* cur, same_claim(o));
            auto copy = std::make_unique<api::ResourceClaim>(*cur);
            if (allocation) {
              if (copy->status.allocation) {
                if (copy->status.allocation->devices != allocation->devices) {
                  return conflict("allocated by someone else in the meantime");
                }
              } else {
                copy->status.allocation = *allocation;
                copy->status.allocation->allocationTimestamp =
                    handle_.clock().Now().TruncatedToSeconds();
              }
            } else if (!copy->status.allocation) {
              return conflict("the claim was deallocated in the meantime");
            }
            if (copy->status.deallocationRequested) return conflict("deallocation was requested");
            if (!ReservedFor(*copy, pod.uid())) {
              if (copy->status.reservedFor.size() >= kReservedForMaxSize) {
                return conflict(kErrReasonClaimInUse);
              }
              if (pod.IsReservePod()) {
                // A reservation holds the claim (docs/reservations.md, "Devices").
                copy->status.reservedFor.push_back(api::ReservationConsumer(pod.name(), pod.uid()));
              } else {
                copy->status.reservedFor.push_back({"", "pods", pod.name(), pod.uid()});
              }
            } else if (!allocation) {
              return client::Desired();  // already reserved for the pod
            }
            wrote = true;
            return client::Desired(std::move(copy));
          },
          current));
  if (wrote && written_rv) *written_rv = written->metadata.resourceVersion;
  return allot::Status::Ok();
}

Status DynamicResources::PreBindPreFlight(const CycleState& state, const PodInfo&,
                                          const std::string&) const {
  return state.Read(kDraStateKey) ? Status::Success() : Status::Skip();
}

Status DynamicResources::PreBind(CycleState& state, const PodInfo& pod, const std::string& node) {
  DraState* s = state.Mutable(kDraStateKey);
  if (!s) return Status::Success();
  if (s->publish) return PublishContext(*s, pod);  // the drivers go first (negotiation.cc)
  s->prebind_start = handle_.clock().Steady();     // the binding-conditions metrics' clock
  ObserveNegotiation(pod);
  for (size_t i = 0; i < s->claims.size(); ++i) {
    const api::ResourceClaim& claim = *s->claims[i];
    const api::AllocationResult* alloc = s->chosen[i] ? &*s->chosen[i] : nullptr;
    if (!alloc && ReservedFor(claim, pod.uid())) continue;
    allot::Status w = WriteClaim(pod, claim, alloc, &s->written_rv[i]);
    if (!w.ok()) {
      return Status::Error("writing resourceclaim " + claim.metadata.namespace_ + "/" +
                           claim.metadata.name + ": " + w.message());
    }
    s->reserved[i] = true;
    if (alloc) tracker_->Written(claim.metadata.uid);
  }
  if (pod.IsReservePod()) {
    // A reservation holds its devices for its owners and waits for no binding condition (its
    // owners' claims do, when they are allocated the devices); its status lists the devices.
    ReservedDevices held;
    for (size_t i = 0; i < s->claims.size(); ++i) {
      const api::AllocationResult* a =
          s->chosen[i]
              ? &*s->chosen[i]
              : (s->claims[i]->status.allocation ? &*s->claims[i]->status.allocation : nullptr);
      if (!a) continue;
      for (const api::DeviceRequestAllocationResult& r : a->devices.results) {
        held.devices.push_back(
            {s->claims[i]->metadata.name, r.request, r.driver, r.pool, r.device});
      }
    }
    state.Write(kReservedDevicesKey, std::move(held));
    return Status::Success();
  }
  return StartBindingWait(state, pod, node);
}

}  // namespace allot::scheduler
