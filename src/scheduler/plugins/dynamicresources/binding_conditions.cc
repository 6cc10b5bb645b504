// DynamicResources: waiting in PreBind for binding conditions (KEP-5007, docs/architecture.md
// §5.4). The plugin's header describes the flow; BindingWaiter decides each wait.
#include <algorithm>
#include <cstdlib>

#include "api/core/pod.h"
#include "api/resource/types.h"
#include "client/client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "client/retry.h"
#include "scheduler/framework/pod_status_patch.h"
#include "scheduler/metrics/metrics.h"
#include "scheduler/plugins/dynamicresources/claim_writes.h"
#include "scheduler/plugins/dynamicresources/dynamic_resources.h"
#include "scheduler/plugins/dynamicresources/state.h"

namespace allot::scheduler {

using namespace dra_plugin;  // NOLINT: the plugin's own internals

namespace {

// In the scheduler's Clock: a simulation's waits are as long as its (virtual) driver makes them.
double SecondsSince(const Clock& clock, std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(clock.Steady() - start).count();
}

// After a failed or timed-out wait: takes the pod out of the claim's reservedFor and, when no
// other consumer is left, clears the allocation and the drivers' device statuses (they describe
// that allocation) so the devices can be picked anew; then drops the delete-protection
// finalizer. Best effort, retried on conflicts; the resourceclaim controller deallocates
// unused claims as a fallback.
//
// Why not always clear: the claim may be shared. Another pod may already run with it (a device
// that failed after it was attached is the driver's business, not a reason to pull the
// allocation from under a running pod), or wait for the same conditions (its own wait fails
// too, and the last one to leave clears). And a late clear must not hit a newer allocation:
// a scheduler writes allocation and reservedFor together, so a claim that has consumers other
// than this pod is never cleared here.
//
// The finalizer goes only right after our own write cleared the allocation, and only if the
// claim did not change since (compare-and-swap on that write's resourceVersion): a claim with
// the finalizer and no allocation may be in the middle of someone's PreBind, which adds the
// finalizer before it writes the allocation (controllers/resourceclaim/claims.cc says the same).
void ReleaseFailedClaim(client::Client& c, const BindingWaiter::ClaimRef& ref,
                        const std::string& pod_uid) {
  bool changed = false;
  bool clearing = false;
  auto w = client::UpdateWithRetry(
      c, api::ResourceFor<api::ResourceClaim>(), ref.ns, ref.name, client::Write::kStatus,
      [&](const api::Object& current) -> Result<client::Desired> {
        const auto* claim = api::As<api::ResourceClaim>(current);
        if (!claim || claim->metadata.uid != ref.uid) return client::Desired();
        auto copy = std::make_unique<api::ResourceClaim>(*claim);
        std::erase_if(copy->status.reservedFor, [&](const auto& r) { return r.uid == pod_uid; });
        changed = copy->status.reservedFor.size() != claim->status.reservedFor.size();
        clearing = false;
        // Only what the scheduler allocated (KEP-3063 claims are deallocated by their
        // controller).
        const bool ours =
            !copy->status.allocation || copy->status.allocation->controllerName.empty();
        if (copy->status.reservedFor.empty() && ours &&
            (copy->status.allocation || !copy->status.devices.empty())) {
          copy->status.allocation.reset();
          copy->status.devices.clear();
          changed = clearing = true;
        }
        if (!changed) return client::Desired();
        return client::Desired(std::move(copy));
      });
  if (!w.ok() || !changed || !clearing) return;
  auto written = AsClaim(*w);
  if (!written) return;
  const auto& fin = written->metadata.finalizers;
  if (std::find(fin.begin(), fin.end(), api::kResourceClaimFinalizer) == fin.end()) return;
  auto unprotected = std::make_unique<api::ResourceClaim>(*written);
  std::erase(unprotected->metadata.finalizers, std::string(api::kResourceClaimFinalizer));
  (void)c.Update(api::ResourceFor<api::ResourceClaim>(),
                 std::move(unprotected));  // a conflict: leave it be
}

}  // namespace

Status DynamicResources::StartBindingWait(CycleState& state, const PodInfo& pod,
                                          const std::string& node) {
  DraState* s = state.Mutable(kDraStateKey);
  s->waiting.clear();
  if (!features_.binding_conditions || !features_.resource_claim_device_status) {
    ObservePreBind("success", false, s->prebind_start);
    return Status::Success();
  }
  std::string pending;  // for the event: what the pod waits for
  for (size_t i = 0; i < s->claims.size(); ++i) {
    const api::ResourceClaim& claim = *s->claims[i];
    const api::AllocationResult* alloc =
        s->chosen[i] ? &*s->chosen[i]
                     : (claim.status.allocation ? &*claim.status.allocation : nullptr);
    if (!alloc || !HasBindingConditions(*alloc)) continue;
    // The claim as it is now (a restarted scheduler may find the conditions already met).
    std::shared_ptr<const api::ResourceClaim> now =
        claims_ ? AsClaim(claims_->Get(claim.metadata.namespace_, claim.metadata.name)) : nullptr;
    const api::ResourceClaim& current =
        now && now->metadata.uid == claim.metadata.uid ? *now : claim;
    BindingVerdict v = EvaluateBindingConditions(current, *alloc);
    if (v.state == BindingVerdict::State::kReady) continue;
    // Our own write's resourceVersion: an informer copy older than it is not judged.
    uint64_t rv = std::strtoull(s->written_rv[i].c_str(), nullptr, 10);
    s->waiting.push_back({claim.metadata.namespace_, claim.metadata.name, claim.metadata.uid, rv});
    if (v.state == BindingVerdict::State::kPending) {
      if (!pending.empty()) pending += "; ";
      pending += "claim " + claim.metadata.name + " (" + v.message + ")";
    }
  }
  if (s->waiting.empty()) {
    ObservePreBind("success", false, s->prebind_start);
    return Status::Success();
  }
  SetNominatedNode(pod, node);
  s->nominated = true;
  if (client::EventRecorder* ev = handle_.events(); ev && !pending.empty()) {
    ev->Record(*pod.pod, "Normal", "BindingConditionsPending", "Binding",
               "Waiting on node " + node + " for the binding conditions of " + pending);
  }
  return Status(Code::kWait, "waiting for binding conditions");
}

void DynamicResources::AwaitPreBind(CycleState& state, const PodInfo& pod, const std::string& node,
                                    std::function<void(Status)> done) {
  DraState* s = state.Mutable(kDraStateKey);
  if (s && s->writes) {
    // PreBind's claim writes first (claim_writes.h); then, if they ended in Wait, the binding
    // conditions. The binding stage keeps the state, the pod and the node alive meanwhile.
    std::shared_ptr<ClaimWrites> writes = std::move(s->writes);
    writes->Then([this, state = &state, pod = &pod, node = &node,
                  done = std::move(done)](Status st) mutable {
      if (!st.IsWait()) return done(std::move(st));
      AwaitPreBind(*state, *pod, *node, std::move(done));
    });
    return;
  }
  if (!s || s->waiting.empty()) {
    done(Status::Success());
    return;
  }
  const auto wait_start = handle_.clock().Steady();
  waiter_->Add(pod.uid(), s->waiting,
               [this, s, wait_start, done = std::move(done)](
                   BindingWaiter::Outcome outcome, std::string message, std::string driver) {
                 const std::string_view status = BindingWaiter::OutcomeName(outcome);
                 if (outcome != BindingWaiter::Outcome::kAbandoned) {
                   if (SchedulerMetrics* m = handle_.metrics()) {
                     std::string profile(handle_.profile_name());
                     std::string st(status);
                     m->dra_bindingconditions_allocations.With({profile, driver, st}).Inc();
                     m->dra_bindingconditions_wait_duration.With({profile, driver, st})
                         .Observe(SecondsSince(handle_.clock(), wait_start));
                   }
                   ObservePreBind(status, true, s->prebind_start);
                 }
                 switch (outcome) {
                   case BindingWaiter::Outcome::kReady:
                     done(Status::Success());
                     return;
                   case BindingWaiter::Outcome::kFailed:
                   case BindingWaiter::Outcome::kTimedOut:
                     s->binding_failed = true;
                     done(Status(Code::kUnschedulable, std::move(message)));
                     return;
                   case BindingWaiter::Outcome::kAbandoned:
                     s->abandoned = true;
                     done(Status::Error("waiting for binding conditions: " + message));
                     return;
                 }
               });
}

void DynamicResources::CheckDeadlines() {
  waiter_->CheckDeadlines();
  ExpireNegotiations();
}

void DynamicResources::AbandonWaits() { waiter_->AbandonAll(); }

void DynamicResources::ClearFailedAllocations(CycleState& state, const PodInfo& pod) {
  DraState* s = state.Mutable(kDraStateKey);
  client::Client* c = handle_.client();
  if (!s || !c) return;
  for (const BindingWaiter::ClaimRef& ref : s->waiting) ReleaseFailedClaim(*c, ref, pod.uid());
  if (s->nominated) {
    c->PatchAsync(api::ResourceFor<api::Pod>(), pod.namespace_(), pod.name(),
                  client::PatchKind::kMerge, PodStatusPatch(nullptr, std::string()), true,
                  [](Result<api::ObjectPtr>) {});  // a deleted pod needs nothing
    s->nominated = false;
  }
}

void DynamicResources::SetNominatedNode(const PodInfo& pod, const std::string& node) {
  client::Client* c = handle_.client();
  if (!c) return;
  c->PatchAsync(api::ResourceFor<api::Pod>(), pod.namespace_(), pod.name(),
                client::PatchKind::kMerge, PodStatusPatch(nullptr, node), true,
                [](Result<api::ObjectPtr>) {});
}

void DynamicResources::ObservePreBind(std::string_view status, bool requires_binding_conditions,
                                      std::chrono::steady_clock::time_point start) {
  SchedulerMetrics* m = handle_.metrics();
  if (!m) return;
  m->dra_bindingconditions_prebind_duration
      .With({std::string(status), requires_binding_conditions ? "true" : "false"})
      .Observe(SecondsSince(handle_.clock(), start));
}

}  // namespace allot::scheduler
