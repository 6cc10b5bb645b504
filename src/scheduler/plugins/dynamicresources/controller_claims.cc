#include "scheduler/plugins/dynamicresources/controller_claims.h"

#include <algorithm>
#include <unordered_set>

#include "api/machinery/selector.h"

namespace allot::scheduler::dra_plugin {

bool PendingControllerClaim::Unsuitable(const std::string& node) const {
  return std::binary_search(unsuitable.begin(), unsuitable.end(), node);
}

bool ClassesAllow(const PendingControllerClaim& claim, const api::Node& node) {
  for (const auto& alternatives : claim.classes) {
    bool allowed = false;
    for (const auto& cls : alternatives) {
      if (!cls->spec.suitableNodes ||
          api::MatchesNodeSelector(*cls->spec.suitableNodes, node.metadata.labels,
                                   node.metadata.name)) {
        allowed = true;
        break;
      }
    }
    if (!allowed) return false;
  }
  return true;
}

std::string NodeInAllocation(const api::PodSchedulingContext* context,
                             std::span<const PendingControllerClaim> pending) {
  if (!context || context->spec.selectedNode.empty() || pending.empty()) return "";
  for (const PendingControllerClaim& p : pending) {
    if (p.Unsuitable(context->spec.selectedNode)) return "";
  }
  return context->spec.selectedNode;
}

std::vector<std::string> VettedNodes(const api::PodSchedulingContext* context,
                                     std::span<const PendingControllerClaim> pending) {
  std::vector<std::string> out;
  if (!context || pending.empty()) return out;
  for (const PendingControllerClaim& p : pending) {
    if (!p.answered) return out;
  }
  out = context->spec.potentialNodes;
  if (!context->spec.selectedNode.empty()) out.push_back(context->spec.selectedNode);
  std::erase_if(out, [&](const std::string& node) {
    return std::any_of(pending.begin(), pending.end(),
                       [&](const PendingControllerClaim& p) { return p.Unsuitable(node); });
  });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

api::PodSchedulingContextSpec DecideContext(const std::string& host,
                                            const std::vector<NodeRanking::Entry>& ranking,
                                            const api::PodSchedulingContextSpec* current,
                                            std::span<const PendingControllerClaim> pending,
                                            size_t max_nodes) {
  auto unsuitable_for_some = [&](const std::string& node) {
    return std::any_of(pending.begin(), pending.end(),
                       [&](const PendingControllerClaim& p) { return p.Unsuitable(node); });
  };
  api::PodSchedulingContextSpec out;
  const bool keep = current && !current->potentialNodes.empty() &&
                    std::find(current->potentialNodes.begin(), current->potentialNodes.end(),
                              host) != current->potentialNodes.end() &&
                    std::none_of(current->potentialNodes.begin(), current->potentialNodes.end(),
                                 unsuitable_for_some);
  if (keep) {
    out.potentialNodes = current->potentialNodes;
  } else {
    std::vector<const NodeRanking::Entry*> order;
    order.reserve(ranking.size());
    for (const NodeRanking::Entry& e : ranking) order.push_back(&e);
    std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
      return a->score != b->score ? a->score > b->score : a->node < b->node;
    });
    std::unordered_set<std::string> chosen;
    auto add = [&](const std::string& node) {
      if (out.potentialNodes.size() < max_nodes && chosen.insert(node).second) {
        out.potentialNodes.push_back(node);
      }
    };
    add(host);
    if (current && !current->selectedNode.empty() && !unsuitable_for_some(current->selectedNode)) {
      for (const NodeRanking::Entry& e : ranking) {
        if (e.node == current->selectedNode) add(e.node);
      }
    }
    for (const NodeRanking::Entry* e : order) add(e->node);
    std::sort(out.potentialNodes.begin(), out.potentialNodes.end());
  }
  const bool all_answered = std::all_of(pending.begin(), pending.end(),
                                        [](const PendingControllerClaim& p) { return p.answered; });
  const bool in_allocation = current && !current->selectedNode.empty() &&
                             current->selectedNode == host && !unsuitable_for_some(host);
  if (in_allocation || all_answered || pending.size() == 1) out.selectedNode = host;
  return out;
}

std::vector<std::string> AwaitedDrivers(const api::PodSchedulingContextSpec& published,
                                        std::span<const PendingControllerClaim> pending) {
  std::vector<std::string> out;
  for (const PendingControllerClaim& p : pending) {
    if (published.selectedNode.empty() && p.answered) continue;
    out.push_back(p.driver);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string WaitingMessage(const std::vector<std::string>& drivers,
                           const std::string& selected_node) {
  std::string out =
      drivers.size() == 1 ? "waiting for resource driver " : "waiting for resource drivers ";
  for (size_t i = 0; i < drivers.size(); ++i) out += (i ? ", " : "") + drivers[i];
  // The node is left out so that the rounds of one negotiation say the same (the pod's
  // condition is not rewritten each round); the context's selectedNode names it.
  if (selected_node.empty()) return out + " to provide information";
  return out + " to allocate the pod's claims";
}

}  // namespace allot::scheduler::dra_plugin
