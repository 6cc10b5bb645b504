// The small in-tree plugins: PrioritySort, SchedulingGates, NodeName, NodeUnschedulable,
// NodePorts, and the taint helpers TaintToleration and NodeUnschedulable share.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "scheduler/framework_interface.h"
#include "scheduler/plugins.h"

namespace allot::scheduler {

// --- taints -------------------------------------------------------------------------------------

// v1helper.TolerationsTolerateTaint's rule for one toleration: the effect matches (empty
// tolerates all effects), the key matches (empty with Exists tolerates all keys), and the value
// matches for Equal (the default operator); Exists ignores the value.
bool ToleratesTaint(const api::Toleration& toleration, const api::Taint& taint);
bool TolerationsTolerateTaint(const std::vector<api::Toleration>& tolerations,
                              const api::Taint& taint);

// --- PrioritySort -------------------------------------------------------------------------------

class PrioritySort final : public QueueSortPlugin {
 public:
  std::string_view Name() const override { return names::kPrioritySort; }
  bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const override;
};

// --- SchedulingGates ----------------------------------------------------------------------------

class SchedulingGates final : public PreEnqueuePlugin, public EnqueueExtensions {
 public:
  std::string_view Name() const override { return names::kSchedulingGates; }
  // UnschedulableAndUnresolvable "waiting for scheduling gates: [a b]" while gates remain.
  Status PreEnqueue(const api::Pod& pod) const override;
  std::vector<ClusterEventWithHint> EventsToRegister() const override;
};

// --- NodeName -----------------------------------------------------------------------------------

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

// --- NodeUnschedulable --------------------------------------------------------------------------

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

// --- NodePorts ----------------------------------------------------------------------------------

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

// --- DefaultBinder ------------------------------------------------------------------------------

class DefaultBinder final : public BindPlugin {
 public:
  explicit DefaultBinder(Handle& handle) : handle_(handle) {}
  std::string_view Name() const override { return names::kDefaultBinder; }
  // POST pods/<name>/binding via Client::BindAsync (the pod's uid as precondition).
  void Bind(CycleState& state, const PodInfo& pod, const std::string& node,
            BindCallback done) override;

 private:
  Handle& handle_;
};

}  // namespace allot::scheduler
