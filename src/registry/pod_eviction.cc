#include "registry/pod_eviction.h"

#include <memory>
#include <utility>
#include <vector>

#include "api/core/pod_state.h"
#include "api/core/types.h"
#include "api/machinery/conditions.h"
#include "api/machinery/resources.h"
#include "api/policy/pod_disruption_budget.h"

namespace allot::registry {

namespace {

using Done = std::function<void(Status)>;

constexpr std::string_view kBudgetResource = "poddisruptionbudget.policy";

Status TooManyRequests(std::string cause) {
  Status s(StatusCode::kTooManyRequests,
           "Cannot evict pod as it would violate the pod's disruption budget.");
  s.AddCause({.reason = "DisruptionBudget", .message = std::move(cause)});
  return s;
}

Status StillProcessing(const std::string& budget) {
  return TooManyRequests("The disruption budget " + budget +
                         " is still being processed by the server.");
}

// Why a budget with no disruption left refuses, as its status explains it.
std::string DeniedCause(const api::PodDisruptionBudget& pdb) {
  const api::Condition* c =
      api::FindStatusCondition(pdb.status.conditions, api::kDisruptionAllowedCondition);
  if (c && c->status == "False" && c->reason == api::kReasonSyncFailed && !c->message.empty()) {
    return "The disruption budget " + pdb.metadata.name +
           " does not allow evicting pods currently because it failed sync: " + c->message;
  }
  return "The disruption budget " + pdb.metadata.name + " needs " +
         std::to_string(pdb.status.desiredHealthy) + " healthy pods and has " +
         std::to_string(pdb.status.currentHealthy) + " currently";
}

// checkAndDecrement, as the store::UpdateFn of the budget's status write: it sees the budget as
// committed, so the check and the decrement are one step.
store::UpdateFn SpendDisruption(std::string pod, std::string uid, Time now) {
  return [pod = std::move(pod), uid = std::move(uid),
          now](const Object& current) -> Result<std::unique_ptr<Object>> {
    const auto* pdb = api::As<api::PodDisruptionBudget>(current);
    if (!pdb) return InternalError("pods/eviction: the stored object is not a PodDisruptionBudget");
    const std::string& name = pdb->metadata.name;
    if (pdb->metadata.uid != uid) return StillProcessing(name);  // replaced since it was read
    if (pdb->status.observedGeneration < pdb->metadata.generation) return StillProcessing(name);
    if (pdb->status.disruptionsAllowed < 0) {
      return ForbiddenError(kBudgetResource, name, "pdb disruptions allowed is negative");
    }
    if (pdb->status.disruptedPods.size() > kMaxDisruptedPods) {
      return ForbiddenError(
          kBudgetResource, name,
          "DisruptedPods map too big - too many evictions not confirmed by PDB controller");
    }
    if (pdb->status.disruptionsAllowed == 0) return TooManyRequests(DeniedCause(*pdb));
    auto next = std::make_unique<api::PodDisruptionBudget>(*pdb);
    next->status.disruptionsAllowed--;
    if (next->status.disruptionsAllowed == 0) api::UpdateDisruptionAllowedCondition(*next, now);
    next->status.disruptedPods[pod] = now.TruncatedToSeconds();
    return std::unique_ptr<Object>(std::move(next));
  };
}

// addConditionAndDeletePod: the DisruptionTarget condition (not on a dry run), then the delete.
// The condition write checks the delete's preconditions first, so a pod that changed is not
// marked; a caller's resourceVersion precondition then moves to the version that write made.
void MarkAndDelete(store::Store& store, PodEviction ev, Clock& clock, Done done) {
  static const ResourceInfo& pods = api::ResourceFor<api::Pod>();
  if (ev.delete_options.dry_run) {
    return store.DeleteAsync(pods, ev.namespace_, ev.name, std::move(ev.delete_options),
                             [done](Result<DeleteResult> r) { done(r.status()); });
  }
  const Time now = clock.Now();
  const api::DeleteOptions& opts = ev.delete_options;
  store::UpdateFn mark = [uid = opts.precondition_uid, rv = opts.precondition_resource_version,
                          now](const Object& current) -> Result<std::unique_ptr<Object>> {
    const auto* pod = api::As<api::Pod>(current);
    if (!pod) return InternalError("pods/eviction: the stored object is not a Pod");
    const api::ObjectMeta& meta = pod->metadata;
    if (uid && !uid->empty() && *uid != meta.uid) {
      return ConflictError("pods", meta.name,
                           "the UID in the precondition (" + *uid +
                               ") does not match the UID in record (" + meta.uid +
                               "). The object might have been deleted and then recreated");
    }
    if (rv && !rv->empty() && *rv != meta.resourceVersion) {
      return ConflictError("pods", meta.name,
                           "the ResourceVersion in the precondition (" + *rv +
                               ") does not match the ResourceVersion in record (" +
                               meta.resourceVersion + "). The object might have been modified");
    }
    auto next = std::make_unique<api::Pod>(*pod);
    api::UpdatePodCondition(next->status,
                            {.type = "DisruptionTarget",
                             .status = "True",
                             .reason = "EvictionByEvictionAPI",
                             .message = "Eviction API: evicting"},
                            now);
    return std::unique_ptr<Object>(std::move(next));
  };
  store::UpdateOptions status_write;
  status_write.subresource = store::Subresource::kStatus;
  std::string ns = ev.namespace_, name = ev.name;
  store.UpdateAsync(
      pods, std::move(ns), std::move(name), std::move(mark), std::move(status_write),
      [&store, ev = std::move(ev), done](Result<ObjectPtr> marked) mutable {
        if (!marked.ok()) return done(marked.status());
        api::DeleteOptions opts = std::move(ev.delete_options);
        if (opts.precondition_resource_version && !opts.precondition_resource_version->empty()) {
          opts.precondition_resource_version = (*marked)->metadata.resourceVersion;
        }
        store.DeleteAsync(pods, std::move(ev.namespace_), std::move(ev.name), std::move(opts),
                          [done](Result<DeleteResult> r) { done(r.status()); });
      });
}

bool ResourceVersionUnset(const api::DeleteOptions& o) {
  return !o.precondition_resource_version || o.precondition_resource_version->empty();
}

// canIgnorePDB: the pod's deletion disrupts nothing a budget counts.
bool CanIgnoreBudgets(const api::Pod& pod) {
  return api::IsPodTerminal(pod) || pod.status.phase == "Pending" ||
         pod.metadata.rare->deletionTimestamp.has_value();
}

}  // namespace

void EvictPodAsync(store::Store& store, PodEviction ev, Clock& clock, Done done) {
  static const ResourceInfo& pods = api::ResourceFor<api::Pod>();
  static const ResourceInfo& budgets = api::ResourceFor<api::PodDisruptionBudget>();
  Result<ObjectPtr> obj = store.Get(pods, ev.namespace_, ev.name);
  if (!obj.ok()) return done(obj.status());
  const auto* pod = api::As<api::Pod>(**obj);
  if (!pod) return done(InternalError("pods/eviction: the stored object is not a Pod"));
  const bool caller_rv_unset = ResourceVersionUnset(ev.delete_options);

  if (CanIgnoreBudgets(*pod)) {
    // A Pending pod might become ready (and guarded) before the delete lands.
    if (pod->status.phase == "Pending" && caller_rv_unset) {
      ev.delete_options.precondition_resource_version = pod->metadata.resourceVersion;
    }
    return MarkAndDelete(store, std::move(ev), clock, std::move(done));
  }

  ListOptions list;
  list.namespace_ = ev.namespace_;
  Result<ListResult> all = store.List(budgets, list);
  if (!all.ok()) return done(all.status());
  std::vector<const api::PodDisruptionBudget*> matching;
  for (const ObjectPtr& o : all->items) {
    const auto* pdb = api::As<api::PodDisruptionBudget>(*o);
    if (pdb && api::PodDisruptionBudgetSelects(*pdb, pod->metadata.labels)) matching.push_back(pdb);
  }
  if (matching.empty()) return MarkAndDelete(store, std::move(ev), clock, std::move(done));
  if (matching.size() > 1) {
    return done(Status(StatusCode::kInternalError,
                       "This pod has more than one PodDisruptionBudget, which the eviction "
                       "subresource does not support."));
  }
  const api::PodDisruptionBudget& pdb = *matching.front();

  if (!api::IsPodReady(*pod)) {
    const bool always =
        pdb.spec.unhealthyPodEvictionPolicy.value_or("") == api::kUnhealthyPodEvictionAlwaysAllow;
    const bool healthy_budget =
        pdb.status.currentHealthy >= pdb.status.desiredHealthy && pdb.status.desiredHealthy > 0;
    if (always || healthy_budget) {
      // Deleted without spending the budget, unless it became ready meanwhile.
      if (caller_rv_unset) {
        ev.delete_options.precondition_resource_version = pod->metadata.resourceVersion;
      }
      std::string budget = pdb.metadata.name;
      return MarkAndDelete(store, std::move(ev), clock, [done, budget, caller_rv_unset](Status s) {
        if (s.code() == StatusCode::kConflict && caller_rv_unset) {
          return done(StillProcessing(budget));
        }
        done(std::move(s));
      });
    }
  }

  store::UpdateOptions status_write;
  status_write.subresource = store::Subresource::kStatus;
  status_write.dry_run = ev.delete_options.dry_run;
  const Time now = clock.Now();
  std::string pdb_ns = pdb.metadata.namespace_, pdb_name = pdb.metadata.name;
  store::UpdateFn spend = SpendDisruption(ev.name, pdb.metadata.uid, now);
  store.UpdateAsync(budgets, std::move(pdb_ns), std::move(pdb_name), std::move(spend),
                    std::move(status_write),
                    [&store, &clock, ev = std::move(ev), done](Result<ObjectPtr> spent) mutable {
                      if (!spent.ok()) return done(spent.status());
                      MarkAndDelete(store, std::move(ev), clock, std::move(done));
                    });
}

}  // namespace allot::registry
