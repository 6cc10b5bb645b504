#include "scheduler/plugins/nodeaffinity/node_affinity.h"

#include <algorithm>

#include "api/machinery/selector.h"

namespace allot::scheduler {

namespace {

const api::NodeSelector* Required(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  if (!a || !a->nodeAffinity || !a->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution) {
    return nullptr;
  }
  return &*a->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution;
}

const std::vector<api::PreferredSchedulingTerm>* Preferred(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  if (!a || !a->nodeAffinity ||
      a->nodeAffinity->preferredDuringSchedulingIgnoredDuringExecution.empty()) {
    return nullptr;
  }
  return &a->nodeAffinity->preferredDuringSchedulingIgnoredDuringExecution;
}

bool SelectorMatches(const api::StringMap& selector, const api::StringMap& labels) {
  for (const auto& [k, v] : selector) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  return true;
}

// The node names a term pins with matchFields metadata.name In; nullopt when it pins none.
std::optional<std::vector<std::string>> PinnedNames(const api::NodeSelectorTerm& term) {
  std::optional<std::vector<std::string>> out;
  for (const api::NodeSelectorRequirement& r : term.matchFields) {
    if (r.key != "metadata.name" || r.operator_ != "In") continue;
    std::vector<std::string> v = r.values;
    std::sort(v.begin(), v.end());
    if (!out) {
      out = std::move(v);
    } else {
      std::vector<std::string> both;
      std::set_intersection(out->begin(), out->end(), v.begin(), v.end(), std::back_inserter(both));
      out = std::move(both);
    }
  }
  return out;
}

}  // namespace

bool PodMatchesNodeSelectorAndAffinity(const api::Pod& pod, const api::Node& node) {
  if (!SelectorMatches(pod.spec.nodeSelector, node.metadata.labels)) return false;
  const api::NodeSelector* req = Required(pod);
  return !req || api::MatchesNodeSelector(*req, node.metadata.labels, node.metadata.name);
}

NodeAffinity::NodeAffinity()
    : rejected_(Code::kUnschedulableAndUnresolvable, std::string(kErrReasonNodeAffinity)) {}

Status NodeAffinity::PreFilter(CycleState&, const PodInfo& pod, PreFilterResult& result) {
  const api::Pod& p = *pod.pod;
  const api::NodeSelector* req = Required(p);
  if (p.spec.nodeSelector.empty() && !req) return Status::Skip();
  if (!req || req->nodeSelectorTerms.empty()) return Status::Success();
  std::vector<std::string> names;
  for (const api::NodeSelectorTerm& term : req->nodeSelectorTerms) {
    std::optional<std::vector<std::string>> pinned = PinnedNames(term);
    if (!pinned) return Status::Success();  // this term may match any node
    names.insert(names.end(), pinned->begin(), pinned->end());
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  if (names.empty()) {
    return Status(Code::kUnschedulableAndUnresolvable, std::string(kErrReasonAffinityConflict));
  }
  result.node_names = std::move(names);
  return Status::Success();
}

Status NodeAffinity::Filter(const CycleState&, const PodInfo& pod, const NodeInfo& node) const {
  if (!node.node()) return Status::Error("node not found");
  return PodMatchesNodeSelectorAndAffinity(*pod.pod, *node.node()) ? Status::Success() : rejected_;
}

Status NodeAffinity::PreScore(CycleState&, const PodInfo& pod, std::span<const NodeInfo* const>) {
  return Preferred(*pod.pod) ? Status::Success() : Status::Skip();
}

Status NodeAffinity::Score(const CycleState&, const PodInfo& pod, const NodeInfo& node,
                           int64_t& score) const {
  score = 0;
  const auto* terms = Preferred(*pod.pod);
  if (!terms) return Status::Success();
  const api::Node& n = *node.node();
  for (const api::PreferredSchedulingTerm& t : *terms) {
    if (t.weight != 0 &&
        api::MatchesNodeSelectorTerm(t.preference, n.metadata.labels, n.metadata.name)) {
      score += t.weight;
    }
  }
  return Status::Success();
}

Status NodeAffinity::NormalizeScore(const CycleState&, const PodInfo&,
                                    std::span<NodeScore> scores) const {
  DefaultNormalizeScore(kMaxNodeScore, false, scores);
  return Status::Success();
}

std::vector<ClusterEventWithHint> NodeAffinity::EventsToRegister() const {
  auto hint = [](const api::Pod& pod, const api::Object* old_obj, const api::Object* new_obj) {
    const api::Node* n = new_obj ? api::As<api::Node>(*new_obj) : nullptr;
    if (!n || !PodMatchesNodeSelectorAndAffinity(pod, *n)) return QueueingHint::kQueueSkip;
    const api::Node* o = old_obj ? api::As<api::Node>(*old_obj) : nullptr;
    return !o || !PodMatchesNodeSelectorAndAffinity(pod, *o) ? QueueingHint::kQueue
                                                             : QueueingHint::kQueueSkip;
  };
  return {{{EventResource::kNode, kAdd | kUpdateNodeLabel}, hint}};
}

}  // namespace allot::scheduler
