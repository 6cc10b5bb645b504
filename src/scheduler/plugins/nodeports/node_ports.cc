#include "scheduler/plugins/nodeports/node_ports.h"

#include "scheduler/plugins/helper/objects.h"

namespace allot::scheduler {

namespace {

struct PortsState {
  std::vector<HostPort> ports;
};
const StateKey<PortsState> kPortsKey("PreFilterNodePorts");

}  // namespace

NodePorts::NodePorts() : rejected_(Code::kUnschedulable, std::string(kErrReasonNodePorts)) {}

Status NodePorts::PreFilter(CycleState& state, const PodInfo& pod, PreFilterResult&) {
  if (pod.host_ports().empty()) return Status::Skip();
  state.Write(kPortsKey, PortsState{pod.host_ports()});
  return Status::Success();
}

Status NodePorts::Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const {
  const PortsState* s = state.Read(kPortsKey);
  const std::vector<HostPort>& ports = s ? s->ports : pod.host_ports();
  for (const HostPort& p : ports) {
    if (node.used_ports().Conflicts(p)) return rejected_;
  }
  return Status::Success();
}

std::vector<ClusterEventWithHint> NodePorts::EventsToRegister() const {
  auto pod_deleted = [](const api::Pod& pod, const api::Object* old_obj, const api::Object*) {
    const api::Pod* gone = helper::AsPod(old_obj);
    if (!gone || gone->spec.nodeName.empty()) return QueueingHint::kQueueSkip;
    PodInfoPtr mine = PodInfo::Make(std::make_shared<api::Pod>(pod));
    PodInfoPtr theirs = PodInfo::Make(std::make_shared<api::Pod>(*gone));
    HostPortInfo used;
    for (const HostPort& p : theirs->host_ports()) used.Add(p);
    for (const HostPort& p : mine->host_ports()) {
      if (used.Conflicts(p)) return QueueingHint::kQueue;
    }
    return QueueingHint::kQueueSkip;
  };
  return {{{EventResource::kAssignedPod, kDelete}, pod_deleted},
          {{EventResource::kNode, kAdd | kUpdate}, {}}};
}

}  // namespace allot::scheduler
