// The heart of a scheduling cycle, as kube-scheduler's schedulePod: PreFilter, Filter over the
// nodes in parallel (stopping once enough feasible nodes are found), PreScore, Score, and the
// pick of the highest-scoring node (ties broken at random). No queue, no cache, no API calls:
// it reads a Snapshot and runs a Framework, so tests and simulators can call it directly.
//
// When no node fits, the Diagnosis says why per node, and FitErrorMessage() renders Kubernetes'
// message: "0/5 nodes are available: 3 Insufficient cpu, 2 node(s) had untolerated taint
// {dedicated: gpu}."
//
// Thread safety: a ScheduleAlgorithm belongs to the scheduling thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/framework/diagnosis.h"
#include "scheduler/framework/runtime/framework.h"

namespace allot::scheduler {

// kube-scheduler's constants for percentageOfNodesToScore.
inline constexpr int32_t kMinFeasibleNodesToFind = 100;
inline constexpr int32_t kMinFeasibleNodesPercentageToFind = 5;

// How many feasible nodes to find before Filter stops: all nodes below 100 nodes; otherwise
// percentage% of them (0: adaptive, 50 - nodes/125, at least 5), at least 100.
int32_t NumFeasibleNodesToFind(int32_t percentage, int32_t num_all_nodes);

struct ScheduleResult {
  std::string suggested_host;  // empty when the pod fits nowhere
  size_t evaluated_nodes = 0;
  size_t feasible_nodes = 0;
};

class ScheduleAlgorithm {
 public:
  // global_percentage: the configuration's percentageOfNodesToScore (0: adaptive).
  ScheduleAlgorithm(int32_t global_percentage, uint64_t seed);

  // Success with result.suggested_host set; kUnschedulable / kUnschedulableAndUnresolvable
  // (the first rejecting code found) with `diagnosis` explaining per node; or kError.
  // "no nodes available to schedule pods" is an Error when the snapshot has no nodes.
  Status SchedulePod(Framework& fwk, CycleState& state, const PodInfo& pod,
                     const Snapshot& snapshot, ScheduleResult& result, Diagnosis& diagnosis);

  // Candidates found feasible by the last SchedulePod (for tests).
  const std::vector<const NodeInfo*>& last_feasible() const { return feasible_; }

 private:
  Status FindNodesThatFitPod(Framework& fwk, CycleState& state, const PodInfo& pod,
                             const Snapshot& snapshot, Diagnosis& diagnosis);
  // The node preemption nominated `pod` to, filtered alone first (kube-scheduler's
  // evaluateNominatedNode): true with feasible_ = {it} when the pod fits there.
  bool FitsNominatedNode(Framework& fwk, const CycleState& state, const PodInfo& pod,
                         const Snapshot& snapshot, const PreFilterResult& pre);
  Status FindNodesThatPassFilters(Framework& fwk, const CycleState& state, const PodInfo& pod,
                                  const std::vector<const NodeInfo*>& nodes, Diagnosis& diagnosis);
  const NodeInfo* SelectHost(const std::vector<int64_t>& totals);

  const int32_t global_percentage_;
  uint64_t NextRandom();
  uint64_t rng_;
  size_t next_start_node_index_ = 0;
  // Reused buffers (no allocation per cycle once warm).
  std::vector<const NodeInfo*> candidates_;
  std::vector<const NodeInfo*> feasible_;
  std::vector<Status> statuses_;
  std::vector<char> failed_;
  std::vector<int64_t> totals_;
};

}  // namespace allot::scheduler
