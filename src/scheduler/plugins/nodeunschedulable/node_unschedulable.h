// NodeUnschedulable: Filter: spec.unschedulable nodes, unless the pod tolerates
// node.kubernetes.io/unschedulable.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "scheduler/framework/interface.h"
#include "scheduler/plugins/names.h"

namespace allot::scheduler {

inline constexpr std::string_view kErrReasonUnschedulable = "node(s) were unschedulable";
inline constexpr std::string_view kTaintNodeUnschedulable = "node.kubernetes.io/unschedulable";

class NodeUnschedulable final : public FilterPlugin, public EnqueueExtensions {
 public:
  NodeUnschedulable();
  std::string_view Name() const override { return names::kNodeUnschedulable; }
  // Rejects spec.unschedulable nodes unless the pod tolerates the
  // node.kubernetes.io/unschedulable:NoSchedule taint.
  Status Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const override;
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

 private:
  const Status rejected_;
};

}  // namespace allot::scheduler
