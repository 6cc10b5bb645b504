// TaintToleration: a node's NoSchedule / NoExecute taints the pod does not tolerate rule the
// node out; PreferNoSchedule taints it does not tolerate lower the node's score (the more such
// taints, the lower; normalized in reverse, so a node without any scores 100).
#pragma once

#include <string>
#include <vector>

#include "scheduler/framework/interface.h"
#include "scheduler/plugins/registry.h"

namespace allot::scheduler {

// "node(s) had untolerated taint {key: value}" for the first untolerated taint.
std::string UntoleratedTaintReason(const api::Taint& taint);

class TaintToleration final : public FilterPlugin,
                              public PreScorePlugin,
                              public ScorePlugin,
                              public NormalizeScorePlugin,
                              public EnqueueExtensions {
 public:
  std::string_view Name() const override { return names::kTaintToleration; }
  Status Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const override;
  Status PreScore(CycleState& state, const PodInfo& pod,
                  std::span<const NodeInfo* const> nodes) override;
  Status Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
               int64_t& score) const override;
  Status NormalizeScore(const CycleState& state, const PodInfo& pod,
                        std::span<NodeScore> scores) const override;
  std::vector<ClusterEventWithHint> EventsToRegister() const override;
};

}  // namespace allot::scheduler
