// PrioritySort plugin tests.
#include "scheduler/plugins/prioritysort/priority_sort.h"

#include <gtest/gtest.h>

#include "scheduler/testing/builders.h"

namespace allot::scheduler {
namespace {

using testing::PodBuilder;

TEST(PrioritySort, PriorityThenTimestamp) {
  PrioritySort sort;
  auto mk = [](int32_t prio, int secs) {
    QueuedPodInfo q;
    q.pod_info = PodBuilder("p").Priority(prio).Info();
    q.timestamp = std::chrono::steady_clock::time_point(std::chrono::seconds(secs));
    return q;
  };
  EXPECT_TRUE(sort.Less(mk(10, 5), mk(1, 1)));
  EXPECT_FALSE(sort.Less(mk(1, 1), mk(10, 5)));
  EXPECT_TRUE(sort.Less(mk(1, 1), mk(1, 2)));
  EXPECT_FALSE(sort.Less(mk(1, 2), mk(1, 2)));
}

}  // namespace
}  // namespace allot::scheduler
