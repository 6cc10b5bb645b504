// Reservation: hands Koordinator Reservations to their owner pods, and places reservations
// (docs/reservations.md). Koordinator's Reservation plugin, with its known defects fixed.
//
// Reserve pods (a reservation being placed, PodInfo::reservation set) go through every filter
// like pods; this plugin adds the pin (template.spec.nodeName) and the allocate-policy rule
// ("" cannot share a node with Aligned / Restricted), and its Bind makes the reservation
// Available on the node (status: phase, nodeName, allocatable, conditions) instead of binding a
// pod.
//
// Owner pods:
//   PreFilter  finds the reservations the pod may use through OwnerIndex (owners, then the
//              reservation-affinity / exact-match annotations, allocateOnce, unschedulable,
//              taints), and gives the pod a view of each node holding one with the matched
//              reservations released (CycleState::SetNodeView), so every other filter and score
//              sees that capacity as the pod's. With an affinity annotation the pod may only use
//              nodes holding a match (none anywhere: UnschedulableAndUnresolvable).
//   Filter     on such a node, the pod must fit some matched reservation (Aligned: its
//              remainder, then the node's free capacity, the other matches still held;
//              Restricted: the restricted resources within the remainder), or, without an
//              affinity annotation, the node's free capacity with every reservation held.
//   PreScore / Score   nominate one reservation per node: the lowest non-zero reservation-order,
//              else the most allocated; the node holding the lowest order overall scores
//              highest, the others by their nominee's score.
//   Reserve    draws the pod from the nominee (ReservationLedger: the cache charges it at
//              once) and asks the binder to write reservation-allocated with the binding.
//   Unreserve  undoes both.
// A pod labelled reservation-ignored=true never draws from a reservation, and reservations stay
// held for it (Koordinator lets it take reserved capacity: #2252).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/framework/interface.h"
#include "scheduler/plugins/names.h"
#include "scheduler/plugins/reservation/owner_index.h"

namespace allot::scheduler {

inline constexpr std::string_view kErrReasonReservationAffinity =
    "node(s) no reservations match reservation affinity";
inline constexpr std::string_view kErrReasonReservationNodeName =
    "node(s) didn't match the nodeName specified by reservation";
inline constexpr std::string_view kErrReasonReservationPolicyConflict =
    "node(s) reservation allocate policy conflict";

class Reservation final : public PreFilterPlugin,
                          public FilterPlugin,
                          public PreScorePlugin,
                          public ScorePlugin,
                          public NormalizeScorePlugin,
                          public ReservePlugin,
                          public BindPlugin,
                          public EnqueueExtensions {
 public:
  // Feeds its OwnerIndex from the handle's reservation informer (none in unit tests: then
  // tests call OnReservation / OnReservationDeleted).
  explicit Reservation(Handle& handle);
  std::string_view Name() const override { return names::kReservation; }

  Status PreFilter(CycleState& state, const PodInfo& pod, PreFilterResult& result) override;
  Status Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const override;
  Status PreScore(CycleState& state, const PodInfo& pod,
                  std::span<const NodeInfo* const> feasible) override;
  Status Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
               int64_t& score) const override;
  Status NormalizeScore(const CycleState& state, const PodInfo& pod,
                        std::span<NodeScore> scores) const override;
  Status Reserve(CycleState& state, const PodInfo& pod, const std::string& node) override;
  void Unreserve(CycleState& state, const PodInfo& pod, const std::string& node) override;
  // Reserve pods only (Skip for pods): the reservation becomes Available on `node`.
  void Bind(CycleState& state, const PodInfo& pod, const std::string& node,
            BindCallback done) override;
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

  void OnReservation(const api::ObjectPtr& obj);
  void OnReservationDeleted(const api::ObjectPtr& obj);
  const reservation::OwnerIndex& index() const { return index_; }

 private:
  Handle& handle_;
  reservation::OwnerIndex index_;
};

}  // namespace allot::scheduler
