// Parallelizer: a small fixed pool of worker threads for the data-parallel loops of a
// scheduling cycle (Filter and Score over nodes), as kube-scheduler's parallelize.Until.
//
// The calling thread works too. `parallelism` bounds the threads of a loop (parallelism - 1 of
// them pool threads, the helpers); how many helpers a loop actually wakes is chosen by
// measured benefit (ParallelismTuner: the wall time per item of loops run with more or fewer),
// so a machine or a workload on which helpers do not pay runs the loops inline. Work is handed
// out in chunks from an atomic counter; a caller-supplied stop flag ends the loop early (Filter
// stops once enough feasible nodes are found).
//
// Thread safety: Until may be called from any thread; concurrent calls run one after another.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "scheduler/framework/parallelism_tuner.h"

namespace allot::scheduler {

class Parallelizer {
 public:
  // parallelism >= 1. Pool threads are started once and live until destruction. Loops start
  // with `start_helpers` helpers (clamped to parallelism - 1) until the tuner moves.
  explicit Parallelizer(int parallelism, int start_helpers = 0);
  ~Parallelizer();
  Parallelizer(const Parallelizer&) = delete;
  Parallelizer& operator=(const Parallelizer&) = delete;

  int parallelism() const { return static_cast<int>(workers_.size()) + 1; }
  // The helpers a loop wakes now (the tuner's settled count), at most parallelism() - 1.
  int helpers() const;

  // Calls fn(i) for every i in [0, n) unless *stop becomes true first (items not yet started
  // are then skipped). Returns once every started call has returned. fn must be thread-safe.
  void Until(int n, const std::function<void(int)>& fn, const std::atomic<bool>* stop = nullptr);

  // kube-scheduler's chunk size: min(sqrt(n), n / parallelism + 1), at least 1.
  static int ChunkSize(int n, int parallelism);

 private:
  struct Job {
    const std::function<void(int)>* fn = nullptr;
    const std::atomic<bool>* stop = nullptr;
    int n = 0;
    int chunk = 1;
    int helpers = 0;  // pool threads 0 .. helpers-1 take part
    std::atomic<int> next{0};
    std::atomic<int64_t> done{0};  // items processed (the tuner's measure)
  };
  struct Worker {
    std::thread thread;
    std::condition_variable wake;  // Until notifies the helpers it wants
    bool sleeping = false;         // guarded by mu_
  };
  void WorkerLoop(int index);
  static void Drain(Job& job);

  // Why spin: a scheduling cycle runs two short parallel loops (Filter, Score) of tens to
  // hundreds of microseconds. Waking a sleeping worker through the kernel costs about as much
  // as the work, so a worker that took part in a job spins for a short while before it sleeps;
  // back-to-back cycles then hand work over through an atomic, without a context switch.
  static constexpr std::chrono::microseconds kSpin{50};

  std::mutex call_mu_;       // serializes Until
  ParallelismTuner tuner_;   // guarded by call_mu_
  std::atomic<int> settled_{0};  // tuner_.settled(), for helpers()
  std::mutex mu_;
  std::condition_variable done_cv_;
  Job* job_ = nullptr;                // guarded by mu_
  std::atomic<uint64_t> job_seq_{0};  // written under mu_
  int busy_workers_ = 0;              // guarded by mu_
  bool shutdown_ = false;             // guarded by mu_
  std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace allot::scheduler
