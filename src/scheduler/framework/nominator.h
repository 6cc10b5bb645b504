// Nominator: the pending pods that preemption nominated to a node (status.nominatedNodeName).
// The space their victims free is theirs: Filter counts the pods nominated to a node with a
// priority at least the incoming pod's as if they ran there (Framework::
// RunFilterPluginsWithNominatedPods), so no pod of lower priority takes it meanwhile.
//
// Fed by the scheduler: from the pod informer (a pending pod with status.nominatedNodeName),
// and at once when PostFilter nominates, before the API write comes back; a pod leaves when it
// is assumed, bound or deleted, or when a later attempt clears its nomination. An update that
// has no nominatedNodeName, of a pod whose previous version had none either, keeps the
// nomination made in memory (the informer has not caught up with the write yet).
//
// Thread safety: all methods are thread-safe. empty() is a lock-free read, so a cycle pays
// nothing while no pod is nominated; Current() hands a cycle an immutable copy that its
// parallel Filter calls read without locks (rebuilt only after a change).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scheduler/framework/types.h"

namespace allot::scheduler {

// Nominated pods by node name.
using NominatedPods = std::unordered_map<std::string, std::vector<PodInfoPtr>>;

class Nominator {
 public:
  // Nominates `pod` to `node` (replacing an earlier nomination); "" removes it.
  void Set(PodInfoPtr pod, const std::string& node);
  // A new version of a pending pod: follows its status.nominatedNodeName, keeping the
  // in-memory nomination when neither `old_pod` nor the new one names a node.
  void Update(const api::Pod* old_pod, PodInfoPtr pod);
  void Remove(const std::string& uid);
  // Every nomination as of now (never null).
  std::shared_ptr<const NominatedPods> Current() const;
  // The pods nominated to `node`.
  std::vector<PodInfoPtr> ForNode(std::string_view node) const;
  // The node `uid` is nominated to; "" when none.
  std::string NodeOf(const std::string& uid) const;
  bool empty() const { return count_.load(std::memory_order_acquire) == 0; }

 private:
  void RemoveLocked(const std::string& uid);

  mutable std::mutex mu_;
  NominatedPods by_node_;                                 // guarded by mu_
  mutable std::shared_ptr<const NominatedPods> current_;  // guarded by mu_; null when stale
  std::unordered_map<std::string, std::string> node_of_;  // uid -> node; by mu_
  std::atomic<size_t> count_{0};
};

}  // namespace allot::scheduler
