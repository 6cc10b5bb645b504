// UpdateWithRetry and UpdateWithRetryAsync: a write that meets a 409 is tried again from a fresh
// read; errors of the mutation are never retried; nothing to write means no write.
#include "client/retry.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <future>
#include <thread>

#include "api/core/types.h"
#include "client/inprocess/inprocess_client.h"
#include "store/store.h"

namespace allot::client {
namespace {

class UpdateWithRetryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.Open().ok());
    auto lease = std::make_unique<api::Lease>();
    lease->metadata.name = "l";
    lease->metadata.namespace_ = "default";
    ASSERT_TRUE(client_.Create(leases_, std::move(lease)).ok());
  }
  // Someone else's write: bumps the lease's resourceVersion.
  void WriteBehindTheBack(int32_t transitions) {
    auto cur = client_.Get(leases_, "default", "l");
    ASSERT_TRUE(cur.ok());
    auto copy = std::make_unique<api::Lease>(*api::As<api::Lease>(**cur));
    copy->spec.leaseTransitions = transitions;
    ASSERT_TRUE(client_.Update(leases_, std::move(copy)).ok());
  }
  static std::unique_ptr<api::Object> WithHolder(const api::Object& current,
                                                 const std::string& holder) {
    auto copy = std::make_unique<api::Lease>(*api::As<api::Lease>(current));
    copy->spec.holderIdentity = holder;
    return copy;
  }

  FakeClock clock_;
  store::Store store_{store::NewMemoryBackend(), clock_};
  InProcessClient client_{store_, clock_};
  const api::ResourceInfo& leases_ = api::ResourceFor<api::Lease>();
};

TEST_F(UpdateWithRetryTest, AConflictIsRetriedFromAFreshRead) {
  int calls = 0;
  auto written = UpdateWithRetry(client_, leases_, "default", "l", Write::kUpdate,
                                 [&](const api::Object& current) -> Result<Desired> {
                                   if (++calls == 1)
                                     WriteBehindTheBack(7);  // our write will now conflict
                                   return WithHolder(current, "me");
                                 });
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(calls, 2);
  const auto* lease = api::As<api::Lease>(**written);
  EXPECT_EQ(lease->spec.holderIdentity.value_or(""), "me");
  EXPECT_EQ(lease->spec.leaseTransitions.value_or(0), 7);  // the other write is kept
}

TEST_F(UpdateWithRetryTest, EveryAttemptConflictingReturnsTheLast409) {
  int calls = 0;
  auto written = UpdateWithRetry(
      client_, leases_, "default", "l", Write::kUpdate,
      [&](const api::Object& current) -> Result<Desired> {
        ++calls;
        WriteBehindTheBack(calls);
        return WithHolder(current, "me");
      },
      nullptr, /*attempts=*/3);
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.status().code(), StatusCode::kConflict);
  EXPECT_EQ(calls, 3);
}

TEST_F(UpdateWithRetryTest, MutationErrorsEndTheLoopEvenWhenTheyAre409) {
  int calls = 0;
  auto written = UpdateWithRetry(client_, leases_, "default", "l", Write::kUpdate,
                                 [&](const api::Object&) -> Result<Desired> {
                                   ++calls;
                                   return ConflictError("leases", "l", "taken by someone else");
                                 });
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.status().code(), StatusCode::kConflict);
  EXPECT_EQ(calls, 1);
}

TEST_F(UpdateWithRetryTest, NothingToWriteReturnsTheCurrentObjectUnchanged) {
  auto before = client_.Get(leases_, "default", "l");
  ASSERT_TRUE(before.ok());
  auto result = UpdateWithRetry(client_, leases_, "default", "l", Write::kUpdate,
                                [](const api::Object&) -> Result<Desired> { return Desired(); });
  ASSERT_TRUE(result.ok());
  EXPECT_EQ((*result)->metadata.resourceVersion, (*before)->metadata.resourceVersion);
  EXPECT_EQ(store_.CurrentResourceVersion(),
            std::stoull((*before)->metadata.resourceVersion));  // no write happened
}

TEST_F(UpdateWithRetryTest, AMissingObjectIsNotFound) {
  auto result = UpdateWithRetry(
      client_, leases_, "default", "nope", Write::kStatus,
      [](const api::Object& current) -> Result<Desired> { return current.Clone(); });
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kNotFound);
}

// UpdateWithRetryAsync: the first attempt writes from the caller's copy without a read; a 409
// hands the rest to the executor, which retries from fresh reads.
class UpdateWithRetryAsyncTest : public UpdateWithRetryTest {
 protected:
  // Runs the write and waits for `done`; counts the tasks handed to the executor.
  Result<api::ObjectPtr> Run(api::ObjectPtr first, MutateFn mutate, int attempts = 8) {
    std::promise<Result<api::ObjectPtr>> result;
    UpdateWithRetryAsync(
        client_, leases_, Write::kUpdate, std::move(mutate), std::move(first),
        [this](std::function<void()> task) {
          ++retries_;
          std::thread(std::move(task)).detach();  // a thread that may block, as a pool's
        },
        [&](Result<api::ObjectPtr> r) { result.set_value(std::move(r)); }, attempts);
    return result.get_future().get();
  }
  api::ObjectPtr Current() { return *client_.Get(leases_, "default", "l"); }
  std::atomic<int> retries_{0};
};

TEST_F(UpdateWithRetryAsyncTest, TheFirstAttemptNeedsNoReadAndNoOtherThread) {
  auto written = Run(Current(), [](const api::Object& current) -> Result<Desired> {
    return WithHolder(current, "me");
  });
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(api::As<api::Lease>(**written)->spec.holderIdentity.value_or(""), "me");
  EXPECT_EQ(retries_, 0);
}

TEST_F(UpdateWithRetryAsyncTest, AConflictIsRetriedOnTheExecutorFromAFreshRead) {
  api::ObjectPtr stale = Current();
  WriteBehindTheBack(7);  // `stale` now conflicts
  std::atomic<int> calls{0};
  auto written = Run(stale, [&](const api::Object& current) -> Result<Desired> {
    ++calls;
    return WithHolder(current, "me");
  });
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(retries_, 1);
  const auto* lease = api::As<api::Lease>(**written);
  EXPECT_EQ(lease->spec.holderIdentity.value_or(""), "me");
  EXPECT_EQ(lease->spec.leaseTransitions.value_or(0), 7);  // the other write is kept
}

TEST_F(UpdateWithRetryAsyncTest, OneAttemptReturnsItsConflict) {
  api::ObjectPtr stale = Current();
  WriteBehindTheBack(3);
  auto written = Run(
      stale,
      [](const api::Object& current) -> Result<Desired> { return WithHolder(current, "me"); },
      /*attempts=*/1);
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.status().code(), StatusCode::kConflict);
  EXPECT_EQ(retries_, 0);
}

TEST_F(UpdateWithRetryAsyncTest, MutationErrorsAndNothingToWriteEndAtOnce) {
  api::ObjectPtr current = Current();
  auto failed = Run(current, [](const api::Object&) -> Result<Desired> {
    return ConflictError("leases", "l", "taken by someone else");
  });
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), StatusCode::kConflict);
  auto unchanged = Run(current, [](const api::Object&) -> Result<Desired> { return Desired(); });
  ASSERT_TRUE(unchanged.ok());
  EXPECT_EQ(unchanged->get(), current.get());
  EXPECT_EQ(retries_, 0);
  EXPECT_EQ(store_.CurrentResourceVersion(), std::stoull(current->metadata.resourceVersion));
}

}  // namespace
}  // namespace allot::client
