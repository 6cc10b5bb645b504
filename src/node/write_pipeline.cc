#include "node/write_pipeline.h"

#include <utility>

namespace allot::node {

WritePipeline::WritePipeline(size_t max_in_flight)
    : max_in_flight_(max_in_flight == 0 ? 1 : max_in_flight) {}

WritePipeline::~WritePipeline() { Shutdown(); }

void WritePipeline::Submit(Op op) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shut_down_) return;
    queue_.push_back(std::move(op));
  }
  Pump();
}

// Starts queued ops while there is room. One thread pumps at a time: an op that completes
// synchronously calls Finish -> Pump, which returns at once because the outer loop is still
// running and will see the freed slot; this keeps the stack flat however many ops complete
// inline.
void WritePipeline::Pump() {
  std::unique_lock<std::mutex> lock(mu_);
  if (pumping_) return;
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
  if (queue_.empty() && in_flight_ == 0) idle_cv_.notify_all();
}

void WritePipeline::Finish() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    --in_flight_;
    if (queue_.empty() && in_flight_ == 0) idle_cv_.notify_all();
  }
  Pump();
}

bool WritePipeline::WaitIdle(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return idle_cv_.wait_for(lock, timeout,
                           [&] { return queue_.empty() && in_flight_ == 0 && !pumping_; });
}

void WritePipeline::Shutdown() {
  std::unique_lock<std::mutex> lock(mu_);
  shut_down_ = true;
  queue_.clear();
  idle_cv_.wait(lock, [&] { return in_flight_ == 0 && !pumping_; });
}

WritePipeline::Counts WritePipeline::GetCounts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return Counts{started_, in_flight_, queue_.size()};
}

}  // namespace allot::node
