#include "node/write_pipeline.h"

#include <utility>

namespace allot::node {

WritePipeline::WritePipeline(size_t max_in_flight, Clock* clock)
    : max_in_flight_(max_in_flight == 0 ? 1 : max_in_flight), clock_(clock) {}

WritePipeline::~WritePipeline() { Shutdown(); }

void WritePipeline::Submit(Op op) {
  std::unique_lock<std::mutex> lock(mu_);
  if (shut_down_) return;
  if (clock_) clock_->BeginWork();
  queue_.push_back(std::move(op));
  PumpLocked(lock);
}

void WritePipeline::Finish() {
  std::unique_lock<std::mutex> lock(mu_);
  --in_flight_;
  PumpLocked(lock);
  if (clock_) clock_->EndWork();
}

// Starts queued ops while there is room; called and returns with `lock` held.
//
// One thread pumps at a time: an op that completes synchronously calls Finish -> PumpLocked,
// which returns at once because the outer loop is still running and will see the freed slot;
// this keeps the stack flat however many ops complete inline.
//
// Why Finish decrements and pumps under one lock: with the lock dropped in between, Shutdown
// could see nothing in flight and let the pipeline be destroyed while the finishing thread was
// about to touch it again. Now the last access of a finishing thread is the unlock itself, after
// which Shutdown's waiter may proceed.
void WritePipeline::PumpLocked(std::unique_lock<std::mutex>& lock) {
  if (!pumping_) {
    pumping_ = true;
    while (!queue_.empty() && in_flight_ < max_in_flight_) {
      Op op = std::move(queue_.front());
      queue_.pop_front();
      ++in_flight_;
      ++started_;
      lock.unlock();
      op([this] { Finish(); });
      lock.lock();
    }
    pumping_ = false;
  }
  if (queue_.empty() && in_flight_ == 0 && !pumping_) idle_cv_.notify_all();
}

bool WritePipeline::WaitIdle(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return idle_cv_.wait_for(lock, timeout,
                           [&] { return queue_.empty() && in_flight_ == 0 && !pumping_; });
}

void WritePipeline::Shutdown() {
  std::unique_lock<std::mutex> lock(mu_);
  shut_down_ = true;
  if (clock_ && !queue_.empty()) clock_->EndWork(static_cast<int64_t>(queue_.size()));
  queue_.clear();
  idle_cv_.wait(lock, [&] { return in_flight_ == 0 && !pumping_; });
}

WritePipeline::Counts WritePipeline::GetCounts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return Counts{started_, in_flight_, queue_.size()};
}

}  // namespace allot::node
