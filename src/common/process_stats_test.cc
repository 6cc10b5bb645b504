// ReadProcessStats: this process's memory, and the wake-ups of a named thread that waits.
#include "common/process_stats.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

namespace allot {
namespace {

TEST(ProcessStatsTest, ANamedThreadThatWaitsShowsItsWakeUps) {
  std::mutex mu;
  std::condition_variable cv;
  int turn = 0;  // even: the main thread's turn, odd: the worker's
  bool read = false;
  constexpr int kRounds = 50;
  std::thread worker([&] {
    NameThisThread("stats-test-worker-long-name");  // cut to 15 bytes
    for (int i = 0; i < kRounds; ++i) {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return turn % 2 == 1; });
      ++turn;
      cv.notify_all();
    }
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return read; });  // alive until its counts are read
  });
  for (int i = 0; i < kRounds; ++i) {
    std::unique_lock<std::mutex> lock(mu);
    ++turn;
    cv.notify_all();
    cv.wait(lock, [&] { return turn % 2 == 0; });
  }
  auto stats = ReadProcessStats();
  {
    std::lock_guard<std::mutex> lock(mu);
    read = true;
  }
  cv.notify_all();
  worker.join();
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_GT(stats->rss_bytes, 0);
  auto it = stats->wakeups_by_thread.find("stats-test-work");
  ASSERT_NE(it, stats->wakeups_by_thread.end());
  // Each round the worker waits for its turn once; an early turn may find it still awake.
  EXPECT_GE(it->second, 1u);
  EXPECT_GE(stats->wakeups, it->second);
}

TEST(ProcessStatsTest, AProcessThatDoesNotExistIsNotFound) {
  auto stats = ReadProcessStats(0x3ffffff);  // above any pid_max
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace allot
