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
          *in_flight_, [this](const std::string& key, const Status& st) {
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
