// Allocator: devices a reservation holds for the pod (HeldDevices), Aligned and Restricted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dra/testing/allocator.h"

namespace allot::dra {
namespace {

using namespace testing::vocabulary;  // NOLINT: the allocator tests' shared names

// Node n1 with gpu-0..gpu-3 and nic-0..nic-1; gpu-2 and gpu-3 are held by a reservation (in
// use once, for its claim).
struct HeldFixture {
  AllocatorHarness h;
  HeldDevices held;
  HeldFixture() {
    h.Slice(SliceBuilder("n1-gpus", kDriver, "n1").Node("n1").Devices("gpu", 4));
    h.Slice(SliceBuilder("n1-nics", "nic.example.com", "n1-nic").Node("n1").Devices("nic", 2));
    h.Class(ClassBuilder("gpu").Selector(std::string("driver=") + kDriver));
    h.Class(ClassBuilder("nic").Selector("driver=nic.example.com"));
    api::AllocationResult reservation;
    for (const char* d : {"gpu-2", "gpu-3"}) {
      reservation.devices.results.push_back(
          AllocatorHarness::Taken(kDriver, "n1", d).devices.results[0]);
    }
    h.Use(reservation);
    for (const char* d : {"gpu-2", "gpu-3"})
      held.devices.push_back(*h.inventory()->Find(kDriver, "n1", d));
    std::sort(held.devices.begin(), held.devices.end());
    held.reserved = held.devices;
  }
  Allocator::Outcome Run(std::vector<std::shared_ptr<const api::ResourceClaim>> claims,
                         const HeldDevices* with) {
    auto alloc = h.Create(std::move(claims));
    EXPECT_TRUE(alloc.ok()) << alloc.status().message();
    return (*alloc)->Allocate(MakeNode("n1"), h.in_use(), with);
  }
};

TEST(AllocatorHeld, WithoutTheHoldReservedDevicesAreTaken) {
  HeldFixture f;
  auto out = f.Run({ClaimBuilder("c").Request("r", "gpu", 3).Build()}, nullptr);
  EXPECT_EQ(out.result, Result::kUnschedulable);
  out = f.Run({ClaimBuilder("c").Request("r", "gpu", 2).Build()}, nullptr);
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("gpu-0", "gpu-1"));
}

TEST(AllocatorHeld, AlignedTakesHeldDevicesFirstThenFreeOnes) {
  HeldFixture f;
  auto out = f.Run({ClaimBuilder("c").Request("r", "gpu", 1).Build()}, &f.held);
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("gpu-2"));
  out = f.Run({ClaimBuilder("c").Request("r", "gpu", 3).Build()}, &f.held);
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("gpu-2", "gpu-3", "gpu-0"));
  out = f.Run({ClaimBuilder("c").Request("r", "gpu", 4).Build()}, &f.held);
  EXPECT_EQ(out.result, Result::kAllocated) << out.reason;
}

TEST(AllocatorHeld, RestrictedTakesOnlyHeldDevicesForWhatTheyCanServe) {
  HeldFixture f;
  f.held.restricted = true;
  auto out = f.Run({ClaimBuilder("c").Request("r", "gpu", 2).Build()}, &f.held);
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("gpu-2", "gpu-3"));
  // More than the reservation holds: the free GPUs may not make up the difference.
  out = f.Run({ClaimBuilder("c").Request("r", "gpu", 3).Build()}, &f.held);
  EXPECT_EQ(out.result, Result::kUnschedulable);
  // "All" GPUs cannot be had either; NICs, which the reservation does not hold, are free.
  out = f.Run({ClaimBuilder("c").AllRequest("r", "gpu").Build()}, &f.held);
  EXPECT_EQ(out.result, Result::kUnschedulable);
  out = f.Run({ClaimBuilder("c").Request("g", "gpu", 1).Request("n", "nic", 2).Build()}, &f.held);
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("gpu-2", "nic-0", "nic-1"));
}

TEST(AllocatorHeld, RestrictedOwnerGetsNothingElseOnceTheHeldDevicesAreTaken) {
  HeldFixture f;
  f.held.restricted = true;
  // Another owner has gpu-2 and gpu-3 already: nothing is usable, the reservation still serves
  // GPUs, so the free gpu-0 and gpu-1 stay out of reach; NICs do not.
  f.held.devices.clear();
  auto out = f.Run({ClaimBuilder("c").Request("r", "gpu", 1).Build()}, &f.held);
  EXPECT_EQ(out.result, Result::kUnschedulable);
  out = f.Run({ClaimBuilder("c").Request("n", "nic", 1).Build()}, &f.held);
  EXPECT_EQ(out.result, Result::kAllocated) << out.reason;
}

// Devices promised to pods nominated to the node (HeldDevices.taken) are never used, even the
// ones the pod's own reservation holds; the rest of the node still serves.
TEST(AllocatorHeld, TakenDevicesAreNeverUsed) {
  HeldFixture f;
  HeldDevices taken;
  taken.taken = {*f.h.inventory()->Find(kDriver, "n1", "gpu-0")};
  auto out = f.Run({ClaimBuilder("c").Request("r", "gpu", 1).Build()}, &taken);
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("gpu-1"));
  out = f.Run({ClaimBuilder("c").Request("r", "gpu", 2).Build()}, &taken);
  EXPECT_EQ(out.result, Result::kUnschedulable);
  // With the reservation's devices: gpu-2, gpu-3 and gpu-1, not gpu-0 nor a taken held one.
  f.held.taken = {*f.h.inventory()->Find(kDriver, "n1", "gpu-0"),
                  *f.h.inventory()->Find(kDriver, "n1", "gpu-3")};
  std::sort(f.held.taken.begin(), f.held.taken.end());
  out = f.Run({ClaimBuilder("c").Request("r", "gpu", 2).Build()}, &f.held);
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("gpu-2", "gpu-1"));
  out = f.Run({ClaimBuilder("c").Request("r", "gpu", 3).Build()}, &f.held);
  EXPECT_EQ(out.result, Result::kUnschedulable);
}

}  // namespace
}  // namespace allot::dra
