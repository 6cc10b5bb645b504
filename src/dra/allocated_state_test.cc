#include "dra/allocated_state.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dra/testing/builders.h"

namespace allot::dra {
namespace {

using testing::DeviceBuilder;
using testing::Q;
using testing::SliceBuilder;

constexpr char kDriver[] = "gpu.example.com";

api::AllocationResult Results(std::vector<std::tuple<std::string, std::string>> devices,
                              std::string pool = "p") {
  api::AllocationResult a;
  for (auto& [device, share] : devices) {
    api::DeviceRequestAllocationResult& r = a.devices.results.emplace_back();
    r.request = "r";
    r.driver = kDriver;
    r.pool = pool;
    r.device = device;
    if (!share.empty()) {
      r.rare.edit().shareID = share;
      r.rare.edit().consumedCapacity["bw"] = Q("1Gi");
    }
  }
  return a;
}

std::shared_ptr<const Inventory> Inv(int n = 3) {
  return Inventory::Build({SliceBuilder("s", kDriver, "p")
                               .SharedCounter("set", "mem", "10")
                               .Devices("d", n,
                                        [](int, DeviceBuilder& d) {
                                          d.Consumes("set", "mem", "2").Capacity("bw", "10Gi");
                                        })
                               .Build()});
}

TEST(AllocatedState, AddRemoveRoundTrip) {
  auto inv = Inv();
  AllocatedState s(inv);
  const DeviceIndex d0 = *inv->Find(kDriver, "p", "d-0");
  const DeviceIndex d1 = *inv->Find(kDriver, "p", "d-1");
  auto exclusive = Results({{"d-0", ""}});
  auto shares = Results({{"d-1", "share-a"}, {"d-1", "share-b"}});
  s.Add(exclusive);
  s.Add(shares);
  EXPECT_TRUE(s.IsExclusivelyAllocated(d0));
  EXPECT_TRUE(s.IsInUse(d0));
  EXPECT_FALSE(s.IsExclusivelyAllocated(d1));
  EXPECT_TRUE(s.IsInUse(d1));
  EXPECT_EQ(s.ShareCount(d1), 2u);
  ASSERT_NE(s.ConsumedCapacity(d1), nullptr);
  EXPECT_EQ(s.ConsumedCapacity(d1)->at("bw"), Q("2Gi"));
  // d-0 and d-1 consume the counter once each (shares do not multiply it).
  EXPECT_EQ(s.ConsumedCounter(kDriver, "p", "set", "mem"), Q("4"));
  EXPECT_EQ(s.ConsumedCounter(kDriver, "p", "set", "other"), Q("0"));
  s.Remove(exclusive);
  EXPECT_FALSE(s.IsInUse(d0));
  EXPECT_EQ(s.ConsumedCounter(kDriver, "p", "set", "mem"), Q("2"));
  s.Remove(Results({{"d-1", "share-a"}}));
  EXPECT_EQ(s.ShareCount(d1), 1u);
  EXPECT_EQ(s.ConsumedCapacity(d1)->at("bw"), Q("1Gi"));
  s.Remove(Results({{"d-1", "share-b"}}));
  EXPECT_FALSE(s.IsInUse(d1));
  EXPECT_EQ(s.ConsumedCapacity(d1), nullptr);
  EXPECT_EQ(s.ConsumedCounterAt(*inv->FindCounter(kDriver, "p", "set", "mem")), nullptr);
  EXPECT_TRUE(s.empty());
  // Removing what was never added changes nothing.
  s.Remove(exclusive);
  EXPECT_TRUE(s.empty());
}

TEST(AllocatedState, AdminAccessIsNotUse) {
  auto inv = Inv();
  AllocatedState s(inv);
  auto a = Results({{"d-0", ""}});
  a.devices.results[0].rare.edit().adminAccess = true;
  s.Add(a);
  EXPECT_FALSE(s.IsInUse(*inv->Find(kDriver, "p", "d-0")));
  EXPECT_TRUE(s.empty());
}

TEST(AllocatedState, RebaseKeepsUsesOfDevicesThatComeBack) {
  auto small = Inv(1);
  AllocatedState s(small);
  s.Add(Results({{"d-0", ""}, {"d-2", ""}}));  // d-2 is not in the inventory (yet)
  EXPECT_TRUE(s.IsInUse(*small->Find(kDriver, "p", "d-0")));
  EXPECT_EQ(s.ConsumedCounter(kDriver, "p", "set", "mem"), Q("2"));
  auto big = Inv(3);
  s.Rebase(big);
  EXPECT_EQ(s.inventory(), big.get());
  EXPECT_TRUE(s.IsInUse(*big->Find(kDriver, "p", "d-0")));
  EXPECT_FALSE(s.IsInUse(*big->Find(kDriver, "p", "d-1")));
  EXPECT_TRUE(s.IsInUse(*big->Find(kDriver, "p", "d-2")));
  EXPECT_EQ(s.ConsumedCounter(kDriver, "p", "set", "mem"), Q("4"));
  s.Rebase(small);
  s.Rebase(big);
  EXPECT_TRUE(s.IsInUse(*big->Find(kDriver, "p", "d-2")));
  s.Remove(Results({{"d-2", ""}}));
  EXPECT_FALSE(s.IsInUse(*big->Find(kDriver, "p", "d-2")));
  EXPECT_EQ(s.ConsumedCounter(kDriver, "p", "set", "mem"), Q("2"));
}

// Exclusive uses of the inventory's devices are counted by index alone; a rebase must carry
// them by name through an inventory that lacks the device and back.
TEST(AllocatedState, ExclusiveUsesCountedByIndexSurviveRebases) {
  auto big = Inv(3);
  AllocatedState s(big);
  s.Add(Results({{"d-2", ""}}));
  s.Add(Results({{"d-2", ""}}));  // twice: a reservation's claim and its owner's
  EXPECT_FALSE(s.empty());
  EXPECT_EQ(s.ExclusiveUses(*big->Find(kDriver, "p", "d-2")), 2u);
  s.Rebase(Inv(1));  // d-2 is gone: remembered by ID
  EXPECT_FALSE(s.empty());
  auto again = Inv(3);
  s.Rebase(again);
  EXPECT_EQ(s.ExclusiveUses(*again->Find(kDriver, "p", "d-2")), 2u);
  EXPECT_EQ(s.ConsumedCounter(kDriver, "p", "set", "mem"), Q("2"));  // once while in use
  s.Remove(Results({{"d-2", ""}}));
  EXPECT_EQ(s.ConsumedCounter(kDriver, "p", "set", "mem"), Q("2"));
  s.Remove(Results({{"d-2", ""}}));
  EXPECT_FALSE(s.IsInUse(*again->Find(kDriver, "p", "d-2")));
  EXPECT_EQ(s.ConsumedCounter(kDriver, "p", "set", "mem"), Q("0"));
  EXPECT_TRUE(s.empty());
  s.Remove(Results({{"d-2", ""}}));  // nothing left to remove
  EXPECT_TRUE(s.empty());
  EXPECT_TRUE(s.ForReading().empty());
}

TEST(AllocatedState, CopiesAreIndependent) {
  auto inv = Inv();
  AllocatedState master(inv);
  master.Add(Results({{"d-0", "x"}}));
  AllocatedState cycle = master;
  cycle.Add(Results({{"d-0", "y"}, {"d-1", ""}}));
  const DeviceIndex d0 = *inv->Find(kDriver, "p", "d-0");
  const DeviceIndex d1 = *inv->Find(kDriver, "p", "d-1");
  EXPECT_EQ(master.ShareCount(d0), 1u);
  EXPECT_FALSE(master.IsInUse(d1));
  EXPECT_EQ(cycle.ShareCount(d0), 2u);
  EXPECT_TRUE(cycle.IsInUse(d1));
}

TEST(AllocatedState, DefaultConstructedIsEmpty) {
  AllocatedState s;
  EXPECT_EQ(s.inventory(), nullptr);
  EXPECT_FALSE(s.IsInUse(0));
  EXPECT_EQ(s.ShareCount(0), 0u);
  s.Add(Results({{"d-0", ""}}));
  auto inv = Inv();
  s.Rebase(inv);
  EXPECT_TRUE(s.IsInUse(*inv->Find(kDriver, "p", "d-0")));
}

}  // namespace
}  // namespace allot::dra

namespace allot::dra {
namespace {

TEST(AllocatedStateForReading, SeesTheSameUseAndLeavesTheOriginalAlone) {
  auto inv = Inventory::Build(
      {testing::SliceBuilder("s", "gpu.example.com", "p").Node("n1").Devices("gpu", 2).Build()});
  AllocatedState master(inv);
  api::AllocationResult a;
  auto& r = a.devices.results.emplace_back();
  r.request = "r";
  r.driver = "gpu.example.com";
  r.pool = "p";
  r.device = "gpu-0";
  master.Add(a);
  AllocatedState view = master.ForReading();
  DeviceIndex g0 = *inv->Find("gpu.example.com", "p", "gpu-0");
  DeviceIndex g1 = *inv->Find("gpu.example.com", "p", "gpu-1");
  EXPECT_FALSE(view.empty());
  EXPECT_TRUE(view.IsInUse(g0));
  EXPECT_FALSE(view.IsInUse(g1));
  // The original keeps changing; the view does not.
  master.Remove(a);
  EXPECT_FALSE(master.IsInUse(g0));
  EXPECT_TRUE(view.IsInUse(g0));
  EXPECT_TRUE(AllocatedState(inv).ForReading().empty());
}

// Change counters: a node-local device's use bumps only its node's slot; a device reachable
// from many nodes (or with shared counters, or unknown) bumps the shared counter. Copies for
// reading carry them; Rebase starts over.
TEST(AllocatedState, ChangeCountersPerNodeSlotAndShared) {
  auto inv =
      Inventory::Build({SliceBuilder("a", kDriver, "node-a").Node("node-a").Devices("d", 2).Build(),
                        SliceBuilder("b", kDriver, "node-b").Node("node-b").Devices("d", 2).Build(),
                        SliceBuilder("f", kDriver, "fabric").AllNodes().Devices("f", 2).Build()});
  const uint32_t a = inv->NodeSlot("node-a"), b = inv->NodeSlot("node-b");
  ASSERT_NE(a, Inventory::kNoHome);
  ASSERT_NE(b, Inventory::kNoHome);
  EXPECT_EQ(inv->NodeSlot("node-c"), Inventory::kNoHome);
  EXPECT_EQ(inv->node_slots(), 2u);
  AllocatedState st(inv);
  st.Add(Results({{"d-0", ""}}, "node-a"));
  EXPECT_EQ(st.node_generation(a), 1u);
  EXPECT_EQ(st.node_generation(b), 0u);
  EXPECT_EQ(st.shared_generation(), 0u);
  st.Add(Results({{"f-1", ""}}, "fabric"));
  EXPECT_EQ(st.shared_generation(), 1u);
  st.Add(Results({{"gone", ""}}, "elsewhere"));  // not in the inventory
  EXPECT_EQ(st.shared_generation(), 2u);
  st.Remove(Results({{"d-0", ""}}, "node-a"));
  EXPECT_EQ(st.node_generation(a), 2u);
  EXPECT_EQ(st.node_generation(b), 0u);
  EXPECT_EQ(st.node_generation(Inventory::kNoHome), 0u);
  AllocatedState copy = st.ForReading();
  EXPECT_EQ(copy.node_generation(a), 2u);
  EXPECT_EQ(copy.shared_generation(), 2u);
  st.Rebase(inv);
  EXPECT_EQ(st.node_generation(a), 0u);
  EXPECT_EQ(st.shared_generation(), 0u);
}

// A node-local device with shared counters has no home: its use can change what other
// devices of the pool can do.
TEST(AllocatedState, DevicesWithCountersHaveNoHome) {
  auto inv = Inv();  // one pool with shared counters, all nodes
  for (DeviceIndex i = 0; i < inv->size(); ++i) EXPECT_EQ(inv->home(i), Inventory::kNoHome);
  auto local = Inventory::Build({SliceBuilder("s", kDriver, "n")
                                     .Node("n")
                                     .SharedCounter("set", "mem", "10")
                                     .Devices("d", 2,
                                              [](int i, DeviceBuilder& d) {
                                                if (i == 0) d.Consumes("set", "mem", "2");
                                              })
                                     .Build()});
  ASSERT_EQ(local->size(), 2u);
  int homed = 0;
  for (DeviceIndex i = 0; i < local->size(); ++i) homed += local->home(i) != Inventory::kNoHome;
  EXPECT_EQ(homed, 1);
}

}  // namespace
}  // namespace allot::dra
