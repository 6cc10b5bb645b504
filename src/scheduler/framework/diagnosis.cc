#include "scheduler/framework/diagnosis.h"

#include <algorithm>
#include <map>

namespace allot::scheduler {

namespace {

void InsertSorted(std::vector<std::string>& v, std::string_view s) {
  auto it = std::lower_bound(v.begin(), v.end(), s);
  if (it == v.end() || *it != s) v.emplace(it, s);
}

}  // namespace

void Diagnosis::AddPluginStatus(const Status& status) {
  if (status.plugin().empty()) return;
  if (status.code() == Code::kPending) {
    InsertSorted(pending_plugins, status.plugin());
  } else if (status.IsRejected()) {
    InsertSorted(unschedulable_plugins, status.plugin());
  }
}

void Diagnosis::AddUnschedulablePlugin(std::string_view plugin) {
  InsertSorted(unschedulable_plugins, plugin);
}

void Diagnosis::clear() {
  node_to_status.clear();
  unschedulable_plugins.clear();
  pending_plugins.clear();
  pre_filter_msg.clear();
  post_filter_msg.clear();
}

std::string FitErrorMessage(size_t num_all_nodes, const Diagnosis& d) {
  std::string msg = "0/" + std::to_string(num_all_nodes) + " nodes are available:";
  if (!d.pre_filter_msg.empty()) {
    msg += " " + d.pre_filter_msg + ".";
  } else {
    std::map<std::string, size_t> counts;
    for (const auto& [node, st] : d.node_to_status.explicit_statuses()) {
      for (const std::string& r : st.reasons()) ++counts[r];
    }
    size_t seen = d.node_to_status.size();
    if (seen < num_all_nodes) {
      for (const std::string& r : d.node_to_status.absent().reasons()) {
        counts[r] += num_all_nodes - seen;
      }
    }
    std::vector<std::string> parts;
    for (const auto& [reason, n] : counts) parts.push_back(std::to_string(n) + " " + reason);
    std::sort(parts.begin(), parts.end());  // Go sorts the "count reason" strings
    if (!parts.empty()) {
      msg += " ";
      for (size_t i = 0; i < parts.size(); ++i) msg += (i ? ", " : "") + parts[i];
      msg += ".";
    }
  }
  if (!d.post_filter_msg.empty()) msg += " " + d.post_filter_msg;
  return msg;
}

}  // namespace allot::scheduler
