#include "scheduler/schedule_algorithm.h"

#include <algorithm>
#include <atomic>
#include <map>

#include "scheduler/framework/node_ranking.h"

namespace allot::scheduler {

namespace {

using SteadyClock = std::chrono::steady_clock;

std::string GoList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? " " : "") + items[i];
  return out + "]";
}

}  // namespace

int32_t NumFeasibleNodesToFind(int32_t percentage, int32_t num_all_nodes) {
  if (num_all_nodes < kMinFeasibleNodesToFind) return num_all_nodes;
  if (percentage <= 0) {
    percentage = 50 - num_all_nodes / 125;
    if (percentage < kMinFeasibleNodesPercentageToFind) {
      percentage = kMinFeasibleNodesPercentageToFind;
    }
  }
  if (percentage > 100) percentage = 100;
  int32_t n = static_cast<int32_t>(static_cast<int64_t>(num_all_nodes) * percentage / 100);
  return n < kMinFeasibleNodesToFind ? kMinFeasibleNodesToFind : n;
}

// --- ScheduleAlgorithm --------------------------------------------------------------------------

ScheduleAlgorithm::ScheduleAlgorithm(int32_t global_percentage, uint64_t seed)
    : global_percentage_(global_percentage), rng_(seed ? seed : 0x9e3779b97f4a7c15ULL) {}

uint64_t ScheduleAlgorithm::NextRandom() {
  // xorshift64*: plenty for tie-breaking, and cheap.
  rng_ ^= rng_ >> 12;
  rng_ ^= rng_ << 25;
  rng_ ^= rng_ >> 27;
  return rng_ * 0x2545F4914F6CDD1DULL;
}

Status ScheduleAlgorithm::SchedulePod(Framework& fwk, CycleState& state, const PodInfo& pod,
                                      const Snapshot& snapshot, ScheduleResult& result,
                                      Diagnosis& diagnosis) {
  result = ScheduleResult{};
  diagnosis.clear();
  feasible_.clear();
  if (snapshot.NumNodes() == 0) return Status::Error("no nodes available to schedule pods");
  Status st = FindNodesThatFitPod(fwk, state, pod, snapshot, diagnosis);
  if (!st.IsSuccess()) return st;
  result.evaluated_nodes = feasible_.size() + diagnosis.node_to_status.size();
  result.feasible_nodes = feasible_.size();
  if (feasible_.empty()) {
    // The most severe rejection decides the code (Unresolvable only if every node said so).
    bool resolvable = diagnosis.node_to_status.size() < snapshot.NumNodes() &&
                      diagnosis.node_to_status.absent().code() == Code::kUnschedulable;
    for (const auto& [node, s] : diagnosis.node_to_status.explicit_statuses()) {
      if (s.code() != Code::kUnschedulableAndUnresolvable) resolvable = true;
    }
    return Status(resolvable ? Code::kUnschedulable : Code::kUnschedulableAndUnresolvable,
                  std::vector<std::string>{});
  }
  NodeRanking* ranking = state.Mutable(kNodeRankingKey);
  if (feasible_.size() == 1) {
    result.suggested_host = feasible_[0]->name();
    if (ranking) ranking->nodes.assign(1, {result.suggested_host, 0});
    return Status::Success();
  }
  if (fwk.HasScorePlugins()) {
    st = fwk.RunPreScorePlugins(state, pod, feasible_);
    if (!st.IsSuccess()) return st;
    st = fwk.RunScorePlugins(state, pod, feasible_, totals_);
    if (!st.IsSuccess()) return st;
  } else {
    totals_.assign(feasible_.size(), 1);
  }
  result.suggested_host = SelectHost(totals_)->name();
  if (ranking) {
    ranking->nodes.clear();
    ranking->nodes.reserve(feasible_.size());
    for (size_t i = 0; i < feasible_.size(); ++i) {
      ranking->nodes.push_back({feasible_[i]->name(), totals_[i]});
    }
  }
  return Status::Success();
}

Status ScheduleAlgorithm::FindNodesThatFitPod(Framework& fwk, CycleState& state, const PodInfo& pod,
                                              const Snapshot& snapshot, Diagnosis& diagnosis) {
  diagnosis.node_to_status.set_absent(
      Status(Code::kUnschedulableAndUnresolvable, std::vector<std::string>{}));
  PreFilterResult pre;
  std::vector<std::string> plugins;
  Status st = fwk.RunPreFilterPlugins(state, pod, pre, plugins);
  if (!st.IsSuccess()) {
    if (!st.IsRejected()) return st;
    diagnosis.node_to_status.set_absent(st);
    diagnosis.pre_filter_msg = st.Message();
    for (const std::string& p : plugins) diagnosis.AddUnschedulablePlugin(p);
    diagnosis.AddPluginStatus(st);
    return Status::Success();
  }
  if (FitsNominatedNode(fwk, state, pod, snapshot, pre)) return Status::Success();
  const std::vector<const NodeInfo*>* nodes = &snapshot.nodes();
  if (!pre.AllNodes()) {
    candidates_.clear();
    for (const std::string& name : *pre.node_names) {
      if (const NodeInfo* n = snapshot.Get(name)) candidates_.push_back(n);
    }
    nodes = &candidates_;
    diagnosis.node_to_status.set_absent(
        Status(Code::kUnschedulableAndUnresolvable,
               "node(s) didn't satisfy plugin(s) " + GoList(plugins)));
    for (const std::string& p : plugins) diagnosis.AddUnschedulablePlugin(p);
  }
  if (nodes->empty()) return Status::Success();
  return FindNodesThatPassFilters(fwk, state, pod, *nodes, diagnosis);
}

bool ScheduleAlgorithm::FitsNominatedNode(Framework& fwk, const CycleState& state,
                                          const PodInfo& pod, const Snapshot& snapshot,
                                          const PreFilterResult& pre) {
  // The nominator knows a nomination before the pod's status shows it.
  const Nominator* nom = fwk.nominator();
  std::string name = nom && !nom->empty() ? nom->NodeOf(pod.uid()) : std::string();
  if (name.empty()) name = pod.pod->status.nominatedNodeName;
  if (name.empty() || (!pre.AllNodes() &&
                       !std::binary_search(pre.node_names->begin(), pre.node_names->end(), name)))
    return false;
  const NodeInfo* base = snapshot.Get(name);
  if (!base) return false;
  auto start = SteadyClock::now();
  const NodeInfo* node = state.NodeView(base);
  std::shared_ptr<const NominatedPods> nominated;
  if (nom && !nom->empty()) nominated = nom->Current();
  Status st = nominated ? fwk.RunFilterPluginsWithNominatedPods(state, pod, *node, nominated.get())
                        : fwk.RunFilterPlugins(state, pod, *node);
  std::chrono::duration<double> d = SteadyClock::now() - start;
  fwk.extension_metrics().Observe(ExtensionPoint::kFilter, st.code(), d.count());
  if (st.IsSuccess()) {
    feasible_.assign(1, node);
    return true;
  }
  // Not the cycle's verdict: every node, this one included, is filtered next and says why.
  return false;
}

Status ScheduleAlgorithm::FindNodesThatPassFilters(Framework& fwk, const CycleState& state,
                                                   const PodInfo& pod,
                                                   const std::vector<const NodeInfo*>& nodes,
                                                   Diagnosis& diagnosis) {
  auto start = SteadyClock::now();
  const int n = static_cast<int>(nodes.size());
  const int32_t percentage = fwk.percentage_of_nodes_to_score().value_or(global_percentage_);
  const int to_find = NumFeasibleNodesToFind(percentage, n);
  const size_t offset = next_start_node_index_ % nodes.size();
  feasible_.assign(static_cast<size_t>(to_find), nullptr);
  if (!fwk.HasFilterPlugins()) {
    for (int i = 0; i < to_find; ++i)
      feasible_[i] = state.NodeView(nodes[(offset + i) % nodes.size()]);
    next_start_node_index_ = (offset + to_find) % nodes.size();
    return Status::Success();
  }
  // Only entries flagged in `failed` are written and read, so stale statuses need no reset.
  if (statuses_.size() < nodes.size()) statuses_.resize(nodes.size());
  std::vector<char>& failed = failed_;
  failed.assign(nodes.size(), 0);
  std::atomic<int> found{0};
  std::atomic<bool> stop{false};
  std::atomic<bool> had_error{false};
  // Pods preemption nominated keep the space their victims free (scheduler/framework/
  // nominator.h); nothing to look up while none is nominated.
  std::shared_ptr<const NominatedPods> nominated;
  if (const Nominator* nom = fwk.nominator(); nom && !nom->empty()) nominated = nom->Current();
  auto check = [&](int i) {
    const NodeInfo* node = state.NodeView(nodes[(offset + i) % nodes.size()]);
    Status st = nominated
                    ? fwk.RunFilterPluginsWithNominatedPods(state, pod, *node, nominated.get())
                    : fwk.RunFilterPlugins(state, pod, *node);
    if (st.IsSuccess()) {
      int k = found.fetch_add(1) + 1;
      if (k > to_find) {
        stop = true;
        found.fetch_sub(1);
      } else {
        feasible_[k - 1] = node;
      }
      return;
    }
    if (st.IsError()) {
      had_error = true;
      stop = true;
    }
    statuses_[i] = std::move(st);
    failed[i] = 1;
  };
  fwk.parallelizer().Until(n, check, &stop);
  feasible_.resize(static_cast<size_t>(found.load()));
  Status out;
  for (int i = 0; i < n; ++i) {
    if (!failed[i]) continue;
    if (statuses_[i].IsError()) {
      out = statuses_[i];
      break;
    }
    diagnosis.node_to_status.Set(state.NodeView(nodes[(offset + i) % nodes.size()]), statuses_[i]);
    diagnosis.AddPluginStatus(statuses_[i]);
  }
  (void)had_error;
  size_t processed = feasible_.size() + diagnosis.node_to_status.size();
  next_start_node_index_ = (offset + processed) % nodes.size();
  std::chrono::duration<double> d = SteadyClock::now() - start;
  fwk.extension_metrics().Observe(ExtensionPoint::kFilter, out.code(), d.count());
  return out;
}

const NodeInfo* ScheduleAlgorithm::SelectHost(const std::vector<int64_t>& totals) {
  size_t best = 0;
  int64_t max_score = totals[0];
  uint64_t ties = 1;
  for (size_t i = 1; i < totals.size(); ++i) {
    if (totals[i] > max_score) {
      max_score = totals[i];
      best = i;
      ties = 1;
    } else if (totals[i] == max_score) {
      // Reservoir sampling: each of the tied nodes ends up chosen with probability 1/ties.
      ++ties;
      if (NextRandom() % ties == 0) best = i;
    }
  }
  return feasible_[best];
}

}  // namespace allot::scheduler
