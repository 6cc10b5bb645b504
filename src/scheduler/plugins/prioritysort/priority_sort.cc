#include "scheduler/plugins/prioritysort/priority_sort.h"

namespace allot::scheduler {

bool PrioritySort::Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const {
  int32_t pa = a.pod_info->priority, pb = b.pod_info->priority;
  return pa > pb || (pa == pb && a.timestamp < b.timestamp);
}

}  // namespace allot::scheduler
