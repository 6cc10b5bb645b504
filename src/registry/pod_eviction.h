// Pod eviction (POST pods/<name>/eviction): a delete that respects PodDisruptionBudgets. The one
// place its semantics live, for the API server's eviction handler and in-process callers.
//
// Kubernetes' EvictionREST (pkg/registry/core/pod/storage/eviction.go), in this order:
//   1. The pod is read; 404 when it does not exist.
//   2. A pod that is Pending, Succeeded or Failed, or already being deleted, causes no
//      disruption a budget counts: it is deleted without looking at budgets (a Pending one with
//      a resourceVersion precondition, so it is not deleted after it became ready).
//   3. The budgets of its namespace whose selector selects it (api/policy): none → deleted;
//      more than one → 500 `This pod has more than one PodDisruptionBudget, which the eviction
//      subresource does not support.`
//   4. A pod that is not Ready is deleted without spending the budget when the budget says
//      unhealthyPodEvictionPolicy AlwaysAllow, or (IfHealthyBudget, the default) when
//      currentHealthy >= desiredHealthy > 0; the delete then carries a resourceVersion
//      precondition, and a pod changed meanwhile is a 429.
//   5. Otherwise the budget must allow a disruption: status.observedGeneration behind
//      metadata.generation → 429 (cause: the budget `is still being processed by the server`);
//      disruptionsAllowed < 0 → 403; more than 2000 disruptedPods → 403; disruptionsAllowed 0 →
//      429 `Cannot evict pod as it would violate the pod's disruption budget.` with a
//      DisruptionBudget cause (`The disruption budget <b> needs <d> healthy pods and has <c>
//      currently`, or why its sync failed). Else disruptionsAllowed is decremented (the
//      DisruptionAllowed condition turns False at 0) and the pod is recorded in
//      status.disruptedPods with the time, so the disruption controller does not count it as
//      healthy until it is gone.
//   6. The pod gets the DisruptionTarget condition (reason EvictionByEvictionAPI, message
//      `Eviction API: evicting`) and is deleted with the caller's DeleteOptions.
// Unlike Kubernetes, the check and the decrement of step 5 are one store write against the
// budget as committed (an store::UpdateFn on the committer thread), so two evictions can never both
// spend the same disruption and there is no conflict to retry.
// Dry run (DeleteOptions.dry_run) runs every check and writes nothing.
//
// Thread-safe: EvictPodAsync reads the store on the calling thread, which must not be the
// store's committer thread; later steps run in store callbacks.
#pragma once

#include <functional>
#include <string>

#include "api/machinery/options.h"
#include "common/status.h"
#include "common/time.h"
#include "store/store.h"

namespace allot::registry {

using api::DeleteOptions;
using api::DeleteResult;
using api::ListOptions;
using api::ListResult;
using api::Object;
using api::ObjectPtr;
using api::ResourceInfo;

// Most pods a budget's status.disruptedPods may list (MaxDisruptedPodSize).
inline constexpr size_t kMaxDisruptedPods = 2000;

struct PodEviction {
  std::string namespace_;
  std::string name;                   // the pod
  api::DeleteOptions delete_options;  // Eviction.deleteOptions (and the request's dryRun)
};

// Evicts as above. `done` receives Ok once the pod's deletion is accepted (it may still be
// terminating), or the error; on the calling thread when the pod or its budgets refuse at once,
// else on the store's committer thread.
void EvictPodAsync(store::Store& store, PodEviction eviction, Clock& clock,
                   std::function<void(Status)> done);

}  // namespace allot::registry
