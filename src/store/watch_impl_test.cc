#include "store/watch_impl.h"

#include <gtest/gtest.h>

#include <vector>

#include "testing/objects.h"

namespace allot::store {
namespace {

const ResourceInfo& Pods() { return testing::Resource("", "pods"); }

ObjectPtr Pod(const std::string& name) { return ObjectPtr(testing::PodManifest("default", name)); }

std::vector<std::string> Names(WatcherImpl& w) {
  std::vector<WatchEvent> events;
  w.Drain(events);
  std::vector<std::string> out;
  for (const WatchEvent& ev : events) {
    out.push_back(std::string(api::EventTypeName(ev.type)) + " " + ev.object->metadata.name + "@" +
                  std::to_string(ev.resource_version));
  }
  return out;
}

// A resumed watch is replayed outside the store's lock: what the committer offers meanwhile
// waits behind the replay, and the progress (what a bookmark may say) does not pass it.
TEST(WatcherImplTest, ChangesDuringAReplayFollowIt) {
  WatcherImpl w(ObjectFilter{&Pods()}, 100);
  w.BeginReplay();
  w.SetProgress(12);  // the store's revision when the watcher was registered
  EXPECT_FALSE(w.Offer(Pods(), EventType::kAdded, Pod("late"), nullptr, 13));
  EXPECT_TRUE(w.OfferReplayed(Pods(), EventType::kAdded, Pod("a"), nullptr, 11));
  EXPECT_EQ(w.Progress(), 11u);
  EXPECT_EQ(Names(w), std::vector<std::string>({"ADDED a@11"}));
  EXPECT_TRUE(w.OfferReplayed(Pods(), EventType::kAdded, Pod("b"), nullptr, 12));
  w.EndReplay();
  EXPECT_EQ(w.Progress(), 13u);
  EXPECT_EQ(Names(w), std::vector<std::string>({"ADDED b@12", "ADDED late@13"}));
  // After the replay, offers queue at once.
  EXPECT_TRUE(w.Offer(Pods(), EventType::kAdded, Pod("c"), nullptr, 14));
  EXPECT_EQ(Names(w), std::vector<std::string>({"ADDED c@14"}));
}

// The queue bound counts what is held back too.
TEST(WatcherImplTest, AReplayThatOverflowsEndsTheWatch) {
  WatcherImpl w(ObjectFilter{&Pods()}, 2);
  w.BeginReplay();
  w.Offer(Pods(), EventType::kAdded, Pod("late"), nullptr, 3);
  w.OfferReplayed(Pods(), EventType::kAdded, Pod("a"), nullptr, 1);
  w.OfferReplayed(Pods(), EventType::kAdded, Pod("b"), nullptr, 2);
  w.EndReplay();
  EXPECT_TRUE(w.ended());
}

}  // namespace
}  // namespace allot::store
