// DynamicResources, PreBind: writing each claim of the pod (the delete-protection finalizer, then
// status.allocation and the pod in reservedFor), retried on conflicts from fresh reads; then the
// wait for binding conditions (binding_conditions.cc). The writes hold no thread: PreBind starts
// them and answers Wait, and AwaitPreBind goes on once the last one is durable.
#include "scheduler/plugins/dynamicresources/claim_writes.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>

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

void DynamicResources::WriteClaimAsync(const PodInfo& pod, const api::ResourceClaim& claim,
                                       const api::AllocationResult* allocation,
                                       std::function<void(allot::Status, std::string)> done) {
  client::Client* c = handle_.client();
  if (!c) return done(allot::InternalError("no API client"), "");
  const std::string name = claim.metadata.name;
  const std::string uid = claim.metadata.uid;
  auto conflict = [name](std::string_view why) {
    return allot::ConflictError("resourceclaims.resource.k8s.io", name, why);
  };
  // The claim as read, if it is still the one the pod was scheduled with.
  auto same_claim = [uid, conflict](const api::Object& o) -> Result<const api::ResourceClaim*> {
    const auto* cur = api::As<api::ResourceClaim>(o);
    if (!cur) return allot::InternalError("not a ResourceClaim");
    if (cur->metadata.uid != uid) return conflict("the claim was replaced");
    if (cur->metadata.rare->deletionTimestamp) return conflict("the claim is being deleted");
    return cur;
  };
  client::Executor retry_on = [this](std::function<void()> task) {
    writer_.Submit(std::move(task));
  };
  // 2. Allocation and reservation in one status write.
  std::optional<api::AllocationResult> alloc;
  if (allocation) alloc = *allocation;
  auto wrote = std::make_shared<bool>(false);
  client::MutateFn status =
      [this, alloc, conflict, same_claim, wrote, pod_uid = pod.uid(), pod_name = pod.name(),
       reserve_pod = pod.IsReservePod()](const api::Object& o) -> Result<client::Desired> {
    *wrote = false;
    ALLOT_ASSIGN_OR_RETURN(const api::ResourceClaim* cur, same_claim(o));
    auto copy = std::make_unique<api::ResourceClaim>(*cur);
    if (alloc) {
      if (copy->status.allocation) {
        if (copy->status.allocation->devices != alloc->devices) {
          return conflict("allocated by someone else in the meantime");
        }
      } else {
        copy->status.allocation = *alloc;
        copy->status.allocation->allocationTimestamp = handle_.clock().Now().TruncatedToSeconds();
      }
    } else if (!copy->status.allocation) {
      return conflict("the claim was deallocated in the meantime");
    }
    if (copy->status.deallocationRequested) return conflict("deallocation was requested");
    if (!ReservedFor(*copy, pod_uid)) {
      if (copy->status.reservedFor.size() >= kReservedForMaxSize) {
        return conflict(kErrReasonClaimInUse);
      }
      if (reserve_pod) {
        // A reservation holds the claim (docs/reservations.md, "Devices").
        copy->status.reservedFor.push_back(api::ReservationConsumer(pod_name, pod_uid));
      } else {
        copy->status.reservedFor.push_back({"", "pods", pod_name, pod_uid});
      }
    } else if (!alloc) {
      return client::Desired();  // already reserved for the pod
    }
    *wrote = true;
    return client::Desired(std::move(copy));
  };
  auto write_status = [c, status = std::move(status), retry_on, wrote,
                       done](api::ObjectPtr current) {
    client::UpdateWithRetryAsync(
        *c, api::ResourceFor<api::ResourceClaim>(), client::Write::kStatus, status,
        std::move(current), retry_on, [wrote, done](Result<api::ObjectPtr> written) {
          if (!written.ok()) return done(written.status(), "");
          done(allot::Status::Ok(), *wrote ? (*written)->metadata.resourceVersion : "");
        });
  };
  api::ObjectPtr current = std::make_shared<api::ResourceClaim>(claim);
  if (!allocation) return write_status(std::move(current));
  // 1. The finalizer first, so that nobody deletes an allocated claim under a running pod.
  client::MutateFn finalizer = [same_claim](const api::Object& o) -> Result<client::Desired> {
    ALLOT_ASSIGN_OR_RETURN(const api::ResourceClaim* cur, same_claim(o));
    const auto& fin = cur->metadata.finalizers;
    if (std::find(fin.begin(), fin.end(), api::kResourceClaimFinalizer) != fin.end()) {
      return client::Desired();
    }
    auto copy = std::make_unique<api::ResourceClaim>(*cur);
    copy->metadata.finalizers.emplace_back(api::kResourceClaimFinalizer);
    return client::Desired(std::move(copy));
  };
  client::UpdateWithRetryAsync(
      *c, api::ResourceFor<api::ResourceClaim>(), client::Write::kUpdate, std::move(finalizer),
      std::move(current), retry_on,
      [write_status = std::move(write_status), done](Result<api::ObjectPtr> written) {
        if (!written.ok()) return done(written.status(), "");
        write_status(std::move(*written));
      });
}

Status DynamicResources::PreBindPreFlight(const CycleState& state, const PodInfo&,
                                          const std::string&) const {
  return state.Read(kDraStateKey) ? Status::Success() : Status::Skip();
}

bool DynamicResources::PreBindMayBlock(const CycleState& state, const PodInfo&,
                                       const std::string&) const {
  const DraState* s = state.Read(kDraStateKey);
  return s && s->publish;
}

Status DynamicResources::PreBind(CycleState& state, const PodInfo& pod, const std::string& node) {
  DraState* s = state.Mutable(kDraStateKey);
  if (!s) return Status::Success();
  if (s->publish) return PublishContext(*s, pod);  // the drivers go first (negotiation.cc)
  // A reserve pod's devices, for the Reservation plugin's Bind. The slot is made here: the
  // writes' answer (ClaimsWritten) may come on the client's thread while this one goes on, and
  // may then only fill it in (a CycleState must not grow under a concurrent reader).
  if (pod.IsReservePod()) state.Write(kReservedDevicesKey, ReservedDevices{});
  s->prebind_start = handle_.clock().Steady();     // the binding-conditions metrics' clock
  ObserveNegotiation(pod);
  std::vector<size_t> to_write;
  for (size_t i = 0; i < s->claims.size(); ++i) {
    if (s->chosen[i] || !ReservedFor(*s->claims[i], pod.uid())) to_write.push_back(i);
  }
  if (to_write.empty()) return ClaimsWritten(state, pod, node);
  // The writes go out at once and PreBind answers Wait; AwaitPreBind picks up how they ended.
  // The state, the pod and the node outlive the wait (the binding stage holds them).
  auto writes = std::make_shared<ClaimWrites>(to_write.size());
  s->writes = writes;
  for (size_t i : to_write) {
    const api::ResourceClaim& claim = *s->claims[i];
    const api::AllocationResult* alloc = s->chosen[i] ? &*s->chosen[i] : nullptr;
    WriteClaimAsync(
        pod, claim, alloc,
        [this, writes, s, i, state = &state, pod = &pod, node](allot::Status w, std::string rv) {
          const api::ResourceClaim& claim = *s->claims[i];
          if (w.ok()) {
            s->reserved[i] = true;  // only this claim's callback writes entry i (state.h)
            s->written_rv[i] = std::move(rv);
            if (s->chosen[i]) tracker_->Written(claim.metadata.uid);
          } else {
            w = allot::Status(w.code(), "writing resourceclaim " + claim.metadata.namespace_ + "/" +
                                            claim.metadata.name + ": " + w.message());
          }
          if (!writes->Done(std::move(w))) return;
          allot::Status first_error = writes->error();
          writes->Finish(first_error.ok() ? ClaimsWritten(*state, *pod, node)
                                          : Status::Error(first_error.message()));
        });
  }
  return Status(Code::kWait, "writing resource claims");
}

Status DynamicResources::ClaimsWritten(CycleState& state, const PodInfo& pod,
                                       const std::string& node) {
  DraState* s = state.Mutable(kDraStateKey);
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
    *state.Mutable(kReservedDevicesKey) = std::move(held);  // PreBind made the slot
    return Status::Success();
  }
  return StartBindingWait(state, pod, node);
}

}  // namespace allot::scheduler
