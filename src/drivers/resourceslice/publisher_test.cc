// PlanPool: one slice per pool, stale slices deleted, generations that only go up, nothing
// written when nothing changed, adoption.
#include "drivers/resourceslice/publisher.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace allot::drivers::resourceslice {
namespace {

api::ResourceSlice Slice(const std::string& name, const std::string& pool, int64_t generation,
                         std::vector<std::string> devices) {
  api::ResourceSlice s;
  s.metadata.name = name;
  s.metadata.uid = "uid-" + name;
  s.metadata.resourceVersion = "5";
  s.spec.driver = "gpu.example.com";
  s.spec.nodeName = "n-0";
  s.spec.pool = {pool, generation, 1};
  for (const std::string& d : devices) {
    api::Device dev;
    dev.name = d;
    s.spec.devices.push_back(dev);
  }
  return s;
}

TEST(PlanPoolTest, ANewPoolIsCreatedAtGenerationOne) {
  PoolPlan plan = PlanPool({}, Slice("n-0-gpu", "n-0", 0, {"a"}));
  ASSERT_EQ(plan.writes.size(), 1u);
  EXPECT_EQ(plan.writes[0].kind, SliceWrite::Kind::kCreate);
  EXPECT_EQ(plan.writes[0].slice->metadata.name, "n-0-gpu");
  EXPECT_EQ(plan.writes[0].slice->spec.pool.generation, 1);
  EXPECT_EQ(plan.generation, 1);
}

TEST(PlanPoolTest, AnUpToDateSliceIsNotWritten) {
  api::ResourceSlice current = Slice("n-0-gpu", "n-0", 3, {"a"});
  PoolPlan plan = PlanPool({&current}, Slice("n-0-gpu", "n-0", 0, {"a"}));
  EXPECT_TRUE(plan.writes.empty());
  EXPECT_EQ(plan.generation, 3);
}

TEST(PlanPoolTest, ChangedDevicesBumpTheGenerationAndKeepTheResourceVersion) {
  api::ResourceSlice current = Slice("n-0-gpu", "n-0", 3, {"a"});
  PoolPlan plan = PlanPool({&current}, Slice("n-0-gpu", "n-0", 0, {"a", "b"}));
  ASSERT_EQ(plan.writes.size(), 1u);
  EXPECT_EQ(plan.writes[0].kind, SliceWrite::Kind::kUpdate);
  EXPECT_EQ(plan.writes[0].slice->spec.pool.generation, 4);
  EXPECT_EQ(plan.writes[0].slice->metadata.resourceVersion, "5");  // compare-and-swap
  EXPECT_EQ(plan.writes[0].slice->spec.devices.size(), 2u);
}

TEST(PlanPoolTest, MetadataOnlyChangesKeepTheGeneration) {
  api::ResourceSlice current = Slice("n-0-gpu", "n-0", 3, {"a"});
  PoolPlan plan = PlanPool({&current}, Slice("n-0-gpu", "n-0", 0, {"a"}),
                           {.metadata = [](api::ObjectMeta& m) { m.labels["x"] = "y"; }});
  ASSERT_EQ(plan.writes.size(), 1u);
  EXPECT_EQ(plan.writes[0].kind, SliceWrite::Kind::kUpdate);
  EXPECT_EQ(plan.writes[0].slice->spec.pool.generation, 3);
}

TEST(PlanPoolTest, StaleSlicesAreDeletedAndANewSliceIsAboveThem) {
  api::ResourceSlice stray = Slice("leftover", "n-0", 7, {"x"});
  PoolPlan plan = PlanPool({&stray}, Slice("n-0-gpu", "n-0", 0, {"a"}));
  ASSERT_EQ(plan.writes.size(), 2u);
  EXPECT_EQ(plan.writes[0].kind, SliceWrite::Kind::kDelete);
  EXPECT_EQ(plan.writes[0].name, "leftover");
  EXPECT_EQ(plan.writes[0].uid, "uid-leftover");
  EXPECT_EQ(plan.writes[1].kind, SliceWrite::Kind::kCreate);
  EXPECT_EQ(plan.writes[1].slice->spec.pool.generation, 8);
  EXPECT_EQ(plan.remember, 8);
}

TEST(PlanPoolTest, AdoptionTakesOverASliceOfThePoolUnderItsName) {
  api::ResourceSlice other = Slice("n-0-gpu-x7k2p", "n-0", 7, {"x"});
  PoolPlan plan = PlanPool({&other}, Slice("n-0-gpu", "n-0", 0, {"a"}), {.adopt = true});
  ASSERT_EQ(plan.writes.size(), 1u);
  EXPECT_EQ(plan.writes[0].kind, SliceWrite::Kind::kUpdate);
  EXPECT_EQ(plan.writes[0].slice->metadata.name, "n-0-gpu-x7k2p");
  EXPECT_EQ(plan.writes[0].slice->spec.pool.generation, 8);
}

TEST(PlanPoolTest, ARecreatedSliceIsNewerThanTheOneDeletedBehindOurBack) {
  PoolPlan plan =
      PlanPool({}, Slice("fabric", "fabric-a100", 0, {"a"}), {.remembered_generation = 1});
  ASSERT_EQ(plan.writes.size(), 1u);
  EXPECT_EQ(plan.writes[0].slice->spec.pool.generation, 2);
}

}  // namespace
}  // namespace allot::drivers::resourceslice
