// Parallelizer: a small fixed pool of worker threads for the data-parallel loops of a
// scheduling cycle (Filter and Score over nodes), as kube-scheduler's parallelize.Until.
//
// The calling thread works too, so `parallelism` threads run at most (parallelism - 1 of them
// pool threads). Work is handed out in chunks from an atomic counter; a caller-supplied stop
// flag ends the loop early (Filter stops once enough feasible nodes are found).
//
// Thread safety: Until may be called from any thread; concurrent calls run one after another.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace allot::scheduler {

class Parallelizer {
 public:
  // parallelism >= 1. Pool threads are started once and live until destruction.
  explicit Parallelizer(int parallelism);
  ~Parallelizer();
  Parallelizer(const Parallelizer&) = delete;
  Parallelizer& operator=(const Parallelizer&) = delete;

  int parallelism() const { return static_cast<int>(workers_.size()) + 1; }

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
    std::atomic<int> next{0};
  };
  void WorkerLoop();
  static void Drain(Job& job);

  // Why spin: a scheduling cycle runs two short parallel loops (Filter, Score) of tens to
  // hundreds of microseconds. Waking a sleeping worker through the kernel costs about as much
  // as the work, so workers spin for a short while after a job before they sleep; back-to-back
  // cycles then hand work over through an atomic, without a context switch.
  static constexpr std::chrono::microseconds kSpin{50};

  std::mutex call_mu_;  // serializes Until
  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  Job* job_ = nullptr;                // guarded by mu_
  std::atomic<uint64_t> job_seq_{0};  // written under mu_
  int busy_workers_ = 0;              // guarded by mu_
  int sleeping_workers_ = 0;          // guarded by mu_
  bool shutdown_ = false;             // guarded by mu_
  std::vector<std::thread> workers_;
};

}  // namespace allot::scheduler
