#include "client/work_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "testing/wait.h"

namespace allot::client {
namespace {

using std::chrono::milliseconds;

// Waits (yielding, at most 10 s of real time) until `done` holds; false if it never did.

TEST(WorkQueueTest, DeduplicatesQueuedKeys) {
  FakeClock clock;
  WorkQueue q(clock);
  q.Add("a");
  q.Add("b");
  q.Add("a");
  EXPECT_EQ(q.Len(), 2u);
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), "b");
  EXPECT_EQ(q.Len(), 0u);
}

TEST(WorkQueueTest, KeyAddedWhileProcessingIsQueuedAgainOnDone) {
  FakeClock clock;
  WorkQueue q(clock);
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  q.Add("a");  // while processing: not handed to a second worker
  EXPECT_EQ(q.Len(), 0u);
  q.Done("a");
  EXPECT_EQ(q.Len(), 1u);
  EXPECT_EQ(q.Get(), "a");
  q.Done("a");
  EXPECT_EQ(q.Len(), 0u);
}

TEST(WorkQueueTest, DelayedKeysWaitForTheClock) {
  FakeClock clock;
  WorkQueue q(clock);
  q.AddAfter("a", milliseconds(100));
  q.AddAfter("a", milliseconds(50));  // the earlier delay wins
  EXPECT_EQ(q.DelayedLen(), 1u);
  std::atomic<bool> got{false};
  std::thread worker([&] {
    EXPECT_EQ(q.Get(), "a");
    got = true;
  });
  clock.Advance(milliseconds(49));
  // The worker re-reads the clock twice after the advance (observed, not slept for): had the
  // key been due at 49 ms, it would have taken it by then.
  const uint64_t seen = clock.Polls();
  ASSERT_TRUE(testing::WaitUntil([&] { return clock.Polls() >= seen + 2 || got.load(); }));
  EXPECT_FALSE(got.load());
  clock.Advance(milliseconds(1));  // due: the polling worker picks it up
  worker.join();
  EXPECT_EQ(q.DelayedLen(), 0u);
}

TEST(WorkQueueTest, RateLimiterBacksOffExponentiallyAndForgets) {
  FakeClock clock;
  WorkQueue q(clock, {.base_delay = milliseconds(5), .max_delay = milliseconds(40)});
  for (int want : {5, 10, 20, 40, 40}) EXPECT_EQ(q.When("a"), milliseconds(want));
  EXPECT_EQ(q.When("b"), milliseconds(5)) << "per key";
  EXPECT_EQ(q.NumRequeues("a"), 5);
  q.Forget("a");
  EXPECT_EQ(q.NumRequeues("a"), 0);
  EXPECT_EQ(q.When("a"), milliseconds(5));

  q.AddRateLimited("c");  // due after 5 ms
  q.AddRateLimited("c");  // 10 ms: the earlier due time wins
  EXPECT_EQ(q.DelayedLen(), 1u);
  clock.Advance(milliseconds(5));
  EXPECT_EQ(q.Get(), "c");
  q.Done("c");
}

TEST(WorkQueueTest, TokenBucketLimitsBursts) {
  FakeClock clock;
  WorkQueue q(clock, {.base_delay = milliseconds(0), .qps = 10, .burst = 2});
  q.AddRateLimited("a");  // tokens 2 -> 1: no wait
  q.AddRateLimited("b");  // 1 -> 0: no wait
  EXPECT_EQ(q.Len(), 2u);
  q.AddRateLimited("c");  // deficit of one token at 10 qps: 100 ms
  EXPECT_EQ(q.DelayedLen(), 1u);
  clock.Advance(milliseconds(100));
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), "b");
  EXPECT_EQ(q.Get(), "c");
}

TEST(WorkQueueTest, ShutDownWakesWorkers) {
  FakeClock clock;
  WorkQueue q(clock);
  std::thread worker([&] { EXPECT_EQ(q.Get(), std::nullopt); });
  ASSERT_TRUE(
      testing::WaitUntil([&] { return q.Waiting() == 1; }));  // the worker is blocked in Get
  q.ShutDown();
  worker.join();
  q.Add("a");
  EXPECT_EQ(q.Len(), 0u);
  EXPECT_TRUE(q.ShuttingDown());
}

}  // namespace
}  // namespace allot::client
