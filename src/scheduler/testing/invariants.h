// Invariants every scheduler test can assert over the final cluster state (header-only; tests
// only):
//  - no node over-committed on any resource (cpu, memory, ephemeral-storage, extended
//    resources, pod count), counting pods' requests as Kubernetes computes them;
//  - every bound pod fits its node's nodeSelector / required node affinity and tolerates its
//    NoSchedule / NoExecute taints, and is not bound to a missing node;
//  - no pod was bound twice (given how many Scheduled events each pod got).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api/core/taints.h"
#include "api/core/types.h"
#include "scheduler/framework/types.h"
#include "scheduler/plugins/nodeaffinity/node_affinity.h"

namespace allot::scheduler::testing {

// Returns one line per violation (empty: all invariants hold). `scheduled_events`: pod uid ->
// number of Scheduled events recorded for it (optional).
inline std::vector<std::string> CheckInvariants(
    const std::vector<std::shared_ptr<const api::Node>>& nodes,
    const std::vector<std::shared_ptr<const api::Pod>>& pods,
    const std::map<std::string, int>& scheduled_events = {}) {
  std::vector<std::string> out;
  std::map<std::string, const api::Node*> by_name;
  std::map<std::string, Resource> used;
  std::map<std::string, int64_t> count;
  for (const auto& n : nodes) by_name[n->metadata.name] = n.get();
  for (const auto& p : pods) {
    const std::string& node_name = p->spec.nodeName;
    if (node_name.empty()) continue;
    const std::string who = p->metadata.namespace_ + "/" + p->metadata.name;
    auto it = by_name.find(node_name);
    if (it == by_name.end()) {
      out.push_back(who + " is bound to missing node " + node_name);
      continue;
    }
    const api::Node& node = *it->second;
    if (!PodMatchesNodeSelectorAndAffinity(*p, node)) {
      out.push_back(who + " does not match the affinity/selector of " + node_name);
    }
    for (const api::Taint& t : node.spec.taints) {
      if ((t.effect == "NoSchedule" || t.effect == "NoExecute") &&
          !api::TolerationsTolerateTaint(p->spec.tolerations, t)) {
        out.push_back(who + " does not tolerate taint " + t.key + " of " + node_name);
      }
    }
    if (p->status.phase == "Succeeded" || p->status.phase == "Failed") continue;
    used[node_name].Add(Resource::FromList(api::PodRequests(*p)));
    ++count[node_name];
  }
  for (const auto& [name, u] : used) {
    const api::NodeStatus& st = by_name[name]->status;
    Resource alloc = Resource::FromList(st.allocatable.empty() ? st.capacity : st.allocatable);
    auto over = [&](const std::string& what, int64_t want, int64_t have) {
      if (want > have) {
        out.push_back(name + " over-committed on " + what + ": " + std::to_string(want) + " > " +
                      std::to_string(have));
      }
    };
    over("cpu", u.milli_cpu, alloc.milli_cpu);
    over("memory", u.memory, alloc.memory);
    over("ephemeral-storage", u.ephemeral_storage, alloc.ephemeral_storage);
    over("pods", count[name], alloc.allowed_pods);
    for (const auto& [res, v] : u.scalars) over(res, v, alloc.Scalar(res));
  }
  for (const auto& [uid, n] : scheduled_events) {
    if (n > 1) out.push_back("pod " + uid + " was bound " + std::to_string(n) + " times");
  }
  return out;
}

}  // namespace allot::scheduler::testing
