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
  const QueuedPodInfo& Peek() const { return *items_.front().pod; }
  QueuedPodInfo* Get(const std::string& uid) {
    auto it = index_.find(uid);
    return it == index_.end() ? nullptr : items_[it->second].pod.get();
  }

  // A pod whose uid is queued already replaces the queued one in its place.
  void Push(std::unique_ptr<QueuedPodInfo> p) {
    auto [it, inserted] = index_.try_emplace(p->pod_info->uid(), items_.size());
    if (!inserted) {
      items_[it->second].pod = std::move(p);
      Up(it->second);
      Down(it->second);
      return;
    }
    items_.push_back({std::move(p), &it->second});
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
    Up(it->second);
    Down(it->second);
  }
  template <class F>
  void ForEach(F&& f) const {
    for (const Slot& s : items_) f(*s.pod);
  }

 private:
  // A queued pod and where index_ keeps its position: moving it within the heap rewrites the
  // position through the pointer (a map's values stay put), with no uid hashed.
  struct Slot {
    std::unique_ptr<QueuedPodInfo> pod;
    size_t* position;
  };

  std::unique_ptr<QueuedPodInfo> RemoveAt(size_t i) {
    std::unique_ptr<QueuedPodInfo> out = std::move(items_[i].pod);
    index_.erase(out->pod_info->uid());
    size_t last = items_.size() - 1;
    if (i != last) {
      items_[i] = std::move(items_[last]);
      *items_[i].position = i;
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
    *items_[a].position = a;
    *items_[b].position = b;
  }
  bool Before(size_t a, size_t b) const { return less_(*items_[a].pod, *items_[b].pod); }
  void Up(size_t i) {
    while (i > 0) {
      size_t parent = (i - 1) / 2;
      if (!Before(i, parent)) break;
      Swap(i, parent);
      i = parent;
    }
  }
  void Down(size_t i) {
    for (;;) {
      size_t l = 2 * i + 1, r = l + 1, m = i;
      if (l < items_.size() && Before(l, m)) m = l;
      if (r < items_.size() && Before(r, m)) m = r;
      if (m == i) return;
      Swap(i, m);
      i = m;
    }
  }

  Less less_;
  std::vector<Slot> items_;
  std::unordered_map<std::string, size_t> index_;  // uid -> position in items_
};

}  // namespace allot::scheduler
