// SchedulingGates: PreEnqueue: holds a pod while spec.schedulingGates is non-empty.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "scheduler/framework/interface.h"
#include "scheduler/plugins/names.h"

namespace allot::scheduler {

class SchedulingGates final : public PreEnqueuePlugin, public EnqueueExtensions {
 public:
  std::string_view Name() const override { return names::kSchedulingGates; }
  // UnschedulableAndUnresolvable "waiting for scheduling gates: [a b]" while gates remain.
  Status PreEnqueue(const api::Pod& pod) const override;
  std::vector<ClusterEventWithHint> EventsToRegister() const override;
};

}  // namespace allot::scheduler
