#include "controllers/sync_worker.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client/work_queue.h"
#include "common/time.h"
#include "testing/wait.h"

namespace allot::controllers {
namespace {

// Syncs that end only when the test ends them: each begun sync parks its SyncDone here.
class ParkedSyncs {
 public:
  void Park(const std::string& key, SyncDone done) {
    std::lock_guard<std::mutex> lock(mu_);
    parked_.emplace_back(key, std::move(done));
    ++begun_[key];
    cv_.notify_all();
  }
  // Waits until `n` syncs are parked; false after 5 s (the worker runs on its own thread).
  bool WaitParked(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(5), [&] { return parked_.size() >= n; });
  }
  size_t Parked() {
    std::lock_guard<std::mutex> lock(mu_);
    return parked_.size();
  }
  int Begun(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    return begun_[key];
  }
  void EndAll() {
    std::vector<std::pair<std::string, SyncDone>> parked;
    {
      std::lock_guard<std::mutex> lock(mu_);
      parked.swap(parked_);
    }
    for (auto& [key, done] : parked) done(Status::Ok());
  }
  // Ends the oldest parked sync of `key` with `st`, outside the lock (as a client callback).
  void End(const std::string& key, Status st) {
    SyncDone done;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto it = parked_.begin(); it != parked_.end(); ++it) {
        if (it->first == key) {
          done = std::move(it->second);
          parked_.erase(it);
          break;
        }
      }
    }
    ASSERT_TRUE(done) << key;
    done(std::move(st));
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::pair<std::string, SyncDone>> parked_;
  std::map<std::string, int> begun_;
};

class AsyncSyncWorkerTest : public ::testing::Test {
 protected:
  void Start(size_t max_in_flight) {
    in_flight_ = std::make_unique<SyncsInFlight>(max_in_flight);
    worker_ = std::thread([this] {
      RunAsyncSyncWorker(
          queue_, {}, "test",
          [this](const std::string& key, SyncDone done) { syncs_.Park(key, std::move(done)); },
          *in_flight_,
          [this](const std::string& key, const Status& st) {
            std::lock_guard<std::mutex> lock(mu_);
            ended_.emplace_back(key, st.ok());
          });
    });
  }
  void TearDown() override {
    queue_.ShutDown();
    if (worker_.joinable()) worker_.join();
    syncs_.EndAll();  // what the worker began still ends, as its owner's WaitIdle needs
    if (in_flight_) in_flight_->WaitIdle();
  }
  std::vector<std::pair<std::string, bool>> Ended() {
    std::lock_guard<std::mutex> lock(mu_);
    return ended_;
  }

  FakeClock clock_;
  client::WorkQueue queue_{clock_};
  ParkedSyncs syncs_;
  std::unique_ptr<SyncsInFlight> in_flight_;
  std::thread worker_;
  std::mutex mu_;
  std::vector<std::pair<std::string, bool>> ended_;
};

TEST_F(AsyncSyncWorkerTest, OneWorkerBeginsManySyncsWithoutWaitingForThem) {
  Start(16);
  queue_.Add("a");
  queue_.Add("b");
  queue_.Add("c");
  ASSERT_TRUE(syncs_.WaitParked(3));  // a blocking worker would have stopped at "a"
  // Three syncs, and perhaps the slot of the worker waiting for its next key.
  EXPECT_GE(in_flight_->Count(), 3u);
  EXPECT_LE(in_flight_->Count(), 4u);
  syncs_.End("b", Status::Ok());
  syncs_.End("a", Status::Ok());
  syncs_.End("c", Status::Ok());
  EXPECT_LE(in_flight_->Count(), 1u);
  auto ended = Ended();
  ASSERT_EQ(ended.size(), 3u);
  EXPECT_EQ(ended[0].first, "b");
  EXPECT_EQ(ended[1].first, "a");
}

TEST_F(AsyncSyncWorkerTest, AKeyIsNotSyncedTwiceAtOnce) {
  Start(16);
  queue_.Add("a");
  ASSERT_TRUE(syncs_.WaitParked(1));
  queue_.Add("a");  // while its sync is in flight: queued again only once that one ends
  queue_.Add("b");
  ASSERT_TRUE(syncs_.WaitParked(2));
  EXPECT_EQ(syncs_.Begun("a"), 1);
  syncs_.End("a", Status::Ok());
  ASSERT_TRUE(syncs_.WaitParked(2));  // "b" and the second "a"
  EXPECT_EQ(syncs_.Begun("a"), 2);
  syncs_.End("a", Status::Ok());
  syncs_.End("b", Status::Ok());
}

TEST_F(AsyncSyncWorkerTest, TheBoundHoldsKeysBackUntilASyncEnds) {
  Start(2);
  queue_.Add("a");
  queue_.Add("b");
  queue_.Add("c");
  ASSERT_TRUE(syncs_.WaitParked(2));
  EXPECT_EQ(queue_.Len(), 1u);  // "c" waits for a slot, still queued
  EXPECT_EQ(syncs_.Begun("c"), 0);
  syncs_.End("a", Status::Ok());
  ASSERT_TRUE(syncs_.WaitParked(2));  // "b" and "c"
  EXPECT_EQ(syncs_.Begun("c"), 1);
  syncs_.End("b", Status::Ok());
  syncs_.End("c", Status::Ok());
}

// Waits until `n` Begins wait for a slot; false after 5 s.
bool WaitForWaiters(const SyncsInFlight& slots, size_t n) {
  return testing::WaitUntil([&] { return slots.Waiting() >= n; });
}

TEST_F(AsyncSyncWorkerTest, AWorkerHeldBackByTheBoundResumesOnceAQuarterOfTheSlotsAreFree) {
  Start(8);  // resumes at 6 taken
  for (int i = 0; i < 10; ++i) queue_.Add("k" + std::to_string(i));
  ASSERT_TRUE(syncs_.WaitParked(8));
  ASSERT_TRUE(WaitForWaiters(*in_flight_, 1));
  EXPECT_EQ(queue_.Len(), 2u);
  syncs_.End("k0", Status::Ok());  // one slot free: the worker sleeps on
  syncs_.End("k1", Status::Ok());
  // Two free: it takes both without waiting in between.
  ASSERT_TRUE(syncs_.WaitParked(8));
  ASSERT_TRUE(WaitForWaiters(*in_flight_, 1));
  EXPECT_EQ(syncs_.Begun("k8"), 1);
  EXPECT_EQ(syncs_.Begun("k9"), 1);
  for (int i = 2; i < 10; ++i) syncs_.End("k" + std::to_string(i), Status::Ok());
}

TEST(SyncsInFlightTest, ABeginHeldBackByTheBoundWaitsForAQuarterOfTheSlots) {
  EXPECT_EQ(SyncsInFlight(1).resume_at(), 0u);
  EXPECT_EQ(SyncsInFlight(2).resume_at(), 1u);
  EXPECT_EQ(SyncsInFlight(8).resume_at(), 6u);
  EXPECT_EQ(SyncsInFlight(32).resume_at(), 24u);

  SyncsInFlight few(4);  // resumes at 3 taken: a quarter is one slot
  for (int i = 0; i < 4; ++i) few.Begin();
  std::thread waiter([&] { few.Begin(); });
  ASSERT_TRUE(WaitForWaiters(few, 1));
  few.End();
  waiter.join();
  EXPECT_EQ(few.Count(), 4u);
  for (int i = 0; i < 4; ++i) few.End();
  few.WaitIdle();

  // Two held back, and the slots all freed before either runs again: both go on (a wake-up
  // only at the crossing would reach one, and leave the other waiting with every slot free).
  SyncsInFlight two_waiting(4);
  for (int i = 0; i < 4; ++i) two_waiting.Begin();
  std::thread first([&] { two_waiting.Begin(); });
  std::thread second([&] { two_waiting.Begin(); });
  ASSERT_TRUE(WaitForWaiters(two_waiting, 2));
  for (int i = 0; i < 4; ++i) two_waiting.End();
  first.join();
  second.join();
  EXPECT_EQ(two_waiting.Count(), 2u);
  two_waiting.End();
  two_waiting.End();
  two_waiting.WaitIdle();

  SyncsInFlight many(8);  // resumes at 6 taken
  for (int i = 0; i < 8; ++i) many.Begin();
  std::thread waiter_many([&] { many.Begin(); });
  ASSERT_TRUE(WaitForWaiters(many, 1));
  many.End();  // 7 taken: not yet
  many.End();
  waiter_many.join();
  EXPECT_EQ(many.Count(), 7u);
  for (int i = 0; i < 7; ++i) many.End();
  many.WaitIdle();
}

TEST_F(AsyncSyncWorkerTest, AFailedSyncIsRetriedWithBackoff) {
  Start(16);
  queue_.Add("a");
  ASSERT_TRUE(syncs_.WaitParked(1));
  syncs_.End("a", InternalError("boom"));
  EXPECT_EQ(queue_.NumRequeues("a"), 1);
  EXPECT_EQ(queue_.DelayedLen(), 1u);
  clock_.Advance(std::chrono::milliseconds(5));  // the first backoff
  ASSERT_TRUE(syncs_.WaitParked(1));
  syncs_.End("a", Status::Ok());
  EXPECT_EQ(queue_.NumRequeues("a"), 0);  // forgotten after the success
  auto ended = Ended();
  ASSERT_EQ(ended.size(), 2u);
  EXPECT_FALSE(ended[0].second);
  EXPECT_TRUE(ended[1].second);
}

TEST_F(AsyncSyncWorkerTest, WaitIdleReturnsOnceEverySyncEnded) {
  Start(16);
  queue_.Add("a");
  ASSERT_TRUE(syncs_.WaitParked(1));
  queue_.ShutDown();
  worker_.join();  // the worker stops; the sync it began is still in flight
  EXPECT_EQ(in_flight_->Count(), 1u);
  std::thread ender([this] { syncs_.End("a", Status::Ok()); });
  in_flight_->WaitIdle();
  ender.join();
  EXPECT_EQ(in_flight_->Count(), 0u);
}

}  // namespace
}  // namespace allot::controllers
