// The scheduler's view of a Koordinator Reservation (docs/reservations.md): what it reserves,
// where, and for whom. Two forms:
//
//  - A reservation that is not placed yet is scheduled like a pod: MakeReservePod builds the
//    "reserve pod" that goes through the queue and the framework (every filter: fit, affinity,
//    taints, ports). Its PodInfo carries the ReservationInfo, which is how plugins and the
//    scheduler tell it from a real pod.
//  - A placed (Available) reservation is a ReservedSlot on its node's NodeInfo: its remaining
//    capacity counts as used for every pod but its owners (scheduler/framework/types.h).
//
// Thread safety: immutable once made; shared by pointer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "api/koordinator/reservation.h"
#include "common/status.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/events.h"
#include "scheduler/framework/types.h"

namespace allot::scheduler {

enum class AllocatePolicy : uint8_t {
  kDefault,     // "" (deprecated): as Aligned, but cannot share a node with the other two
  kAligned,     // the reservation first, then the node's free capacity
  kRestricted,  // what the reservation holds comes only from it
};

struct ReservationInfo {
  std::shared_ptr<const api::Reservation> object;
  std::string uid;
  std::string name;
  std::string node;         // status.nodeName once placed; "" before
  std::string pinned_node;  // template.spec.nodeName: the only node it may be placed on
  Resource allocatable;     // status.allocatable once placed, else the template's requests
  std::vector<HostPort> host_ports;
  AllocatePolicy policy = AllocatePolicy::kDefault;
  // Restricted: the resources owners may take only from it — those it holds, narrowed by its
  // reservation-restricted-options annotation (parsed here once, not per Filter call).
  std::vector<std::string> restricted_resources;
  bool allocate_once = true;
  bool unschedulable = false;  // spec.unschedulable: no new owners
  // spec.preAllocation: placed without the free-capacity check; Waiting until the node's free
  // capacity covers it, then Available.
  bool pre_allocation = false;
  // The reservation-order label: lower is preferred; 0 (or no label) falls back to the score.
  int64_t order = 0;
  // template.spec.resourceClaims is not empty: it holds devices for its owners once placed.
  bool holds_devices = false;

  static std::shared_ptr<const ReservationInfo> Make(
      std::shared_ptr<const api::Reservation> object);
  // Available with a node: owners may use it.
  bool IsAvailable() const;
  // Waiting with a node (preAllocation): placed, capacity not yet free, no owner uses it.
  bool IsWaiting() const;
  // Available or Waiting, not being deleted: it holds capacity on its node.
  bool IsPlaced() const { return IsAvailable() || IsWaiting(); }
  // Not placed, not terminal: to be scheduled.
  bool NeedsScheduling() const;
};
using ReservationInfoPtr = std::shared_ptr<const ReservationInfo>;

// The reserve pod (Koordinator's "reserve pod"): the template as a pod, with the reservation's
// uid and name, namespace = the template's or "default", labels and annotations of the
// reservation over the template's, spec.nodeName cleared (pinning is ReservationInfo's
// pinned_node), priority = the template's, else the label koordinator.sh/priority, else the
// highest. template.spec.resourceClaims stay, and status.resourceClaimStatuses is the
// reservation's (the claims the resourceclaim controller generated for it), so the
// DynamicResources plugin allocates the reservation's devices as it would a pod's.
std::shared_ptr<const api::Pod> MakeReservePod(const api::Reservation& r);

// The PodInfo of a reservation's reserve pod (PodInfo::reservation set).
PodInfoPtr MakeReservePodInfo(ReservationInfoPtr info);

// What the Reservation plugin's PreFilter found for an owner pod, for the other plugins: per
// node, the reservations the pod may draw from. The DynamicResources plugin gives the pod the
// devices they hold (restricted: any of them is Restricted).
struct OwnerReservations {
  struct OnNode {
    std::string node;
    std::vector<std::string> uids;
    bool restricted = false;
  };
  std::vector<OnNode> nodes;  // sorted by node
  const OnNode* For(std::string_view node) const;
};
inline const StateKey<OwnerReservations> kOwnerReservationsKey("PreFilterReservationOwners");

// The devices a reserve pod's claims were given (DynamicResources, PreBind), for the status the
// Reservation plugin's Bind writes.
struct ReservedDevices {
  std::vector<api::ReservationDevice> devices;
};
inline const StateKey<ReservedDevices> kReservedDevicesKey("ReservedDevices");

// The queueing hint of plugins that count a reservation's capacity against every pod but its
// owners (NodeResourcesFit, DynamicResources), for Reservation Add/Update: kQueue when the
// reservation has just become Available and `pod` is among its owners. An owner rejected while
// the placement's status write was on its way (the pod reached this scheduler first) may now
// fit, though no pod left the node.
QueueingHint RequeueOwnersOfAPlacedReservation(const api::Pod& pod, const api::Object* old_obj,
                                               const api::Object* new_obj);

// Where the Reservation plugin records which reservation an assumed pod draws from, so that
// its node's accounting moves the pod's requests into that reservation at once, before the
// binding (and its reservation-allocated annotation) comes back through the informer. The
// scheduler's Cache implements it.
class ReservationLedger {
 public:
  virtual ~ReservationLedger() = default;
  // NotFound when the pod is not in the cache or the reservation is not on the pod's node.
  virtual allot::Status AssignToReservation(const std::string& pod_uid,
                                            const std::string& reservation_uid) = 0;
  // Undoes AssignToReservation; a no-op when the pod draws from none.
  virtual void UnassignFromReservation(const std::string& pod_uid) = 0;
};

}  // namespace allot::scheduler
