#include "dra/inventory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "dra/testing/builders.h"
#include "dra/testing/fake_cel.h"

namespace allot::dra {
namespace {

using testing::DeviceBuilder;
using ::testing::ElementsAre;
using testing::FakeCompiler;
using ::testing::IsEmpty;
using testing::LabelSelector;
using testing::MakeNode;
using testing::SliceBuilder;

constexpr char kDriver[] = "gpu.example.com";

std::vector<std::string> Names(const Inventory& inv, const std::vector<DeviceIndex>& idx) {
  std::vector<std::string> out;
  for (DeviceIndex i : idx) out.push_back(std::string(inv.device(i).name));
  return out;
}

std::vector<std::string> ForNode(const Inventory& inv, const api::Node& node) {
  std::vector<DeviceIndex> idx;
  inv.DevicesForNode(node, idx);
  EXPECT_TRUE(std::is_sorted(idx.begin(), idx.end()));
  return Names(inv, idx);
}

TEST(Inventory, OnlyCompletePoolsOfTheNewestGeneration) {
  auto inv = Inventory::Build({
      // Pool a: generation 2 has both slices; generation 1 is ignored.
      SliceBuilder("a-old", kDriver, "a").Pool(1, 1).Devices("old", 1).Build(),
      SliceBuilder("a-1", kDriver, "a").Pool(2, 2).Devices("a1", 1).Build(),
      SliceBuilder("a-2", kDriver, "a").Pool(2, 2).Devices("a2", 1).Build(),
      // Pool b: generation 3 misses a slice, so the complete generation 2 does not count.
      SliceBuilder("b-old", kDriver, "b").Pool(2, 1).Devices("b-old", 1).Build(),
      SliceBuilder("b-1", kDriver, "b").Pool(3, 2).Devices("b", 1).Build(),
      // Pool c: duplicate device names make it invalid.
      SliceBuilder("c-1", kDriver, "c").Pool(0, 2).Devices("dup", 1).Build(),
      SliceBuilder("c-2", kDriver, "c").Pool(0, 2).Devices("dup", 1).Build(),
      // Same pool name under another driver is another pool.
      SliceBuilder("o", "other.example.com", "a").Devices("o", 1).Build(),
  });
  EXPECT_EQ(inv->size(), 3u);
  EXPECT_THAT(ForNode(*inv, MakeNode("n")), ElementsAre("a1-0", "a2-0", "o-0"));
  EXPECT_THAT(inv->incomplete_pools(), ElementsAre("gpu.example.com/b"));
  EXPECT_TRUE(inv->Find(kDriver, "a", "a1-0").has_value());
  EXPECT_FALSE(inv->Find(kDriver, "a", "old-0").has_value());
  EXPECT_FALSE(inv->Find(kDriver, "b", "b-0").has_value());
  EXPECT_FALSE(inv->Find("other.example.com", "a", "a1-0").has_value());
  auto o = inv->Find("other.example.com", "a", "o-0");
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(inv->device(*o).driver, "other.example.com");
  EXPECT_EQ(inv->IncompletePoolForNode(MakeNode("n")), "gpu.example.com/b");
}

TEST(Inventory, NodeScoping) {
  api::NodeSelector by_field;
  by_field.nodeSelectorTerms.emplace_back().matchFields.push_back({"metadata.name", "In", {"n2"}});
  auto inv = Inventory::Build({
      SliceBuilder("local-1", kDriver, "n1").Node("n1").Devices("l1", 1).Build(),
      SliceBuilder("local-2", kDriver, "n2").Node("n2").Devices("l2", 1).Build(),
      SliceBuilder("zone-a", kDriver, "za")
          .NodeSelector(LabelSelector("zone", "a"))
          .Devices("za", 1)
          .Build(),
      SliceBuilder("field", kDriver, "f").NodeSelector(by_field).Devices("f", 1).Build(),
      SliceBuilder("all", kDriver, "all").AllNodes().Devices("all", 1).Build(),
      SliceBuilder("per", kDriver, "per")
          .PerDevice()
          .Device(DeviceBuilder("p-n1").NodeName("n1"))
          .Device(DeviceBuilder("p-zb").NodeSelector(LabelSelector("zone", "b")))
          .Device(DeviceBuilder("p-all").AllNodes())
          .Device(DeviceBuilder("p-none"))
          .Build(),
  });
  EXPECT_THAT(ForNode(*inv, MakeNode("n1", {{"zone", "a"}})),
              ElementsAre("l1-0", "p-n1", "all-0", "p-all", "za-0"));
  EXPECT_THAT(ForNode(*inv, MakeNode("n2", {{"zone", "b"}})),
              ElementsAre("l2-0", "all-0", "f-0", "p-zb", "p-all"));
  EXPECT_THAT(ForNode(*inv, MakeNode("n3")), ElementsAre("all-0", "p-all"));
  auto p = inv->Find(kDriver, "per", "p-n1");
  ASSERT_TRUE(p);
  EXPECT_TRUE(inv->info(*p).node_local);
  EXPECT_TRUE(inv->info(*p).per_device_node_selection);
}

TEST(Inventory, OrderPrefersLocalThenNoBindingConditions) {
  auto inv = Inventory::Build({
      SliceBuilder("fabric", "fabric.example.com", "fabric")
          .AllNodes()
          .Device(DeviceBuilder("attach").Binding({"attached"}, {"failed"}))
          .Device(DeviceBuilder("ready"))
          .Build(),
      SliceBuilder("local", kDriver, "n1")
          .Node("n1")
          .Device(DeviceBuilder("local-bc").Binding({"ready"}, {"failed"}, false))
          .Device(DeviceBuilder("local"))
          .Build(),
  });
  EXPECT_THAT(ForNode(*inv, MakeNode("n1")), ElementsAre("local", "ready", "local-bc", "attach"));
}

TEST(Inventory, NeedsAttachingDraftAttribute) {
  auto inv = Inventory::Build(
      {SliceBuilder("fabric", kDriver, "fabric")
           .Device(DeviceBuilder("draft").Bool("kubernetes.io/needs-attaching", true))
           .Device(DeviceBuilder("no").Bool("kubernetes.io/needs-attaching", false))
           .Device(DeviceBuilder("explicit")
                       .Bool("kubernetes.io/needs-attaching", true)
                       .Binding({"mine"}, {"bad"}, false))
           .Build()});
  const auto& draft = inv->info(*inv->Find(kDriver, "fabric", "draft"));
  EXPECT_TRUE(draft.binds_to_node);
  EXPECT_THAT(*draft.binding_conditions, ElementsAre("kubernetes.io/is-attached"));
  EXPECT_THAT(*draft.binding_failure_conditions, ElementsAre("kubernetes.io/attach-failed"));
  const auto& no = inv->info(*inv->Find(kDriver, "fabric", "no"));
  EXPECT_FALSE(no.binds_to_node);
  EXPECT_THAT(*no.binding_conditions, IsEmpty());
  const auto& explicit_ = inv->info(*inv->Find(kDriver, "fabric", "explicit"));
  EXPECT_FALSE(explicit_.binds_to_node);
  EXPECT_THAT(*explicit_.binding_conditions, ElementsAre("mine"));
}

TEST(Inventory, CountersResolveWithinThePool) {
  auto inv = Inventory::Build({SliceBuilder("s", kDriver, "p")
                                   .SharedCounter("gpu0", "memory", "80Gi")
                                   .Device(DeviceBuilder("part")
                                               .Consumes("gpu0", "memory", "10Gi")
                                               .Consumes("gpu0", "unknown", "1"))
                                   .Build()});
  const auto& info = inv->info(*inv->Find(kDriver, "p", "part"));
  ASSERT_EQ(info.counters.size(), 1u);
  EXPECT_EQ(inv->counter(info.counters[0].counter).capacity, testing::Q("80Gi"));
  EXPECT_EQ(info.counters[0].amount, testing::Q("10Gi"));
  EXPECT_EQ(inv->FindCounter(kDriver, "p", "gpu0", "memory"), info.counters[0].counter);
  EXPECT_FALSE(inv->FindCounter(kDriver, "p", "gpu1", "memory").has_value());
}

TEST(Inventory, EvaluateIsCachedAndComputedOnce) {
  auto inv = Inventory::Build({SliceBuilder("s", kDriver, "p")
                                   .Devices("d", 50,
                                            [](int i, DeviceBuilder& d) {
                                              if (i % 2 == 0) d.Str("even", "yes");
                                            })
                                   .Build()});
  FakeCompiler cel;
  auto program = *cel.Compile("strict:even=yes");
  std::vector<std::thread> threads;
  std::vector<std::shared_ptr<const Inventory::SelectorResults>> results(8);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] { results[t] = inv->Evaluate(*program); });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(cel.evaluations(), 50);
  for (const auto& r : results) EXPECT_EQ(r.get(), results[0].get());
  EXPECT_EQ(results[0]->verdict[0], 1);
  EXPECT_EQ(results[0]->verdict[1], -1);
  EXPECT_EQ(results[0]->first_error, "no such key: even");
  // The same expression compiled again shares the cached results.
  auto again = *cel.Compile("strict:even=yes");
  EXPECT_EQ(inv->Evaluate(*again).get(), results[0].get());
  EXPECT_EQ(cel.evaluations(), 50);
}

TEST(Inventory, AttributeValuesAreTypedAndQualified) {
  auto inv =
      Inventory::Build({SliceBuilder("s", kDriver, "p")
                            .Device(DeviceBuilder("a").Int("numa", 1))
                            .Device(DeviceBuilder("b").Int(std::string(kDriver) + "/numa", 1))
                            .Device(DeviceBuilder("c").Str("numa", "1"))
                            .Device(DeviceBuilder("d"))
                            .Device(DeviceBuilder("e").Int("other.example.com/numa", 1))
                            .Build()});
  auto values = inv->Attribute(std::string(kDriver) + "/numa");
  auto id = [&](const char* name) { return values->id[*inv->Find(kDriver, "p", name)]; };
  EXPECT_EQ(id("a"), id("b"));
  EXPECT_NE(id("a"), id("c"));
  EXPECT_EQ(id("d"), -1);
  EXPECT_EQ(id("e"), -1);
  EXPECT_EQ(values->values[id("a")], "int:1");
  EXPECT_EQ(values->values[id("c")], "string:1");
  EXPECT_EQ(inv->Attribute(std::string(kDriver) + "/numa").get(), values.get());
}

}  // namespace
}  // namespace allot::dra
