#include "scheduler/plugin_simple.h"

#include "client/client.h"

namespace allot::scheduler {

namespace {

struct PortsState {
  std::vector<HostPort> ports;
};
const StateKey<PortsState> kPortsKey("PreFilterNodePorts");

const api::Node* AsNode(const api::Object* o) { return o ? api::As<api::Node>(*o) : nullptr; }
const api::Pod* AsPod(const api::Object* o) { return o ? api::As<api::Pod>(*o) : nullptr; }

// The change is to the pod being scheduled itself.
QueueingHint SelfUpdate(const api::Pod& pod, const api::Object*, const api::Object* new_obj) {
  const api::Pod* p = AsPod(new_obj);
  return p && p->metadata.uid == pod.metadata.uid ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
}

std::string GoList(const std::vector<api::PodSchedulingGate>& gates) {
  std::string out = "[";
  for (size_t i = 0; i < gates.size(); ++i) out += (i ? " " : "") + gates[i].name;
  return out + "]";
}

}  // namespace

// --- taints -------------------------------------------------------------------------------------

bool ToleratesTaint(const api::Toleration& t, const api::Taint& taint) {
  if (!t.effect.empty() && t.effect != taint.effect) return false;
  if (!t.key.empty() && t.key != taint.key) return false;
  if (t.operator_.empty() || t.operator_ == "Equal") return t.value == taint.value;
  return t.operator_ == "Exists";
}

bool TolerationsTolerateTaint(const std::vector<api::Toleration>& tolerations,
                              const api::Taint& taint) {
  for (const api::Toleration& t : tolerations) {
    if (ToleratesTaint(t, taint)) return true;
  }
  return false;
}

// --- PrioritySort -------------------------------------------------------------------------------

bool PrioritySort::Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const {
  int32_t pa = a.pod_info->priority, pb = b.pod_info->priority;
  return pa > pb || (pa == pb && a.timestamp < b.timestamp);
}

// --- SchedulingGates ----------------------------------------------------------------------------

Status SchedulingGates::PreEnqueue(const api::Pod& pod) const {
  if (pod.spec.schedulingGates.empty()) return Status::Success();
  return Status(Code::kUnschedulableAndUnresolvable,
                "waiting for scheduling gates: " + GoList(pod.spec.schedulingGates));
}

std::vector<ClusterEventWithHint> SchedulingGates::EventsToRegister() const {
  return {{{EventResource::kUnscheduledPod, kUpdatePodSchedulingGatesEliminated}, SelfUpdate}};
}

// --- NodeName -----------------------------------------------------------------------------------

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
    const api::Node* n = AsNode(new_obj);
    return n && n->metadata.name == pod.spec.nodeName ? QueueingHint::kQueue
                                                      : QueueingHint::kQueueSkip;
  };
  return {{{EventResource::kNode, kAdd | kUpdate}, hint}};
}

// --- NodeUnschedulable --------------------------------------------------------------------------

NodeUnschedulable::NodeUnschedulable()
    : rejected_(Code::kUnschedulableAndUnresolvable, std::string(kErrReasonUnschedulable)) {}

Status NodeUnschedulable::Filter(const CycleState&, const PodInfo& pod,
                                 const NodeInfo& node) const {
  if (!node.unschedulable()) return Status::Success();
  static const api::Taint kTaint{std::string(kTaintNodeUnschedulable), "", "NoSchedule", {}};
  if (TolerationsTolerateTaint(pod.pod->spec.tolerations, kTaint)) return Status::Success();
  return rejected_;
}

std::vector<ClusterEventWithHint> NodeUnschedulable::EventsToRegister() const {
  auto node_hint = [](const api::Pod&, const api::Object* old_obj, const api::Object* new_obj) {
    const api::Node* o = AsNode(old_obj);
    const api::Node* n = AsNode(new_obj);
    if (!n || n->spec.unschedulable) return QueueingHint::kQueueSkip;
    return !o || o->spec.unschedulable ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
  };
  return {{{EventResource::kNode, kAdd | kUpdateNodeTaint}, node_hint},
          {{EventResource::kUnscheduledPod, kUpdatePodToleration}, SelfUpdate}};
}

// --- NodePorts ----------------------------------------------------------------------------------

NodePorts::NodePorts() : rejected_(Code::kUnschedulable, std::string(kErrReasonNodePorts)) {}

Status NodePorts::PreFilter(CycleState& state, const PodInfo& pod, PreFilterResult&) {
  if (pod.host_ports.empty()) return Status::Skip();
  state.Write(kPortsKey, PortsState{pod.host_ports});
  return Status::Success();
}

Status NodePorts::Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const {
  const PortsState* s = state.Read(kPortsKey);
  const std::vector<HostPort>& ports = s ? s->ports : pod.host_ports;
  for (const HostPort& p : ports) {
    if (node.used_ports().Conflicts(p)) return rejected_;
  }
  return Status::Success();
}

std::vector<ClusterEventWithHint> NodePorts::EventsToRegister() const {
  auto pod_deleted = [](const api::Pod& pod, const api::Object* old_obj, const api::Object*) {
    const api::Pod* gone = AsPod(old_obj);
    if (!gone || gone->spec.nodeName.empty()) return QueueingHint::kQueueSkip;
    PodInfoPtr mine = PodInfo::Make(std::make_shared<api::Pod>(pod));
    PodInfoPtr theirs = PodInfo::Make(std::make_shared<api::Pod>(*gone));
    HostPortInfo used;
    for (const HostPort& p : theirs->host_ports) used.Add(p);
    for (const HostPort& p : mine->host_ports) {
      if (used.Conflicts(p)) return QueueingHint::kQueue;
    }
    return QueueingHint::kQueueSkip;
  };
  return {{{EventResource::kAssignedPod, kDelete}, pod_deleted},
          {{EventResource::kNode, kAdd | kUpdate}, {}}};
}

// --- DefaultBinder ------------------------------------------------------------------------------

void DefaultBinder::Bind(CycleState&, const PodInfo& pod, const std::string& node,
                         BindCallback done) {
  client::Client* c = handle_.client();
  if (!c) {
    done(Status::Error("DefaultBinder has no API client"));
    return;
  }
  c->BindAsync(pod.namespace_(), pod.name(), pod.uid(), node,
               [done = std::move(done)](Result<bool> r) {
                 done(r.ok() ? Status::Success() : Status::FromError(r.status()));
               });
}

}  // namespace allot::scheduler
