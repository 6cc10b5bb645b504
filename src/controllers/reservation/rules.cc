#include "controllers/reservation/rules.h"

#include <algorithm>

namespace allot::controllers {

namespace {

using api::FindReservationCondition;
using api::SetReservationCondition;

api::ReservationStatus Failed(const api::Reservation& r, std::string_view reason,
                              std::string message, Time now) {
  api::ReservationStatus s = r.status;
  s.phase = std::string(api::kReservationFailed);
  SetReservationCondition(s, api::kReservationConditionReady, "False", reason, std::move(message),
                          now);
  return s;
}

}  // namespace

std::optional<Time> ReservationExpiry(const api::Reservation& r) {
  if (r.spec.expires) return *r.spec.expires;
  int64_t ttl = api::ReservationTTLNanos(r.spec).value_or(api::kReservationDefaultTTLNanos);
  if (ttl <= 0) return std::nullopt;
  const Time created = r.metadata.creationTimestamp.value_or(Time{});
  return Time{created.unix_micros + ttl / 1000};
}

bool IsTerminalReservation(const api::Reservation& r) {
  return r.status.phase == api::kReservationSucceeded || r.status.phase == api::kReservationFailed;
}

std::optional<api::ReservationStatus> NextReservationStatus(const api::Reservation& r,
                                                            const ReservationFacts& f) {
  if (IsTerminalReservation(r)) return std::nullopt;
  if (std::optional<Time> at = ReservationExpiry(r); at && *at <= f.now) {
    return Failed(r, api::kReasonReservationExpired,
                  "the reservation expired at " + at->ToRfc3339(), f.now);
  }
  if (!r.status.nodeName.empty() && !f.node_exists) {
    // Koordinator's reason, so tools that look for expired reservations find it too.
    return Failed(r, api::kReasonReservationExpired,
                  "node " + r.status.nodeName + " no longer exists", f.now);
  }
  if (r.status.phase != api::kReservationAvailable) return std::nullopt;

  api::ReservationStatus s = r.status;
  s.currentOwners.clear();
  s.allocated.clear();
  std::vector<const ReservationOwnerPod*> owners;
  for (const ReservationOwnerPod& p : f.owners) {
    if (p.active && p.node == r.status.nodeName) owners.push_back(&p);
  }
  std::sort(owners.begin(), owners.end(), [](auto* a, auto* b) { return a->uid < b->uid; });
  for (const ReservationOwnerPod* p : owners) {
    api::ObjectReference ref;
    ref.namespace_ = p->namespace_;
    ref.name = p->name;
    ref.uid = p->uid;
    s.currentOwners.push_back(std::move(ref));
    for (const auto& [name, q] : p->requests) {
      if (!r.status.allocatable.contains(name)) continue;
      s.allocated[name].Add(q);
    }
  }
  if (api::ReservationAllocateOnce(r.spec) && !s.currentOwners.empty()) {
    s.phase = std::string(api::kReservationSucceeded);
    const api::ObjectReference& first = s.currentOwners.front();
    SetReservationCondition(s, api::kReservationConditionReady, "False",
                            api::kReasonReservationSucceeded,
                            "allocated once, to " + first.namespace_ + "/" + first.name, f.now);
  }
  if (s == r.status) return std::nullopt;
  return s;
}

std::optional<Time> ReservationCollectionTime(const api::Reservation& r,
                                              std::chrono::seconds retention) {
  if (!IsTerminalReservation(r)) return std::nullopt;
  const api::ReservationCondition* ready =
      FindReservationCondition(r.status, api::kReservationConditionReady);
  Time since = ready && ready->lastTransitionTime ? *ready->lastTransitionTime
                                                  : r.metadata.creationTimestamp.value_or(Time{});
  return Time{since.unix_micros +
              std::chrono::duration_cast<std::chrono::microseconds>(retention).count()};
}

}  // namespace allot::controllers
