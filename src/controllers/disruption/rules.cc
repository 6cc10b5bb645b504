#include "controllers/disruption/rules.h"

#include <algorithm>
#include <map>

#include "api/core/pod_state.h"
#include "api/machinery/conditions.h"
#include "api/machinery/owners.h"

namespace allot::controllers {

namespace {

struct Expected {
  int32_t expected = 0;
  int32_t desired = 0;
};

// The scale of the pods' controllers (getExpectedScale). Allot serves no kind with a scale a
// budget could read, so a controlled pod is an error; uncontrolled ones are left out.
Result<int32_t> ExpectedScale(const std::vector<const api::Pod*>& pods,
                              std::vector<std::string>& unmanaged) {
  for (const api::Pod* pod : pods) {
    if (!api::ControllerOf(pod->metadata)) {
      unmanaged.push_back(pod->metadata.name);
      continue;
    }
    return Status(StatusCode::kInternalError,
                  "found no controllers for pod \"" + pod->metadata.name + "\"");
  }
  return 0;
}

Result<Expected> ExpectedCount(const api::PodDisruptionBudget& pdb,
                               const std::vector<const api::Pod*>& pods,
                               std::vector<std::string>& unmanaged) {
  const api::PodDisruptionBudgetSpec& spec = pdb.spec;
  Expected e;
  if (spec.maxUnavailable) {
    ALLOT_ASSIGN_OR_RETURN(e.expected, ExpectedScale(pods, unmanaged));
    ALLOT_ASSIGN_OR_RETURN(int32_t max_unavailable,
                           api::ScaledValue(*spec.maxUnavailable, e.expected));
    e.desired = std::max(0, e.expected - max_unavailable);
  } else if (spec.minAvailable && !spec.minAvailable->is_string) {
    e.expected = static_cast<int32_t>(pods.size());
    e.desired = static_cast<int32_t>(spec.minAvailable->int_value);
  } else if (spec.minAvailable) {
    ALLOT_ASSIGN_OR_RETURN(e.expected, ExpectedScale(pods, unmanaged));
    ALLOT_ASSIGN_OR_RETURN(e.desired, api::ScaledValue(*spec.minAvailable, e.expected));
  }
  return e;
}

// The fail-safe status: nothing may be disrupted, and the condition says why.
std::optional<api::PodDisruptionBudgetStatus> FailSafe(const api::PodDisruptionBudget& pdb,
                                                       const Status& error, Time now) {
  api::PodDisruptionBudgetStatus status = pdb.status;
  status.disruptionsAllowed = 0;
  api::SetStatusCondition(status.conditions,
                          {.type = std::string(api::kDisruptionAllowedCondition),
                           .status = "False",
                           .observedGeneration = status.observedGeneration,
                           .reason = std::string(api::kReasonSyncFailed),
                           .message = error.message()},
                          now);
  if (status == pdb.status) return std::nullopt;
  return status;
}

}  // namespace

BudgetSync SyncBudget(const api::PodDisruptionBudget& pdb, const std::vector<const api::Pod*>& pods,
                      Time now) {
  BudgetSync out;
  Result<Expected> expected = ExpectedCount(pdb, pods, out.unmanaged_pods);
  if (!expected.ok()) {
    out.error = expected.status();
    out.status = FailSafe(pdb, out.error, now);
    return out;
  }

  // disruptedPods: keep the entries of live pods whose deletion may still come.
  std::map<std::string, Time> disrupted;
  for (const api::Pod* pod : pods) {
    if (pod->metadata.rare->deletionTimestamp) continue;
    auto it = pdb.status.disruptedPods.find(pod->metadata.name);
    if (it == pdb.status.disruptedPods.end()) continue;
    const Time expires{it->second.unix_micros +
                       std::chrono::microseconds(kDisruptionDeletionTimeout).count()};
    if (expires < now) {
      out.not_deleted_pods.push_back(pod->metadata.name);
      continue;
    }
    disrupted.emplace(it->first, it->second);
    if (!out.recheck_at || expires < *out.recheck_at) out.recheck_at = expires;
  }

  int32_t healthy = 0;
  for (const api::Pod* pod : pods) {
    if (pod->metadata.rare->deletionTimestamp) continue;
    if (disrupted.count(pod->metadata.name)) continue;
    if (api::IsPodReady(*pod)) ++healthy;
  }

  int32_t allowed = healthy - expected->desired;
  if (expected->expected <= 0 || allowed <= 0) allowed = 0;

  const api::PodDisruptionBudgetStatus& cur = pdb.status;
  if (cur.currentHealthy == healthy && cur.desiredHealthy == expected->desired &&
      cur.expectedPods == expected->expected && cur.disruptionsAllowed == allowed &&
      cur.disruptedPods == disrupted && cur.observedGeneration == pdb.metadata.generation &&
      api::DisruptionConditionsUpToDate(pdb)) {
    return out;
  }
  api::PodDisruptionBudget next;
  next.metadata.generation = pdb.metadata.generation;
  next.status = {.observedGeneration = pdb.metadata.generation,
                 .disruptedPods = std::move(disrupted),
                 .disruptionsAllowed = allowed,
                 .currentHealthy = healthy,
                 .desiredHealthy = expected->desired,
                 .expectedPods = expected->expected,
                 .conditions = cur.conditions};
  api::UpdateDisruptionAllowedCondition(next, now);
  out.status = std::move(next.status);
  return out;
}

}  // namespace allot::controllers
