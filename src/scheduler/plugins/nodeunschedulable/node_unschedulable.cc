#include "scheduler/plugins/nodeunschedulable/node_unschedulable.h"

#include "api/core/taints.h"
#include "scheduler/plugins/helper/objects.h"

namespace allot::scheduler {

NodeUnschedulable::NodeUnschedulable()
    : rejected_(Code::kUnschedulableAndUnresolvable, std::string(kErrReasonUnschedulable)) {}

Status NodeUnschedulable::Filter(const CycleState&, const PodInfo& pod,
                                 const NodeInfo& node) const {
  if (!node.unschedulable()) return Status::Success();
  static const api::Taint kTaint{std::string(kTaintNodeUnschedulable), "", "NoSchedule", {}};
  if (api::TolerationsTolerateTaint(pod.pod->spec.tolerations, kTaint)) return Status::Success();
  return rejected_;
}

std::vector<ClusterEventWithHint> NodeUnschedulable::EventsToRegister() const {
  auto node_hint = [](const api::Pod&, const api::Object* old_obj, const api::Object* new_obj) {
    const api::Node* o = helper::AsNode(old_obj);
    const api::Node* n = helper::AsNode(new_obj);
    if (!n || n->spec.unschedulable) return QueueingHint::kQueueSkip;
    return !o || o->spec.unschedulable ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
  };
  return {{{EventResource::kNode, kAdd | kUpdateNodeTaint}, node_hint},
          {{EventResource::kUnscheduledPod, kUpdatePodToleration}, helper::SelfUpdate}};
}

}  // namespace allot::scheduler
