#include "sim/clock.h"

#include <utility>

namespace allot::sim {

namespace {

// The unit of work a clock counted for this thread when it woke it at its deadline; paid back
// when the thread next waits on that clock.
struct Owed {
  SimClock* clock = nullptr;
  int64_t units = 0;
};
thread_local Owed owed;

}  // namespace

SimClock::SimClock(Time start) : start_(start) {}

Time SimClock::Now() const {
  std::lock_guard<std::mutex> lock(mu_);
  return Time{start_.unix_micros + offset_.count()};
}

Clock::SteadyPoint SimClock::Steady() const {
  std::lock_guard<std::mutex> lock(mu_);
  return SteadyPoint(offset_);
}

Time SimClock::WallAt(SteadyPoint t) const {
  return Time{start_.unix_micros +
              std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count()};
}

bool SimClock::WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                         SteadyPoint deadline, const std::function<bool()>& pred) {
  // What this thread owes is paid only once its deadline is registered (in the same critical
  // section): the driver must not see the system quiet while a deadline it should wait for is
  // not yet known, or it would move time past it.
  auto pay_locked = [&] {
    if (owed.clock != this || owed.units == 0) return;
    const int64_t n = std::exchange(owed.units, 0);
    if (in_flight_.fetch_sub(n) == n) quiet_cv_.notify_all();
  };
  if (pred()) {
    std::lock_guard<std::mutex> g(mu_);
    pay_locked();
    return true;
  }
  std::shared_ptr<Waiter> waiter;
  WaiterKey key;
  {
    std::lock_guard<std::mutex> g(mu_);
    // Already due: the caller goes on working, still owing what it owed.
    if (SteadyPoint(offset_) >= deadline) return false;
    if (deadline != SteadyPoint::max()) {
      waiter = std::make_shared<Waiter>(Waiter{&cv, lock.mutex()});
      key = {deadline, next_seq_++};
      waiters_.emplace(key, waiter);
    }
    pay_locked();
  }
  bool fired = false;
  for (;;) {
    if (pred()) break;
    if (waiter) {
      std::lock_guard<std::mutex> g(mu_);
      if (waiter->fired) break;
    }
    cv.wait(lock);
  }
  if (waiter) {
    std::lock_guard<std::mutex> g(mu_);
    fired = waiter->fired;
    if (!fired) waiters_.erase(key);
  }
  if (fired) EndWorkWhenWaiting(1);
  return pred();
}

void SimClock::BeginWork(int64_t n) { in_flight_.fetch_add(n); }

void SimClock::EndWorkWhenWaiting(int64_t n) {
  if (owed.clock != this) {
    if (owed.clock && owed.units > 0) owed.clock->EndWork(owed.units);
    owed = Owed{this, 0};
  }
  owed.units += n;
}

void SimClock::EndWork(int64_t n) {
  if (in_flight_.fetch_sub(n) == n) {
    std::lock_guard<std::mutex> lock(mu_);
    quiet_cv_.notify_all();
  }
}

bool SimClock::WaitQuiet(std::chrono::milliseconds real_timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return quiet_cv_.wait_for(lock, real_timeout, [&] { return in_flight_.load() <= 0; });
}

std::optional<Clock::SteadyPoint> SimClock::NextDeadline() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (waiters_.empty()) return std::nullopt;
  return waiters_.begin()->first.first;
}

bool SimClock::FireNextDue() {
  std::shared_ptr<Waiter> waiter;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (waiters_.empty() || waiters_.begin()->first.first > SteadyPoint(offset_)) return false;
    waiter = std::move(waiters_.begin()->second);
    waiters_.erase(waiters_.begin());
    waiter->fired = true;
    in_flight_.fetch_add(1);
  }
  // The waiter checks `fired` holding its own mutex: taking that mutex here means it is either
  // before its check (and sees it) or inside cv.wait (and is notified).
  { std::lock_guard<std::mutex> g(*waiter->mu); }
  waiter->cv->notify_all();
  return true;
}

void SimClock::AdvanceTo(SteadyPoint t) {
  std::lock_guard<std::mutex> lock(mu_);
  auto offset = std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch());
  if (offset > offset_) offset_ = offset;
}

}  // namespace allot::sim
