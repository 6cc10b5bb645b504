// DynamicResources and control-plane drivers (KEP-3063, docs/architecture.md §5.1): publishing the
// pod's PodSchedulingContext from PreBind, PostFilter's recovery writes (withdrawing a selected
// node, deallocating a claim allocated for the wrong nodes), deleting the context after binding,
// and the drivers' answer deadline. What the context says is decided in controller_claims.cc.
#include "api/core/pod.h"
#include "api/machinery/owners.h"
#include "api/resource/pod_scheduling_context.h"
#include "api/resource/types.h"
#include "client/client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "client/retry.h"
#include "scheduler/metrics/metrics.h"
#include "scheduler/plugins/dynamicresources/dynamic_resources.h"
#include "scheduler/plugins/dynamicresources/state.h"

namespace allot::scheduler {

using namespace dra_plugin;  // NOLINT: the plugin's own internals

namespace {

const api::ResourceInfo& Contexts() { return api::ResourceFor<api::PodSchedulingContext>(); }
const api::ResourceInfo& Claims() { return api::ResourceFor<api::ResourceClaim>(); }

// Clears spec.selectedNode of the pod's context (if it is still the pod's and names a node).
allot::Status ClearSelectedNode(client::Client& c, const std::string& ns, const std::string& name,
                                const std::string& pod_uid) {
  auto w = client::UpdateWithRetry(c, Contexts(), ns, name, client::Write::kUpdate,
                                   [&](const api::Object& o) -> Result<client::Desired> {
                                     const auto* ctx = api::As<api::PodSchedulingContext>(o);
                                     if (!ctx || !api::IsControlledBy(ctx->metadata, pod_uid) ||
                                         ctx->spec.selectedNode.empty()) {
                                       return client::Desired();
                                     }
                                     auto copy = std::make_unique<api::PodSchedulingContext>(*ctx);
                                     copy->spec.selectedNode.clear();
                                     return client::Desired(std::move(copy));
                                   });
  if (!w.ok() && w.status().code() != StatusCode::kNotFound) return w.status();
  return allot::Status::Ok();
}

std::string SecondsText(std::chrono::seconds s) { return std::to_string(s.count()) + "s"; }

}  // namespace

Status DynamicResources::PublishContext(DraState& s, const PodInfo& pod) {
  client::Client* c = handle_.client();
  if (!c) return Status::Error("no API client to publish the PodSchedulingContext");
  const api::PodSchedulingContextSpec& want = *s.publish;
  const std::string& ns = pod.namespace_();
  const std::string& name = pod.name();
  const std::string what = "podschedulingcontext " + ns + "/" + name;
  auto current = contexts_ ? AsContext(contexts_->Get(ns, name)) : nullptr;
  bool written = false;
  if (!current || !api::IsControlledBy(current->metadata, pod.uid())) {
    if (current) {
      // Left by an earlier pod of the same name (the garbage collector removes it too, later).
      api::DeleteOptions opts;
      opts.precondition_uid = current->metadata.uid;
      auto d = c->Delete(Contexts(), ns, name, opts);
      if (!d.ok() && d.status().code() != StatusCode::kNotFound &&
          d.status().code() != StatusCode::kConflict) {
        return Status::Error("deleting stale " + what + ": " + d.status().message());
      }
    }
    auto obj = std::make_unique<api::PodSchedulingContext>();
    obj->metadata.namespace_ = ns;
    obj->metadata.name = name;
    obj->metadata.ownerReferences.push_back({"v1", "Pod", name, pod.uid(), true, true});
    obj->spec = want;
    auto r = c->Create(Contexts(), std::move(obj));
    if (r.ok()) {
      written = true;
    } else if (r.status().code() != StatusCode::kAlreadyExists) {
      return Status::Error("creating " + what + ": " + r.status().message());
    }
    current = nullptr;  // it exists already (the informer had not seen it): update below
  }
  if (!written) {
    auto w = client::UpdateWithRetry(
        *c, Contexts(), ns, name, client::Write::kUpdate,
        [&](const api::Object& o) -> Result<client::Desired> {
          written = false;
          const auto* ctx = api::As<api::PodSchedulingContext>(o);
          if (!ctx) return allot::InternalError(what + " is not a PodSchedulingContext");
          if (!api::IsControlledBy(ctx->metadata, pod.uid())) {
            return allot::ConflictError(Contexts().QualifiedResource(), name,
                                        "it belongs to another pod of that name");
          }
          if (ctx->spec == want) return client::Desired();
          auto copy = std::make_unique<api::PodSchedulingContext>(*ctx);
          copy->spec = want;
          written = true;
          return client::Desired(std::move(copy));
        },
        current);
    if (!w.ok()) return Status::Error("updating " + what + ": " + w.status().message());
  }
  std::vector<std::string> drivers = AwaitedDrivers(want, s.pending_controller);
  std::string message = WaitingMessage(drivers, want.selectedNode);
  const bool first =
      negotiations_.Waiting(pod.uid(), ns, name, want, drivers, handle_.clock().Steady());
  if (!s.held.empty()) s.hold_kept = negotiations_.Hold(pod.uid(), s.held);
  if (client::EventRecorder* ev = handle_.events(); ev && first) {
    // Once per negotiation (later rounds say the same in the PodScheduled condition; a driver
    // past its deadline gets an event of its own).
    ev->Record(*pod.pod, client::kEventTypeNormal, "WaitingForResourceDriver", "Scheduling",
               message);
  }
  return Status(Code::kPending, std::move(message));
}

void DynamicResources::HoldStructured(DraState& s, const std::string& node) {
  const NodeInfo* ni = handle_.snapshot().Get(node);
  if (!ni || !ni->node()) return;
  // The search Filter ran for this node, now with results; the final round chooses again.
  std::optional<dra::Allocator::Outcome> out = s.allocator->Allocate(*ni->node(), *s.view.in_use);
  if (!out || out->result != dra::Allocator::Outcome::Result::kAllocated ||
      out->allocations.size() != s.to_allocate.size()) {
    return;
  }
  for (size_t k = 0; k < s.to_allocate.size(); ++k) {
    const std::string& uid = s.claims[s.to_allocate[k]]->metadata.uid;
    tracker_->Assume(uid, out->allocations[k]);
    s.held.push_back(uid);
  }
}

void DynamicResources::ReleaseHeld(std::vector<std::string> claim_uids) {
  for (const std::string& uid : claim_uids) tracker_->Forget(uid);
}

void DynamicResources::WithdrawSelectedNode(const api::PodSchedulingContext& context) {
  client::Client* c = handle_.client();
  const api::OwnerReference* owner = api::ControllerOf(context.metadata);
  if (!c || !owner) return;
  writer_.Submit([c, ns = context.metadata.namespace_, name = context.metadata.name,
                  uid = owner->uid] { (void)ClearSelectedNode(*c, ns, name, uid); });
}

Status DynamicResources::DeallocateUnavailableClaim(DraState& s, const PodInfo& pod) {
  std::map<size_t, size_t> unavailable;
  {
    std::lock_guard<std::mutex> lock(s.filter_results->mu);
    unavailable = s.filter_results->unavailable;
  }
  // Only claims that no other pod holds. The claim that ruled out the most nodes goes; on a tie
  // the first in the pod's spec (the map is in spec order): the same inputs, the same choice.
  std::optional<size_t> pick;
  size_t most = 0;
  for (const auto& [i, nodes] : unavailable) {
    const api::ResourceClaim& claim = *s.claims[i];
    if (!claim.status.allocation) continue;
    const bool others =
        std::any_of(claim.status.reservedFor.begin(), claim.status.reservedFor.end(),
                    [&](const auto& r) { return r.uid != pod.uid(); });
    if (others || nodes <= most) continue;
    most = nodes;
    pick = i;
  }
  client::Client* c = handle_.client();
  // Kubernetes' wording; FailedScheduling messages end with it ("... cannot allocate all
  // claims. still not schedulable").
  if (!pick || !c) return Unschedulable("still not schedulable");
  std::shared_ptr<const api::ResourceClaim> claim = s.claims[*pick];
  const std::string driver = claim->status.allocation->controllerName;
  const bool controller = !driver.empty();
  const std::string id = claim->metadata.namespace_ + "/" + claim->metadata.name;
  if (client::EventRecorder* ev = handle_.events()) {
    ev->Record(*pod.pod, client::kEventTypeNormal, "DeallocatingResourceClaim", "Scheduling",
               "Deallocating ResourceClaim " + id + ": it is allocated for nodes where the pod " +
                   "cannot run (it ruled out " + std::to_string(most) + " node(s), the most of " +
                   "the pod's claims)" +
                   (controller ? "; its driver " + driver + " releases it" : ""));
  }
  if (SchedulerMetrics* m = handle_.metrics()) {
    m->dra_controller_deallocations
        .With({std::string(handle_.profile_name()), controller ? "controller" : "structured"})
        .Inc();
  }
  std::shared_ptr<const api::PodSchedulingContext> context = s.context;
  writer_.Submit([c, claim, context, controller, pod_uid = pod.uid()] {
    // A controller claim's driver would allocate again for a selected node: withdraw it first.
    if (controller && context && !context->spec.selectedNode.empty()) {
      if (!ClearSelectedNode(*c, context->metadata.namespace_, context->metadata.name, pod_uid)
               .ok()) {
        return;  // the pod's next round tries again
      }
    }
    (void)client::UpdateWithRetry(
        *c, Claims(), claim->metadata.namespace_, claim->metadata.name, client::Write::kStatus,
        [&](const api::Object& o) -> Result<client::Desired> {
          const auto* cur = api::As<api::ResourceClaim>(o);
          if (!cur || cur->metadata.uid != claim->metadata.uid || !cur->status.allocation ||
              cur->status.deallocationRequested) {
            return client::Desired();
          }
          for (const auto& r : cur->status.reservedFor) {
            if (r.uid != pod_uid) return client::Desired();  // someone else uses it now
          }
          auto copy = std::make_unique<api::ResourceClaim>(*cur);
          copy->status.reservedFor.clear();
          if (controller) {
            copy->status.deallocationRequested = true;
          } else {
            copy->status.allocation.reset();
            copy->status.devices.clear();
          }
          return client::Desired(std::move(copy));
        });
  });
  // The claim's update (its driver releasing it, or this write) moves the pod, without backoff.
  return Status(Code::kPending, "deallocating ResourceClaim " + id);
}

void DynamicResources::PostBind(CycleState& state, const PodInfo& pod, const std::string&) {
  const DraState* s = state.Read(kDraStateKey);
  client::Client* c = handle_.client();
  if (!s || !c || !contexts_) return;
  auto ctx = AsContext(contexts_->Get(pod.namespace_(), pod.name()));
  if (!ctx || !api::IsControlledBy(ctx->metadata, pod.uid())) return;
  // The negotiation is over; NotFound (deleted by someone else) is fine, and the garbage
  // collector removes a context that outlives its pod anyway.
  api::DeleteOptions opts;
  opts.precondition_uid = ctx->metadata.uid;
  c->DeleteAsync(Contexts(), pod.namespace_(), pod.name(), opts, [](Result<api::DeleteResult>) {});
}

void DynamicResources::ObserveNegotiation(const PodInfo& pod) {
  std::optional<Negotiations::Finished> f =
      negotiations_.Finish(pod.uid(), handle_.clock().Steady());
  if (f) ReleaseHeld(std::move(f->held));
  SchedulerMetrics* m = handle_.metrics();
  if (!f || !m) return;
  const std::string profile(handle_.profile_name());
  m->dra_controller_negotiation_rounds.With({profile}).Observe(f->rounds);
  if (f->to_selected) {
    m->dra_controller_selected_node_duration.With({profile}).Observe(f->to_selected->count());
  }
  if (f->to_allocated) {
    m->dra_controller_allocation_duration.With({profile}).Observe(f->to_allocated->count());
  }
}

void DynamicResources::ExpireNegotiations() {
  for (Negotiations::Expired& x : negotiations_.Expire(handle_.clock().Steady())) {
    ReleaseHeld(std::move(x.held));
    // Not among the unschedulable pods: bound, deleted, or in a round right now (which
    // starts a new wait).
    if (x.drivers.empty() || !handle_.Activate(x.pod_uid)) continue;
    std::string drivers;
    for (const std::string& d : x.drivers) {
      drivers += (drivers.empty() ? "" : ", ") + d;
      if (SchedulerMetrics* m = handle_.metrics()) {
        m->dra_controller_answer_timeouts.With({std::string(handle_.profile_name()), d}).Inc();
      }
    }
    if (client::EventRecorder* ev = handle_.events()) {
      api::Pod ref;
      ref.metadata.namespace_ = x.ns;
      ref.metadata.name = x.name;
      ref.metadata.uid = x.pod_uid;
      ev->Record(ref, client::kEventTypeWarning, "ResourceDriverTimeout", "Scheduling",
                 "resource driver " + drivers + " did not " +
                     (x.selected_node.empty() ? std::string("answer")
                                              : "allocate for node " + x.selected_node) +
                     " within " + SecondsText(AnswerTimeout(x.drivers.front())) + " (waited " +
                     SecondsText(x.waited) + "); retrying");
    }
  }
}

}  // namespace allot::scheduler
