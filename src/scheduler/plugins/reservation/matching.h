// Which reservations a pod may use, and whether it fits one: the pure rules of the Reservation
// plugin (docs/reservations.md, "Owner pods"). No state, no locks; the plugin calls these for
// the candidates its index found.
//
//   (owners: api/koordinator/owners.h, ReservationOwnerMatcher)
//   PodReservationPrefs prefs = PodReservationPrefs::Parse(pod);  // annotations, once per pod
//   prefs.Admits(info, node_labels);                      // affinity, taints, exact-match
//   FitsReservation(pod_requests, node, slot, others)     // Aligned / Restricted fit
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/core/types.h"
#include "api/koordinator/annotations.h"
#include "api/koordinator/owners.h"
#include "api/machinery/selector.h"
#include "common/status.h"
#include "scheduler/framework/reservation_info.h"
#include "scheduler/framework/types.h"

namespace allot::scheduler::reservation {

// What a pod says about reservations, parsed from its labels and annotations once per cycle.
struct PodReservationPrefs {
  bool ignored = false;  // label reservation-ignored=true: never drawn from a reservation
  std::optional<api::ReservationAffinity> affinity;
  std::optional<std::vector<std::string>> exact_match;  // resource names

  // 400 naming the annotation when one is malformed.
  static Result<PodReservationPrefs> Parse(const api::Pod& pod);
  bool has_affinity() const { return affinity.has_value(); }

  // The checks after owners (Koordinator's order): with an affinity `name`, only the name and
  // exact-match; otherwise spec.unschedulable (tolerated through a toleration of
  // node.kubernetes.io/unschedulable:NoSchedule), untolerated NoSchedule / NoExecute taints of
  // the reservation (a pod without an affinity annotation tolerates none: Koordinator lets such
  // owners ignore the taints), the affinity's selector and terms against the node's labels
  // overlaid with the reservation's, then exact-match. `reason` gets why not, when asked.
  bool Admits(const ReservationInfo& r, const api::StringMap* node_labels, const Resource& requests,
              std::string* reason = nullptr) const;
};

// Each listed resource: the pod's request equals what the reservation holds (both absent is
// equal, and the check goes on to the next name; Koordinator stops at the first such name).
bool ExactMatches(const std::vector<std::string>& names, const Resource& requests,
                  const Resource& allocatable);

// Whether the pod fits on `node` drawing from `slot`, where `node` is the pod's view of the
// node (every matched reservation released) and `others_held` what the other matched
// reservations on it still hold for their own owners: Aligned takes the reservation's
// remainder first, then the node's free capacity; Restricted also needs each restricted
// resource (ReservationInfo::restricted_resources) within the remainder. On failure `reasons` gets
// Kubernetes-style "Insufficient cpu" entries.
bool FitsReservation(const Resource& requests, const NodeInfo& node, const ReservedSlot& slot,
                     const Resource& others_held, std::vector<std::string>* reasons = nullptr);
// Whether the pod fits the node's free capacity when everything in `held` stays held (the pod
// uses no reservation).
bool FitsNodeAlone(const Resource& requests, const NodeInfo& node, const Resource& held,
                   std::vector<std::string>* reasons = nullptr);

// Koordinator's ReservationScore (MostAllocated): the mean over the resources the reservation
// holds of 100 * (request + allocated) / allocatable, a resource over its allocatable scoring 0.
int64_t MostAllocatedScore(const Resource& requests, const ReservedSlot& slot);

// Whether the pod requests any resource the reservation holds.
bool SharesResource(const Resource& requests, const Resource& allocatable);

}  // namespace allot::scheduler::reservation
