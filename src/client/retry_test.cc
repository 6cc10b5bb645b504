// UpdateWithRetry: a write that meets a 409 is tried again from a fresh read; errors of the
// mutation are never retried; nothing to write means no write.
#include "client/retry.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace allot::client
