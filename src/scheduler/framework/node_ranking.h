// NodeRanking: the feasible nodes of a cycle with their final (weighted, summed) scores, for a
// plugin that must look past the one node the cycle picks. DynamicResources uses it to publish a
// KEP-3063 PodSchedulingContext's potentialNodes: the best-scored feasible nodes, not a sample.
//
// Opt-in, so cycles that need no ranking pay nothing: a plugin writes an empty NodeRanking under
// kNodeRankingKey (in PreFilter); after Score the scheduling algorithm fills it, in the order the
// nodes were evaluated. With a single feasible node no Score runs and the ranking holds that node
// with score 0. Reserve and later points may read it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/framework/cycle_state.h"

namespace allot::scheduler {

struct NodeRanking {
  struct Entry {
    std::string node;
    int64_t score = 0;
  };
  std::vector<Entry> nodes;
};

inline const StateKey<NodeRanking> kNodeRankingKey("NodeRanking");

}  // namespace allot::scheduler
