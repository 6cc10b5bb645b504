// NodeName: PreFilter/Filter: a pod with spec.nodeName fits only that node.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "scheduler/framework/interface.h"
#include "scheduler/plugins/names.h"

namespace allot::scheduler {

inline constexpr std::string_view kErrReasonNodeName =
    "node(s) didn't match the requested node name";

class NodeName final : public PreFilterPlugin, public FilterPlugin, public EnqueueExtensions {
 public:
  std::string_view Name() const override { return names::kNodeName; }
  // Narrows the candidates to spec.nodeName; Skip when unset.
  Status PreFilter(CycleState& state, const PodInfo& pod, PreFilterResult& result) override;
  Status Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const override;
  std::vector<ClusterEventWithHint> EventsToRegister() const override;
};

}  // namespace allot::scheduler
