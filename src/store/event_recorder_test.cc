#include "store/event_recorder.h"

#include "api/core.h"
#include "store/store_test_util.h"

namespace allot::store {
namespace {

class EventRecorderTest : public StoreTest {
 protected:
  const api::ResourceInfo& events() { return testing::Resource("", "events"); }
  std::vector<const api::Event*> Events(std::vector<ObjectPtr>& keep) {
    ListOptions opts;
    opts.namespace_ = "default";
    keep = store_->List(events(), opts)->items;
    std::vector<const api::Event*> out;
    for (auto& o : keep) out.push_back(api::As<api::Event>(*o));
    return out;
  }
  // Writes are asynchronous; a synchronous no-op write behind them flushes the queue.
  void Flush() {
    ASSERT_TRUE(store_->Update(namespaces(), "", "default",
                               [](const Object& c) -> Result<std::unique_ptr<Object>> { return c.Clone(); }).ok());
  }
};

TEST_P(EventRecorderTest, RepeatedEventsAggregateIntoOneObject) {
  ObjectPtr pod = CreatePod("default", "p");
  EventRecorder rec(*store_, clock_, {.component = "allot-scheduler"});
  for (int i = 0; i < 10; ++i) {
    rec.Record(pods(), *pod, "Warning", "FailedScheduling", "0/3 nodes are available");
    clock_.Advance(std::chrono::seconds(1));
    Flush();
  }
  rec.Record(pods(), *pod, "Normal", "Scheduled", "Successfully assigned default/p to n1");
  Flush();
  std::vector<ObjectPtr> keep;
  auto evs = Events(keep);
  ASSERT_EQ(evs.size(), 2u);
  const api::Event* failed = evs[0]->reason == "FailedScheduling" ? evs[0] : evs[1];
  EXPECT_EQ(failed->count, 10);
  ASSERT_TRUE(failed->series);
  EXPECT_EQ(failed->series->count, 10);
  EXPECT_EQ(failed->involvedObject.uid, pod->metadata.uid);
  EXPECT_EQ(failed->involvedObject.kind, "Pod");
  EXPECT_EQ(failed->source.component, "allot-scheduler");
  EXPECT_EQ(failed->lastTimestamp->unix_seconds() - failed->firstTimestamp->unix_seconds(), 9);
}

TEST_P(EventRecorderTest, SpamFilterDropsBeyondTheBurst) {
  ObjectPtr pod = CreatePod("default", "p");
  EventRecorder rec(*store_, clock_, {.component = "c", .burst = 5});
  for (int i = 0; i < 8; ++i) rec.Record(pods(), *pod, "Normal", "R" + std::to_string(i), "m");
  Flush();
  std::vector<ObjectPtr> keep;
  EXPECT_EQ(Events(keep).size(), 5u);
  EXPECT_EQ(rec.dropped(), 3u);
}

INSTANTIATE_TEST_SUITE_P(Backends, EventRecorderTest, ::testing::Values("memory", "sqlite"));

}  // namespace
}  // namespace allot::store
