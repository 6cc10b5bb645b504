#include "scheduler/plugins/dynamicresources/device_tracker.h"

#include <gtest/gtest.h>

namespace allot::scheduler {
namespace {

constexpr char kDriver[] = "gpu.example.com";

std::shared_ptr<const api::ResourceSlice> Slice() {
  auto s = std::make_shared<api::ResourceSlice>();
  s->metadata.name = "n1-gpu";
  s->spec.driver = kDriver;
  s->spec.pool = {"n1", 1, 1};
  s->spec.nodeName = "n1";
  for (const char* d : {"gpu-0", "gpu-1"}) s->spec.devices.push_back({.name = d});
  return s;
}

api::AllocationResult On(const char* device) {
  api::AllocationResult a;
  auto& r = a.devices.results.emplace_back();
  r.request = "gpu";
  r.driver = kDriver;
  r.pool = "n1";
  r.device = device;
  return a;
}

// As the informer delivers claims: shared and immutable.
std::shared_ptr<const api::ResourceClaim> Claim(const char* uid,
                                                std::optional<api::AllocationResult> alloc) {
  auto c = std::make_shared<api::ResourceClaim>();
  c->metadata.name = std::string("claim-") + uid;
  c->metadata.namespace_ = "default";
  c->metadata.uid = uid;
  c->status.allocation = std::move(alloc);
  return c;
}

class DeviceTrackerTest : public ::testing::Test {
 protected:
  bool InUse(const char* device) {
    DeviceTracker::View v = tracker_.Current();
    return v.in_use->IsInUse(*v.inventory->Find(kDriver, "n1", device));
  }
  DeviceTracker tracker_{
      [] { return std::vector<std::shared_ptr<const api::ResourceSlice>>{Slice()}; }};
};

TEST_F(DeviceTrackerTest, AssumedDevicesStayTakenUntilTheInformerShowsTheWrite) {
  auto unallocated = Claim("u1", std::nullopt);
  tracker_.ClaimChanged(nullptr, unallocated);
  EXPECT_FALSE(InUse("gpu-0"));

  tracker_.Assume("u1", On("gpu-0"));  // Reserve
  EXPECT_TRUE(tracker_.IsAssumed("u1"));
  EXPECT_TRUE(InUse("gpu-0"));
  tracker_.Written("u1");  // PreBind wrote it; the informer has not delivered it yet
  EXPECT_TRUE(tracker_.IsAssumed("u1"));
  EXPECT_TRUE(InUse("gpu-0"));

  auto allocated = Claim("u1", On("gpu-0"));
  tracker_.ClaimChanged(unallocated, allocated);  // the informer catches up
  EXPECT_FALSE(tracker_.IsAssumed("u1"));
  EXPECT_TRUE(InUse("gpu-0"));

  tracker_.ClaimChanged(allocated, unallocated);  // deallocated by the controller
  EXPECT_FALSE(InUse("gpu-0"));
  EXPECT_EQ(tracker_.assumed_count(), 0u);
}

TEST_F(DeviceTrackerTest, ForgetBeforeTheWriteFreesTheDevice) {
  tracker_.Assume("u1", On("gpu-1"));
  EXPECT_TRUE(InUse("gpu-1"));
  tracker_.Forget("u1");  // Unreserve
  EXPECT_FALSE(InUse("gpu-1"));
  // After the write, Forget keeps the devices: the informer will show them allocated.
  tracker_.Assume("u2", On("gpu-1"));
  tracker_.Written("u2");
  tracker_.Forget("u2");
  EXPECT_TRUE(InUse("gpu-1"));
}

TEST_F(DeviceTrackerTest, InformerFasterThanTheWriteReturnDropsTheAssumption) {
  tracker_.Assume("u1", On("gpu-0"));
  auto allocated = Claim("u1", On("gpu-0"));
  tracker_.ClaimChanged(nullptr, allocated);
  EXPECT_TRUE(tracker_.IsAssumed("u1"));  // not yet known to be ours
  tracker_.Written("u1");
  EXPECT_FALSE(tracker_.IsAssumed("u1"));
  EXPECT_TRUE(InUse("gpu-0"));
  tracker_.ClaimChanged(allocated, nullptr);  // claim deleted
  EXPECT_FALSE(InUse("gpu-0"));
}

TEST_F(DeviceTrackerTest, InventoryIsRebuiltOnlyWhenSlicesChange) {
  tracker_.Current();
  tracker_.Current();
  EXPECT_EQ(tracker_.inventory_builds(), 1u);
  tracker_.SlicesChanged();
  tracker_.Current();
  EXPECT_EQ(tracker_.inventory_builds(), 2u);
}

}  // namespace
}  // namespace allot::scheduler
