// A queue of timers on a Clock's time line: Schedule at an instant, then PopDue(now) returns
// every payload whose instant has come, earliest first (ties in scheduling order). Nothing fires
// by itself: the owner decides when to look (NodeSimulator::Tick), so tests move a FakeClock
// and call Tick instead of sleeping.
//
// Cancellation is the payload's business (NodeSimulator stamps each pod timer with a token and
// ignores stale ones), which keeps the queue a plain binary heap. Not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <queue>
#include <utility>
#include <vector>

#include "common/time.h"

namespace allot::node {

template <class T>
class TimerQueue {
 public:
  void Schedule(Time due, T payload) { heap_.push(Entry{due, next_seq_++, std::move(payload)}); }

  // Appends to `out` every payload due at or before `now`; returns how many.
  size_t PopDue(Time now, std::vector<T>& out) {
    size_t n = 0;
    while (!heap_.empty() && heap_.top().due <= now) {
      // priority_queue::top is const; the payload is moved out just before pop.
      out.push_back(std::move(const_cast<Entry&>(heap_.top()).payload));
      heap_.pop();
      ++n;
    }
    return n;
  }

  std::optional<Time> NextDue() const {
    if (heap_.empty()) return std::nullopt;
    return heap_.top().due;
  }
  size_t size() const { return heap_.size(); }
  bool empty() const { return heap_.empty(); }

 private:
  struct Entry {
    Time due;
    uint64_t seq;
    T payload;
  };
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.due != b.due ? a.due > b.due : a.seq > b.seq;
    }
  };
  std::priority_queue<Entry, std::vector<Entry>, Later> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace allot::node
