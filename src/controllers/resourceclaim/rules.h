// The pure rules of the resourceclaim controller: which claim a pod's entry names, who owns a
// generated claim, when a pod no longer needs its claims, and how a claim is generated from a
// ResourceClaimTemplate. No I/O, no state; the controller (controllers/resourceclaim/controller.h)
// applies them. Semantics follow Kubernetes 1.34 (k8s.io/dynamic-resource-allocation/resourceclaim
// and pkg/controller/resourceclaim), noted per function where we differ.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/core/types.h"
#include "api/koordinator/reservation.h"
#include "api/resource/types.h"
#include "common/status.h"

namespace allot::controllers {

// The annotation a generated claim carries: its pod.spec.resourceClaims[].name. Together with
// the controller ownerReference it finds a claim created before the pod status recorded it.
inline constexpr std::string_view kPodClaimNameAnnotation = "resource.kubernetes.io/pod-claim-name";
// Kubernetes' field manager for the pod status write (recorded for information only here).
inline constexpr std::string_view kResourceClaimFieldManager = "ResourceClaimController";
// Kubernetes' cap on the generateName base: 63 minus a hyphen and 5 random characters.
inline constexpr size_t kGeneratedClaimNameMaxBase = 57;

// Which ResourceClaim a pod.spec.resourceClaims[] entry refers to (resourceclaim.Name):
//  - resourceClaimName set: that name, no ownership check.
//  - resourceClaimTemplateName set: the name recorded in pod.status.resourceClaimStatuses;
//    the claim must be owned by the pod (check_owner). An entry recorded without a name means
//    no claim was needed (kNotNeeded); no entry yet means the claim still has to be generated
//    (kNotCreated).
//  - neither: an API this code does not know (kUnknownSource).
struct PodClaimName {
  enum class Kind { kName, kNotNeeded, kNotCreated, kUnknownSource };
  Kind kind = Kind::kUnknownSource;
  std::string name;          // kName only
  bool check_owner = false;  // kName only
};
PodClaimName ClaimNameFor(const api::Pod& pod, const api::PodResourceClaim& pod_claim);

// OK when `claim` is controlled by `pod` (a controller ownerReference with the pod's uid);
// otherwise an error saying so (resourceclaim.IsForPod).
Status CheckClaimIsForPod(const api::Pod& pod, const api::ResourceClaim& claim);
bool IsReservedForPod(const api::Pod& pod, const api::ResourceClaim& claim);
// Whether one more consumer may be added to status.reservedFor: below the 256-entry limit, and
// (validation forbids adding otherwise) neither deallocationRequested nor being deleted.
bool CanBeReserved(const api::ResourceClaim& claim);
// Whether an update of a claim from `before` to `after` can give the claim sync something to
// do: its consumers changed (one added may already be gone), it is being deleted, its owners or
// whether it is allocated changed. Kubernetes queues every update; writes that change none of
// these (the scheduler's finalizer, a driver's device status) skip the sync, and the pod and
// reservation events still queue the claims of consumers that went. (The handler also asks
// ResourceClaimController::ClaimSyncMayAct, which needs the caches.)
bool ClaimChangeNeedsSync(const api::ResourceClaim& before, const api::ResourceClaim& after);

// Certain that no container runs now or ever will: terminal, or deleted before it was
// scheduled (isPodDone).
bool IsPodDone(const api::Pod& pod);
// Whether the pod may still use its claims (podNeedsClaims): false once it was removed, is
// terminal, or was deleted before it was scheduled.
bool PodNeedsClaims(const api::Pod& pod, bool removed);

// The pod controlling a claim (a controller ownerReference, apiVersion v1, kind Pod).
struct PodRef {
  std::string name;
  std::string uid;
};
std::optional<PodRef> OwningPod(const api::ResourceClaim& claim);
// The Reservation controlling a claim (generated for its template.spec.resourceClaims).
std::optional<PodRef> OwningReservation(const api::ResourceClaim& claim);
// Succeeded or Failed: it holds nothing any more.
bool IsReservationTerminal(const api::Reservation& r);
// Where a reservation's claims live: its template's namespace, else "default" (as its
// reserve pod).
std::string ReservationClaimNamespace(const api::Reservation& r);

// Whether any request of the spec asks for admin access (needsAdminAccess).
bool NeedsAdminAccess(const api::ResourceClaimSpec& spec);
// A claim allocated by a KEP-3063 control-plane controller (spec.controllerName, or the
// allocation's controllerName), not by the scheduler from structured parameters.
// KEP-3063: the claim of `pod` (bound to a node) still needs its control-plane driver to allocate
// it for that node — an unallocated WaitForFirstConsumer claim with a controllerName, not being
// deleted — so the pod needs a PodSchedulingContext naming its node.
bool NeedsSchedulingContext(const api::Pod& pod, const api::ResourceClaim& claim);
bool IsControlPlaneClaim(const api::ResourceClaim& claim);

// generateName of a claim for `pod_claim` of `pod`: "<pod>-<podClaim>-"; when that is longer
// than 57 characters each part is cut to len*57/total and the parts are joined with "-" (no
// trailing hyphen then, as Kubernetes does).
std::string GeneratedClaimName(std::string_view pod, std::string_view pod_claim);

// The claim to create for `pod_claim` from `tmpl`: generateName as above, the pod's namespace,
// labels and annotations from the template's spec.metadata plus kPodClaimNameAnnotation, the
// template's spec, and the pod as controller owner (blockOwnerDeletion).
// The same for another owner (a Reservation): `owner` becomes the controller reference, the
// claim goes to `ns`, generateName is "<owner.name>-<podClaim>-".
std::unique_ptr<api::ResourceClaim> ClaimFromTemplate(api::OwnerReference owner,
                                                      const std::string& ns,
                                                      const api::PodResourceClaim& pod_claim,
                                                      const api::ResourceClaimTemplate& tmpl);
std::unique_ptr<api::ResourceClaim> ClaimFromTemplate(const api::Pod& pod,
                                                      const api::PodResourceClaim& pod_claim,
                                                      const api::ResourceClaimTemplate& tmpl);

// A strategic-merge patch of pods/status that records {name, resourceClaimName} for each entry
// of `claims` (pod claim name -> claim name); resourceClaimStatuses merge by name.
std::string ResourceClaimStatusesPatch(const std::map<std::string, std::string>& claims);

// Index functions (pure, for Informer::AddIndex).
// A pod: "<ns>/<claim>" for every claim it refers to by name (direct or recorded in status).
std::vector<std::string> PodClaimKeys(const api::Object& obj);
// A claim: the uids of the pods (or reservations) controlling it.
std::vector<std::string> ClaimOwnerPodUids(const api::Object& obj);

}  // namespace allot::controllers
