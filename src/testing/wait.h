// WaitUntil: how a test waits for other threads (workers, informers, a server) to reach a state
// it can see, without sleeping for a fixed time. Timers are never waited for this way: a test
// drives them with a FakeClock.
//
//   ASSERT_TRUE(testing::WaitUntil([&] { return store.Count() == 3; }));
//
// It polls `done` until it returns true (then true) or `timeout` of real time has passed (then
// false, after one last look). The first looks come a millisecond apart, later ones further
// (doubling up to `max_poll`), so a quick state is seen at once and a slow one is not polled
// at a cost to the threads it waits for. The timeout only bounds a failing test; a passing one
// returns as soon as the state is reached.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <thread>

namespace allot::testing {

inline bool WaitUntil(const std::function<bool()>& done,
                      std::chrono::milliseconds timeout = std::chrono::seconds(10),
                      std::chrono::milliseconds max_poll = std::chrono::milliseconds(16)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::chrono::milliseconds poll(1);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return done();
    std::this_thread::sleep_for(poll);
    poll = std::min(poll * 2, max_poll);
  }
  return true;
}

}  // namespace allot::testing
