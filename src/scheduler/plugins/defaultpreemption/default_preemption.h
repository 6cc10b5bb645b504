// DefaultPreemption (PostFilter): when a pod fits nowhere, find nodes where removing pods of
// lower priority makes it fit, pick one, evict the victims there and nominate the pod to it
// (status.nominatedNodeName). The pod is not bound here: it is requeued, the victims' deletions
// move it back, and until then the Nominator keeps their space for it.
//
// Kubernetes' semantics (pkg/scheduler/framework/preemption, plugins/defaultpreemption):
//  - not eligible: preemptionPolicy Never; or a nomination whose node still has a lower-priority
//    pod terminating because of preemption (the pod waits for it, keeping its nomination);
//  - candidates: nodes Filter rejected as Unschedulable (never UnschedulableAndUnresolvable),
//    tried from a random offset until enough are found (minCandidateNodesPercentage of the
//    nodes, at least minCandidateNodesAbsolute) with at least one that violates no budget;
//  - per node, victims/victims.h; the node by PickOneNode;
//  - Allot, unlike Kubernetes (where budgets only order the candidates): a node where the pod
//    fits only by evicting pods a PodDisruptionBudget protects is not a candidate, so a budget
//    that allows no disruption stops preemption and the pod's message says so
//    (kBudgetBlocks). args.allowBudgetViolations restores Kubernetes' best effort.
//  - each victim gets the DisruptionTarget condition (reason PreemptionByScheduler) and is
//    deleted gracefully, with a Preempted event; a victim waiting in Permit is rejected instead;
//    pods of lower priority nominated to the same node lose their nomination.
// Devices (DynamicResources' PreFilterExtensions) and reservations (NodeInfo's accounting of
// owners) take part through the dry run; reserve pods are never victims, and preempt only when
// args.reservationPreemption is on (Koordinator's enablePreemption).
//
// Metrics: scheduler_preemption_attempts_total, scheduler_preemption_victims.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "scheduler/framework/interface.h"
#include "scheduler/plugins/defaultpreemption/victims.h"

namespace allot::client {
class Informer;
}  // namespace allot::client

namespace allot::metrics {
class Counter;
class Histogram;
}  // namespace allot::metrics

namespace allot::scheduler {

struct DefaultPreemptionArgs {
  int32_t min_candidate_nodes_percentage = 10;  // minCandidateNodesPercentage, 0..100
  int32_t min_candidate_nodes_absolute = 100;   // minCandidateNodesAbsolute, >= 0
  bool reservation_preemption = false;          // reservationPreemption (Allot)
  bool allow_budget_violations = false;         // allowBudgetViolations (Allot; Kubernetes: true)
};
// The plugin's args (JSON); {} or "" gives the defaults. Errors name the field.
Result<DefaultPreemptionArgs> ParseDefaultPreemptionArgs(std::string_view json);

class DefaultPreemption final : public PostFilterPlugin {
 public:
  DefaultPreemption(Handle& handle, DefaultPreemptionArgs args);
  std::string_view Name() const override;
  Status PostFilter(CycleState& state, const PodInfo& pod, const NodeToStatus& statuses,
                    PostFilterResult& result) override;

  // How many candidate nodes to find among `num_nodes` (calculateNumCandidates).
  int32_t NumCandidates(int32_t num_nodes) const;

 private:
  // "" when the pod may preempt, else why not.
  std::string Ineligible(const PodInfo& pod, const NodeToStatus& statuses) const;
  std::vector<preemption::Budget> Budgets() const;
  // Evicts the victims and clears lower-priority nominations on the node.
  void Prepare(const PodInfo& pod, const preemption::Candidate& c);

  Handle& handle_;
  const DefaultPreemptionArgs args_;
  client::Informer* budgets_ = nullptr;   // PodDisruptionBudgets; null in unit tests
  metrics::Counter* attempts_ = nullptr;  // null without metrics
  metrics::Histogram* victims_ = nullptr;
  std::mt19937_64 rng_{std::random_device{}()};
};

}  // namespace allot::scheduler
