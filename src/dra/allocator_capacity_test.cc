// Allocator: shared counters (DRAPartitionableDevices) and consumable capacity
// (DRAConsumableCapacity).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "dra/testing/allocator.h"

namespace allot::dra {
namespace {

using namespace testing::vocabulary;  // NOLINT: the allocator tests' shared names

// One 80Gi GPU offered whole, as two halves and as four quarters.
void Partitions(AllocatorHarness& h) {
  SliceBuilder s("s", kDriver, "n1");
  s.Node("n1").SharedCounter("gpu-0", "memory", "80Gi");
  s.Device(DeviceBuilder("whole").Str("size", "whole").Consumes("gpu-0", "memory", "80Gi"));
  for (int i = 0; i < 2; ++i) {
    s.Device(DeviceBuilder("half-" + std::to_string(i))
                 .Str("size", "half")
                 .Consumes("gpu-0", "memory", "40Gi"));
  }
  for (int i = 0; i < 4; ++i) {
    s.Device(DeviceBuilder("quarter-" + std::to_string(i))
                 .Str("size", "quarter")
                 .Consumes("gpu-0", "memory", "20Gi"));
  }
  h.Slice(s);
  h.Class(ClassBuilder("gpu"));
}

TEST(Counters, DevicesShareTheCounter) {
  struct Case {
    std::string name;
    std::vector<std::string> taken;
    ClaimBuilder claim;
    std::vector<std::string> devices;  // empty: unschedulable
  } cases[] = {
      {"whole", {}, ClaimBuilder("c").Request("r", "gpu"), {"whole"}},
      {"two do not fit with whole",
       {},
       ClaimBuilder("c").Request("r", "gpu", 2),
       {"half-0", "half-1"}},
      {"halves and quarters",
       {},
       ClaimBuilder("c").Request("r", "gpu", 3),
       {"half-0", "quarter-0", "quarter-1"}},
      {"four quarters",
       {},
       ClaimBuilder("c").Request("r", "gpu", 4).Selector("size=quarter"),
       {"quarter-0", "quarter-1", "quarter-2", "quarter-3"}},
      {"five is too many", {}, ClaimBuilder("c").Request("r", "gpu", 5), {}},
      {"in use half leaves 40Gi",
       {"half-0"},
       ClaimBuilder("c").Request("r", "gpu", 2),
       {"quarter-0", "quarter-1"}},
      {"in use half blocks whole",
       {"half-0"},
       ClaimBuilder("c").Request("r", "gpu").Selector("size=whole"),
       {}},
      {"in use whole blocks all", {"whole"}, ClaimBuilder("c").Request("r", "gpu"), {}},
  };
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    AllocatorHarness h;
    Partitions(h);
    for (const std::string& d : c.taken) h.Use(AllocatorHarness::Taken(kDriver, "n1", d));
    auto out = h.Allocate({c.claim.Build()}, MakeNode("n1"));
    if (c.devices.empty()) {
      EXPECT_EQ(out.result, Result::kUnschedulable);
      continue;
    }
    ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
    EXPECT_EQ(DeviceNames(out.allocations[0]), c.devices);
  }
}

TEST(Counters, AcrossClaimsOfOnePod) {
  AllocatorHarness h;
  Partitions(h);
  auto out = h.Allocate({ClaimBuilder("a").Request("r", "gpu").Selector("size=half").Build(),
                         ClaimBuilder("b").Request("r", "gpu").Selector("size=whole").Build()},
                        MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kUnschedulable);
  out = h.Allocate({ClaimBuilder("a").Request("r", "gpu").Selector("size=half").Build(),
                    ClaimBuilder("b").Request("r", "gpu", 2).Selector("size=quarter").Build()},
                   MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
}

// Shared NICs: bandwidth 10Gi in steps of 1Gi (default 1Gi, max 8Gi), 4 queues taken as 1, 2
// or 4 (default 1), and a zero capacity "aux".
void Nics(AllocatorHarness& h, int n = 1) {
  SliceBuilder s("nics", "net.example.com", "n1");
  s.Node("n1");
  for (int i = 0; i < n; ++i) {
    DeviceBuilder d("nic-" + std::to_string(i));
    d.Shared()
        .Capacity("bandwidth", "10Gi", ValidRange("1Gi", "1Gi", "8Gi", "1Gi"))
        .Capacity("queues", "4", ValidValues("1", {"1", "2", "4"}))
        .Capacity("aux", "0");
    s.Device(d);
  }
  h.Slice(s);
  h.Class(ClassBuilder("nic"));
}

std::map<std::string, std::string> Consumed(const api::DeviceRequestAllocationResult& r) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : r.rare->consumedCapacity) out[k] = v.ToString();
  return out;
}

TEST(ConsumableCapacity, RoundingByRequestPolicy) {
  struct Case {
    std::string name;
    std::vector<std::pair<std::string, std::string>> requests;
    std::map<std::string, std::string> consumed;  // empty: unschedulable
  } cases[] = {
      {"defaults", {}, {{"aux", "0"}, {"bandwidth", "1Gi"}, {"queues", "1"}}},
      {"step rounds up",
       {{"bandwidth", "1500Mi"}},
       {{"aux", "0"}, {"bandwidth", "2Gi"}, {"queues", "1"}}},
      {"below min", {{"bandwidth", "1Mi"}}, {{"aux", "0"}, {"bandwidth", "1Gi"}, {"queues", "1"}}},
      {"on the grid",
       {{"bandwidth", "3Gi"}},
       {{"aux", "0"}, {"bandwidth", "3Gi"}, {"queues", "1"}}},
      {"above max", {{"bandwidth", "9Gi"}}, {}},
      {"valid values round up",
       {{"queues", "3"}},
       {{"aux", "0"}, {"bandwidth", "1Gi"}, {"queues", "4"}}},
      {"beyond valid values", {{"queues", "5"}}, {}},
      {"qualified name",
       {{"net.example.com/queues", "2"}},
       {{"aux", "0"}, {"bandwidth", "1Gi"}, {"queues", "2"}}},
      {"other domain", {{"other.example.com/queues", "2"}}, {}},
      {"unknown capacity", {{"memory", "1"}}, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    AllocatorHarness h;
    Nics(h);
    ClaimBuilder b("c");
    b.Request("r", "nic");
    for (const auto& [name, q] : c.requests) b.Capacity(name, q);
    auto out = h.Allocate({b.Build()}, MakeNode("n1"));
    if (c.consumed.empty()) {
      EXPECT_EQ(out.result, Result::kUnschedulable);
      continue;
    }
    ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
    const auto& r = out.allocations[0].devices.results[0];
    EXPECT_EQ(Consumed(r), c.consumed);
    ASSERT_TRUE(r.rare->shareID.has_value());
    EXPECT_TRUE(
        std::regex_match(*r.rare->shareID, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-"
                                                      "[89ab][0-9a-f]{3}-[0-9a-f]{12}")))
        << *r.rare->shareID;
  }
}

TEST(ConsumableCapacity, SharesAddUp) {
  AllocatorHarness h;
  Nics(h);
  auto claim = [](const std::string& name, const std::string& bw) {
    return ClaimBuilder(name).Request("r", "nic").Capacity("bandwidth", bw).Build();
  };
  // Two claims of 4Gi fit into 10Gi; a third does not.
  auto out = h.Allocate({claim("a", "4Gi"), claim("b", "4Gi")}, MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  const auto& ra = out.allocations[0].devices.results[0];
  const auto& rb = out.allocations[1].devices.results[0];
  EXPECT_EQ(ra.device, "nic-0");
  EXPECT_EQ(rb.device, "nic-0");
  EXPECT_NE(*ra.rare->shareID, *rb.rare->shareID);
  out = h.Allocate({claim("a", "4Gi"), claim("b", "4Gi"), claim("c", "4Gi")}, MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kUnschedulable);
  // Shares recorded in the state count too.
  auto first = h.Allocate({claim("a", "8Gi")}, MakeNode("n1"));
  ASSERT_EQ(first.result, Result::kAllocated);
  h.Use(first.allocations[0]);
  EXPECT_EQ(h.in_use().ShareCount(*h.inventory()->Find("net.example.com", "n1", "nic-0")), 1u);
  EXPECT_EQ(h.Allocate({claim("b", "3Gi")}, MakeNode("n1")).result, Result::kUnschedulable);
  EXPECT_EQ(h.Allocate({claim("b", "2Gi")}, MakeNode("n1")).result, Result::kAllocated);
  // A shared device is never exclusively "in use": All may still take a share.
  EXPECT_EQ(h.Allocate({ClaimBuilder("all").AllRequest("r", "nic").Build()}, MakeNode("n1")).result,
            Result::kAllocated);
}

TEST(ConsumableCapacity, OneShareOfADevicePerRequest) {
  AllocatorHarness h;
  Nics(h, 2);
  auto out = h.Allocate({ClaimBuilder("c").Request("r", "nic", 2).Build()}, MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("nic-0", "nic-1"));
  out = h.Allocate({ClaimBuilder("c").Request("r", "nic", 3).Build()}, MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kUnschedulable);
  // Two requests of one claim may share a device.
  out = h.Allocate({ClaimBuilder("c").Request("a", "nic", 2).Request("b", "nic", 2).Build()},
                   MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("nic-0", "nic-1", "nic-0", "nic-1"));
}

TEST(ConsumableCapacity, ShareIDsAreDeterministic) {
  AllocatorHarness h;
  Nics(h);
  auto claim = ClaimBuilder("c").Request("r", "nic").Build();
  auto a = h.Allocate({claim}, MakeNode("n1"));
  auto b = h.Allocate({claim}, MakeNode("n1"));
  ASSERT_EQ(a.result, Result::kAllocated);
  EXPECT_EQ(a.allocations[0].devices.results[0].rare->shareID,
            b.allocations[0].devices.results[0].rare->shareID);
}

TEST(ConsumableCapacity, ExclusiveDevicesFilterByCapacity) {
  AllocatorHarness h;
  h.Slice(SliceBuilder("s", kDriver, "n1")
              .Node("n1")
              .Device(DeviceBuilder("small").Capacity("memory", "40Gi"))
              .Device(DeviceBuilder("big").Capacity("memory", "80Gi")));
  h.Class(ClassBuilder("gpu"));
  auto out = h.Allocate({ClaimBuilder("c").Request("r", "gpu").Capacity("memory", "60Gi").Build()},
                        MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  const auto& r = out.allocations[0].devices.results[0];
  EXPECT_EQ(r.device, "big");
  EXPECT_FALSE(r.rare->shareID.has_value());
  EXPECT_THAT(r.rare->consumedCapacity, IsEmpty());
  out = h.Allocate({ClaimBuilder("c").Request("r", "gpu").Capacity("memory", "100Gi").Build()},
                   MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kUnschedulable);
  // With the gate off, allowMultipleAllocations devices are exclusive.
  AllocatorHarness g;
  Nics(g);
  g.options.features.consumable_capacity = false;
  out = g.Allocate({ClaimBuilder("a").Request("r", "nic").Build(),
                    ClaimBuilder("b").Request("r", "nic").Build()},
                   MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kUnschedulable);
  out = g.Allocate({ClaimBuilder("a").Request("r", "nic").Build()}, MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated);
  EXPECT_FALSE(out.allocations[0].devices.results[0].rare->shareID.has_value());
}

}  // namespace
}  // namespace allot::dra
