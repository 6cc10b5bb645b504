// PodHeap (scheduler/queue/heap.h): order, removal by uid, and positions kept right through
// every move (each pod's position lives in the uid map and is rewritten through a pointer).
#include "scheduler/queue/heap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "scheduler/testing/builders.h"

namespace allot::scheduler {
namespace {

using testing::PodBuilder;

std::unique_ptr<QueuedPodInfo> Queued(const std::string& name, int32_t priority) {
  auto q = std::make_unique<QueuedPodInfo>();
  q->pod_info = PodBuilder(name).Priority(priority).Info();
  return q;
}

PodHeap ByPriority() {
  return PodHeap([](const QueuedPodInfo& a, const QueuedPodInfo& b) {
    if (a.pod_info->priority != b.pod_info->priority) {
      return a.pod_info->priority > b.pod_info->priority;
    }
    return a.pod_info->name() < b.pod_info->name();
  });
}

TEST(PodHeapTest, PopsInOrderAfterRemovalsFromAnywhere) {
  PodHeap heap = ByPriority();
  for (int i = 0; i < 40; ++i) heap.Push(Queued("p" + std::to_string(i), (i * 17) % 23));
  // Remove every third pod by uid: each removal moves the last item into the hole.
  for (int i = 0; i < 40; i += 3) {
    const std::string uid = PodBuilder("p" + std::to_string(i)).Info()->uid();
    ASSERT_NE(heap.Remove(uid), nullptr) << uid;
    EXPECT_FALSE(heap.Has(uid));
  }
  EXPECT_EQ(heap.size(), 26u);
  // Every remaining pod is still found at its position.
  for (int i = 0; i < 40; ++i) {
    const std::string uid = PodBuilder("p" + std::to_string(i)).Info()->uid();
    QueuedPodInfo* q = heap.Get(uid);
    if (i % 3 == 0) {
      EXPECT_EQ(q, nullptr);
    } else {
      ASSERT_NE(q, nullptr) << uid;
      EXPECT_EQ(q->pod_info->uid(), uid);
    }
  }
  std::vector<int32_t> popped;
  while (!heap.empty()) popped.push_back(heap.Pop()->pod_info->priority);
  EXPECT_EQ(popped.size(), 26u);
  EXPECT_TRUE(std::is_sorted(popped.rbegin(), popped.rend()));
}

TEST(PodHeapTest, APushOfAQueuedUidReplacesItInPlace) {
  PodHeap heap = ByPriority();
  heap.Push(Queued("a", 1));
  heap.Push(Queued("b", 2));
  heap.Push(Queued("c", 3));
  heap.Push(Queued("a", 10));  // the same uid, now first
  EXPECT_EQ(heap.size(), 3u);
  EXPECT_EQ(heap.Peek().pod_info->name(), "a");
  EXPECT_EQ(heap.Pop()->pod_info->priority, 10);
  EXPECT_EQ(heap.Pop()->pod_info->name(), "c");
  EXPECT_EQ(heap.Pop()->pod_info->name(), "b");
  EXPECT_TRUE(heap.empty());
}

}  // namespace
}  // namespace allot::scheduler
