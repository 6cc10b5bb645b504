#include "scheduler/framework/nominator.h"

#include <algorithm>

namespace allot::scheduler {

void Nominator::Set(PodInfoPtr pod, const std::string& node) {
  std::lock_guard<std::mutex> lock(mu_);
  RemoveLocked(pod->uid());
  if (node.empty()) return;
  node_of_[pod->uid()] = node;
  by_node_[node].push_back(std::move(pod));
  current_.reset();
  count_.store(node_of_.size(), std::memory_order_release);
}

void Nominator::Update(const api::Pod* old_pod, PodInfoPtr pod) {
  std::string node = pod->pod->status.nominatedNodeName;
  if (node.empty() && (!old_pod || old_pod->status.nominatedNodeName.empty())) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = node_of_.find(pod->uid());
    if (it == node_of_.end()) return;
    node = it->second;  // nominated in memory; the informer has not seen the write yet
  }
  Set(std::move(pod), node);
}

void Nominator::Remove(const std::string& uid) {
  if (empty()) return;  // the common case, on every assume: no lock
  std::lock_guard<std::mutex> lock(mu_);
  RemoveLocked(uid);
}

void Nominator::RemoveLocked(const std::string& uid) {
  auto it = node_of_.find(uid);
  if (it == node_of_.end()) return;
  auto n = by_node_.find(it->second);
  if (n != by_node_.end()) {
    std::erase_if(n->second, [&](const PodInfoPtr& p) { return p->uid() == uid; });
    if (n->second.empty()) by_node_.erase(n);
  }
  node_of_.erase(it);
  current_.reset();
  count_.store(node_of_.size(), std::memory_order_release);
}

std::shared_ptr<const NominatedPods> Nominator::Current() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!current_) current_ = std::make_shared<const NominatedPods>(by_node_);
  return current_;
}

std::vector<PodInfoPtr> Nominator::ForNode(std::string_view node) const {
  if (empty()) return {};
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_node_.find(std::string(node));
  return it == by_node_.end() ? std::vector<PodInfoPtr>{} : it->second;
}

std::string Nominator::NodeOf(const std::string& uid) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = node_of_.find(uid);
  return it == node_of_.end() ? std::string() : it->second;
}

}  // namespace allot::scheduler
