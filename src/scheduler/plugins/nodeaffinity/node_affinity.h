// NodeAffinity: spec.nodeSelector and requiredDuringSchedulingIgnoredDuringExecution must
// match the node (Filter); preferredDuringSchedulingIgnoredDuringExecution terms add their
// weights for the nodes they match (Score, normalized to 0-100 by the best node).
//
// PreFilter skips the plugin for pods without a selector or required affinity, and narrows the
// candidate nodes when every required term pins metadata.name with matchFields In.
#pragma once

#include <string>
#include <vector>

#include "scheduler/framework/interface.h"
#include "scheduler/plugins/registry.h"

namespace allot::scheduler {

inline constexpr std::string_view kErrReasonNodeAffinity =
    "node(s) didn't match Pod's node affinity/selector";
inline constexpr std::string_view kErrReasonAffinityConflict = "pod affinity terms conflict";

// nodeSelector and required node affinity of `pod` both match `node` (the Filter's test).
bool PodMatchesNodeSelectorAndAffinity(const api::Pod& pod, const api::Node& node);

class NodeAffinity final : public PreFilterPlugin,
                           public FilterPlugin,
                           public PreScorePlugin,
                           public ScorePlugin,
                           public NormalizeScorePlugin,
                           public EnqueueExtensions {
 public:
  NodeAffinity();
  std::string_view Name() const override { return names::kNodeAffinity; }
  Status PreFilter(CycleState& state, const PodInfo& pod, PreFilterResult& result) override;
  Status Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const override;
  Status PreScore(CycleState& state, const PodInfo& pod,
                  std::span<const NodeInfo* const> nodes) override;
  Status Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
               int64_t& score) const override;
  Status NormalizeScore(const CycleState& state, const PodInfo& pod,
                        std::span<NodeScore> scores) const override;
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

 private:
  const Status rejected_;
};

}  // namespace allot::scheduler
