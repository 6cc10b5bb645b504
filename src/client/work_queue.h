// A rate-limited work queue of string keys, with client-go's workqueue semantics, for controllers
// and drivers:
//
//   WorkQueue queue(clock);
//   queue.Add("pod:default/p1");                 // from informer handlers
//   while (auto key = queue.Get()) {             // in each worker thread
//     Status st = Sync(*key);
//     if (st.ok()) queue.Forget(*key); else queue.AddRateLimited(*key);
//     queue.Done(*key);
//   }
//
//  - De-duplication: a key added several times before a worker takes it is processed once.
//  - A key is processed by at most one worker at a time: a key added while it is being
//    processed is queued again only when that worker calls Done, so the worker that sees the
//    newer state runs after the current one finished.
//  - Delays: AddAfter(key, d) adds the key once `d` has passed on the Clock's steady time.
//    AddRateLimited(key) delays by the rate limiter (below); Forget(key) resets the key's
//    failure count after a success.
//
// Rate limiter (client-go's DefaultControllerRateLimiter): the larger of
//  - per key: base_delay * 2^failures, capped at max_delay (5 ms .. 1000 s), and
//  - overall: a token bucket of `qps` tokens per second with `burst` tokens (10 qps, 100).
//
// Time: delays are measured on Clock::Steady(), and a worker waits for the earliest delayed key
// through Clock::WaitUntil, so a FakeClock moved by a test or the simulator's clock releases due
// keys. Each key from Add until its Done counts as work in flight on the clock.
//
// Thread safety: all methods are thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "common/time.h"

namespace allot::client {

struct WorkQueueOptions {
  std::chrono::milliseconds base_delay{5};
  std::chrono::milliseconds max_delay{1000 * 1000};
  double qps = 10;
  int burst = 100;
};

class WorkQueue {
 public:
  using Duration = std::chrono::steady_clock::duration;
  using TimePoint = std::chrono::steady_clock::time_point;

  explicit WorkQueue(Clock& clock, WorkQueueOptions options = {});
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Queues `key` unless it is already queued (no-op after ShutDown).
  void Add(const std::string& key);
  // Queues `key` once `delay` has passed; an earlier pending delay for the key wins.
  void AddAfter(const std::string& key, Duration delay);
  // AddAfter(key, When(key)).
  void AddRateLimited(const std::string& key);
  // The rate limiter's delay for one more failure of `key` (and counts that failure).
  Duration When(const std::string& key);
  // Resets the failure count of `key` (call after it was processed successfully).
  void Forget(const std::string& key);
  // The number of failures recorded for `key` since its last Forget.
  int NumRequeues(const std::string& key) const;

  // Blocks until a key is ready and returns it (the key is then "processing" until Done);
  // nullopt once the queue is shut down.
  std::optional<std::string> Get();
  // Ends the processing of `key`; if it was added meanwhile, it is queued again.
  void Done(const std::string& key);

  // Wakes every Get() (they return nullopt) and drops further adds. Idempotent.
  void ShutDown();
  bool ShuttingDown() const;

  // Keys queued and ready (not processing, not delayed).
  size_t Len() const;
  // Keys waiting for their delay.
  size_t DelayedLen() const;
  // Get calls blocked right now, waiting for a key.
  size_t Waiting() const;

 private:
  using Lock = std::unique_lock<std::mutex>;
  void AddLocked(const std::string& key);
  // Moves delayed keys whose time has come to the queue.
  void FlushDelayedLocked();
  Duration RateLimitLocked(const std::string& key);

  Clock& clock_;
  const WorkQueueOptions options_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;              // guarded by mu_
  std::set<std::string> dirty_;                // guarded by mu_: queued or re-added
  std::set<std::string> processing_;           // guarded by mu_
  std::map<std::string, TimePoint> delayed_;   // guarded by mu_: key -> when it is due
  std::multimap<TimePoint, std::string> due_;  // guarded by mu_: the same, by time
  std::map<std::string, int> failures_;        // guarded by mu_
  double tokens_;                              // guarded by mu_
  TimePoint tokens_at_;                        // guarded by mu_
  bool shutting_down_ = false;                 // guarded by mu_
  size_t waiting_ = 0;                         // guarded by mu_
};

}  // namespace allot::client
