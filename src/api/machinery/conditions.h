// metav1.Condition lists as k8s.io/apimachinery/pkg/api/meta keeps them (FindStatusCondition,
// SetStatusCondition): one condition per type, lastTransitionTime moved only when the status
// changes.
#pragma once

#include <string_view>
#include <vector>

#include "api/machinery/meta.h"
#include "common/time.h"

namespace allot::api {

// The condition of this type, or null.
const Condition* FindStatusCondition(const std::vector<Condition>& conditions,
                                     std::string_view type);

// Sets `condition` in place of the one of its type, or appends it. lastTransitionTime becomes
// the condition's own when set, else `now` (to the second), when the condition is new or its
// status changed; otherwise the old one stays. Returns whether anything changed.
bool SetStatusCondition(std::vector<Condition>& conditions, Condition condition, Time now);

}  // namespace allot::api
