// TaskPool: a fixed set of threads running submitted tasks in FIFO order (the scheduler's binding
// workers; DynamicResources' background writer). Thread-safe. Stop() runs the tasks already
// queued, then joins.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/process_stats.h"

namespace allot {

class TaskPool {
 public:
  // `name`: the threads' name (NameThisThread), "" to leave them unnamed.
  explicit TaskPool(int threads, std::string_view name = {}) {
    for (int i = 0; i < threads; ++i) {
      threads_.emplace_back([this, n = std::string(name)] {
        if (!n.empty()) NameThisThread(n);
        Loop();
      });
    }
  }
  ~TaskPool() { Stop(); }
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

  // Runs `task` on a pool thread. After Stop, runs it on the caller's thread.
  void Submit(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!stopped_) {
        tasks_.push_back(std::move(task));
        cv_.notify_one();
        return;
      }
    }
    task();
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopped_) return;
      stopped_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [this] { return stopped_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopped and drained
      std::function<void()> task = std::move(tasks_.front());
      tasks_.pop_front();
      lock.unlock();
      task();
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;  // guarded by mu_
  bool stopped_ = false;                     // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace allot
