// ReadProcessStats: this process's memory, and the wake-ups of a named thread that waits.
#include "common/process_stats.h"

#include <gtest/gtest.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <fstream>
#include <iterator>
#include <string>
#include <mutex>
#include <thread>

namespace allot {
namespace {

// Thread `tid`'s scheduler state letter from /proc ('S': asleep in a wait), or 0.
char ThreadState(pid_t tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');  // the name may hold spaces; the state follows it
  return paren == std::string::npos || paren + 2 >= text.size() ? 0 : text[paren + 2];
}

TEST(ProcessStatsTest, ANamedThreadThatWaitsShowsItsWakeUps) {
  std::mutex mu;
  std::condition_variable cv;
  int turn = 0;  // even: the main thread's turn, odd: the worker's
  bool go = false, woke = false, read = false;
  std::atomic<pid_t> worker_tid{0};
  constexpr int kRounds = 50;
  std::thread worker([&] {
    NameThisThread("stats-test-worker-long-name");  // cut to 15 bytes
    worker_tid = static_cast<pid_t>(syscall(SYS_gettid));
    for (int i = 0; i < kRounds; ++i) {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return turn % 2 == 1; });
      ++turn;
      cv.notify_all();
    }
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return go; });
    woke = true;
    cv.notify_all();
    cv.wait(lock, [&] { return read; });  // alive until its counts are read
  });
  for (int i = 0; i < kRounds; ++i) {
    std::unique_lock<std::mutex> lock(mu);
    ++turn;
    cv.notify_all();
    cv.wait(lock, [&] { return turn % 2 == 0; });
  }
  // A loaded machine can run every round without the worker ever sleeping (each turn already
  // taken when it looks). So wait until it is surely asleep, then wake it: one wake-up at least.
  while (worker_tid == 0 || ThreadState(worker_tid) != 'S') std::this_thread::yield();
  {
    std::unique_lock<std::mutex> lock(mu);
    go = true;
    cv.notify_all();
    cv.wait(lock, [&] { return woke; });
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
