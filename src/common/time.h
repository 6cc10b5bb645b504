// Wall-clock instants as the Kubernetes API writes them, and the Clock seam.
//
// Time is whole seconds ("2024-05-01T12:00:00Z", metav1.Time); MicroTime keeps microseconds
// ("2024-05-01T12:00:00.123456Z", metav1.MicroTime). Both are plain values. Code that needs
// "now" takes a Clock& so tests and the simulator can substitute a FakeClock.
#pragma once

#include <chrono>
#include <cstdint>
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

// The source of "now". Implementations are thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual Time Now() const = 0;
  // Monotonic time for measuring durations.
  virtual std::chrono::steady_clock::time_point Steady() const = 0;
};

class RealClock final : public Clock {
 public:
  Time Now() const override;
  std::chrono::steady_clock::time_point Steady() const override {
    return std::chrono::steady_clock::now();
  }
  static RealClock& Instance();
};

// A clock that moves only when told to. Thread-safe.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(Time start = Time::FromUnixSeconds(1700000000)) : now_(start) {}
  Time Now() const override;
  std::chrono::steady_clock::time_point Steady() const override;
  void Advance(std::chrono::microseconds d);

 private:
  mutable std::mutex mu_;
  Time now_;
  std::chrono::microseconds offset_{0};
};

}  // namespace allot
