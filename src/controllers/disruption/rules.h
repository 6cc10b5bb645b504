// The disruption controller's arithmetic (docs/preemption.md), as pure functions of a
// PodDisruptionBudget, the pods it selects and the time; controllers/disruption/controller.h
// reads the objects and writes the answers. Kubernetes' DisruptionController
// (pkg/controller/disruption) computes the same numbers:
//
//  - expectedPods / desiredHealthy: minAvailable as an integer → expected is the number of
//    selected pods, desired is minAvailable. maxUnavailable, or minAvailable as a percent, are
//    relative to the scale of the pods' controllers: pods without a controller are left out
//    (and reported, Kubernetes' UnmanagedPods warning), and a pod whose controller has no scale
//    Allot can read is an error. Allot serves no workload controllers (Deployment, ReplicaSet,
//    StatefulSet, ...), so any controlled pod there is an error: the sync fails safe.
//    desired = expected - maxUnavailable (at least 0), or ceil(percent of expected).
//  - disruptedPods: evictions (pods/eviction) not yet seen as deletions. An entry is kept while
//    its pod exists, is not being deleted and was evicted less than 2 minutes ago; an older one
//    is dropped and reported (the pod was not deleted after all). The earliest expiry of the
//    kept ones is when to look again.
//  - currentHealthy: selected pods that are Ready, not being deleted and not in disruptedPods.
//  - disruptionsAllowed: currentHealthy - desiredHealthy, and 0 when that is negative or no pod
//    is expected (a budget whose pods are not there yet must not allow anything).
//  - the DisruptionAllowed condition: True/SufficientPods when disruptionsAllowed > 0, else
//    False/InsufficientPods; observedGeneration follows metadata.generation.
//  - a failed sync fails safe: disruptionsAllowed 0 and DisruptionAllowed False with reason
//    SyncFailed and the error as message, the rest of the status as it was.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "api/core/types.h"
#include "api/policy/pod_disruption_budget.h"
#include "common/status.h"
#include "common/time.h"

namespace allot::controllers {

// How long an eviction recorded in disruptedPods waits for the pod's deletion (DeletionTimeout).
inline constexpr std::chrono::minutes kDisruptionDeletionTimeout{2};

// What one sync of a budget decided.
struct BudgetSync {
  // The status to write; nullopt when the budget has it already.
  std::optional<api::PodDisruptionBudgetStatus> status;
  // Not ok when the counts could not be computed; `status` is then the fail-safe one.
  Status error;
  // When to sync again (the earliest disruptedPods entry to expire); nullopt: only on changes.
  std::optional<Time> recheck_at;
  // Selected pods without a controller, left out of expectedPods (maxUnavailable or percent).
  std::vector<std::string> unmanaged_pods;
  // Pods recorded as evicted more than kDisruptionDeletionTimeout ago that still exist.
  std::vector<std::string> not_deleted_pods;
};

// `pods` are the pods of the budget's namespace that its selector selects.
BudgetSync SyncBudget(const api::PodDisruptionBudget& pdb, const std::vector<const api::Pod*>& pods,
                      Time now);

}  // namespace allot::controllers
