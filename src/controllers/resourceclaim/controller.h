// The resourceclaim controller: what kube-controller-manager's pkg/controller/resourceclaim
// does (Kubernetes 1.34), plus the KEP-3063 deallocation request (docs/architecture.md §3 step 7).
//
//   client::InformerFactory factory(client);
//   controllers::ResourceClaimController rc(client, factory, {.metrics = &registry});
//   ALLOT_RETURN_IF_ERROR(rc.Start());       // registers handlers; returns at once
//   ALLOT_RETURN_IF_ERROR(factory.StartAll());
//   ...
//   rc.Stop();
//
// What it does
//  1. Claims from templates. For every pod that is not being deleted and not finished, each
//     pod.spec.resourceClaims[] entry with resourceClaimTemplateName gets a ResourceClaim:
//     unless pod.status.resourceClaimStatuses already names one (owned by the pod), it adopts a
//     claim owned by the pod (controller ownerReference) with the annotation
//     resource.kubernetes.io/pod-claim-name = <entry> (a crash between create and the pod
//     status write leaves one), or creates it from the template (controllers/resourceclaim/rules.h:
//     ClaimFromTemplate). The names are then recorded in pods/status with one strategic-merge
//     patch (Kubernetes uses server-side apply with field manager ResourceClaimController and
//     force; the merge by `name` gives the same result for the entries we own). A failure
//     (template missing, create refused) records the pod Event FailedResourceClaimCreation
//     "PodResourceClaim <entry>: <error>" and the pod is retried with backoff; a template
//     appearing later also wakes the pods waiting for it.
//     For a pod already bound to a node whose claim is allocated but not reserved for it, the
//     controller adds the pod to status.reservedFor (reserveForPod).
//  2. reservedFor cleanup. For each claim, a pod consumer is dropped when the pod was seen being
//     removed, no longer exists (or its name now belongs to a pod with another uid), is finished
//     (Succeeded / Failed), or was deleted before it was scheduled. A pod missing from the
//     informer cache, or cached with another uid, is confirmed with a live GET first: the
//     scheduler reserves claims before Bind, so a pending pod the cache has not seen yet must
//     not lose its reservation. Consumers other than core pods are kept untouched (Kubernetes
//     fails the sync for them instead).
//  3. Deallocation, in the same compare-and-swap status write that removes the last consumer:
//     structured claims (no controllerName) holding the delete-protection finalizer get
//     status.allocation (and the driver-written status.devices) cleared, then the finalizer is
//     removed with an update; control-plane claims (KEP-3063 controllerName) get
//     status.deallocationRequested = true and the driver does the rest. Deallocation is tied to
//     that transition only (a claim allocated by a driver before any consumer is not touched);
//     a claim being deleted without consumers is deallocated and loses the finalizer at once so
//     its deletion completes (control-plane claims: left to their driver).
//     A claim generated for a pod is deleted once it has no consumers and its pod is finished,
//     was replaced by another pod of the same name, or was seen being removed (the garbage
//     collector would delete it too after the pod object is gone).
//  4. Events in: pod add / update / delete enqueue the pod when it needs work and, once the pod
//     no longer needs its claims, the claims it names; claim events enqueue the claim and the
//     pods that name it (informer indexes, so no scans).
//  5. Metrics: controllers/resourceclaim/metrics.h.
//  6. Reservations (Options::reservations; docs/reservations.md, "Devices"): a Koordinator
//     Reservation's template.spec.resourceClaims are treated as a pod's. Entries with a
//     resourceClaimTemplateName get a claim in the template's namespace ("default" without
//     one), controlled by the Reservation, recorded in the reservation's
//     status.resourceClaimStatuses (a status update, compare-and-swap). A reservedFor entry
//     naming a reservation (scheduling.koordinator.sh reservations) is dropped once the
//     reservation is gone, replaced, Succeeded or Failed — deallocating as for pods — and claims
//     generated for it are then deleted. The reserve pod's claims are allocated by the
//     scheduler, which puts the reservation in reservedFor.
//
// Work queue: keys "pod:<ns>/<name>" and "claim:<ns>/<name>" (client/work_queue.h), de-duplicated,
// `workers` threads, failed syncs (409 Conflict included) retried with exponential backoff
// 5 ms .. 1000 s. Every write that depends on a read is a compare-and-swap on resourceVersion.
// The sync of a pod not yet bound (item 1 on the scheduling path) holds no worker: its claim
// creates and its status patch chain through the client's callbacks, and the key stays in
// progress until the patch is answered (RunAsyncSyncWorker); at most `max_syncs_in_flight`
// such syncs are in flight.
//
// Workers wait until the pod, claim and template informers have synced before the first sync.
//
// Lifecycle, workers and thread safety: controllers/queue_controller.h. Locks, in the order they
// may be taken: the handler gate (held while a handler runs), then the work queue's, created_mu_
// and the informers' cache locks (each held briefly, never while calling out). Workers hold none
// of them across API calls.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/core/types.h"
#include "api/koordinator/reservation.h"
#include "api/resource/types.h"
#include "client/client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "client/informer_factory.h"
#include "client/work_queue.h"
#include "common/metrics.h"
#include "common/status.h"
#include "common/time.h"
#include "controllers/queue_controller.h"
#include "controllers/resourceclaim/metrics.h"
#include "controllers/sync_worker.h"
#include "controllers/uid_cache.h"

namespace allot::controllers {

// The Event reason Kubernetes records on the pod when a claim cannot be created.
inline constexpr std::string_view kReasonFailedResourceClaimCreation =
    "FailedResourceClaimCreation";
// source.component of the controller's Events (as Kubernetes').
inline constexpr std::string_view kResourceClaimEventComponent = "resource_claim";

struct ResourceClaimControllerOptions {
  // Concurrent syncs (kube-controller-manager's --concurrent-resource-claim-syncs defaults to
  // 10; two suit the small machines Allot runs on).
  int workers = 2;
  Clock* clock = nullptr;                   // null: RealClock
  metrics::Registry* metrics = nullptr;     // null: a private registry
  client::EventRecorder* events = nullptr;  // null: a ClientEventRecorder through the client
  // The DRAAdminAccess feature gate: when off, templates requesting admin access fail.
  bool admin_access_enabled = true;
  client::WorkQueueOptions queue;
  // Also serve Koordinator Reservations' claims (item 6). Needs the reservations resource.
  bool reservations = false;
  // Pod syncs whose writes may be in flight at once (each holds its pod's key). More keep the
  // store's group commit fuller but let the controller run further ahead of the scheduler in
  // large bursts: in the DRA benchmark 32 matched 48 and beat 16 and 256 (docs/performance.md).
  size_t max_syncs_in_flight = 32;
  // Called after each sync with its key and result (tests, tracing): on a worker thread, or
  // on the client's thread that answered the last write of an asynchronous pod sync.
  std::function<void(const std::string& key, const Status& result)> on_sync;
};

class ResourceClaimController : public QueueController {
 public:
  using Options = ResourceClaimControllerOptions;

  ResourceClaimController(client::Client& client, client::InformerFactory& informers,
                          Options options = {});
  ~ResourceClaimController() override { Stop(); }

  // Queues a sync of the claim as if it had changed. The handlers queue a claim only where its
  // sync could act (ClaimSyncMayAct); this asks the sync itself (tests; a forced resync).
  void QueueClaimSync(const std::string& ns, const std::string& name) {
    queue().Add(std::string(kClaimKeyPrefix) + ns + "/" + name);
  }

 private:
  // Work queue keys: "pod:<ns>/<name>", "claim:<ns>/<name>", "reservation:/<name>".
  static constexpr std::string_view kPodKeyPrefix = "pod:";
  static constexpr std::string_view kClaimKeyPrefix = "claim:";
  static constexpr std::string_view kReservationKeyPrefix = "reservation:";

  // Indexes and handlers on the factory's pod, claim and template (and reservation) informers.
  Status Setup() override;
  void OnStop() override;  // withdraws the metrics

  // --- events in (informer threads; only enqueue) ---
  void OnPod(const api::Pod& pod, bool removed);
  void OnClaim(const api::ResourceClaim* old_claim, const api::ResourceClaim* new_claim);
  void OnTemplate(const api::ResourceClaimTemplate& tmpl);
  bool PodNeedsWork(const api::Pod& pod) const;

  // --- workers ---
  // Dispatches a key: pods through SyncPodAsync, claims and reservations synchronously.
  void BeginSync(const std::string& key, SyncDone done) override;

  // Pods (controllers/resourceclaim/pods.cc).
  // A claim to create from a template for one pod.spec.resourceClaims entry.
  struct ClaimToCreate {
    std::unique_ptr<api::ResourceClaim> claim;  // null: nothing to create
    bool admin_access = false;                  // for the creation metric
  };
  struct PodSyncInFlight;
  Status SyncPod(const std::string& ns, const std::string& name);
  // The same, with the claim creates and the status patch of an unbound pod (the scheduling
  // path) sent asynchronously: no worker waits on them. Other pods sync as in SyncPod.
  void SyncPodAsync(const std::string& ns, const std::string& name, SyncDone done);
  void PatchStatusesAsync(std::shared_ptr<PodSyncInFlight> sync);
  // What one entry needs: a claim to create, or nothing (recorded, the user's to create, or
  // an earlier claim adopted into `new_statuses`).
  Result<ClaimToCreate> PlanPodClaim(const api::Pod& pod, const api::PodResourceClaim& pod_claim,
                                     std::map<std::string, std::string>& new_statuses);
  // Records the pod's FailedResourceClaimCreation Event; returns the sync's error.
  Status PodClaimFailed(const api::Pod& pod, const api::PodResourceClaim& pod_claim,
                        const Status& st);
  Status StatusesPatchFailed(const api::Pod& pod, const Status& st);
  // A claim for `pod_claim` from its template in `ns`, controlled by `owner` (a Pod or a
  // Reservation): prepared, created.
  Result<ClaimToCreate> ClaimFromTemplateFor(const api::OwnerReference& owner,
                                             const std::string& ns,
                                             const api::PodResourceClaim& pod_claim);
  // Creates the planned claim; `done` gets the created claim (remembered, counted in the
  // metrics) or the error naming it.
  void CreatePlannedAsync(ClaimToCreate plan, client::Callback<api::ObjectPtr> done);
  Result<api::ObjectPtr> CreatePlanned(ClaimToCreate plan);
  Result<api::ObjectPtr> CreateFromTemplate(const api::OwnerReference& owner, const std::string& ns,
                                            const api::PodResourceClaim& pod_claim);
  Status ReserveForPod(const api::Pod& pod, const api::ResourceClaim& claim);
  Status ReserveClaimsOfBoundPod(const api::Pod& pod);
  // KEP-3063: a pod bound by someone else with an unallocated WaitForFirstConsumer claim of a
  // control-plane driver gets a PodSchedulingContext naming its node as selectedNode, so the
  // driver allocates there.
  Status EnsureSchedulingContext(const api::Pod& pod);

  // Reservations (controllers/resourceclaim/reservations.cc).
  void OnReservation(const api::Reservation* old_r, const api::Reservation* r);
  Status SyncReservation(const std::string& name);
  Result<bool> ReservationGone(const std::string& name, const std::string& uid);

  // Claims (controllers/resourceclaim/claims.cc).
  Status SyncClaim(const std::string& ns, const std::string& name);
  // Whether SyncClaim could write anything or must ask the API server, judged from the caches:
  // false when every consumer is a live pod in the cache and, with none, the owner is too. The
  // claim handler enqueues only such claims, so a pod's own claim, created, allocated and
  // reserved on the way to running, costs no claim sync.
  bool ClaimSyncMayAct(const api::ResourceClaim& claim) const;
  // Whether a consumer will not run any more, from the caches: nullopt when only the API
  // server can tell (ConsumerGone asks it).
  std::optional<bool> ConsumerGoneCached(const std::string& ns,
                                         const api::ResourceClaimConsumerReference& ref) const;
  Result<bool> ConsumerGone(const std::string& ns, const api::ResourceClaimConsumerReference& ref);
  // Whether the claim is to be deleted because the pod or reservation it was generated for is
  // done, from the caches: nullopt when only the API server can tell (DeleteIfOwnerDone asks).
  std::optional<bool> OwnerDoneCached(const api::ResourceClaim& claim) const;
  Result<bool> PodGone(const std::string& ns, const std::string& name, const std::string& uid,
                       bool check_done);
  Status ReleaseConsumers(const api::ResourceClaim& claim,
                          std::vector<api::ResourceClaimConsumerReference> valid);
  Status FinishDeletion(const api::ResourceClaim& claim);
  Status RemoveFinalizer(const api::ResourceClaim& claim);
  Status DeleteIfOwnerDone(const api::ResourceClaim& claim);

  // Claims this controller created that the informer may not have delivered yet (Kubernetes'
  // mutation cache): without it a retry right after a create whose pod status write failed
  // would create a second claim.
  void RememberCreated(const api::ObjectPtr& claim);
  void ForgetCreated(const api::ResourceClaim& claim);
  api::ObjectPtr FindClaim(const std::string& ns, const std::string& name) const;
  // A claim controlled by `owner_uid` in `ns` generated for the entry `pod_claim`.
  api::ObjectPtr FindOwnedClaim(const std::string& ns, const std::string& owner_uid,
                                const std::string& pod_claim) const;

  const Options options_;
  std::unique_ptr<metrics::Registry> own_registry_;
  ResourceClaimMetrics metrics_;
  const api::ResourceInfo& pods_res_;
  const api::ResourceInfo& claims_res_;
  const api::ResourceInfo& templates_res_;
  const api::ResourceInfo& reservations_res_;

  client::Informer* pods_ = nullptr;          // set by Setup
  client::Informer* claims_ = nullptr;        // set by Setup
  client::Informer* templates_ = nullptr;     // set by Setup
  client::Informer* reservations_ = nullptr;  // set by Setup with Options::reservations

  UidCache deleted_pods_;
  // Claims this controller deleted: stale cached copies (our own status and finalizer writes
  // arrive as updates before the deletion does) must not trigger another DELETE.
  UidCache deleted_claims_;

  mutable std::mutex created_mu_;
  std::map<std::string, api::ObjectPtr> created_;  // "<ns>/<name>"; guarded by created_mu_
  // The same claims by the uid of the pod that owns them (FindOwnedClaim); guarded by created_mu_.
  std::unordered_multimap<std::string, api::ObjectPtr> created_by_owner_;
};

}  // namespace allot::controllers
