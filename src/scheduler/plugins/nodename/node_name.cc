#include "scheduler/plugins/nodename/node_name.h"

#include "scheduler/plugins/helper/objects.h"

namespace allot::scheduler {

Status NodeName::PreFilter(CycleState&, const PodInfo& pod, PreFilterResult& result) {
  const std::string& name = pod.pod->spec.nodeName;
  if (name.empty()) return Status::Skip();
  result.node_names = std::vector<std::string>{name};
  return Status::Success();
}

Status NodeName::Filter(const CycleState&, const PodInfo& pod, const NodeInfo& node) const {
  const std::string& want = pod.pod->spec.nodeName;
  if (want.empty() || want == node.name()) return Status::Success();
  static const Status kRejected(Code::kUnschedulableAndUnresolvable,
                                std::string(kErrReasonNodeName));
  return kRejected;
}

std::vector<ClusterEventWithHint> NodeName::EventsToRegister() const {
  auto hint = [](const api::Pod& pod, const api::Object*, const api::Object* new_obj) {
    const api::Node* n = helper::AsNode(new_obj);
    return n && n->metadata.name == pod.spec.nodeName ? QueueingHint::kQueue
                                                      : QueueingHint::kQueueSkip;
  };
  return {{{EventResource::kNode, kAdd | kUpdate}, hint}};
}

}  // namespace allot::scheduler
