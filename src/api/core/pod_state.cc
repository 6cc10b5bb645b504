#include "api/core/pod_state.h"

namespace allot::api {

bool IsPodTerminal(const Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

bool IsPodReady(const Pod& pod) {
  const PodCondition* c = FindPodCondition(pod.status, "Ready");
  return c && c->status == "True";
}

const PodCondition* FindPodCondition(const PodStatus& status, std::string_view type) {
  for (const PodCondition& c : status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool UpdatePodCondition(PodStatus& status, PodCondition condition, Time now) {
  condition.lastTransitionTime = now.TruncatedToSeconds();
  for (PodCondition& old : status.conditions) {
    if (old.type != condition.type) continue;
    if (old.status == condition.status) condition.lastTransitionTime = old.lastTransitionTime;
    const bool changed = !(old == condition);
    old = std::move(condition);
    return changed;
  }
  status.conditions.push_back(std::move(condition));
  return true;
}

}  // namespace allot::api
