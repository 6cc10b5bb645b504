// Allocator: admin access, taints, binding conditions, node selectors of results, and what the
// feature gates switch off.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dra/testing_allocator.h"

namespace allot::dra {
namespace {

using testing::AllocatorHarness;
using testing::ClaimBuilder;
using testing::ClassBuilder;
using testing::DeviceBuilder;
using testing::DeviceNames;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::LabelSelector;
using testing::MakeNode;
using testing::SliceBuilder;
using Result = Allocator::Outcome::Result;

constexpr char kDriver[] = "gpu.example.com";

void TwoGpus(AllocatorHarness& h) {
  h.Slice(SliceBuilder("s", kDriver, "n1").Node("n1").Devices("gpu", 2));
  h.Class(ClassBuilder("gpu"));
}

TEST(AdminAccess, IgnoresOtherAllocations) {
  AllocatorHarness h;
  TwoGpus(h);
  h.options.admin_access_allowed = true;
  h.Use(AllocatorHarness::Taken(kDriver, "n1", "gpu-0"));
  h.Use(AllocatorHarness::Taken(kDriver, "n1", "gpu-1"));
  auto out = h.Allocate({ClaimBuilder("c").Request("r", "gpu", 2).Admin().Build()}, MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("gpu-0", "gpu-1"));
  EXPECT_EQ(out.allocations[0].devices.results[0].adminAccess, true);
  out = h.Allocate({ClaimBuilder("c").AllRequest("r", "gpu").Admin().Build()}, MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  // Still distinct within the claim.
  out = h.Allocate({ClaimBuilder("c").Request("r", "gpu", 3).Admin().Build()}, MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kUnschedulable);
}

TEST(AdminAccess, AnotherClaimsAdminPickDoesNotBlockButBlocksExclusive) {
  AllocatorHarness h;
  TwoGpus(h);
  h.options.admin_access_allowed = true;
  // Two admin claims can watch the same device.
  auto out = h.Allocate({ClaimBuilder("a").Request("r", "gpu", 2).Admin().Build(),
                         ClaimBuilder("b").Request("r", "gpu", 2).Admin().Build()},
                        MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  // Within one pod, a device an admin claim got is not handed out exclusively (Kubernetes).
  out = h.Allocate({ClaimBuilder("a").Request("r", "gpu", 2).Admin().Build(),
                    ClaimBuilder("b").Request("r", "gpu", 1).Build()},
                   MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kUnschedulable);
  // Admin results do not count as use.
  AllocatedState state(h.inventory());
  api::AllocationResult admin = AllocatorHarness::Taken(kDriver, "n1", "gpu-0");
  admin.devices.results[0].adminAccess = true;
  state.Add(admin);
  EXPECT_FALSE(state.IsInUse(*h.inventory()->Find(kDriver, "n1", "gpu-0")));
}

TEST(AdminAccess, NotAllowedOrGateOff) {
  AllocatorHarness h;
  TwoGpus(h);
  auto alloc = h.Create({ClaimBuilder("c", "ns").Request("gpu", "gpu").Admin().Build()});
  ASSERT_FALSE(alloc.ok());
  EXPECT_EQ(alloc.status().code(), kUnschedulableCode);
  EXPECT_EQ(alloc.status().message(), "request gpu: adminAccess is not allowed in namespace ns");
  // adminAccess: false is fine without the label...
  EXPECT_TRUE(h.Create({ClaimBuilder("c", "ns").Request("gpu", "gpu").Admin(false).Build()}).ok());
  // ...but not with the gate off.
  h.options.features.admin_access = false;
  h.options.admin_access_allowed = true;
  alloc = h.Create({ClaimBuilder("c", "ns").Request("gpu", "gpu").Admin(false).Build()});
  ASSERT_FALSE(alloc.ok());
  EXPECT_EQ(alloc.status().message(),
            "claim ns/c, request gpu: admin access is requested, but the feature is disabled");
}

TEST(Taints, TolerationsTable) {
  struct Case {
    std::string name;
    std::string effect;                                 // of the taint
    std::vector<std::vector<std::string>> tolerations;  // key, operator, value, effect
    bool allocated;
  } cases[] = {
      {"NoSchedule, no toleration", "NoSchedule", {}, false},
      {"NoExecute, no toleration", "NoExecute", {}, false},
      {"other effects are ignored", "PreferNoSchedule", {}, true},
      {"Equal, same value", "NoSchedule", {{"k", "Equal", "v", "NoSchedule"}}, true},
      {"empty operator means Equal", "NoSchedule", {{"k", "", "v", "NoSchedule"}}, true},
      {"Equal, other value", "NoSchedule", {{"k", "Equal", "w", "NoSchedule"}}, false},
      {"Exists", "NoExecute", {{"k", "Exists", "", "NoExecute"}}, true},
      {"Exists, empty key", "NoExecute", {{"", "Exists", "", ""}}, true},
      {"other key", "NoSchedule", {{"j", "Exists", "", ""}}, false},
      {"empty effect matches all", "NoExecute", {{"k", "Equal", "v", ""}}, true},
      {"other effect", "NoExecute", {{"k", "Equal", "v", "NoSchedule"}}, false},
      {"second toleration", "NoSchedule", {{"j", "Exists", "", ""}, {"k", "Exists", "", ""}}, true},
      {"unknown operator", "NoSchedule", {{"k", "Gt", "v", ""}}, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    AllocatorHarness h;
    h.Slice(SliceBuilder("s", kDriver, "n1")
                .Node("n1")
                .Device(DeviceBuilder("d").Taint("k", "v", c.effect)));
    h.Class(ClassBuilder("gpu"));
    ClaimBuilder b("c");
    b.Request("r", "gpu");
    for (const auto& t : c.tolerations) b.Toleration(t[0], t[1], t[2], t[3]);
    auto out = h.Allocate({b.Build()}, MakeNode("n1"));
    EXPECT_EQ(out.result, c.allocated ? Result::kAllocated : Result::kUnschedulable);
    if (c.allocated) {
      EXPECT_EQ(out.allocations[0].devices.results[0].tolerations.size(), c.tolerations.size());
    }
    // With the gate off taints are ignored.
    h.options.features.device_taints = false;
    out = h.Allocate({b.Build()}, MakeNode("n1"));
    EXPECT_EQ(out.result, Result::kAllocated);
  }
}

TEST(Taints, SubrequestTolerationsAreTheirOwn) {
  AllocatorHarness h;
  h.Slice(SliceBuilder("s", kDriver, "n1")
              .Node("n1")
              .Device(DeviceBuilder("tainted").Taint("k", "", "NoSchedule"))
              .Device(DeviceBuilder("plain")));
  h.Class(ClassBuilder("gpu"));
  auto out = h.Allocate(
      {ClaimBuilder("c").FirstAvailable("r").Sub("both", "gpu", 2).Sub("one", "gpu", 1).Build()},
      MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("plain"));
  out = h.Allocate({ClaimBuilder("c")
                        .FirstAvailable("r")
                        .Sub("both", "gpu", 2)
                        .Toleration("k", "Exists", "", "NoSchedule")
                        .Sub("one", "gpu", 1)
                        .Build()},
                   MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("tainted", "plain"));
  EXPECT_EQ(out.allocations[0].devices.results[0].request, "r/both");
  EXPECT_EQ(out.allocations[0].devices.results[0].tolerations.size(), 1u);
}

TEST(BindingConditions, CopiedAndLessPreferred) {
  AllocatorHarness h;
  h.Slice(SliceBuilder("fabric", "fabric.example.com", "fabric")
              .AllNodes()
              .Device(DeviceBuilder("attach").Binding({"attached"}, {"failed"}))
              .Device(DeviceBuilder("ready")));
  h.Class(ClassBuilder("any"));
  auto out = h.Allocate({ClaimBuilder("c").Request("r", "any").Build()}, MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("ready"));
  EXPECT_FALSE(out.allocations[0].nodeSelector.has_value());  // allNodes
  EXPECT_EQ(out.score, -1);                                   // not node-local
  out = h.Allocate({ClaimBuilder("c").Request("r", "any", 2).Build()}, MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("ready", "attach"));
  const auto& r = out.allocations[0].devices.results[1];
  EXPECT_THAT(r.bindingConditions, ElementsAre("attached"));
  EXPECT_THAT(r.bindingFailureConditions, ElementsAre("failed"));
  EXPECT_EQ(out.score, -4);  // -1 (ready, not node-local), -3 (still to attach)
  // bindsToNode pins the node.
  ASSERT_TRUE(out.allocations[0].nodeSelector.has_value());
  EXPECT_THAT(out.allocations[0].nodeSelector->nodeSelectorTerms[0].matchFields[0].values,
              ElementsAre("n1"));
  // With the gate off such devices are not allocatable.
  h.options.features.binding_conditions = false;
  out = h.Allocate({ClaimBuilder("c").Request("r", "any", 2).Build()}, MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kUnschedulable);
}

TEST(BindingConditions, NeedsAttachingDraft) {
  AllocatorHarness h;
  h.Slice(SliceBuilder("fabric", "fabric.example.com", "fabric")
              .AllNodes()
              .Device(DeviceBuilder("old").Bool("kubernetes.io/needs-attaching", true)));
  h.Class(ClassBuilder("any"));
  auto out = h.Allocate({ClaimBuilder("c").Request("r", "any").Build()}, MakeNode("n7"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  const auto& r = out.allocations[0].devices.results[0];
  EXPECT_THAT(r.bindingConditions, ElementsAre("kubernetes.io/is-attached"));
  EXPECT_THAT(r.bindingFailureConditions, ElementsAre("kubernetes.io/attach-failed"));
  ASSERT_TRUE(out.allocations[0].nodeSelector.has_value());
  EXPECT_THAT(out.allocations[0].nodeSelector->nodeSelectorTerms[0].matchFields[0].values,
              ElementsAre("n7"));
}

TEST(NodeSelectors, OfResults) {
  AllocatorHarness h;
  h.Slice(SliceBuilder("zone", "net.example.com", "zone-a")
              .NodeSelector(LabelSelector("zone", "a"))
              .Devices("nic", 2));
  h.Slice(SliceBuilder("rack", "net.example.com", "rack-1")
              .NodeSelector(LabelSelector("rack", "1"))
              .Devices("sw", 1));
  h.Slice(SliceBuilder("all", "net.example.com", "global").AllNodes().Devices("g", 1));
  h.Slice(SliceBuilder("per", "net.example.com", "per")
              .PerDevice()
              .Device(DeviceBuilder("p-local").NodeName("n1"))
              .Device(DeviceBuilder("p-sel").NodeSelector(LabelSelector("zone", "a"))));
  h.Class(ClassBuilder("net"));
  api::Node n1 = MakeNode("n1", {{"zone", "a"}, {"rack", "1"}});
  struct Case {
    std::string name;
    std::string selector;  // request selector
    int count;
    // Expected: "" unset, "node" pinned, else the matchExpressions keys joined.
    std::string want;
  } cases[] = {
      {"allNodes", "name=g-0", 1, ""},
      {"slice selector", "name=nic-0", 1, "zone"},
      {"per-device node name", "name=p-local", 1, "node"},
      {"per-device selector", "name=p-sel", 1, "zone"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto out = h.Allocate(
        {ClaimBuilder("c").Request("r", "net", c.count).Selector(c.selector).Build()}, n1);
    ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
    const auto& sel = out.allocations[0].nodeSelector;
    if (c.want.empty()) {
      EXPECT_FALSE(sel.has_value());
    } else if (c.want == "node") {
      ASSERT_TRUE(sel.has_value());
      EXPECT_EQ(sel->nodeSelectorTerms[0].matchFields[0].values[0], "n1");
    } else {
      ASSERT_TRUE(sel.has_value());
      ASSERT_EQ(sel->nodeSelectorTerms.size(), 1u);
      EXPECT_EQ(sel->nodeSelectorTerms[0].matchExpressions[0].key, c.want);
    }
  }
  // Two selector devices merge into one term (requirements deduplicated); adding an allNodes
  // device changes nothing; a node-local one pins the node.
  auto out = h.Allocate({ClaimBuilder("c")
                             .Request("a", "net", 2)
                             .Selector("name!=g-0 && name!=p-local && name!=p-sel && name!=sw-0")
                             .Request("b", "net")
                             .Selector("name=sw-0")
                             .Request("c", "net")
                             .Selector("name=g-0")
                             .Build()},
                        n1);
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  ASSERT_TRUE(out.allocations[0].nodeSelector.has_value());
  const auto& term = out.allocations[0].nodeSelector->nodeSelectorTerms;
  ASSERT_EQ(term.size(), 1u);
  ASSERT_EQ(term[0].matchExpressions.size(), 2u);
  EXPECT_EQ(term[0].matchExpressions[0].key, "zone");
  EXPECT_EQ(term[0].matchExpressions[1].key, "rack");
  EXPECT_THAT(term[0].matchFields, IsEmpty());
  out = h.Allocate({ClaimBuilder("c")
                        .Request("a", "net")
                        .Selector("name=nic-0")
                        .Request("b", "net")
                        .Selector("name=p-local")
                        .Build()},
                   n1);
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_EQ(out.allocations[0].nodeSelector->nodeSelectorTerms[0].matchFields[0].values[0], "n1");
  // Not reachable from a node outside zone a.
  out = h.Allocate({ClaimBuilder("c").Request("a", "net").Selector("name=nic-0").Build()},
                   MakeNode("n2", {{"zone", "b"}}));
  EXPECT_EQ(out.result, Result::kUnschedulable);
}

TEST(PartitionableGate, OffExcludesCounterDevicesAndPerDeviceSlices) {
  AllocatorHarness h;
  h.Slice(SliceBuilder("s", kDriver, "n1")
              .Node("n1")
              .SharedCounter("gpu", "mem", "10")
              .Device(DeviceBuilder("part").Consumes("gpu", "mem", "5")));
  h.Slice(
      SliceBuilder("per", kDriver, "per").PerDevice().Device(DeviceBuilder("p").NodeName("n1")));
  h.Class(ClassBuilder("gpu"));
  auto out = h.Allocate({ClaimBuilder("c").Request("r", "gpu", 2).Build()}, MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  h.options.features.partitionable_devices = false;
  out = h.Allocate({ClaimBuilder("c").Request("r", "gpu", 1).Build()}, MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kUnschedulable);
}

TEST(ConsumableGate, OffRefusesCapacityRequests) {
  AllocatorHarness h;
  TwoGpus(h);
  h.options.features.consumable_capacity = false;
  auto alloc = h.Create({ClaimBuilder("c").Request("r", "gpu").Capacity("memory", "1Gi").Build()});
  ASSERT_FALSE(alloc.ok());
  EXPECT_THAT(
      alloc.status().message(),
      HasSubstr("has capacity requests, but the DRAConsumableCapacity feature is disabled"));
}

}  // namespace
}  // namespace allot::dra
