// SimClock: virtual time for `allot sim`. Time stands still while the system works and jumps to
// the next deadline once it has nothing left to do, so an hour of cluster time passes in as
// long as the work in it takes.
//
//   SimClock clock(Time::FromUnixSeconds(1700000000));
//   ... components built on `clock` (every timed wait goes through Clock::WaitUntil, every
//   ... hand-off between threads through BeginWork/EndWork: common/time.h) ...
//   for (;;) {                                   // the simulator's driver thread
//     clock.WaitQuiet(kStall);                   // nothing in flight
//     if (clock.FireNextDue()) continue;         // one waiter whose deadline is now
//     clock.AdvanceTo(earliest of clock.NextDeadline() and the driver's own events);
//   }
//
// Waiters. A thread in WaitUntil registers its deadline. FireNextDue wakes the one with the
// earliest deadline that has been reached (ties: the one that started waiting first) and counts
// one unit of work in flight on its behalf, which ends when that thread next waits on this
// clock (so whatever it does about the deadline happens before time moves again). A thread the
// clock woke must therefore wait on the clock again, not on something else, when it is done.
//
// Determinism: the driver wakes one waiter at a time and waits for quiet in between, so what
// each deadline causes has settled before the next one fires.
//
// Thread safety: everything is thread-safe. The waiters' mutexes and condition variables must
// outlive their waits, and the driver stops firing before the components stop.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "common/time.h"

namespace allot::sim {

class SimClock final : public Clock {
 public:
  explicit SimClock(Time start);

  Time Now() const override;
  SteadyPoint Steady() const override;
  bool WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                 SteadyPoint deadline, const std::function<bool()>& pred) override;
  void BeginWork(int64_t n = 1) override;
  void EndWork(int64_t n = 1) override;
  void EndWorkWhenWaiting(int64_t n = 1) override;

  // --- the driver's side ---

  // Blocks until no work is in flight. False when `real_timeout` (wall time) passed first: some
  // component holds work it never finishes, and the simulation cannot go on.
  bool WaitQuiet(std::chrono::milliseconds real_timeout);
  int64_t InFlight() const { return in_flight_.load(); }
  // The earliest deadline of a waiting thread; nullopt when none waits for a time.
  std::optional<SteadyPoint> NextDeadline() const;
  // Wakes the waiter with the earliest deadline at or before now; false when none is due.
  bool FireNextDue();
  // Moves time forward to `t` (an earlier `t` is ignored). Wakes nobody: FireNextDue does.
  void AdvanceTo(SteadyPoint t);
  // Steady() as wall time: the Time that steady point `t` corresponds to.
  Time WallAt(SteadyPoint t) const;

 private:
  struct Waiter {
    std::condition_variable* cv;
    std::mutex* mu;
    bool fired = false;  // guarded by SimClock::mu_
  };
  using WaiterKey = std::pair<SteadyPoint, uint64_t>;  // deadline, arrival order

  const Time start_;
  mutable std::mutex mu_;
  std::condition_variable quiet_cv_;
  std::chrono::microseconds offset_{0};                   // guarded by mu_
  std::map<WaiterKey, std::shared_ptr<Waiter>> waiters_;  // guarded by mu_
  uint64_t next_seq_ = 0;                                 // guarded by mu_
  std::atomic<int64_t> in_flight_{0};
};

}  // namespace allot::sim
