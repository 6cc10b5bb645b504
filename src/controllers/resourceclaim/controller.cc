// The resourceclaim controller's lifecycle, informer handlers, work loop and caches. The syncs
// live in controllers/resourceclaim/pods.cc and controllers/resourceclaim/claims.cc.
#include "controllers/resourceclaim/controller.h"

#include <algorithm>

#include "api/core/pod.h"
#include "api/core/pod_state.h"
#include "api/machinery/resources.h"
#include "api/resource/types.h"
#include "common/log.h"
#include "controllers/resourceclaim/rules.h"
#include "controllers/sync_worker.h"

namespace allot::controllers {

namespace {

// Index names are prefixed: the informers are shared with other components.
const std::string kPodClaimIndex = "allot.resourceclaim-controller/pod-claims";
const std::string kPodTemplateIndex = "allot.resourceclaim-controller/pod-pending-templates";
const std::string kClaimOwnerIndex = "allot.resourceclaim-controller/claim-owner-pod";

// Kubernetes' deletedObjects cache size.
constexpr size_t kDeletedPodCacheSize = 500;
// Bounds the created-claims cache should the informer never deliver some claims.
constexpr size_t kMaxCreatedClaims = 10000;

std::string Key(std::string_view prefix, const api::ObjectMeta& meta) {
  return std::string(prefix) + meta.namespace_ + "/" + meta.name;
}

// "<ns>/<template>" for each template entry whose claim is not recorded in the status yet.
std::vector<std::string> PodPendingTemplateKeys(const api::Object& obj) {
  std::vector<std::string> keys;
  const api::Pod* pod = api::As<api::Pod>(obj);
  if (!pod) return keys;
  for (const api::PodResourceClaim& pc : pod->spec.resourceClaims) {
    if (pc.resourceClaimTemplateName &&
        ClaimNameFor(*pod, pc).kind == PodClaimName::Kind::kNotCreated) {
      keys.push_back(pod->metadata.namespace_ + "/" + *pc.resourceClaimTemplateName);
    }
  }
  return keys;
}

}  // namespace

ResourceClaimController::ResourceClaimController(client::Client& client,
                                                 client::InformerFactory& informers,
                                                 Options options)
    : QueueController(client, informers,
                      ConfigOf("resourceclaim", kResourceClaimEventComponent, options)),
      options_(std::move(options)),
      own_registry_(options_.metrics ? nullptr : std::make_unique<metrics::Registry>()),
      metrics_(options_.metrics ? *options_.metrics : *own_registry_),
      pods_res_(api::ResourceFor<api::Pod>()),
      claims_res_(api::ResourceFor<api::ResourceClaim>()),
      templates_res_(api::ResourceFor<api::ResourceClaimTemplate>()),
      reservations_res_(api::ResourceFor<api::Reservation>()),
      deleted_pods_(kDeletedPodCacheSize),
      deleted_claims_(kDeletedPodCacheSize) {}

Status ResourceClaimController::Setup() {
  pods_ = &Watch(pods_res_);
  claims_ = &Watch(claims_res_);
  templates_ = &Watch(templates_res_);
  if (options_.reservations) reservations_ = &Watch(reservations_res_);
  pods_->AddIndex(kPodClaimIndex, PodClaimKeys);
  pods_->AddIndex(kPodTemplateIndex, PodPendingTemplateKeys);
  claims_->AddIndex(kClaimOwnerIndex, ClaimOwnerPodUids);

  using Self = ResourceClaimController;
  auto pod = [](const api::ObjectPtr& obj) { return api::As<api::Pod>(*obj); };
  pods_->AddHandler({
      .on_add = Guarded<Self>([pod](Self& c, const api::ObjectPtr& o) {
        if (const api::Pod* p = pod(o)) c.OnPod(*p, false);
      }),
      .on_update = Guarded<Self>([pod](Self& c, const api::ObjectPtr&, const api::ObjectPtr& o) {
        if (const api::Pod* p = pod(o)) c.OnPod(*p, false);
      }),
      .on_delete = Guarded<Self>([pod](Self& c, const api::ObjectPtr& o) {
        if (const api::Pod* p = pod(o)) c.OnPod(*p, true);
      }),
  });
  auto claim = [](const api::ObjectPtr& obj) {
    return obj ? api::As<api::ResourceClaim>(*obj) : nullptr;
  };
  claims_->AddHandler({
      .on_add = Guarded<Self>(
          [claim](Self& c, const api::ObjectPtr& o) { c.OnClaim(nullptr, claim(o)); }),
      .on_update =
          Guarded<Self>([claim](Self& c, const api::ObjectPtr& old_obj, const api::ObjectPtr& o) {
            c.OnClaim(claim(old_obj), claim(o));
          }),
      .on_delete = Guarded<Self>(
          [claim](Self& c, const api::ObjectPtr& o) { c.OnClaim(claim(o), nullptr); }),
  });
  auto on_template = [](Self& c, const api::ObjectPtr& o) {
    if (const auto* t = api::As<api::ResourceClaimTemplate>(*o)) c.OnTemplate(*t);
  };
  templates_->AddHandler({
      .on_add = Guarded<Self>(on_template),
      .on_update = Guarded<Self>([on_template](Self& c, const api::ObjectPtr&,
                                               const api::ObjectPtr& o) { on_template(c, o); }),
      .on_delete = {},
  });
  if (!reservations_) return Status::Ok();
  auto rsv = [](const api::ObjectPtr& obj) {
    return obj ? api::As<api::Reservation>(*obj) : nullptr;
  };
  reservations_->AddHandler({
      .on_add = Guarded<Self>(
          [rsv](Self& c, const api::ObjectPtr& o) { c.OnReservation(nullptr, rsv(o)); }),
      .on_update =
          Guarded<Self>([rsv](Self& c, const api::ObjectPtr& old_obj, const api::ObjectPtr& o) {
            c.OnReservation(rsv(old_obj), rsv(o));
          }),
      .on_delete = Guarded<Self>(
          [rsv](Self& c, const api::ObjectPtr& o) { c.OnReservation(rsv(o), nullptr); }),
  });
  return Status::Ok();
}

void ResourceClaimController::OnStop() { metrics_.Withdraw(); }

// --- events in --------------------------------------------------------------------------------

void ResourceClaimController::OnPod(const api::Pod& pod, bool removed) {
  if (pod.spec.resourceClaims.empty()) return;
  if (removed) deleted_pods_.Add(pod.metadata.uid);
  // A pod that will not run any more releases its claims: let their syncs drop it.
  if (!PodNeedsClaims(pod, removed)) {
    for (const api::PodResourceClaim& pc : pod.spec.resourceClaims) {
      PodClaimName n = ClaimNameFor(pod, pc);
      if (n.kind == PodClaimName::Kind::kName) {
        queue().Add(std::string(kClaimKeyPrefix) + pod.metadata.namespace_ + "/" + n.name);
      }
    }
  }
  if (!removed && PodNeedsWork(pod)) queue().Add(Key(kPodKeyPrefix, pod.metadata));
}

bool ResourceClaimController::PodNeedsWork(const api::Pod& pod) const {
  if (pod.metadata.rare->deletionTimestamp || api::IsPodTerminal(pod)) return false;
  for (const api::PodResourceClaim& pc : pod.spec.resourceClaims) {
    PodClaimName n = ClaimNameFor(pod, pc);
    if (n.kind == PodClaimName::Kind::kNotNeeded) continue;
    if (n.kind != PodClaimName::Kind::kName) return true;  // to create, or an unknown source
    api::ObjectPtr obj = FindClaim(pod.metadata.namespace_, n.name);
    if (!obj) {
      if (pc.resourceClaimTemplateName) return true;  // to re-create
      continue;                                       // the user's to create
    }
    const auto& claim = *api::As<api::ResourceClaim>(*obj);
    if (n.check_owner && !CheckClaimIsForPod(pod, claim).ok()) return true;
    if (pod.spec.nodeName.empty()) continue;
    if (claim.status.allocation && !IsReservedForPod(pod, claim) && CanBeReserved(claim)) {
      return true;
    }
    if (NeedsSchedulingContext(pod, claim)) return true;
  }
  return false;
}

void ResourceClaimController::OnClaim(const api::ResourceClaim* old_claim,
                                      const api::ResourceClaim* new_claim) {
  if (old_claim) metrics_.CountClaim(*old_claim, -1);
  if (new_claim) metrics_.CountClaim(*new_claim, +1);
  const api::ResourceClaim* claim = new_claim ? new_claim : old_claim;
  if (!claim) return;
  ForgetCreated(*claim);
  // New, or updated in what the claim sync reads: its reservedFor may name pods that are
  // already gone. A pod that goes later enqueues its claims itself (OnPod).
  if (new_claim && (!old_claim || ClaimChangeNeedsSync(*old_claim, *new_claim)) &&
      ClaimSyncMayAct(*new_claim)) {
    queue().Add(Key(kClaimKeyPrefix, claim->metadata));
  }
  // A reservation's generated claim went: it gets another.
  if (reservations_ && !new_claim) {
    if (std::optional<PodRef> owner = OwningReservation(*claim)) {
      queue().Add(std::string(kReservationKeyPrefix) + "/" + owner->name);
    }
  }
  // The pods using it may have work now (reserve it, re-create it).
  for (const api::ObjectPtr& obj :
       pods_->ByIndex(kPodClaimIndex, claim->metadata.namespace_ + "/" + claim->metadata.name)) {
    if (const api::Pod* pod = api::As<api::Pod>(*obj)) OnPod(*pod, false);
  }
}

void ResourceClaimController::OnTemplate(const api::ResourceClaimTemplate& tmpl) {
  for (const api::ObjectPtr& obj :
       pods_->ByIndex(kPodTemplateIndex, tmpl.metadata.namespace_ + "/" + tmpl.metadata.name)) {
    if (const api::Pod* pod = api::As<api::Pod>(*obj)) OnPod(*pod, false);
  }
}

// --- workers ----------------------------------------------------------------------------------

void ResourceClaimController::BeginSync(const std::string& key, SyncDone done) {
  size_t colon = key.find(':');
  size_t slash = key.find('/', colon == std::string::npos ? 0 : colon);
  if (colon == std::string::npos || slash == std::string::npos) {
    return done(InternalError("unexpected key: " + key));
  }
  std::string_view prefix = std::string_view(key).substr(0, colon + 1);
  std::string ns = key.substr(colon + 1, slash - colon - 1);
  std::string name = key.substr(slash + 1);
  if (prefix == kPodKeyPrefix) return SyncPodAsync(ns, name, std::move(done));
  if (prefix == kClaimKeyPrefix) return done(SyncClaim(ns, name));
  if (prefix == kReservationKeyPrefix) return done(SyncReservation(name));
  done(InternalError("unexpected key prefix: " + key));
}

// --- created-claims cache ---------------------------------------------------------------------

namespace {
// Drops `claim` from the by-owner index of the created-claims cache.
void EraseByOwner(std::unordered_multimap<std::string, api::ObjectPtr>& by_owner,
                  const api::ObjectPtr& claim) {
  for (const std::string& uid : ClaimOwnerPodUids(*claim)) {
    auto [first, last] = by_owner.equal_range(uid);
    for (auto it = first; it != last; ++it) {
      if (it->second == claim) {
        by_owner.erase(it);
        break;
      }
    }
  }
}

}  // namespace

void ResourceClaimController::RememberCreated(const api::ObjectPtr& claim) {
  std::lock_guard<std::mutex> lock(created_mu_);
  if (created_.size() >= kMaxCreatedClaims) {
    created_.clear();
    created_by_owner_.clear();
  }
  api::ObjectPtr& slot = created_[claim->metadata.namespace_ + "/" + claim->metadata.name];
  if (slot) EraseByOwner(created_by_owner_, slot);
  slot = claim;
  for (const std::string& uid : ClaimOwnerPodUids(*claim)) created_by_owner_.emplace(uid, claim);
}

void ResourceClaimController::ForgetCreated(const api::ResourceClaim& claim) {
  std::lock_guard<std::mutex> lock(created_mu_);
  if (created_.empty()) return;
  auto it = created_.find(claim.metadata.namespace_ + "/" + claim.metadata.name);
  if (it == created_.end()) return;
  EraseByOwner(created_by_owner_, it->second);
  created_.erase(it);
}

api::ObjectPtr ResourceClaimController::FindClaim(const std::string& ns,
                                                  const std::string& name) const {
  if (api::ObjectPtr obj = claims_->Get(ns, name)) return obj;
  std::lock_guard<std::mutex> lock(created_mu_);
  auto it = created_.find(ns + "/" + name);
  return it == created_.end() ? nullptr : it->second;
}

api::ObjectPtr ResourceClaimController::FindOwnedClaim(const std::string& ns,
                                                       const std::string& owner_uid,
                                                       const std::string& pod_claim) const {
  auto matches = [&](const api::ObjectPtr& obj) {
    const auto* claim = api::As<api::ResourceClaim>(*obj);
    if (!claim || claim->metadata.namespace_ != ns) return false;
    auto it = claim->metadata.annotations.find(std::string(kPodClaimNameAnnotation));
    // Without the annotation it was not generated for a pod entry; ignore it.
    return it != claim->metadata.annotations.end() && it->second == pod_claim;
  };
  // The first match wins; should there be more, the others go with the pod (GC).
  for (const api::ObjectPtr& obj : claims_->ByIndex(kClaimOwnerIndex, owner_uid)) {
    if (matches(obj)) return obj;
  }
  std::lock_guard<std::mutex> lock(created_mu_);
  auto [first, last] = created_by_owner_.equal_range(owner_uid);
  for (auto it = first; it != last; ++it) {
    if (matches(it->second)) return it->second;
  }
  return nullptr;
}

}  // namespace allot::controllers
