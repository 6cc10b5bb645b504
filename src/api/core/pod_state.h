// What a pod's status says about it, as Kubernetes' podutil helpers read it: whether it has
// finished, whether it is ready, and its conditions by type. Everyone who asks these questions
// (scheduler, controllers, the eviction subresource, the node agent) asks them here.
#pragma once

#include <string_view>

#include "api/core/pod.h"
#include "common/time.h"

namespace allot::api {

// status.phase is Succeeded or Failed: the pod will not run again.
bool IsPodTerminal(const Pod& pod);

// The Ready condition is True (podutil.IsPodReady).
bool IsPodReady(const Pod& pod);

// The condition of this type, or null.
const PodCondition* FindPodCondition(const PodStatus& status, std::string_view type);

// podutil.UpdatePodCondition: sets `condition` in place of the one of its type (appended when
// there is none). Its lastTransitionTime is `now` (to the second), or the old one's when the
// status did not change. Returns whether anything changed.
bool UpdatePodCondition(PodStatus& status, PodCondition condition, Time now);

}  // namespace allot::api
