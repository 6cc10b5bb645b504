// Wall-clock instants as the Kubernetes API writes them, and the Clock seam.
//
// Time is whole seconds ("2024-05-01T12:00:00Z", metav1.Time); MicroTime keeps microseconds
// ("2024-05-01T12:00:00.123456Z", metav1.MicroTime). Both are plain values. Code that needs
// "now" takes a Clock& so tests can substitute a FakeClock and the simulator its virtual clock
// (sim/clock.h). Code that waits for a time waits through the Clock too (WaitUntil), so a clock
// that is not real time can wake it.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace allot {

struct Time {
  int64_t unix_micros = 0;  // microseconds since the Unix epoch, UTC

  static Time FromUnixSeconds(int64_t s) { return Time{s * 1000000}; }
  int64_t unix_seconds() const { return unix_micros / 1000000; }
  Time TruncatedToSeconds() const { return FromUnixSeconds(unix_seconds()); }

  // RFC 3339 in UTC, whole seconds: "2006-01-02T15:04:05Z".
  std::string ToRfc3339() const;
  // RFC 3339 with microseconds: "2006-01-02T15:04:05.000000Z".
  std::string ToRfc3339Micro() const;
  // Accepts RFC 3339 with optional fraction and a Z or ±hh:mm offset.
  static std::optional<Time> Parse(std::string_view text);

  auto operator<=>(const Time&) const = default;
};

// The source of "now", and of waiting for a time. Implementations are thread-safe.
//
// Work in flight. A virtual clock (sim/clock.h) moves only when the system has nothing left to
// do at the current instant, so every hand-off of work from one thread to another (a write
// queued for the store's committer, a watch event queued for its consumer, a key added to a
// work queue, a task submitted to a pool) is counted: BeginWork when it is handed over, EndWork
// once the receiver has finished with it, including whatever it handed on in turn (which was
// counted before). Real and fake clocks ignore both calls.
class Clock {
 public:
  using SteadyPoint = std::chrono::steady_clock::time_point;

  virtual ~Clock() = default;
  virtual Time Now() const = 0;
  // Monotonic time for measuring durations.
  virtual SteadyPoint Steady() const = 0;

  // Waits on `cv`, whose mutex `lock` holds, until `pred()` holds or Steady() reaches
  // `deadline` (SteadyPoint::max(): no deadline); returns pred(). Whoever makes pred() true
  // notifies `cv` after changing the state under the same mutex, as for any condition
  // variable. `cv` and the mutex must outlive the wait. The default waits in real time, which
  // is right for a clock whose Steady() is real time.
  virtual bool WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                         SteadyPoint deadline, const std::function<bool()>& pred);
  // WaitUntil(Steady() + timeout); a negative timeout does not wait.
  bool WaitFor(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
               std::chrono::microseconds timeout, const std::function<bool()>& pred);

  virtual void BeginWork(int64_t n = 1) { (void)n; }
  virtual void EndWork(int64_t n = 1) { (void)n; }
  // EndWork(n) once this thread next waits on this clock (WaitUntil): for a loop that finishes
  // its work and then works out how long to sleep, so time cannot move in between.
  virtual void EndWorkWhenWaiting(int64_t n = 1) { EndWork(n); }
};

class RealClock final : public Clock {
 public:
  Time Now() const override;
  SteadyPoint Steady() const override { return std::chrono::steady_clock::now(); }
  static RealClock& Instance();
};

// A clock that moves only when told to. Thread-safe. WaitUntil re-reads the clock every
// two milliseconds of real time, so a waiter notices Advance() promptly.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(Time start = Time::FromUnixSeconds(1700000000)) : now_(start) {}
  Time Now() const override;
  SteadyPoint Steady() const override;
  bool WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                 SteadyPoint deadline, const std::function<bool()>& pred) override;
  void Advance(std::chrono::microseconds d);
  // How often a waiter re-read the clock in WaitUntil: lets a test see that a waiter looked at
  // the time after an Advance, without sleeping.
  uint64_t Polls() const { return polls_.load(); }

 private:
  mutable std::mutex mu_;
  Time now_;
  std::chrono::microseconds offset_{0};
  std::atomic<uint64_t> polls_{0};
};

}  // namespace allot
