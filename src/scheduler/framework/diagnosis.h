// Why a pod fits nowhere, and the message that says so (kube-scheduler's framework.Diagnosis
// and FitError): filled by the scheduling algorithm, read by PostFilter plugins (preemption)
// and written into the pod's PodScheduled condition.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/framework/interface.h"
#include "scheduler/framework/status.h"

namespace allot::scheduler {

// Why a pod fits nowhere.
struct Diagnosis {
  NodeToStatus node_to_status;
  std::vector<std::string> unschedulable_plugins;  // sorted, unique
  std::vector<std::string> pending_plugins;        // sorted, unique
  std::string pre_filter_msg;
  std::string post_filter_msg;

  // Records the status's plugin as rejecting (or pending).
  void AddPluginStatus(const Status& status);
  void AddUnschedulablePlugin(std::string_view plugin);
  void clear();
};

// "0/N nodes are available: <PreFilterMsg>." or "0/N nodes are available: <count reason, ...
// sorted>." followed by " <PostFilterMsg>" when PostFilter said something.
std::string FitErrorMessage(size_t num_all_nodes, const Diagnosis& diagnosis);

}  // namespace allot::scheduler
