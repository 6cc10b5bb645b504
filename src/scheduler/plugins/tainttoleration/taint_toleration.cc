#include "scheduler/plugins/tainttoleration/taint_toleration.h"

#include "api/core/taints.h"

namespace allot::scheduler {

namespace {

struct PreferTolerations {
  std::vector<api::Toleration> tolerations;  // effect "" or PreferNoSchedule
};
const StateKey<PreferTolerations> kPreScoreKey("PreScoreTaintToleration");

bool FilterEffect(const std::string& effect) {
  return effect == "NoSchedule" || effect == "NoExecute";
}

const api::Taint* FirstUntolerated(const std::vector<api::Taint>& taints,
                                   const std::vector<api::Toleration>& tolerations) {
  for (const api::Taint& t : taints) {
    if (FilterEffect(t.effect) && !api::TolerationsTolerateTaint(tolerations, t)) return &t;
  }
  return nullptr;
}

}  // namespace

std::string UntoleratedTaintReason(const api::Taint& taint) {
  return "node(s) had untolerated taint {" + taint.key + ": " + taint.value + "}";
}

Status TaintToleration::Filter(const CycleState&, const PodInfo& pod, const NodeInfo& node) const {
  const api::Taint* t = FirstUntolerated(node.taints(), pod.pod->spec.tolerations);
  if (!t) return Status::Success();
  return Status(Code::kUnschedulableAndUnresolvable, UntoleratedTaintReason(*t));
}

Status TaintToleration::PreScore(CycleState& state, const PodInfo& pod,
                                 std::span<const NodeInfo* const>) {
  PreferTolerations s;
  for (const api::Toleration& t : pod.pod->spec.tolerations) {
    if (t.effect.empty() || t.effect == "PreferNoSchedule") s.tolerations.push_back(t);
  }
  state.Write(kPreScoreKey, std::move(s));
  return Status::Success();
}

Status TaintToleration::Score(const CycleState& state, const PodInfo&, const NodeInfo& node,
                              int64_t& score) const {
  const PreferTolerations* s = state.Read(kPreScoreKey);
  if (!s) return Status::Error("reading \"PreScoreTaintToleration\" from cycleState: not found");
  score = 0;
  for (const api::Taint& t : node.taints()) {
    if (t.effect == "PreferNoSchedule" && !api::TolerationsTolerateTaint(s->tolerations, t)) ++score;
  }
  return Status::Success();
}

Status TaintToleration::NormalizeScore(const CycleState&, const PodInfo&,
                                       std::span<NodeScore> scores) const {
  DefaultNormalizeScore(kMaxNodeScore, true, scores);
  return Status::Success();
}

std::vector<ClusterEventWithHint> TaintToleration::EventsToRegister() const {
  auto node_hint = [](const api::Pod& pod, const api::Object* old_obj, const api::Object* new_obj) {
    const api::Node* n = new_obj ? api::As<api::Node>(*new_obj) : nullptr;
    if (!n || FirstUntolerated(n->spec.taints, pod.spec.tolerations)) {
      return QueueingHint::kQueueSkip;
    }
    const api::Node* o = old_obj ? api::As<api::Node>(*old_obj) : nullptr;
    // Tolerated now; it helps if it was not before (or the node is new).
    return !o || FirstUntolerated(o->spec.taints, pod.spec.tolerations) ? QueueingHint::kQueue
                                                                        : QueueingHint::kQueueSkip;
  };
  auto self = [](const api::Pod& pod, const api::Object*, const api::Object* new_obj) {
    const api::Pod* p = new_obj ? api::As<api::Pod>(*new_obj) : nullptr;
    return p && p->metadata.uid == pod.metadata.uid ? QueueingHint::kQueue
                                                    : QueueingHint::kQueueSkip;
  };
  return {{{EventResource::kNode, kAdd | kUpdateNodeTaint}, node_hint},
          {{EventResource::kUnscheduledPod, kUpdatePodToleration}, self}};
}

}  // namespace allot::scheduler
