#include "scheduler/plugins/schedulinggates/scheduling_gates.h"

#include "scheduler/plugins/helper/objects.h"

namespace allot::scheduler {

namespace {

// The gates' names as Go prints a []string: "[a b]".
std::string GoList(const std::vector<api::PodSchedulingGate>& gates) {
  std::string out = "[";
  for (size_t i = 0; i < gates.size(); ++i) out += (i ? " " : "") + gates[i].name;
  return out + "]";
}

}  // namespace

Status SchedulingGates::PreEnqueue(const api::Pod& pod) const {
  if (pod.spec.schedulingGates.empty()) return Status::Success();
  return Status(Code::kUnschedulableAndUnresolvable,
                "waiting for scheduling gates: " + GoList(pod.spec.schedulingGates));
}

std::vector<ClusterEventWithHint> SchedulingGates::EventsToRegister() const {
  return {
      {{EventResource::kUnscheduledPod, kUpdatePodSchedulingGatesEliminated}, helper::SelfUpdate}};
}

}  // namespace allot::scheduler
