#include "client/work_queue.h"

#include <algorithm>
#include <cmath>

namespace allot::client {

WorkQueue::WorkQueue(Clock& clock, WorkQueueOptions options)
    : clock_(clock),
      options_(options),
      tokens_(static_cast<double>(options.burst)),
      tokens_at_(clock.Steady()) {}

void WorkQueue::Add(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  AddLocked(key);
}

void WorkQueue::AddLocked(const std::string& key) {
  if (shutting_down_ || dirty_.count(key)) return;
  dirty_.insert(key);
  clock_.BeginWork();
  if (processing_.count(key)) return;  // Done() queues it again
  queue_.push_back(key);
  cv_.notify_one();
}

void WorkQueue::AddAfter(const std::string& key, Duration delay) {
  std::lock_guard<std::mutex> lock(mu_);
  if (shutting_down_) return;
  if (delay <= Duration::zero()) return AddLocked(key);
  TimePoint due = clock_.Steady() + delay;
  auto it = delayed_.find(key);
  if (it != delayed_.end()) {
    if (it->second <= due) return;
    auto range = due_.equal_range(it->second);
    for (auto d = range.first; d != range.second; ++d) {
      if (d->second == key) {
        due_.erase(d);
        break;
      }
    }
    it->second = due;
  } else {
    delayed_.emplace(key, due);
  }
  due_.emplace(due, key);
  cv_.notify_all();  // a waiting worker may need to wake earlier
}

WorkQueue::Duration WorkQueue::RateLimitLocked(const std::string& key) {
  // Per key: base * 2^failures, capped.
  int n = failures_[key]++;
  double per_key_ms = static_cast<double>(options_.base_delay.count()) * std::pow(2.0, n);
  per_key_ms = std::min(per_key_ms, static_cast<double>(options_.max_delay.count()));
  // Overall token bucket: reserve one token; a deficit is paid by waiting.
  TimePoint now = clock_.Steady();
  double elapsed_s = std::chrono::duration<double>(now - tokens_at_).count();
  tokens_at_ = now;
  tokens_ = std::min(static_cast<double>(options_.burst), tokens_ + elapsed_s * options_.qps);
  tokens_ -= 1;
  double bucket_ms = tokens_ >= 0 ? 0 : -tokens_ / options_.qps * 1000;
  double ms = std::max(per_key_ms, bucket_ms);
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double, std::milli>(ms));
}

WorkQueue::Duration WorkQueue::When(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  return RateLimitLocked(key);
}

void WorkQueue::AddRateLimited(const std::string& key) { AddAfter(key, When(key)); }

void WorkQueue::Forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  failures_.erase(key);
}

int WorkQueue::NumRequeues(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

void WorkQueue::FlushDelayedLocked() {
  if (due_.empty()) return;
  TimePoint now = clock_.Steady();
  while (!due_.empty() && due_.begin()->first <= now) {
    std::string key = std::move(due_.begin()->second);
    due_.erase(due_.begin());
    delayed_.erase(key);
    AddLocked(key);
  }
}

std::optional<std::string> WorkQueue::Get() {
  Lock lock(mu_);
  while (true) {
    if (shutting_down_) return std::nullopt;
    FlushDelayedLocked();
    if (!queue_.empty()) break;
    ++waiting_;
    // Until the earliest delayed key is due, a key is queued, or an earlier delay comes in.
    const TimePoint due = due_.empty() ? TimePoint::max() : due_.begin()->first;
    clock_.WaitUntil(cv_, lock, due, [&] {
      return shutting_down_ || !queue_.empty() || (!due_.empty() && due_.begin()->first < due);
    });
    --waiting_;
  }
  std::string key = std::move(queue_.front());
  queue_.pop_front();
  processing_.insert(key);
  dirty_.erase(key);
  return key;
}

void WorkQueue::Done(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  if (processing_.erase(key)) clock_.EndWork();
  if (dirty_.count(key) && !shutting_down_) {
    queue_.push_back(key);
    cv_.notify_one();
  }
}

void WorkQueue::ShutDown() {
  std::lock_guard<std::mutex> lock(mu_);
  shutting_down_ = true;
  // Keys never handed to a worker will not be: they are no longer in flight.
  if (!dirty_.empty()) clock_.EndWork(static_cast<int64_t>(dirty_.size()));
  dirty_.clear();
  cv_.notify_all();
}

bool WorkQueue::ShuttingDown() const {
  std::lock_guard<std::mutex> lock(mu_);
  return shutting_down_;
}

size_t WorkQueue::Waiting() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waiting_;
}

size_t WorkQueue::Len() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

size_t WorkQueue::DelayedLen() const {
  std::lock_guard<std::mutex> lock(mu_);
  return delayed_.size();
}

}  // namespace allot::client
