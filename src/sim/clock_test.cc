#include "sim/clock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace allot::sim {
namespace {

using std::chrono::seconds;

constexpr auto kStall = std::chrono::seconds(10);

// A thread that waits on the clock for `period` over and over, counting its wake-ups, as a
// component's timer loop does.
class Ticker {
 public:
  Ticker(SimClock& clock, std::chrono::microseconds period) : clock_(clock), period_(period) {
    thread_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(mu_);
      while (!stop_) {
        if (!clock_.WaitFor(cv_, lock, period_, [&] { return stop_; })) ++ticks_;
      }
    });
  }
  ~Ticker() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  int ticks() {
    std::lock_guard<std::mutex> lock(mu_);
    return ticks_;
  }

 private:
  SimClock& clock_;
  const std::chrono::microseconds period_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  int ticks_ = 0;
  std::thread thread_;
};

// Waits until some thread registered a deadline (they start asynchronously).
void WaitForWaiter(SimClock& clock) {
  const auto give_up = std::chrono::steady_clock::now() + kStall;
  while (!clock.NextDeadline() && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

TEST(SimClockTest, TimeStandsStillUntilAdvanced) {
  SimClock clock(Time::FromUnixSeconds(1000));
  EXPECT_EQ(clock.Now(), Time::FromUnixSeconds(1000));
  auto t0 = clock.Steady();
  clock.AdvanceTo(t0 + seconds(90));
  EXPECT_EQ(clock.Now(), Time::FromUnixSeconds(1090));
  EXPECT_EQ(clock.Steady() - t0, seconds(90));
  clock.AdvanceTo(t0);  // never back
  EXPECT_EQ(clock.Now(), Time::FromUnixSeconds(1090));
  EXPECT_EQ(clock.WallAt(t0 + seconds(5)), Time::FromUnixSeconds(1005));
}

TEST(SimClockTest, AWaiterWakesOnlyWhenItsDeadlineIsFired) {
  SimClock clock(Time::FromUnixSeconds(0));
  Ticker ticker(clock, seconds(30));
  WaitForWaiter(clock);
  ASSERT_TRUE(clock.NextDeadline());
  EXPECT_EQ(*clock.NextDeadline(), clock.Steady() + seconds(30));
  EXPECT_FALSE(clock.FireNextDue());  // not due yet
  clock.AdvanceTo(*clock.NextDeadline());
  ASSERT_TRUE(clock.FireNextDue());
  // The wake-up counts as work until the ticker waits again.
  ASSERT_TRUE(clock.WaitQuiet(kStall));
  EXPECT_EQ(ticker.ticks(), 1);
  WaitForWaiter(clock);
  EXPECT_EQ(*clock.NextDeadline(), clock.Steady() + seconds(30));
}

TEST(SimClockTest, WaitersFireInDeadlineOrderOneAtATime) {
  SimClock clock(Time::FromUnixSeconds(0));
  // One ticker after the other, each waiting before the next starts (threads start slowly on a
  // busy machine) and before time moves.
  auto wait_for_deadline = [&](std::chrono::seconds d) {
    const auto give_up = std::chrono::steady_clock::now() + kStall;
    while (clock.NextDeadline() != clock.Steady() + d &&
           std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    return clock.NextDeadline() == clock.Steady() + d;
  };
  Ticker slow(clock, seconds(50));
  ASSERT_TRUE(wait_for_deadline(seconds(50)));
  Ticker fast(clock, seconds(20));
  ASSERT_TRUE(wait_for_deadline(seconds(20)));
  // Run 100 s of virtual time as the simulator's driver does.
  const auto end = clock.Steady() + seconds(100);
  for (;;) {
    ASSERT_TRUE(clock.WaitQuiet(kStall));
    if (clock.FireNextDue()) continue;
    auto next = clock.NextDeadline();
    ASSERT_TRUE(next);
    if (*next > end) break;
    clock.AdvanceTo(*next);
  }
  EXPECT_EQ(fast.ticks(), 5);  // 20, 40, 60, 80, 100
  EXPECT_EQ(slow.ticks(), 2);  // 50, 100
}

TEST(SimClockTest, WorkInFlightHoldsQuiet) {
  SimClock clock(Time::FromUnixSeconds(0));
  clock.BeginWork(2);
  EXPECT_FALSE(clock.WaitQuiet(std::chrono::milliseconds(1)));
  std::thread finisher([&] {
    clock.EndWork();
    clock.EndWork();
  });
  EXPECT_TRUE(clock.WaitQuiet(kStall));
  finisher.join();
  EXPECT_EQ(clock.InFlight(), 0);
}

TEST(SimClockTest, ANotifiedWaiterReturnsWithoutBeingFired) {
  SimClock clock(Time::FromUnixSeconds(0));
  std::mutex mu;
  std::condition_variable cv;
  bool ready = false;
  std::atomic<bool> result{false};
  std::thread waiter([&] {
    std::unique_lock<std::mutex> lock(mu);
    result = clock.WaitFor(cv, lock, seconds(60), [&] { return ready; });
  });
  WaitForWaiter(clock);
  {
    std::lock_guard<std::mutex> lock(mu);
    ready = true;
  }
  cv.notify_all();
  waiter.join();
  EXPECT_TRUE(result);
  EXPECT_FALSE(clock.NextDeadline());  // it left the registry
  EXPECT_EQ(clock.InFlight(), 0);
}

}  // namespace
}  // namespace allot::sim
