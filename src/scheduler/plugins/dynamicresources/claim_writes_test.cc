// ClaimWrites: PreBind's outcome reaches AwaitPreBind's continuation exactly once, whichever of
// the two comes first, and the first claim's error is the one reported.
#include "scheduler/plugins/dynamicresources/claim_writes.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace allot::scheduler::dra_plugin {
namespace {

TEST(ClaimWritesTest, TheLastClaimFinishesAndTheFirstErrorIsKept) {
  ClaimWrites w(3);
  EXPECT_FALSE(w.Done(allot::Status::Ok()));
  EXPECT_FALSE(w.Done(allot::ConflictError("resourceclaims", "a", "first")));
  EXPECT_TRUE(w.Done(allot::ConflictError("resourceclaims", "b", "second")));
  EXPECT_NE(w.error().message().find("first"), std::string::npos) << w.error().message();
}

TEST(ClaimWritesTest, AnOutcomeBeforeTheContinuationIsHandedOverWhenItComes) {
  ClaimWrites w(1);
  ASSERT_TRUE(w.Done(allot::Status::Ok()));
  w.Finish(Status(Code::kWait, "binding conditions"));
  int calls = 0;
  w.Then([&](Status st) {
    ++calls;
    EXPECT_TRUE(st.IsWait());
  });
  EXPECT_EQ(calls, 1);
}

TEST(ClaimWritesTest, AContinuationBeforeTheOutcomeRunsWhenTheOutcomeComes) {
  ClaimWrites w(1);
  int calls = 0;
  w.Then([&](Status st) {
    ++calls;
    EXPECT_TRUE(st.IsSuccess());
  });
  EXPECT_EQ(calls, 0);
  ASSERT_TRUE(w.Done(allot::Status::Ok()));
  w.Finish(Status::Success());
  EXPECT_EQ(calls, 1);
}

TEST(ClaimWritesTest, RacingOutcomeAndContinuationRunItExactlyOnce) {
  for (int round = 0; round < 200; ++round) {
    ClaimWrites w(2);
    std::atomic<int> calls{0};
    std::vector<std::thread> writers;
    for (int i = 0; i < 2; ++i) {
      writers.emplace_back([&w] {
        if (w.Done(allot::Status::Ok())) w.Finish(Status::Success());
      });
    }
    w.Then([&](Status) { calls.fetch_add(1); });
    for (std::thread& t : writers) t.join();
    EXPECT_EQ(calls.load(), 1) << "round " << round;
  }
}

}  // namespace
}  // namespace allot::scheduler::dra_plugin
