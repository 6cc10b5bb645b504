#include "api/machinery/conditions.h"

namespace allot::api {

const Condition* FindStatusCondition(const std::vector<Condition>& conditions,
                                     std::string_view type) {
  for (const Condition& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool SetStatusCondition(std::vector<Condition>& conditions, Condition condition, Time now) {
  if (!condition.lastTransitionTime) condition.lastTransitionTime = now.TruncatedToSeconds();
  for (Condition& old : conditions) {
    if (old.type != condition.type) continue;
    if (old.status == condition.status) condition.lastTransitionTime = old.lastTransitionTime;
    const bool changed = !(old == condition);
    old = std::move(condition);
    return changed;
  }
  conditions.push_back(std::move(condition));
  return true;
}

}  // namespace allot::api
