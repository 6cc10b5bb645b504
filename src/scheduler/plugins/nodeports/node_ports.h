// NodePorts: PreFilter/Filter: host ports already taken on the node.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "scheduler/framework/interface.h"
#include "scheduler/plugins/names.h"

namespace allot::scheduler {

inline constexpr std::string_view kErrReasonNodePorts =
    "node(s) didn't have free ports for the requested pod ports";

class NodePorts final : public PreFilterPlugin, public FilterPlugin, public EnqueueExtensions {
 public:
  NodePorts();
  std::string_view Name() const override { return names::kNodePorts; }
  // Skip when the pod asks for no host port.
  Status PreFilter(CycleState& state, const PodInfo& pod, PreFilterResult& result) override;
  Status Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const override;
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

 private:
  const Status rejected_;
};

}  // namespace allot::scheduler
