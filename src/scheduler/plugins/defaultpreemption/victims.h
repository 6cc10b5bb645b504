// Victim selection for preemption (Kubernetes' SelectVictimsOnNode and
// pickOneNodeForPreemption), as functions of a Handle (the profile's plugins) and a dry-run
// copy of one node, so tests can hold them against a brute-force oracle.
//
// On one node: every pod of lower priority than the preemptor (never a reserve pod) is removed
// from the copy, through the PreFilterExtensions so plugin state follows (DynamicResources frees
// the devices of claims only victims hold; a victim inside a reservation frees capacity only
// inside it, as NodeInfo counts owners). If the preemptor then fits (nominated pods of equal or
// higher priority included), the victims are reprieved one by one, most important first, and
// those whose disruption a PodDisruptionBudget forbids before the others: a pod stays a victim
// only when adding it back makes the preemptor not fit.
#pragma once

#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "api/machinery/selector.h"
#include "common/time.h"
#include "scheduler/framework/interface.h"

namespace allot::scheduler::preemption {

// A PodDisruptionBudget as preemption reads it (a budget with an empty selector selects
// nothing here, as in Kubernetes' filterPodsWithPDBViolation).
struct Budget {
  std::string namespace_;
  api::LabelSelectorExpr selector;
  int32_t disruptions_allowed = 0;
  std::set<std::string> disrupted;  // pod names already counted against it
};

// Kubernetes' MoreImportantPod: higher priority first; at equal priority the pod that started
// earlier (status.startTime; `now` when unset).
bool MoreImportant(const PodInfo& a, const PodInfo& b, Time now);

// Splits `pods` (in order) into those whose eviction would take some budget below zero and the
// rest, spending each budget's disruptionsAllowed as it goes.
void SplitByBudgets(std::span<const PodInfoPtr> pods, const std::vector<Budget>& budgets,
                    std::vector<PodInfoPtr>& violating, std::vector<PodInfoPtr>& non_violating);

inline constexpr std::string_view kNoVictims = "No preemption victims found for incoming pod";
// A node where the pod fits only by evicting pods a PodDisruptionBudget protects (strict budgets).
inline constexpr std::string_view kBudgetBlocks =
    "Preemption would violate a PodDisruptionBudget";

// Whether `node` holds a pod preemption may evict for `pod`: of lower priority, not a reserve
// pod.
bool HasPotentialVictims(const NodeInfo& node, const PodInfo& pod);

struct Victims {
  std::vector<PodInfoPtr> pods;  // most important first
  int pdb_violations = 0;
};

// Dry run on `node` (a copy the caller owns, changed in place) with `state` (a clone for this
// node). Success with the victims; UnschedulableAndUnresolvable "No preemption victims found
// for incoming pod" when no pod has a lower priority; the Filter status when removing them all
// is not enough.
Status SelectVictimsOnNode(const Handle& fw, CycleState& state, const PodInfo& pod, NodeInfo& node,
                           const std::vector<Budget>& budgets, const NominatedPods* nominated,
                           Time now, Victims& out);

struct Candidate {
  std::string node;
  Victims victims;
};

// The candidate Kubernetes picks, by, in order: fewest PDB violations; lowest priority of the
// most important victim; smallest sum of victim priorities; fewest victims; latest start among
// the most important victims; then the first. `candidates` must not be empty.
size_t PickOneNode(std::span<const Candidate> candidates, Time now);

}  // namespace allot::scheduler::preemption
