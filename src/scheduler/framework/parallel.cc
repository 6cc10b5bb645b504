#include "scheduler/framework/parallel.h"

#include <algorithm>
#include <cmath>

#include "common/process_stats.h"

namespace allot::scheduler {

Parallelizer::Parallelizer(int parallelism) {
  for (int i = 1; i < std::max(1, parallelism); ++i)
    workers_.emplace_back([this] {
      NameThisThread("sched-filter");
      WorkerLoop();
    });
}

Parallelizer::~Parallelizer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutdown_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

int Parallelizer::ChunkSize(int n, int parallelism) {
  int s = static_cast<int>(std::sqrt(static_cast<double>(n)));
  int r = n / std::max(1, parallelism) + 1;
  return std::max(1, std::min(s, r));
}

void Parallelizer::Drain(Job& job) {
  for (;;) {
    int start = job.next.fetch_add(job.chunk, std::memory_order_relaxed);
    if (start >= job.n) return;
    int end = std::min(job.n, start + job.chunk);
    for (int i = start; i < end; ++i) {
      if (job.stop && job.stop->load(std::memory_order_relaxed)) return;
      (*job.fn)(i);
    }
  }
}

void Parallelizer::Until(int n, const std::function<void(int)>& fn, const std::atomic<bool>* stop) {
  if (n <= 0) return;
  Job job;
  job.fn = &fn;
  job.stop = stop;
  job.n = n;
  job.chunk = ChunkSize(n, parallelism());
  if (workers_.empty() || n <= job.chunk) {
    Drain(job);
    return;
  }
  std::lock_guard<std::mutex> call_lock(call_mu_);
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = &job;
    job_seq_.fetch_add(1, std::memory_order_release);
    wake = sleeping_workers_ > 0;
  }
  if (wake) work_cv_.notify_all();
  Drain(job);
  std::unique_lock<std::mutex> lock(mu_);
  job_ = nullptr;  // late workers find no job
  done_cv_.wait(lock, [this] { return busy_workers_ == 0; });
}

void Parallelizer::WorkerLoop() {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (job_seq_.load(std::memory_order_relaxed) == seen && !shutdown_) {
      // Spin a little before sleeping (see kSpin).
      lock.unlock();
      auto until = std::chrono::steady_clock::now() + kSpin;
      while (job_seq_.load(std::memory_order_acquire) == seen &&
             std::chrono::steady_clock::now() < until) {
      }
      lock.lock();
    }
    ++sleeping_workers_;
    work_cv_.wait(lock, [&] {
      return shutdown_ || (job_ != nullptr && job_seq_.load(std::memory_order_relaxed) != seen);
    });
    --sleeping_workers_;
    if (shutdown_) return;
    seen = job_seq_.load(std::memory_order_relaxed);
    Job* job = job_;
    ++busy_workers_;
    lock.unlock();
    Drain(*job);
    lock.lock();
    if (--busy_workers_ == 0) done_cv_.notify_all();
  }
}

}  // namespace allot::scheduler
