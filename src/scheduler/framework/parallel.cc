#include "scheduler/framework/parallel.h"

#include <algorithm>
#include <cmath>

#include "common/process_stats.h"

namespace allot::scheduler {

Parallelizer::Parallelizer(int parallelism, int start_helpers)
    : tuner_(std::max(1, parallelism) - 1, start_helpers), settled_(tuner_.settled()) {
  // Every Worker exists before any thread starts: the threads index workers_.
  for (int i = 1; i < std::max(1, parallelism); ++i) workers_.push_back(std::make_unique<Worker>());
  for (size_t i = 0; i < workers_.size(); ++i) {
    workers_[i]->thread = std::thread([this, i] {
      NameThisThread("sched-filter");
      WorkerLoop(static_cast<int>(i));
    });
  }
}

Parallelizer::~Parallelizer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutdown_ = true;
  }
  for (auto& w : workers_) w->wake.notify_all();
  for (auto& w : workers_) w->thread.join();
}

int Parallelizer::helpers() const { return settled_.load(std::memory_order_relaxed); }

int Parallelizer::ChunkSize(int n, int parallelism) {
  int s = static_cast<int>(std::sqrt(static_cast<double>(n)));
  int r = n / std::max(1, parallelism) + 1;
  return std::max(1, std::min(s, r));
}

void Parallelizer::Drain(Job& job) {
  int64_t done = 0;
  for (;;) {
    int start = job.next.fetch_add(job.chunk, std::memory_order_relaxed);
    if (start >= job.n) break;
    int end = std::min(job.n, start + job.chunk);
    int i = start;
    for (; i < end; ++i) {
      if (job.stop && job.stop->load(std::memory_order_relaxed)) break;
      (*job.fn)(i);
    }
    done += i - start;
    if (i < end) break;  // stopped
  }
  job.done.fetch_add(done, std::memory_order_relaxed);
}

void Parallelizer::Until(int n, const std::function<void(int)>& fn, const std::atomic<bool>* stop) {
  if (n <= 0) return;
  Job job;
  job.fn = &fn;
  job.stop = stop;
  job.n = n;
  // Too small to share at any count: inline, and not measured.
  if (workers_.empty() || n <= ChunkSize(n, parallelism())) {
    job.chunk = ChunkSize(n, 1);
    Drain(job);
    return;
  }
  std::lock_guard<std::mutex> call_lock(call_mu_);
  const int helpers = tuner_.Next();
  job.chunk = ChunkSize(n, helpers + 1);
  job.helpers = helpers;
  const auto start = std::chrono::steady_clock::now();
  if (helpers == 0) {
    Drain(job);
  } else {
    {
      // Notified under the lock: `sleeping` is read under it, and the loop allocates nothing.
      std::lock_guard<std::mutex> lock(mu_);
      job_ = &job;
      job_seq_.fetch_add(1, std::memory_order_release);
      for (int i = 0; i < helpers; ++i) {
        if (workers_[i]->sleeping) workers_[i]->wake.notify_one();
      }
    }
    Drain(job);
    std::unique_lock<std::mutex> lock(mu_);
    job_ = nullptr;  // late workers find no job
    done_cv_.wait(lock, [this] { return busy_workers_ == 0; });
  }
  tuner_.Record(helpers, std::chrono::steady_clock::now() - start,
                job.done.load(std::memory_order_relaxed));
  settled_.store(tuner_.settled(), std::memory_order_relaxed);
}

void Parallelizer::WorkerLoop(int index) {
  Worker& self = *workers_[index];
  uint64_t seen = 0;
  bool spin = false;  // took part in a job: the next one may follow at once
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (spin && job_seq_.load(std::memory_order_relaxed) == seen && !shutdown_) {
      // Spin a little before sleeping (see kSpin).
      lock.unlock();
      auto until = std::chrono::steady_clock::now() + kSpin;
      while (job_seq_.load(std::memory_order_acquire) == seen &&
             std::chrono::steady_clock::now() < until) {
      }
      lock.lock();
    }
    // Sleeps through the jobs that want fewer helpers than its index.
    self.sleeping = true;
    self.wake.wait(lock, [&] {
      return shutdown_ || (job_ != nullptr && job_seq_.load(std::memory_order_relaxed) != seen &&
                           index < job_->helpers);
    });
    self.sleeping = false;
    if (shutdown_) return;
    seen = job_seq_.load(std::memory_order_relaxed);
    Job* job = job_;
    ++busy_workers_;
    lock.unlock();
    Drain(*job);
    lock.lock();
    if (--busy_workers_ == 0) done_cv_.notify_all();
    spin = true;
  }
}

}  // namespace allot::scheduler
