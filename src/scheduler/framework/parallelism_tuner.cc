#include "scheduler/framework/parallelism_tuner.h"

#include <algorithm>

namespace allot::scheduler {

ParallelismTuner::ParallelismTuner(int max_helpers, int start)
    : max_(std::max(0, max_helpers)), settled_(std::clamp(start, 0, std::max(0, max_helpers))) {}

void ParallelismTuner::Record(int helpers, std::chrono::nanoseconds wall, int64_t items) {
  if (helpers != Next() || items <= 0) return;
  const int64_t ns = wall.count();
  if (probing_) {
    ++probe_jobs_;
    probe_ns_ += ns;
    probe_items_ += items;
    if (probe_jobs_ < kProbeJobs) return;
    const bool up = probe_ > settled_;
    const double probe_per_item = static_cast<double>(probe_ns_) / probe_items_;
    const double settled_per_item = avg_ns_ / avg_items_;
    if (probe_per_item < settled_per_item * (1 - kMargin)) {
      // A better place: settle there, go on in the same direction, and look around it soon.
      settled_ = probe_;
      avg_ns_ = static_cast<double>(probe_ns_) / probe_jobs_;
      avg_items_ = static_cast<double>(probe_items_) / probe_jobs_;
      next_up_ = up;
      wait_up_ = wait_down_ = kFirstWait;
    } else {
      int& wait = up ? wait_up_ : wait_down_;
      wait = std::min(wait * 2, kMaxWait);
      next_up_ = !up;
    }
    probing_ = false;
    since_probe_ = 0;
    return;
  }
  if (avg_items_ == 0) {
    avg_ns_ = static_cast<double>(ns);
    avg_items_ = static_cast<double>(items);
  } else {
    avg_ns_ += (static_cast<double>(ns) - avg_ns_) / kAverageJobs;
    avg_items_ += (static_cast<double>(items) - avg_items_) / kAverageJobs;
  }
  ++since_probe_;
  StartProbeIfDue();
}

void ParallelismTuner::StartProbeIfDue() {
  if (max_ == 0) return;
  bool up = next_up_;
  if (settled_ == max_) up = false;
  if (settled_ == 0) up = true;
  if (since_probe_ < (up ? wait_up_ : wait_down_)) return;
  probing_ = true;
  probe_ = settled_ + (up ? 1 : -1);
  probe_jobs_ = 0;
  probe_ns_ = 0;
  probe_items_ = 0;
}

}  // namespace allot::scheduler
