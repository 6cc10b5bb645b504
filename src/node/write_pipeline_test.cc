#include "node/write_pipeline.h"

#include <gtest/gtest.h>

#include <mutex>
#include <thread>
#include <vector>

namespace allot::node {
namespace {

using std::chrono::seconds;

TEST(WritePipelineTest, BoundsInFlightAndKeepsOrder) {
  WritePipeline pipeline(2);
  std::mutex mu;
  std::vector<WritePipeline::Done> pending;
  std::vector<int> order;
  for (int i = 0; i < 5; ++i) {
    pipeline.Submit([&, i](WritePipeline::Done done) {
      std::lock_guard<std::mutex> lock(mu);
      order.push_back(i);
      pending.push_back(std::move(done));
    });
  }
  EXPECT_EQ(pipeline.GetCounts().in_flight, 2u);
  EXPECT_EQ(pipeline.GetCounts().queued, 3u);
  EXPECT_FALSE(pipeline.WaitIdle(std::chrono::milliseconds(1)));
  for (size_t answered = 0; answered < 5; ++answered) {
    WritePipeline::Done done;
    {
      std::lock_guard<std::mutex> lock(mu);
      ASSERT_LT(answered, pending.size());
      done = pending[answered];
    }
    done();
  }
  EXPECT_TRUE(pipeline.WaitIdle(seconds(1)));
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(pipeline.GetCounts().started, 5u);
}

TEST(WritePipelineTest, InlineCompletionsDoNotRecurse) {
  WritePipeline pipeline(1);
  int ran = 0;
  for (int i = 0; i < 100000; ++i) {
    pipeline.Submit([&](WritePipeline::Done done) {
      ++ran;
      done();
    });
  }
  EXPECT_TRUE(pipeline.WaitIdle(seconds(1)));
  EXPECT_EQ(ran, 100000);
}

TEST(WritePipelineTest, ShutdownDropsQueuedAndWaitsForInFlight) {
  WritePipeline pipeline(1);
  WritePipeline::Done first;
  int started = 0;
  for (int i = 0; i < 3; ++i) {
    pipeline.Submit([&](WritePipeline::Done done) {
      ++started;
      first = std::move(done);
    });
  }
  std::thread stopper([&] { pipeline.Shutdown(); });
  while (pipeline.GetCounts().queued != 0) std::this_thread::yield();
  EXPECT_EQ(pipeline.GetCounts().in_flight, 1u);
  first();  // Shutdown returns only now
  stopper.join();
  EXPECT_EQ(started, 1);
  pipeline.Submit([&](WritePipeline::Done done) {  // ignored once shut down
    ++started;
    done();
  });
  EXPECT_EQ(started, 1);
}

}  // namespace
}  // namespace allot::node
