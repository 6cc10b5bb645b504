#include "scheduler/framework/parallelism_tuner.h"

#include <gtest/gtest.h>

#include <functional>
#include <vector>

namespace allot::scheduler {
namespace {

using std::chrono::nanoseconds;

// Runs `jobs` jobs of `items` items through the tuner, each costing cost(helpers) ns per item;
// returns how many of them ran with another count than the one settled at the end.
int RunJobs(ParallelismTuner& tuner, int jobs, const std::function<double(int)>& cost,
        int64_t items = 500) {
  std::vector<int> used;
  used.reserve(jobs);
  for (int j = 0; j < jobs; ++j) {
    int h = tuner.Next();
    used.push_back(h);
    tuner.Record(h, nanoseconds(static_cast<int64_t>(cost(h) * items)), items);
  }
  int off = 0;
  for (int h : used) off += h != tuner.settled();
  return off;
}

TEST(ParallelismTunerTest, ClimbsToTheCountWhoseJobsAreFastest) {
  ParallelismTuner tuner(6);
  const std::vector<double> per_item = {100, 60, 45, 40, 44, 55, 70};  // best: 3 helpers
  RunJobs(tuner, 20000, [&](int h) { return per_item[h]; });
  EXPECT_EQ(tuner.settled(), 3);
  // Settled, it probes rarely: each losing probe waits twice as long for the next.
  int off = RunJobs(tuner, 100000, [&](int h) { return per_item[h]; });
  EXPECT_EQ(tuner.settled(), 3);
  EXPECT_LT(off, 100000 / 100);
}

TEST(ParallelismTunerTest, StaysInlineWhereAHelperDoesNotPay) {
  ParallelismTuner tuner(1);
  int off = RunJobs(tuner, 100000, [](int h) { return h == 0 ? 100.0 : 150.0; });
  EXPECT_EQ(tuner.settled(), 0);
  EXPECT_LT(off, 100000 / 100);
}

TEST(ParallelismTunerTest, AGainBelowTheMarginDoesNotMove) {
  ParallelismTuner tuner(1);
  RunJobs(tuner, 20000, [](int h) { return h == 0 ? 100.0 : 95.0; });
  EXPECT_EQ(tuner.settled(), 0);
}

TEST(ParallelismTunerTest, FollowsTheWorkWhenHelpersStopPaying) {
  ParallelismTuner tuner(4);
  RunJobs(tuner, 20000, [](int h) { return 100.0 / (h + 1); });  // heavy work: all help
  EXPECT_EQ(tuner.settled(), 4);
  // The work became light: every helper now costs more than it saves.
  RunJobs(tuner, 200000, [](int h) { return 20.0 + 15.0 * h; });
  EXPECT_EQ(tuner.settled(), 0);
}

TEST(ParallelismTunerTest, JobsRunWithAnotherCountOrWithoutItemsAreIgnored) {
  ParallelismTuner tuner(2);
  for (int j = 0; j < 100000; ++j) {
    tuner.Record(2, nanoseconds(1), 500);  // not what Next() said: ignored
    tuner.Record(tuner.Next(), nanoseconds(0), 0);  // nothing processed: ignored
  }
  EXPECT_EQ(tuner.Next(), 0);
  EXPECT_EQ(tuner.settled(), 0);
}

TEST(ParallelismTunerTest, NoHelpersNoProbes) {
  ParallelismTuner tuner(0);
  EXPECT_EQ(RunJobs(tuner, 10000, [](int) { return 1.0; }), 0);
  EXPECT_EQ(tuner.settled(), 0);
  ParallelismTuner clamped(2, 5);
  EXPECT_EQ(clamped.settled(), 2);
}

}  // namespace
}  // namespace allot::scheduler
