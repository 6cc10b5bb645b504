// The pod sync of the resourceclaim controller: claims from templates, the pod status record of
// their names, reservations for pods bound with allocated, unreserved claims, and contexts for
// pods bound with control-plane claims still to be allocated.
#include <mutex>
#include <optional>

#include "api/core/pod_state.h"
#include "api/resource/pod_scheduling_context.h"
#include "client/retry.h"
#include "common/await.h"
#include "controllers/resourceclaim/controller.h"
#include "controllers/resourceclaim/rules.h"

namespace allot::controllers {

namespace {

std::string PodName(const api::Pod& pod) {
  return pod.metadata.namespace_ + "/" + pod.metadata.name;
}

Status Wrap(const Status& st, const std::string& context) {
  return Status(st.code(), context + ": " + st.message());
}

}  // namespace

Status ResourceClaimController::SyncPod(const std::string& ns, const std::string& name) {
  api::ObjectPtr obj = pods_->Get(ns, name);
  if (!obj) return Status::Ok();  // gone; its claims were enqueued by the delete event
  const api::Pod& pod = *api::As<api::Pod>(*obj);
  // Nothing to create for a pod that is being deleted or finished (its claims would only be
  // deleted again).
  if (pod.metadata.rare->deletionTimestamp || api::IsPodTerminal(pod)) return Status::Ok();

  std::map<std::string, std::string> new_statuses;  // pod claim -> claim name
  for (const api::PodResourceClaim& pc : pod.spec.resourceClaims) {
    Result<ClaimToCreate> plan = PlanPodClaim(pod, pc, new_statuses);
    Status st = plan.status();
    if (st.ok() && plan->claim) {
      Result<api::ObjectPtr> created = CreatePlanned(std::move(*plan));
      if (created.ok()) new_statuses[pc.name] = (*created)->metadata.name;
      st = created.status();
    }
    if (!st.ok()) return PodClaimFailed(pod, pc, st);
  }
  if (!new_statuses.empty()) {
    // One merge patch for every new entry; entries merge by name, so concurrent writers of
    // other status fields (the kubelet) are not overwritten and no resourceVersion is needed.
    auto patched = client().Patch(pods_res_, ns, name, client::PatchKind::kStrategicMerge,
                                  ResourceClaimStatusesPatch(new_statuses), /*status=*/true);
    if (!patched.ok()) return StatusesPatchFailed(pod, patched.status());
  }
  if (pod.spec.nodeName.empty()) return Status::Ok();  // the scheduler reserves
  return ReserveClaimsOfBoundPod(pod);
}

// The state of one pod sync whose writes are in flight (SyncPodAsync).
struct ResourceClaimController::PodSyncInFlight {
  api::ObjectPtr pod;
  SyncDone done;
  std::mutex mu;
  size_t pending = 0;                               // guarded by mu: creates not answered
  std::map<std::string, std::string> new_statuses;  // guarded by mu: pod claim -> claim name
  // Guarded by mu: the first entry whose create failed (it points into `pod`), and why.
  std::optional<std::pair<const api::PodResourceClaim*, Status>> error;
};

void ResourceClaimController::SyncPodAsync(const std::string& ns, const std::string& name,
                                           SyncDone done) {
  api::ObjectPtr obj = pods_->Get(ns, name);
  if (!obj) return done(Status::Ok());
  const api::Pod& pod = *api::As<api::Pod>(*obj);
  if (pod.metadata.rare->deletionTimestamp || api::IsPodTerminal(pod)) return done(Status::Ok());
  // A bound pod's claims may need a reservation or a scheduling context, which read before
  // they write: that sync stays synchronous (it is not the scheduling path).
  if (!pod.spec.nodeName.empty()) return done(SyncPod(ns, name));

  auto sync = std::make_shared<PodSyncInFlight>();
  sync->pod = obj;
  sync->done = std::move(done);
  std::vector<std::pair<const api::PodResourceClaim*, ClaimToCreate>> creates;
  for (const api::PodResourceClaim& pc : pod.spec.resourceClaims) {
    Result<ClaimToCreate> plan = PlanPodClaim(pod, pc, sync->new_statuses);
    if (!plan.ok()) return sync->done(PodClaimFailed(pod, pc, plan.status()));
    if (plan->claim) creates.emplace_back(&pc, std::move(*plan));
  }
  if (creates.empty()) return PatchStatusesAsync(std::move(sync));
  sync->pending = creates.size();
  for (auto& [pod_claim, plan] : creates) {
    CreatePlannedAsync(
        std::move(plan), [this, sync, pc = pod_claim](Result<api::ObjectPtr> created) {
          {
            std::lock_guard<std::mutex> lock(sync->mu);
            if (created.ok()) {
              sync->new_statuses[pc->name] = (*created)->metadata.name;
            } else if (!sync->error) {
              sync->error.emplace(pc, created.status());
            }
            if (--sync->pending > 0) return;
          }
          // The last answer: nobody else touches `sync` now.
          if (sync->error) {
            // Claims created meanwhile are adopted by the retry (FindOwnedClaim).
            return sync->done(PodClaimFailed(*api::As<api::Pod>(*sync->pod), *sync->error->first,
                                             sync->error->second));
          }
          PatchStatusesAsync(sync);
        });
  }
}

void ResourceClaimController::PatchStatusesAsync(std::shared_ptr<PodSyncInFlight> sync) {
  if (sync->new_statuses.empty()) return sync->done(Status::Ok());
  const api::Pod& pod = *api::As<api::Pod>(*sync->pod);
  std::string patch = ResourceClaimStatusesPatch(sync->new_statuses);
  client().PatchAsync(
      pods_res_, pod.metadata.namespace_, pod.metadata.name, client::PatchKind::kStrategicMerge,
      std::move(patch), /*status=*/true, [this, sync](Result<api::ObjectPtr> patched) {
        sync->done(patched.ok()
                       ? Status::Ok()
                       : StatusesPatchFailed(*api::As<api::Pod>(*sync->pod), patched.status()));
      });
}

Status ResourceClaimController::PodClaimFailed(const api::Pod& pod,
                                               const api::PodResourceClaim& pod_claim,
                                               const Status& st) {
  events().Record(pod, client::kEventTypeWarning, kReasonFailedResourceClaimCreation, "",
                  "PodResourceClaim " + pod_claim.name + ": " + st.message());
  return Wrap(st, "pod " + PodName(pod) + ", PodResourceClaim " + pod_claim.name);
}

Status ResourceClaimController::StatusesPatchFailed(const api::Pod& pod, const Status& st) {
  return Wrap(st, "update pod " + PodName(pod) + " ResourceClaimStatuses");
}

Result<ResourceClaimController::ClaimToCreate> ResourceClaimController::PlanPodClaim(
    const api::Pod& pod, const api::PodResourceClaim& pod_claim,
    std::map<std::string, std::string>& new_statuses) {
  PodClaimName n = ClaimNameFor(pod, pod_claim);
  switch (n.kind) {
    case PodClaimName::Kind::kUnknownSource:
      return InternalError(
          "checking for claim before creating it: pod claim sets neither resourceClaimName nor "
          "resourceClaimTemplateName");
    case PodClaimName::Kind::kNotNeeded:
      return ClaimToCreate();
    case PodClaimName::Kind::kName: {
      // Recorded (or named directly). It should exist; a generated one deleted by accident,
      // or one no longer owned by the pod, is generated again below.
      api::ObjectPtr obj = FindClaim(pod.metadata.namespace_, n.name);
      if (obj &&
          (!n.check_owner || CheckClaimIsForPod(pod, *api::As<api::ResourceClaim>(*obj)).ok())) {
        return ClaimToCreate();
      }
      break;
    }
    case PodClaimName::Kind::kNotCreated:
      break;
  }
  if (!pod_claim.resourceClaimTemplateName) return ClaimToCreate();  // the user's to create

  // Before creating, adopt a claim generated earlier whose name did not reach the pod status.
  if (api::ObjectPtr claim =
          FindOwnedClaim(pod.metadata.namespace_, pod.metadata.uid, pod_claim.name)) {
    new_statuses[pod_claim.name] = claim->metadata.name;
    return ClaimToCreate();
  }
  api::OwnerReference owner;
  owner.apiVersion = "v1";
  owner.kind = "Pod";
  owner.name = pod.metadata.name;
  owner.uid = pod.metadata.uid;
  return ClaimFromTemplateFor(owner, pod.metadata.namespace_, pod_claim);
}

Result<ResourceClaimController::ClaimToCreate> ResourceClaimController::ClaimFromTemplateFor(
    const api::OwnerReference& owner, const std::string& ns,
    const api::PodResourceClaim& pod_claim) {
  const std::string& tmpl_name = *pod_claim.resourceClaimTemplateName;
  api::ObjectPtr obj = templates_->Get(ns, tmpl_name);
  if (!obj) {
    // The lister's NotFound error, as Kubernetes reports it.
    return Status(StatusCode::kNotFound, "resource claim template \"" + tmpl_name +
                                             "\": resourceclaimtemplate.resource.k8s.io \"" +
                                             tmpl_name + "\" not found");
  }
  const auto& tmpl = *api::As<api::ResourceClaimTemplate>(*obj);
  ClaimToCreate plan;
  plan.admin_access = NeedsAdminAccess(tmpl.spec.spec);
  if (plan.admin_access && !options_.admin_access_enabled) {
    return Status(StatusCode::kForbidden, "admin access is requested, but the feature is disabled");
  }
  plan.claim = ClaimFromTemplate(owner, ns, pod_claim, tmpl);
  return plan;
}

void ResourceClaimController::CreatePlannedAsync(ClaimToCreate plan,
                                                 client::Callback<api::ObjectPtr> done) {
  std::string generate_name = plan.claim->metadata.generateName;
  client().CreateAsync(
      claims_res_, std::move(plan.claim),
      [this, admin_access = plan.admin_access, generate_name = std::move(generate_name),
       done = std::move(done)](Result<api::ObjectPtr> created) {
        metrics_.RecordCreate(admin_access, created.ok());
        if (!created.ok()) {
          return done(Wrap(created.status(), "create ResourceClaim " + generate_name));
        }
        RememberCreated(*created);
        done(std::move(created));
      });
}

Result<api::ObjectPtr> ResourceClaimController::CreatePlanned(ClaimToCreate plan) {
  return Await<api::ObjectPtr>(
      [&](client::Callback<api::ObjectPtr> done) { CreatePlannedAsync(std::move(plan), done); });
}

Result<api::ObjectPtr> ResourceClaimController::CreateFromTemplate(
    const api::OwnerReference& owner, const std::string& ns,
    const api::PodResourceClaim& pod_claim) {
  ALLOT_ASSIGN_OR_RETURN(ClaimToCreate plan, ClaimFromTemplateFor(owner, ns, pod_claim));
  return CreatePlanned(std::move(plan));
}

Status ResourceClaimController::ReserveClaimsOfBoundPod(const api::Pod& pod) {
  bool negotiate = false;  // a control-plane claim still to be allocated for the pod's node
  for (const api::PodResourceClaim& pc : pod.spec.resourceClaims) {
    PodClaimName n = ClaimNameFor(pod, pc);
    // Our copy of the pod may predate the status patch in SyncPod: such entries wait.
    if (n.kind != PodClaimName::Kind::kName) continue;
    api::ObjectPtr obj = FindClaim(pod.metadata.namespace_, n.name);
    if (!obj) continue;
    const auto& claim = *api::As<api::ResourceClaim>(*obj);
    if (n.check_owner) ALLOT_RETURN_IF_ERROR(CheckClaimIsForPod(pod, claim));
    if (claim.status.allocation && !IsReservedForPod(pod, claim) && CanBeReserved(claim)) {
      ALLOT_RETURN_IF_ERROR(ReserveForPod(pod, claim));
    }
    negotiate = negotiate || NeedsSchedulingContext(pod, claim);
  }
  return negotiate ? EnsureSchedulingContext(pod) : Status::Ok();
}

Status ResourceClaimController::EnsureSchedulingContext(const api::Pod& pod) {
  const api::ResourceInfo& res = api::ResourceFor<api::PodSchedulingContext>();
  const std::string& ns = pod.metadata.namespace_;
  const std::string& name = pod.metadata.name;
  Result<api::ObjectPtr> current = client().Get(res, ns, name);
  if (current.ok()) {
    auto written = client::UpdateWithRetry(
        client(), res, ns, name, client::Write::kUpdate,
        [&](const api::Object& o) -> Result<client::Desired> {
          const auto* ctx = api::As<api::PodSchedulingContext>(o);
          if (ctx == nullptr || ctx->spec.selectedNode == pod.spec.nodeName) {
            return client::Desired();
          }
          auto copy = std::make_unique<api::PodSchedulingContext>(*ctx);
          copy->spec.selectedNode = pod.spec.nodeName;
          return client::Desired(std::move(copy));
        },
        *current);
    return written.ok() ? Status::Ok() : written.status();
  }
  if (current.status().code() != StatusCode::kNotFound) return current.status();
  auto ctx = std::make_unique<api::PodSchedulingContext>();
  ctx->metadata.name = name;
  ctx->metadata.namespace_ = ns;
  ctx->metadata.ownerReferences = {{.apiVersion = "v1",
                                    .kind = "Pod",
                                    .name = name,
                                    .uid = pod.metadata.uid,
                                    .controller = true,
                                    .blockOwnerDeletion = true}};
  ctx->spec.selectedNode = pod.spec.nodeName;
  Result<api::ObjectPtr> created = client().Create(res, std::move(ctx));
  if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
    return created.status();
  }
  return Status::Ok();
}

Status ResourceClaimController::ReserveForPod(const api::Pod& pod,
                                              const api::ResourceClaim& claim) {
  auto updated = std::make_unique<api::ResourceClaim>(claim);  // carries the resourceVersion
  updated->status.reservedFor.push_back({"", "pods", pod.metadata.name, pod.metadata.uid});
  auto written = client().UpdateStatus(claims_res_, std::move(updated));
  if (!written.ok()) {
    return Wrap(written.status(), "reserve claim " + claim.metadata.namespace_ + "/" +
                                      claim.metadata.name + " for pod");
  }
  return Status::Ok();
}

}  // namespace allot::controllers
