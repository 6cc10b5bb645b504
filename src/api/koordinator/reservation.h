// scheduling.koordinator.sh/v1alpha1 Reservation (koordinator-sh/apis
// scheduling/v1alpha1/reservation_types.go).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/core/types.h"
#include "api/machinery/field.h"
#include "api/machinery/meta.h"
#include "api/machinery/object.h"
#include "api/machinery/validation.h"
#include "api/resource/types.h"

namespace allot::api {

inline constexpr std::string_view kKoordinatorSchedulingGroup = "scheduling.koordinator.sh";
// The resource name, as a ResourceClaim's status.reservedFor names a reservation holding it.
inline constexpr std::string_view kReservationsResource = "reservations";

// The status.reservedFor entry of a ResourceClaim held by a reservation (docs/reservations.md,
// "Devices"), and the test for one.
inline ResourceClaimConsumerReference ReservationConsumer(const std::string& name,
                                                          const std::string& uid) {
  return {std::string(kKoordinatorSchedulingGroup), std::string(kReservationsResource), name, uid};
}
inline bool IsReservationConsumer(const ResourceClaimConsumerReference& ref) {
  return ref.apiGroup == kKoordinatorSchedulingGroup && ref.resource == kReservationsResource;
}

inline constexpr std::string_view kReservationPending = "Pending";
inline constexpr std::string_view kReservationAvailable = "Available";
inline constexpr std::string_view kReservationWaiting = "Waiting";
inline constexpr std::string_view kReservationSucceeded = "Succeeded";
inline constexpr std::string_view kReservationFailed = "Failed";

inline constexpr std::string_view kReservationConditionScheduled = "Scheduled";
inline constexpr std::string_view kReservationConditionReady = "Ready";
inline constexpr std::string_view kReasonReservationScheduled = "Scheduled";
inline constexpr std::string_view kReasonReservationUnschedulable = "Unschedulable";
inline constexpr std::string_view kReasonReservationAvailable = "Available";
inline constexpr std::string_view kReasonReservationSucceeded = "Succeeded";
inline constexpr std::string_view kReasonReservationExpired = "Expired";

inline constexpr std::string_view kReservationAllocatePolicyAligned = "Aligned";
inline constexpr std::string_view kReservationAllocatePolicyRestricted = "Restricted";

// Default spec.ttl: 24 hours, as Koordinator's CRD writes it.
inline constexpr int64_t kReservationDefaultTTLNanos = 24LL * 3600 * 1000000000;
inline constexpr std::string_view kReservationDefaultTTL = "24h";

// What the reservation reserves, scheduled like a pod: a core/v1 PodTemplateSpec. If
// spec.nodeName is set the scheduler only considers that node. Allot extension
// (docs/architecture.md §5.5): spec.resourceClaims reserves devices too.
using ReservationPodTemplate = PodTemplateSpec;

// An OwnerReference plus a namespace, so owners in any namespace can be named.
struct ReservationControllerReference {
  std::string apiVersion;
  std::string kind;
  std::string name;
  std::string uid;
  std::optional<bool> controller;
  std::optional<bool> blockOwnerDeletion;
  std::string namespace_;
  template <class V>
  void Visit(V& v) {
    v("apiVersion", apiVersion, {.always = true, .required = true});
    v("kind", kind, {.always = true, .required = true});
    v("name", name, {.always = true, .required = true});
    v("uid", uid, {.always = true, .required = true});
    v("controller", controller);
    v("blockOwnerDeletion", blockOwnerDeletion);
    v("namespace", namespace_);
  }
  bool operator==(const ReservationControllerReference&) const = default;
};

// Who may use the reservation: at least one member set; members are ANDed, entries ORed.
struct ReservationOwner {
  std::optional<ObjectReference> object;
  std::optional<ReservationControllerReference> controller;
  std::optional<LabelSelector> labelSelector;
  template <class V>
  void Visit(V& v) {
    v("object", object);
    v("controller", controller);
    v("labelSelector", labelSelector);
  }
  bool operator==(const ReservationOwner&) const = default;
};

struct ReservationSpec {
  std::optional<ReservationPodTemplate> template_;  // required
  std::vector<ReservationOwner> owners;             // required, >= 1
  // Time to live, a Go duration ("1h", "90m"); 0 disables expiry; `expires`, when set, wins.
  // Kept as written, as Koordinator's CRD keeps it (and kubectl prints it): defaulted to
  // "24h" when absent, with or without `expires` (the CRD's schema default).
  std::optional<std::string> ttl;
  std::optional<Time> expires;
  // Skip the free-resource check; the reservation waits (phase Waiting) until resources free up.
  bool preAllocation = false;
  // Only the first owner may allocate; defaults to true.
  std::optional<bool> allocateOnce;
  std::string allocatePolicy;  // "" (deprecated, = Aligned) | Aligned | Restricted
  bool unschedulable = false;  // no new owners
  std::vector<Taint> taints;   // tolerated through the reservation-affinity annotation
  template <class V>
  void Visit(V& v) {
    v("template", template_, {.required = true});
    v("owners", owners, {.required = true});
    v("ttl", ttl);
    v("expires", expires);
    v("preAllocation", preAllocation);
    v("allocateOnce", allocateOnce);
    v("allocatePolicy", allocatePolicy);
    v("unschedulable", unschedulable);
    v("taints", taints);
  }
  bool operator==(const ReservationSpec&) const = default;
};

// Koordinator's own condition type (not metav1.Condition): type Scheduled | Ready.
struct ReservationCondition {
  std::string type;
  std::string status;  // True | False | Unknown
  std::string reason;
  std::string message;
  std::optional<Time> lastProbeTime;
  std::optional<Time> lastTransitionTime;
  template <class V>
  void Visit(V& v) {
    v("type", type);
    v("status", status);
    v("reason", reason);
    v("message", message);
    v("lastProbeTime", lastProbeTime);
    v("lastTransitionTime", lastTransitionTime);
  }
  bool operator==(const ReservationCondition&) const = default;
};

// Allot: a device a reservation holds, from the allocation of one of its claims (written when
// the reservation is placed), so `kubectl get reservation -o wide` and `describe` show it.
struct ReservationDevice {
  std::string resourceClaimName;  // in the template's namespace
  std::string request;
  std::string driver;
  std::string pool;
  std::string device;
  template <class V>
  void Visit(V& v) {
    v("resourceClaimName", resourceClaimName);
    v("request", request);
    v("driver", driver);
    v("pool", pool);
    v("device", device);
  }
  bool operator==(const ReservationDevice&) const = default;
};

struct ReservationStatus {
  std::string phase;  // Pending | Available | Waiting | Succeeded | Failed
  std::vector<ReservationCondition> conditions;
  std::vector<ObjectReference> currentOwners;
  std::string nodeName;
  ResourceList allocatable;  // reserved for owners
  ResourceList allocated;    // taken by current owners
  // Allot (devices in reservations, docs/reservations.md): the claims generated for
  // template.spec.resourceClaims entries with a resourceClaimTemplateName, as a pod's
  // status.resourceClaimStatuses (written by the resourceclaim controller), and the devices
  // the reservation's claims hold.
  std::vector<PodResourceClaimStatus> resourceClaimStatuses;
  std::vector<ReservationDevice> allocatedDevices;
  template <class V>
  void Visit(V& v) {
    v("phase", phase);
    v("conditions", conditions);
    v("currentOwners", currentOwners);
    v("nodeName", nodeName);
    v("allocatable", allocatable);
    v("allocated", allocated);
    v("resourceClaimStatuses", resourceClaimStatuses);
    v("allocatedDevices", allocatedDevices);
  }
  bool operator==(const ReservationStatus&) const = default;
};

// Cluster-scoped.
struct Reservation : TypedObject<Reservation> {
  static const TypeInfo& Type();
  ReservationSpec spec;
  ReservationStatus status;
  template <class V>
  void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec);
    v("status", status);
  }
  bool operator==(const Reservation& o) const {
    return metadata == o.metadata && spec == o.spec && status == o.status;
  }
};

// The condition of this type; nullptr when absent.
const ReservationCondition* FindReservationCondition(const ReservationStatus& s,
                                                     std::string_view type);
// Sets the condition of `type` (adding it when absent); its lastTransitionTime moves only when
// its status changes, its lastProbeTime is `now`.
void SetReservationCondition(ReservationStatus& s, std::string_view type, std::string_view status,
                             std::string_view reason, std::string message, Time now);

// ttl = "24h" when unset (as Koordinator's CRD: also beside expires); allocateOnce = true when
// unset.
void SetReservationDefaults(Reservation& obj);
// allocateOnce with its default applied.
bool ReservationAllocateOnce(const ReservationSpec& spec);
// spec.ttl in nanoseconds, the default when unset; nullopt when it is not a Go duration
// (validation refuses those).
std::optional<int64_t> ReservationTTLNanos(const ReservationSpec& spec);

// Name (DNS subdomain, no namespace), template present, owners (>= 1, each with at least one
// member; label selectors valid), ttl a Go duration >= 0, allocatePolicy, taints.
void ValidateReservation(const Reservation& obj, FieldErrors& errs);
// Only the metadata update rules; callers run ValidateReservation on the new object too.
void ValidateReservationUpdate(const Reservation& obj, const Reservation& old, FieldErrors& errs);
// Metadata update rules, phase, condition statuses, nodeName.
void ValidateReservationStatusUpdate(const Reservation& obj, const Reservation& old,
                                     FieldErrors& errs);

}  // namespace allot::api
