// Bounds how many asynchronous API writes a simulator has outstanding. Thousands of nodes and
// pods produce writes in bursts (registration, a heartbeat round, a burst of bindings); the
// pipeline starts at most `max_in_flight` at once and queues the rest in submission order, so
// the client, the server and the store see a steady stream they can group-commit, never an
// unbounded pile of requests.
//
// Thread safety: all methods are thread-safe. An Op runs on whichever thread submits it or
// completes an earlier one (never under the pipeline's lock); it must start one asynchronous
// write and call `done` exactly once when that write has answered (from any thread, possibly
// before returning).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>

#include "common/time.h"

namespace allot::node {

class WritePipeline {
 public:
  using Done = std::function<void()>;
  using Op = std::function<void(Done done)>;

  // `clock` (optional) counts each op from Submit until its `done` as work in flight
  // (common/time.h).
  explicit WritePipeline(size_t max_in_flight, Clock* clock = nullptr);
  ~WritePipeline();  // Drops queued ops and waits for the ones in flight.
  WritePipeline(const WritePipeline&) = delete;
  WritePipeline& operator=(const WritePipeline&) = delete;

  void Submit(Op op);
  // True once nothing is queued or in flight; false when `timeout` passed first.
  bool WaitIdle(std::chrono::milliseconds timeout);
  // Drops every queued op (never started) and waits until the ones in flight are done.
  void Shutdown();

  struct Counts {
    uint64_t started = 0;
    size_t in_flight = 0;
    size_t queued = 0;
  };
  Counts GetCounts() const;

 private:
  void PumpLocked(std::unique_lock<std::mutex>& lock);
  void Finish();

  const size_t max_in_flight_;
  Clock* const clock_;
  mutable std::mutex mu_;
  std::condition_variable idle_cv_;
  std::deque<Op> queue_;    // guarded by mu_
  size_t in_flight_ = 0;    // guarded by mu_
  uint64_t started_ = 0;    // guarded by mu_
  bool pumping_ = false;    // guarded by mu_: one thread at a time starts ops
  bool shut_down_ = false;  // guarded by mu_
};

}  // namespace allot::node
