// Allocator: admin access, taints, binding conditions, node selectors of results, and what the
// feature gates switch off.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dra/testing/allocator.h"

namespace allot::dra {
namespace {

using namespace testing::vocabulary;  // NOLINT: the allocator tests' shared names

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
  EXPECT_EQ(out.allocations[0].devices.results[0].rare->adminAccess, true);
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
  admin.devices.results[0].rare.edit().adminAccess = true;
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
      EXPECT_EQ(out.allocations[0].devices.results[0].rare->tolerations.size(),
                c.tolerations.size());
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
  EXPECT_EQ(out.allocations[0].devices.results[0].rare->tolerations.size(), 1u);
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
  EXPECT_THAT(r.rare->bindingConditions, ElementsAre("attached"));
  EXPECT_THAT(r.rare->bindingFailureConditions, ElementsAre("failed"));
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
  EXPECT_THAT(r.rare->bindingConditions, ElementsAre("kubernetes.io/is-attached"));
  EXPECT_THAT(r.rare->bindingFailureConditions, ElementsAre("kubernetes.io/attach-failed"));
  ASSERT_TRUE(out.allocations[0].nodeSelector.has_value());
  EXPECT_THAT(out.allocations[0].nodeSelector->nodeSelectorTerms[0].matchFields[0].values,
              ElementsAre("n7"));
}

// The four tiers on one node, each written so that the inventory's raw order (pool name, then
// position in the slice) disagrees with the preference: devices with conditions come first in
// every slice, and the node-local pool sorts after the allNodes and selector pools.
void FourTiers(AllocatorHarness& h) {
  constexpr char kNet[] = "net.example.com";
  h.Slice(SliceBuilder("a", kNet, "a-fabric")
              .AllNodes()
              .Device(DeviceBuilder("all-bc").Binding({"attached"}, {"failed"}))
              .Device(DeviceBuilder("all")));
  h.Slice(SliceBuilder("b", kNet, "b-zone")
              .NodeSelector(LabelSelector("zone", "a"))
              .Device(DeviceBuilder("sel-bc").Binding({"attached"}, {"failed"}))
              .Device(DeviceBuilder("sel")));
  h.Slice(SliceBuilder("c", kNet, "c-n1")
              .Node("n1")
              .Device(DeviceBuilder("local-bc").Binding({"ready"}, {"failed"}, false))
              .Device(DeviceBuilder("local")));
  // Per-device node selection: a device nodeName is node-local, a device selector is not.
  h.Slice(SliceBuilder("d", kNet, "d-per")
              .PerDevice()
              .Device(DeviceBuilder("per-bc").NodeName("n1").Binding({"ready"}, {"failed"}, false))
              .Device(DeviceBuilder("per-sel").NodeSelector(LabelSelector("zone", "a"))));
  h.Class(ClassBuilder("net"));
}

TEST(BindingConditions, TierOrderWithinOneNode) {
  AllocatorHarness h;
  FourTiers(h);
  const api::Node n1 = MakeNode("n1", {{"zone", "a"}});
  // One device at a time, each pick taken before the next: the preference order, with the
  // score -tier of the device picked.
  struct Want {
    std::string device;
    int64_t score;
  } order[] = {
      {"local", 0},                                       // node-local, no conditions
      {"all", -1},      {"sel", -1},    {"per-sel", -1},  // others, no conditions
      {"local-bc", -2}, {"per-bc", -2},                   // node-local with conditions
      {"all-bc", -3},   {"sel-bc", -3},                   // others with conditions
  };
  auto claim = ClaimBuilder("c").Request("r", "net").Build();
  for (const Want& w : order) {
    SCOPED_TRACE(w.device);
    auto alloc = h.Create({claim});
    ASSERT_TRUE(alloc.ok()) << alloc.status().ToString();
    auto check = (*alloc)->Check(n1, h.in_use());
    auto out = (*alloc)->Allocate(n1, h.in_use());
    ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
    EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre(w.device));
    EXPECT_EQ(out.score, w.score);
    EXPECT_EQ(check.result, Result::kAllocated);
    EXPECT_EQ(check.score, w.score) << "Check scores as Allocate does";
    EXPECT_THAT(check.allocations, IsEmpty());
    const auto& r = out.allocations[0].devices.results[0];
    h.Use(AllocatorHarness::Taken(r.driver, r.pool, r.device));
  }
  EXPECT_EQ(h.Allocate({claim}, n1).result, Result::kUnschedulable);
}

TEST(BindingConditions, TierOrderInOneClaimAndScoreSumsTiers) {
  AllocatorHarness h;
  FourTiers(h);
  const api::Node n1 = MakeNode("n1", {{"zone", "a"}});
  auto out = h.Allocate({ClaimBuilder("c").Request("r", "net", 8).Build()}, n1);
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(
      DeviceNames(out.allocations[0]),
      ElementsAre("local", "all", "sel", "per-sel", "local-bc", "per-bc", "all-bc", "sel-bc"));
  EXPECT_EQ(out.score, -(0 + 3 * 1 + 2 * 2 + 2 * 3));
  // Fewer devices: the cheapest tiers, in order.
  out = h.Allocate({ClaimBuilder("c").Request("r", "net", 5).Build()}, n1);
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]),
              ElementsAre("local", "all", "sel", "per-sel", "local-bc"));
  EXPECT_EQ(out.score, -5);
  // Another node in zone a: "local", "local-bc" and "per-bc" are not usable there, so the best
  // is tier 1 and only fabric still to attach is left after it.
  const api::Node n2 = MakeNode("n2", {{"zone", "a"}});
  out = h.Allocate({ClaimBuilder("c").Request("r", "net", 5).Build()}, n2);
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]),
              ElementsAre("all", "sel", "per-sel", "all-bc", "sel-bc"));
  EXPECT_EQ(out.score, -(3 * 1 + 2 * 3));
  // A firstAvailable alternative outweighs every tier: the first alternative (a device with
  // conditions) wins over the second (node-local, without).
  out = h.Allocate({ClaimBuilder("c")
                        .FirstAvailable("r")
                        .Sub("fabric", "net")
                        .Selector("name=sel-bc")
                        .Sub("local", "net")
                        .Selector("name=local")
                        .Build()},
                   n1);
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("sel-bc"));
  EXPECT_EQ(out.score, Allocator::Outcome::kAlternativeWeight * 1 - 3);
}

TEST(BindingConditions, BothListsCopiedIntoEachResult) {
  AllocatorHarness h;
  h.Slice(SliceBuilder("fabric", "fabric.example.com", "fabric")
              .AllNodes()
              .Device(DeviceBuilder("a").Binding({"a-attached", "a-linked"}, {"a-failed"}))
              .Device(DeviceBuilder("b").Binding({"b-attached"}, {"b-failed", "b-lost"}))
              .Device(DeviceBuilder("plain")));
  h.Class(ClassBuilder("any"));
  // Two results from two devices, each with its own lists.
  auto out = h.Allocate({ClaimBuilder("c").Request("r", "any", 2).Selector("name!=plain").Build()},
                        MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  const auto& results = out.allocations[0].devices.results;
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].device, "a");
  EXPECT_THAT(results[0].rare->bindingConditions, ElementsAre("a-attached", "a-linked"));
  EXPECT_THAT(results[0].rare->bindingFailureConditions, ElementsAre("a-failed"));
  EXPECT_EQ(results[1].device, "b");
  EXPECT_THAT(results[1].rare->bindingConditions, ElementsAre("b-attached"));
  EXPECT_THAT(results[1].rare->bindingFailureConditions, ElementsAre("b-failed", "b-lost"));
  // The same across requests (and a device without conditions gets empty lists).
  out = h.Allocate({ClaimBuilder("c")
                        .Request("x", "any")
                        .Selector("name=b")
                        .Request("y", "any")
                        .Selector("name=plain")
                        .Request("z", "any")
                        .Selector("name=a")
                        .Build()},
                   MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  const auto& by_request = out.allocations[0].devices.results;
  ASSERT_EQ(by_request.size(), 3u);
  EXPECT_EQ(by_request[0].request + ":" + by_request[0].device, "x:b");
  EXPECT_THAT(by_request[0].rare->bindingConditions, ElementsAre("b-attached"));
  EXPECT_THAT(by_request[0].rare->bindingFailureConditions, ElementsAre("b-failed", "b-lost"));
  EXPECT_EQ(by_request[1].request + ":" + by_request[1].device, "y:plain");
  EXPECT_THAT(by_request[1].rare->bindingConditions, IsEmpty());
  EXPECT_THAT(by_request[1].rare->bindingFailureConditions, IsEmpty());
  EXPECT_EQ(by_request[2].request + ":" + by_request[2].device, "z:a");
  EXPECT_THAT(by_request[2].rare->bindingConditions, ElementsAre("a-attached", "a-linked"));
  EXPECT_THAT(by_request[2].rare->bindingFailureConditions, ElementsAre("a-failed"));
  // Two claims of one pod: each gets its device's lists.
  out = h.Allocate({ClaimBuilder("c1").Request("r", "any").Selector("name=a").Build(),
                    ClaimBuilder("c2").Request("r", "any").Selector("name=b").Build()},
                   MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  ASSERT_EQ(out.allocations.size(), 2u);
  EXPECT_THAT(out.allocations[0].devices.results[0].rare->bindingFailureConditions,
              ElementsAre("a-failed"));
  EXPECT_THAT(out.allocations[1].devices.results[0].rare->bindingConditions,
              ElementsAre("b-attached"));
  EXPECT_THAT(out.allocations[1].devices.results[0].rare->bindingFailureConditions,
              ElementsAre("b-failed", "b-lost"));
}

// allocation.nodeSelector is exactly one term: matchFields metadata.name In [node].
void ExpectPinnedTo(const Allocator::Outcome& out, const std::string& node) {
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  const auto& sel = out.allocations[0].nodeSelector;
  ASSERT_TRUE(sel.has_value()) << "not pinned";
  ASSERT_EQ(sel->nodeSelectorTerms.size(), 1u);
  const api::NodeSelectorTerm& term = sel->nodeSelectorTerms[0];
  EXPECT_THAT(term.matchExpressions, IsEmpty());
  ASSERT_EQ(term.matchFields.size(), 1u);
  EXPECT_EQ(term.matchFields[0].key, "metadata.name");
  EXPECT_EQ(term.matchFields[0].operator_, "In");
  EXPECT_THAT(term.matchFields[0].values, ElementsAre(node));
}

TEST(BindingConditions, BindsToNodePinsTheAllocation) {
  AllocatorHarness h;
  h.Slice(SliceBuilder("all", "fabric.example.com", "all")
              .AllNodes()
              .Device(DeviceBuilder("all-binds").Binding({"attached"}, {"failed"}))
              .Device(DeviceBuilder("all-free").Binding({"attached"}, {"failed"}, false))
              .Device(DeviceBuilder("all-plain")));
  h.Slice(SliceBuilder("zone", "fabric.example.com", "zone")
              .NodeSelector(LabelSelector("zone", "a"))
              .Device(DeviceBuilder("sel-binds").Binding({"attached"}, {"failed"}))
              .Device(DeviceBuilder("sel-plain")));
  h.Class(ClassBuilder("any"));
  const api::Node n3 = MakeNode("n3", {{"zone", "a"}});
  auto one = [&](const std::string& device) {
    return h.Allocate({ClaimBuilder("c").Request("r", "any").Selector("name=" + device).Build()},
                      n3);
  };
  {
    SCOPED_TRACE("allNodes, bindsToNode");
    ExpectPinnedTo(one("all-binds"), "n3");
  }
  {
    SCOPED_TRACE("nodeSelector slice, bindsToNode: the node, not the slice's selector");
    ExpectPinnedTo(one("sel-binds"), "n3");
  }
  // Without bindsToNode: an allNodes device leaves the selector unset (with or without
  // conditions); a selector device gets the slice's selector.
  for (const char* device : {"all-free", "all-plain"}) {
    SCOPED_TRACE(device);
    auto out = one(device);
    ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
    EXPECT_FALSE(out.allocations[0].nodeSelector.has_value());
  }
  auto out = one("sel-plain");
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  ASSERT_TRUE(out.allocations[0].nodeSelector.has_value());
  EXPECT_EQ(out.allocations[0].nodeSelector->nodeSelectorTerms[0].matchExpressions[0].key, "zone");
  // One bindsToNode device among others pins the whole claim.
  out = h.Allocate({ClaimBuilder("c")
                        .Request("a", "any")
                        .Selector("name=sel-plain")
                        .Request("b", "any")
                        .Selector("name=all-plain")
                        .Request("c", "any")
                        .Selector("name=all-binds")
                        .Build()},
                   n3);
  ExpectPinnedTo(out, "n3");
  // Pinned to whichever node the allocation was made for.
  out = h.Allocate({ClaimBuilder("c").Request("r", "any").Selector("name=all-binds").Build()},
                   MakeNode("other"));
  ExpectPinnedTo(out, "other");
}

TEST(BindingConditions, NeedsAttachingDraftPinsAndFails) {
  AllocatorHarness h;
  constexpr char kNeeds[] = "kubernetes.io/needs-attaching";
  h.Slice(SliceBuilder("zone", "fabric.example.com", "zone")
              .NodeSelector(LabelSelector("zone", "a"))
              .Device(DeviceBuilder("draft").Bool(kNeeds, true))
              .Device(DeviceBuilder("not").Bool(kNeeds, false))
              .Device(DeviceBuilder("explicit")
                          .Bool(kNeeds, true)
                          .Binding({"example.com/mine"}, {"example.com/bad"}, false)));
  h.Class(ClassBuilder("any"));
  const api::Node n4 = MakeNode("n4", {{"zone", "a"}});
  auto one = [&](const std::string& device) {
    return h.Allocate({ClaimBuilder("c").Request("r", "any").Selector("name=" + device).Build()},
                      n4);
  };
  // The draft attribute: the conditions of the draft API, and bindsToNode (pinned to the node
  // instead of the slice's selector).
  auto out = one("draft");
  ExpectPinnedTo(out, "n4");
  ASSERT_EQ(out.result, Result::kAllocated);
  const auto& draft = out.allocations[0].devices.results[0];
  EXPECT_THAT(draft.rare->bindingConditions, ElementsAre("kubernetes.io/is-attached"));
  EXPECT_THAT(draft.rare->bindingFailureConditions, ElementsAre("kubernetes.io/attach-failed"));
  EXPECT_EQ(out.score, -3);  // not node-local, with conditions
  // needs-attaching: false is nothing special.
  out = one("not");
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(out.allocations[0].devices.results[0].rare->bindingConditions, IsEmpty());
  EXPECT_THAT(out.allocations[0].devices.results[0].rare->bindingFailureConditions, IsEmpty());
  EXPECT_EQ(out.allocations[0].nodeSelector->nodeSelectorTerms[0].matchExpressions[0].key, "zone");
  EXPECT_EQ(out.score, -1);
  // Explicit conditions win: its own lists, and no bindsToNode (the slice's selector).
  out = one("explicit");
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  const auto& own = out.allocations[0].devices.results[0];
  EXPECT_THAT(own.rare->bindingConditions, ElementsAre("example.com/mine"));
  EXPECT_THAT(own.rare->bindingFailureConditions, ElementsAre("example.com/bad"));
  ASSERT_TRUE(out.allocations[0].nodeSelector.has_value());
  EXPECT_THAT(out.allocations[0].nodeSelector->nodeSelectorTerms[0].matchFields, IsEmpty());
  EXPECT_EQ(out.allocations[0].nodeSelector->nodeSelectorTerms[0].matchExpressions[0].key, "zone");
  // The draft device counts as one with conditions: preferred after the plain one.
  out = h.Allocate({ClaimBuilder("c").Request("r", "any").Selector("name!=explicit").Build()}, n4);
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("not"));
}

TEST(BindingConditions, GatesOffNeverSelectDevicesWithConditions) {
  for (int gate = 0; gate < 2; ++gate) {
    SCOPED_TRACE(gate == 0 ? "DRADeviceBindingConditions=false"
                           : "DRAResourceClaimDeviceStatus=false");
    auto off = [gate](AllocatorHarness& h) {
      if (gate == 0) h.options.features.binding_conditions = false;
      if (gate == 1) h.options.features.resource_claim_device_status = false;
    };
    // Only devices with conditions (explicit, node-local, or the draft attribute): none fits.
    // (A fresh harness, so a fresh inventory: see SharedInventoryGateChange below.)
    auto only_with_conditions = [](AllocatorHarness& h) {
      h.Slice(SliceBuilder("fabric", "fabric.example.com", "fabric")
                  .AllNodes()
                  .Device(DeviceBuilder("attach").Binding({"attached"}, {"failed"}))
                  .Device(DeviceBuilder("draft").Bool("kubernetes.io/needs-attaching", true)));
      h.Slice(SliceBuilder("local", "fabric.example.com", "n1")
                  .Node("n1")
                  .Device(DeviceBuilder("local-bc").Binding({"ready"}, {}, false)));
      h.Class(ClassBuilder("any"));
    };
    auto claim = ClaimBuilder("c").Request("r", "any").Build();
    {
      AllocatorHarness on;
      only_with_conditions(on);
      ASSERT_EQ(on.Allocate({claim}, MakeNode("n1")).result, Result::kAllocated);
    }
    {
      AllocatorHarness h;
      only_with_conditions(h);
      off(h);
      auto out = h.Allocate({claim}, MakeNode("n1"));
      EXPECT_EQ(out.result, Result::kUnschedulable);
      EXPECT_THAT(out.reason, HasSubstr("cannot allocate all claims"));
      auto alloc = h.Create({claim});
      ASSERT_TRUE(alloc.ok());
      EXPECT_EQ((*alloc)->Check(MakeNode("n1"), h.in_use()).result, Result::kUnschedulable);
      // Nor for an All request, nor with admin access.
      EXPECT_EQ(
          h.Allocate({ClaimBuilder("c").AllRequest("r", "any").Build()}, MakeNode("n1")).result,
          Result::kUnschedulable);
      h.options.admin_access_allowed = true;
      EXPECT_EQ(h.Allocate({ClaimBuilder("c").Request("r", "any").Admin().Build()}, MakeNode("n1"))
                    .result,
                Result::kUnschedulable);
    }
    // With a device without conditions: that one, even where the others come first in the
    // inventory and even when it is not node-local; never a second one.
    {
      AllocatorHarness h;
      h.Slice(SliceBuilder("a", "fabric.example.com", "a-local")
                  .Node("n1")
                  .Device(DeviceBuilder("local-bc").Binding({"ready"}, {"failed"}, false)));
      h.Slice(SliceBuilder("b", "fabric.example.com", "b-fabric")
                  .AllNodes()
                  .Device(DeviceBuilder("attach").Binding({"attached"}, {"failed"}))
                  .Device(DeviceBuilder("plain")));
      h.Class(ClassBuilder("any"));
      off(h);
      auto out = h.Allocate({ClaimBuilder("c").Request("r", "any").Build()}, MakeNode("n1"));
      ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
      EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("plain"));
      EXPECT_THAT(out.allocations[0].devices.results[0].rare->bindingConditions, IsEmpty());
      EXPECT_FALSE(out.allocations[0].nodeSelector.has_value());
      EXPECT_EQ(
          h.Allocate({ClaimBuilder("c").Request("r", "any", 2).Build()}, MakeNode("n1")).result,
          Result::kUnschedulable);
      // All: the devices with conditions are not part of "all" with the gate off.
      out = h.Allocate({ClaimBuilder("c").AllRequest("r", "any").Build()}, MakeNode("n1"));
      ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
      EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("plain"));
      // The plain device taken: nothing left.
      h.Use(AllocatorHarness::Taken("fabric.example.com", "b-fabric", "plain"));
      EXPECT_EQ(h.Allocate({ClaimBuilder("c").Request("r", "any").Build()}, MakeNode("n1")).result,
                Result::kUnschedulable);
    }
  }
}

// The candidate sets are cached in the Inventory, shared by every Allocator built on it: their
// key covers both gates StaticallyUsable depends on, so an allocator with
// DRAResourceClaimDeviceStatus off never reuses a set that holds devices with binding conditions.
TEST(BindingConditions, SharedInventoryGateChange) {
  AllocatorHarness h;
  h.Slice(SliceBuilder("fabric", "fabric.example.com", "fabric")
              .AllNodes()
              .Device(DeviceBuilder("attach").Binding({"attached"}, {"failed"})));
  h.Class(ClassBuilder("any"));
  auto claim = ClaimBuilder("c").Request("r", "any").Build();
  ASSERT_EQ(h.Allocate({claim}, MakeNode("n1")).result, Result::kAllocated);
  h.options.features.resource_claim_device_status = false;
  EXPECT_EQ(h.Allocate({claim}, MakeNode("n1")).result, Result::kUnschedulable);
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
