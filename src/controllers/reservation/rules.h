// The reservation controller's decisions (docs/reservations.md), as pure functions of the objects
// and the time; controllers/reservation/controller.h reads the objects and writes the answers.
//
//  - Expiry: spec.expires, else creationTimestamp + spec.ttl (24 h when unset; 0: never) — for
//    Pending and Waiting reservations too (Koordinator only expires placed ones). An expired
//    reservation, or one whose node is gone, becomes Failed with Ready=False reason Expired (the
//    reason Koordinator's tools look for) and a message saying which.
//  - Owners: an Available reservation's status.currentOwners are the pods on its node whose
//    reservation-allocated annotation names its uid and that still run (not finished, not being
//    deleted), sorted by uid; status.allocated is their summed requests, for the resources the
//    reservation has in status.allocatable. With allocateOnce (the default) the first owner makes
//    it Succeeded. Nobody owns a Waiting reservation.
//  - Collection: a Succeeded or Failed reservation is deleted `retention` after it became so
//    (its Ready condition's lastTransitionTime), whatever the reason — Koordinator never
//    collects a Failed reservation whose reason is not Expired.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "api/koordinator/reservation.h"
#include "common/time.h"

namespace allot::controllers {

// When the reservation expires; nullopt when it never does (ttl 0).
std::optional<Time> ReservationExpiry(const api::Reservation& r);

// Succeeded or Failed: nothing changes it any more but its deletion.
bool IsTerminalReservation(const api::Reservation& r);

// A pod whose reservation-allocated annotation names the reservation's uid.
struct ReservationOwnerPod {
  std::string namespace_, name, uid, node;
  api::ResourceList requests;
  bool active = true;  // neither finished (Succeeded / Failed) nor being deleted
};

struct ReservationFacts {
  Time now;
  bool node_exists = true;  // the node in status.nodeName (true when there is none)
  std::vector<ReservationOwnerPod> owners;
};

// The status the reservation should have now; nullopt when it has it already.
std::optional<api::ReservationStatus> NextReservationStatus(const api::Reservation& r,
                                                            const ReservationFacts& facts);

// When a terminal reservation is to be deleted; nullopt when it is not terminal.
std::optional<Time> ReservationCollectionTime(const api::Reservation& r,
                                              std::chrono::seconds retention);

}  // namespace allot::controllers
