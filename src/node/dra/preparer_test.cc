// DraClaimPreparer: plugin lookup by driver, shared claims, rollback, unprepare.
#include "node/dra/preparer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "node/testing/dra.h"

namespace allot::node {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class DraPreparerTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(plugins_.Register(gpu_).ok()); }

  MapClaimSource claims_;
  DraPluginRegistry plugins_;
  FakePlugin gpu_;
  DraClaimPreparer preparer_{claims_, plugins_};
};

TEST_F(DraPreparerTest, RegistryRefusesASecondPluginForTheSameDriver) {
  FakePlugin other;
  EXPECT_EQ(plugins_.Register(other).code(), StatusCode::kAlreadyExists);
  EXPECT_TRUE(plugins_.Register(gpu_).ok());  // the same one again is fine
  EXPECT_THAT(plugins_.Drivers(), ElementsAre("gpu.example.com"));
}

TEST_F(DraPreparerTest, PreparesThroughThePluginOfTheAllocatingDriver) {
  claims_.Put(MakeClaim("c", "gpu-0", {"u1"}));
  api::ObjectPtr pod = MakeDraPod("u1", R"({"name":"gpu","resourceClaimName":"c"})");
  ASSERT_TRUE(preparer_.Prepare(AsPod(pod), "n-0").ok());
  EXPECT_THAT(gpu_.Prepared(), ElementsAre("c@n-0"));
  EXPECT_EQ(preparer_.GetStats().prepared_claims, 1);

  preparer_.Unprepare(AsPod(pod), "n-0");
  EXPECT_THAT(gpu_.Unprepared(), ElementsAre("c@n-0"));
  EXPECT_EQ(preparer_.GetStats().prepared_claims, 0);
  preparer_.Unprepare(AsPod(pod), "n-0");  // twice: nothing more
  EXPECT_EQ(gpu_.Unprepared().size(), 1u);
}

TEST_F(DraPreparerTest, UnknownDriverIsAnError) {
  claims_.Put(MakeClaim("c", "nic-0", {"u1"}, {}, "nic.example.com"));
  api::ObjectPtr pod = MakeDraPod("u1", R"({"name":"gpu","resourceClaimName":"c"})");
  Status st = preparer_.Prepare(AsPod(pod), "n-0");
  EXPECT_EQ(st.message(), "driver nic.example.com is not registered");
  EXPECT_THAT(gpu_.Prepared(), IsEmpty());
  EXPECT_EQ(preparer_.GetStats().failures, 1u);
}

TEST_F(DraPreparerTest, ChecksTheClaimAgain) {
  claims_.Put(MakeClaim("c", "gpu-0"));
  api::ObjectPtr pod = MakeDraPod("u1", R"({"name":"gpu","resourceClaimName":"c"})");
  EXPECT_EQ(preparer_.Prepare(AsPod(pod), "n-0").message(),
            "resourceclaim default/c is not reserved for the pod");
}

TEST_F(DraPreparerTest, SharedClaimIsPreparedOnceAndReleasedWithItsLastPod) {
  claims_.Put(MakeClaim("shared", "gpu-0", {"u1", "u2"}));
  api::ObjectPtr p1 = MakeDraPod("u1", R"({"name":"gpu","resourceClaimName":"shared"})");
  api::ObjectPtr p2 = MakeDraPod("u2", R"({"name":"gpu","resourceClaimName":"shared"})");
  ASSERT_TRUE(preparer_.Prepare(AsPod(p1), "n-0").ok());
  ASSERT_TRUE(preparer_.Prepare(AsPod(p2), "n-0").ok());
  EXPECT_EQ(gpu_.Prepared().size(), 1u);
  preparer_.Unprepare(AsPod(p1), "n-0");
  EXPECT_THAT(gpu_.Unprepared(), IsEmpty());
  preparer_.Unprepare(AsPod(p2), "n-0");
  EXPECT_THAT(gpu_.Unprepared(), ElementsAre("shared@n-0"));
}

TEST_F(DraPreparerTest, FailureRollsBackWhatThisCallPrepared) {
  FakePlugin nic("nic.example.com");
  nic.fail = true;
  ASSERT_TRUE(plugins_.Register(nic).ok());
  claims_.Put(MakeClaim("a", "gpu-0", {"u1"}));
  claims_.Put(MakeClaim("b", "nic-0", {"u1"}, {}, "nic.example.com"));
  api::ObjectPtr pod = MakeDraPod("u1", R"({"name":"x","resourceClaimName":"a"},)"
                                        R"({"name":"y","resourceClaimName":"b"})");
  Status st = preparer_.Prepare(AsPod(pod), "n-0");
  EXPECT_EQ(st.message(), "NodePrepareResources failed for default/b: injected");
  EXPECT_THAT(gpu_.Prepared(), ElementsAre("a@n-0"));
  EXPECT_THAT(gpu_.Unprepared(), ElementsAre("a@n-0"));
  EXPECT_EQ(preparer_.GetStats().prepared_claims, 0);
  plugins_.Unregister("nic.example.com");
}

}  // namespace
}  // namespace allot::node
