// Which pods own a Reservation (docs/reservations.md, "Owner pods"), and the admission of the
// annotation a pod draws from one by.
//
//   ReservationOwnerMatcher m = ReservationOwnerMatcher::Make(reservation);  // once per version
//   m.Matches(pod);                                   // owners: entries ORed, fields ANDed
//
// The scheduler's Reservation plugin matches candidates with it; the API server admits with it
// that a pod names, in scheduling.koordinator.sh/reservation-allocated, only a reservation it
// owns (AdmitReservationAllocated), so that nobody's pod can draw from, or use up, another's.
#pragma once

#include <optional>
#include <vector>

#include "api/core/pod.h"
#include "api/koordinator/reservation.h"
#include "api/machinery/resources.h"
#include "api/machinery/selector.h"
#include "common/status.h"

namespace allot::api {

// A reservation's owners, parsed once. An `object` entry matches the pod on the fields it sets
// (uid, name, namespace, apiVersion); a `controller` entry matches a pod with an ownerReference
// of that uid (and, when set, in that namespace); a labelSelector matches the pod's labels.
// Fields of one entry are ANDed; entries are ORed.
class ReservationOwnerMatcher {
 public:
  struct Entry {
    std::optional<ObjectReference> object;
    std::optional<ReservationControllerReference> controller;
    std::optional<LabelSelectorExpr> selector;
  };
  // Entries whose selector does not parse match nothing (validation rejects them anyway).
  static ReservationOwnerMatcher Make(const Reservation& r);
  bool Matches(const Pod& pod) const;
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

// A pod created with, or updated to a new, reservation-allocated annotation must name an
// existing reservation (name and uid) that it owns. The scheduler sets the annotation through
// pods/binding, which is not admitted here (it draws only owners). Errors: 403
//   pods "p" is forbidden: pod is not an owner of reservation "r" (scheduling.koordinator.sh/
//   reservation-allocated)
// A value that does not parse names no reservation and is let be (nothing draws from it).
Status AdmitReservationAllocated(const Pod& pod, const Pod* old, const ObjectReader& objects);

}  // namespace allot::api
