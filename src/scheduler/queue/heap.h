// PodHeap: a binary heap of queued pods with O(log n) removal by uid, for the active and
// backoff queues. Not thread-safe: the SchedulingQueue guards it with its lock.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "scheduler/framework/interface.h"

namespace allot::scheduler {

class PodHeap {
 public:
  using Less = std::function<bool(const QueuedPodInfo&, const QueuedPodInfo&)>;
  explicit PodHeap(Less less) : less_(std::move(less)) {}

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  bool Has(const std::string& uid) const { return index_.count(uid) != 0; }
  const QueuedPodInfo& Peek() const { return *items_.front(); }
  QueuedPodInfo* Get(const std::string& uid) {
    auto it = index_.find(uid);
    return it == index_.end() ? nullptr : items_[it->second].get();
  }

  void Push(std::unique_ptr<QueuedPodInfo> p) {
    index_[p->pod_info->uid()] = items_.size();
    items_.push_back(std::move(p));
    Up(items_.size() - 1);
  }
  std::unique_ptr<QueuedPodInfo> Pop() { return RemoveAt(0); }
  std::unique_ptr<QueuedPodInfo> Remove(const std::string& uid) {
    auto it = index_.find(uid);
    return it == index_.end() ? nullptr : RemoveAt(it->second);
  }
  // Restores the order after the item with this uid changed.
  void Fix(const std::string& uid) {
    auto it = index_.find(uid);
    if (it == index_.end()) return;
    size_t i = it->second;
    Up(i);
    Down(index_[uid]);
  }
  template <class F>
  void ForEach(F&& f) const {
    for (const auto& p : items_) f(*p);
  }

 private:
  std::unique_ptr<QueuedPodInfo> RemoveAt(size_t i) {
    std::unique_ptr<QueuedPodInfo> out = std::move(items_[i]);
    index_.erase(out->pod_info->uid());
    size_t last = items_.size() - 1;
    if (i != last) {
      items_[i] = std::move(items_[last]);
      index_[items_[i]->pod_info->uid()] = i;
      items_.pop_back();
      Up(i);
      Down(i);
    } else {
      items_.pop_back();
    }
    return out;
  }
  void Swap(size_t a, size_t b) {
    std::swap(items_[a], items_[b]);
    index_[items_[a]->pod_info->uid()] = a;
    index_[items_[b]->pod_info->uid()] = b;
  }
  void Up(size_t i) {
    while (i > 0) {
      size_t parent = (i - 1) / 2;
      if (!less_(*items_[i], *items_[parent])) break;
      Swap(i, parent);
      i = parent;
    }
  }
  void Down(size_t i) {
    for (;;) {
      size_t l = 2 * i + 1, r = l + 1, m = i;
      if (l < items_.size() && less_(*items_[l], *items_[m])) m = l;
      if (r < items_.size() && less_(*items_[r], *items_[m])) m = r;
      if (m == i) return;
      Swap(i, m);
      i = m;
    }
  }

  Less less_;
  std::vector<std::unique_ptr<QueuedPodInfo>> items_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace allot::scheduler
