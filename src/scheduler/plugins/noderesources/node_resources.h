// NodeResourcesFit and NodeResourcesBalancedAllocation (kube-scheduler's noderesources).
//
// NodeResourcesFit Filter: the node must have room for the pod's requests (scheduler/framework/types.h
// says how they are computed) on every resource the pod asks for, plus one pod slot:
// "Too many pods", "Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage",
// "Insufficient <extended resource>". The code is UnschedulableAndUnresolvable when the pod
// asks for more than the node's whole allocatable (no eviction could help), else
// Unschedulable.
//
// Scoring (per resource in `resources`, weighted mean, 0-100):
//  - LeastAllocated (default): (allocatable - requested) * 100 / allocatable: spread.
//  - MostAllocated: requested * 100 / allocatable: pack.
//  - RequestedToCapacityRatio: a piecewise-linear function of utilization (shape points,
//    utilization 0-100 -> score 0-10, scaled to 0-100).
// "requested" includes the incoming pod; cpu and memory use the non-zero requests (100m /
// 200Mi for containers without requests) so best-effort pods spread too.
//
// BalancedAllocation: 100 * (1 - the standard deviation of requested/allocatable fractions):
// nodes whose resources are used evenly score higher. Uses real requests; best-effort pods
// skip it.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"
#include "scheduler/framework/interface.h"
#include "scheduler/plugins/registry.h"

namespace allot::scheduler {

struct ResourceSpec {
  std::string name;
  int64_t weight = 1;
};

struct UtilizationShapePoint {
  int64_t utilization = 0;  // 0-100
  int64_t score = 0;        // 0-10
};

enum class ScoringStrategyType { kLeastAllocated, kMostAllocated, kRequestedToCapacityRatio };

struct NodeResourcesFitArgs {
  ScoringStrategyType type = ScoringStrategyType::kLeastAllocated;
  std::vector<ResourceSpec> resources = {{"cpu", 1}, {"memory", 1}};
  std::vector<UtilizationShapePoint> shape = {{0, 10}, {100, 0}};
  std::vector<std::string> ignored_resources;
  std::vector<std::string> ignored_resource_groups;
};
// Parses NodeResourcesFitArgs JSON ("" gives the defaults); 400 with the field on bad input.
Result<NodeResourcesFitArgs> ParseNodeResourcesFitArgs(std::string_view json);

// Per-resource scoring functions (inputs in scheduler units).
int64_t LeastRequestedScore(int64_t requested, int64_t capacity);
int64_t MostRequestedScore(int64_t requested, int64_t capacity);
// helper.BuildBrokenLinearFunction over shape points with scores already scaled to 0-100.
int64_t BrokenLinear(std::span<const UtilizationShapePoint> shape, int64_t utilization);

// Scores a node from the (requested, allocatable) pairs of the configured resources.
using ResourceScorer =
    std::function<int64_t(std::span<const int64_t> requested, std::span<const int64_t> alloc)>;

// resourceAllocationScorer: collects (requested incl. the pod, allocatable) per resource and
// applies a scorer. With use_requested the node's real requests are used, else the non-zero
// ones for cpu and memory.
class ResourceAllocationScorer {
 public:
  ResourceAllocationScorer(std::vector<ResourceSpec> resources, bool use_requested,
                           ResourceScorer scorer);
  int64_t Score(const PodInfo& pod, const NodeInfo& node) const;
  // The pod's request for each configured resource (non-zero or real, as configured).
  std::vector<int64_t> PodRequests(const PodInfo& pod) const;
  const std::vector<ResourceSpec>& resources() const { return resources_; }

 private:
  enum class Kind : uint8_t { kCpu, kMemory, kEphemeralStorage, kScalar, kOther };
  std::vector<ResourceSpec> resources_;
  std::vector<Kind> kinds_;  // per resource, resolved once
  bool use_requested_;
  ResourceScorer scorer_;
};

class NodeResourcesFit final : public FilterPlugin, public ScorePlugin, public EnqueueExtensions {
 public:
  explicit NodeResourcesFit(NodeResourcesFitArgs args);
  std::string_view Name() const override { return names::kNodeResourcesFit; }
  Status Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const override;
  Status Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
               int64_t& score) const override;
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

  // The reasons the pod does not fit the node (empty: it fits) and whether any is
  // unresolvable.
  std::vector<std::string> InsufficientResources(const PodInfo& pod, const NodeInfo& node,
                                                 bool* unresolvable) const;

 private:
  bool Ignored(const std::string& resource) const;
  NodeResourcesFitArgs args_;
  ResourceAllocationScorer scorer_;
};

class BalancedAllocation final : public PreScorePlugin, public ScorePlugin {
 public:
  explicit BalancedAllocation(std::vector<ResourceSpec> resources);
  std::string_view Name() const override { return names::kNodeResourcesBalancedAllocation; }
  // Skip for best-effort pods (kubernetes#129138: they would all pile onto one node).
  Status PreScore(CycleState& state, const PodInfo& pod,
                  std::span<const NodeInfo* const> nodes) override;
  Status Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
               int64_t& score) const override;

 private:
  ResourceAllocationScorer scorer_;
};
// BalancedAllocation args: {"resources": [{"name": "cpu", "weight": 1}, ...]}.
Result<std::vector<ResourceSpec>> ParseBalancedAllocationArgs(std::string_view json);

}  // namespace allot::scheduler
