// The in-flight limits: kube-apiserver's --max-requests-inflight and
// --max-mutating-requests-inflight. At most `max_readonly` reads and `max_mutating` writes are
// being answered at once; one more gets 429 TooManyRequests at once, before it is read further.
// A limit of 0 leaves that kind unlimited. Which requests count (not watches and other
// long-running requests, not health probes) is the handler's to decide (apiserver/handler.cc).
//
//   if (limits.Limits(mutating)) {
//     if (!limits.TryAcquire(mutating)) return Reply429();
//     ... answer, then limits.Release(mutating);
//   }
//
// Thread safety: thread-safe; lock-free.
#pragma once

#include <atomic>

namespace allot::apiserver {

class InFlightLimits {
 public:
  InFlightLimits(int max_readonly, int max_mutating)
      : max_readonly_(max_readonly), max_mutating_(max_mutating) {}

  // Whether requests of this kind are limited at all.
  bool Limits(bool mutating) const { return (mutating ? max_mutating_ : max_readonly_) > 0; }
  // Takes a slot of a limited kind; false (nothing taken) when every slot is taken.
  bool TryAcquire(bool mutating);
  // Gives back a slot TryAcquire took.
  void Release(bool mutating);

 private:
  const int max_readonly_;
  const int max_mutating_;
  std::atomic<int> readonly_{0};
  std::atomic<int> mutating_{0};
};

}  // namespace allot::apiserver
