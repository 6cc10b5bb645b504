// Event expiry (kube-apiserver's --event-ttl) on every backend, on a fake clock.
#include "registry/event_expiry.h"

#include "api/core/types.h"
#include "store/testing/util.h"
#include "testing/wait.h"

namespace allot::registry {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

constexpr auto kTtl = hours(1);

class EventExpiryTest : public store::StoreTest {
 protected:
  void TearDown() override { expiry_.reset(); }

  const api::ResourceInfo& events() { return testing::Resource("", "events"); }

  void StartExpiry() {
    expiry_ = std::make_unique<EventExpiry>(*store_, clock_, kTtl);
    Status st = expiry_->Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
  }

  ObjectPtr CreateEvent(const std::string& name, std::optional<Time> last = std::nullopt) {
    const std::string extra =
        last ? R"("lastTimestamp":")" + last->ToRfc3339() + "\"" : std::string();
    auto r = store_->Create(events(), testing::MakeEvent("default", name, extra));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : nullptr;
  }
  bool Exists(const std::string& name) { return store_->Get(events(), "default", name).ok(); }

  // Moves the fake clock and waits until the expiry's thread has looked at the time since
  // (FakeClock::Polls counts every look), so what it was due to do at the new time is done or
  // sent. Bounded in real time; the deletes it sends are checked with Eventually.
  void AdvanceAndSettle(std::chrono::microseconds d) {
    clock_.Advance(d);
    const uint64_t polls = clock_.Polls();
    for (int i = 0; i < 1000 && clock_.Polls() < polls + 2; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

  std::unique_ptr<EventExpiry> expiry_;
};

TEST_P(EventExpiryTest, DeletesAnEventTheTtlAfterItsWriteAndWatchersSeeIt) {
  StartExpiry();
  ObjectPtr event = CreateEvent("p.1");
  ASSERT_TRUE(event);
  WatchOptions opts;
  opts.resource_version = store_->CurrentResourceVersion();
  auto watch = store_->Watch(&events(), opts);
  ASSERT_TRUE(watch.ok());

  AdvanceAndSettle(kTtl - seconds(1));
  EXPECT_TRUE(Exists("p.1"));
  EXPECT_EQ(expiry_->pending(), 1u);

  AdvanceAndSettle(seconds(2));
  ASSERT_TRUE(testing::WaitUntil([&] { return !Exists("p.1"); }));
  EXPECT_TRUE(testing::WaitUntil([&] { return expiry_->expired() == 1; }));
  EXPECT_EQ(expiry_->pending(), 0u);
  WatchEvent ev;
  ASSERT_TRUE((*watch)->WaitNext(ev, std::chrono::seconds(5)));
  EXPECT_EQ(ev.type, EventType::kDeleted);
  EXPECT_EQ(ev.object->metadata.name, "p.1");
}

TEST_P(EventExpiryTest, AWriteStartsTheTtlAgain) {
  StartExpiry();
  ASSERT_TRUE(CreateEvent("p.1"));
  AdvanceAndSettle(minutes(40));
  auto updated = store_->Update(events(), "default", "p.1", [](const Object& current) {
    auto next = current.Clone();
    static_cast<api::Event&>(*next).count = 2;
    return Result<std::unique_ptr<Object>>(std::move(next));
  });
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();

  // The create's note falls due; its version is no longer the stored one.
  AdvanceAndSettle(minutes(21));
  EXPECT_TRUE(Exists("p.1"));
  EXPECT_EQ(expiry_->expired(), 0u);

  AdvanceAndSettle(minutes(40));
  EXPECT_TRUE(testing::WaitUntil([&] { return !Exists("p.1"); }));
  EXPECT_TRUE(testing::WaitUntil([&] { return expiry_->expired() == 1; }));
}

TEST_P(EventExpiryTest, EventsAlreadyStoredAreDueByTheirOwnTimestamps) {
  ASSERT_TRUE(CreateEvent("old"));
  clock_.Advance(hours(2));
  ASSERT_TRUE(CreateEvent("recent"));
  clock_.Advance(minutes(30));
  // lastTimestamp from a clock five hours ahead: due no later than a TTL from now.
  const Time ahead{clock_.Now().unix_micros + hours(5).count() * 1000000LL};
  ASSERT_TRUE(CreateEvent("ahead", ahead));
  StartExpiry();

  EXPECT_TRUE(testing::WaitUntil([&] { return !Exists("old"); }));
  AdvanceAndSettle(minutes(29));
  EXPECT_TRUE(Exists("recent"));
  AdvanceAndSettle(minutes(2));
  EXPECT_TRUE(testing::WaitUntil([&] { return !Exists("recent"); }));
  EXPECT_TRUE(Exists("ahead"));
  AdvanceAndSettle(minutes(30));
  EXPECT_TRUE(testing::WaitUntil([&] { return !Exists("ahead"); }));
  EXPECT_TRUE(testing::WaitUntil([&] { return expiry_->expired() == 3; }));
}

TEST_P(EventExpiryTest, ARestartedStoreExpiresWhatItsDowntimeMadeDue) {
  if (GetParam() == "memory") GTEST_SKIP() << "a memory store keeps nothing over a restart";
  ASSERT_TRUE(CreateEvent("before"));
  Reopen();
  clock_.Advance(minutes(50));  // the server was down for 50 minutes
  ASSERT_TRUE(CreateEvent("after"));
  StartExpiry();

  AdvanceAndSettle(minutes(11));
  EXPECT_TRUE(testing::WaitUntil([&] { return !Exists("before"); }));
  EXPECT_TRUE(Exists("after"));
  AdvanceAndSettle(minutes(50));
  EXPECT_TRUE(testing::WaitUntil([&] { return !Exists("after"); }));
}

TEST_P(EventExpiryTest, AnEventDeletedMeanwhileIsLeftAlone) {
  StartExpiry();
  ASSERT_TRUE(CreateEvent("p.1"));
  ASSERT_TRUE(store_->Delete(events(), "default", "p.1").ok());
  ASSERT_TRUE(CreateEvent("p.2"));
  AdvanceAndSettle(kTtl + seconds(1));
  EXPECT_TRUE(testing::WaitUntil([&] { return !Exists("p.2"); }));
  EXPECT_TRUE(testing::WaitUntil([&] { return expiry_->expired() == 1; }));
  EXPECT_EQ(expiry_->pending(), 0u);
}

TEST_P(EventExpiryTest, OnlyEventsExpire) {
  StartExpiry();
  ASSERT_TRUE(CreatePod("default", "p"));
  AdvanceAndSettle(kTtl + seconds(1));
  EXPECT_EQ(expiry_->pending(), 0u);
  EXPECT_TRUE(store_->Get(pods(), "default", "p").ok());
}

// The store ends every watch when it closes: the expiry tries once to watch again, and stops
// cleanly afterwards.
TEST_P(EventExpiryTest, AStoreThatClosesFirstLeavesItStoppable) {
  StartExpiry();
  ASSERT_TRUE(CreateEvent("p.1"));
  store_->Close();
  AdvanceAndSettle(kTtl + seconds(1));
  expiry_.reset();
}

TEST_P(EventExpiryTest, ATtlThatIsNotPositiveIsRefused) {
  EventExpiry expiry(*store_, clock_, std::chrono::microseconds(0));
  Status st = expiry.Start();
  EXPECT_EQ(st.code(), StatusCode::kBadRequest);
}

INSTANTIATE_TEST_SUITE_P(Backends, EventExpiryTest, ::testing::Values("memory", "sqlite", "etcd"));

}  // namespace
}  // namespace allot::registry
