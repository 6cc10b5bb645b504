// FabricDriver publishing: one slice per model in the documented shape, accepted by the API
// server's validation, kept in line with the state and repaired on refresh.
#include "api/resource/validation.h"
#include "drivers/fabric/testing/fixture.h"

namespace allot::drivers {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST_F(FabricDriverTest, PublishesOneSlicePerModel) {
  FabricConfig c = Config(4);
  FabricPoolConfig h100;
  h100.model = "h100";
  h100.count = 2;
  h100.attributes["memoryGiB"] = {.intValue = 80};
  c.pools.push_back(h100);
  StartDriver(c);

  std::optional<api::ResourceSlice> a100 = GetSlice("fabric-a100-80gb-gpu-example-com");
  std::optional<api::ResourceSlice> h = GetSlice("fabric-h100-gpu-example-com");
  ASSERT_TRUE(a100 && h);
  EXPECT_EQ(a100->spec.driver, "gpu.example.com");
  EXPECT_EQ(a100->spec.pool, (api::ResourcePool{"fabric-a100-80gb", 1, 1}));
  EXPECT_EQ(a100->spec.perDeviceNodeSelection, true);
  EXPECT_FALSE(a100->spec.nodeName || a100->spec.nodeSelector || a100->spec.allNodes);
  EXPECT_THAT(a100->metadata.ownerReferences, IsEmpty());
  ASSERT_EQ(a100->spec.devices.size(), 4u);
  const api::Device& d = a100->spec.devices[3];
  EXPECT_EQ(d.name, "a100-80gb-3");
  EXPECT_EQ(d.attributes.at("model").stringValue, "a100-80gb");
  EXPECT_EQ(d.attributes.at("productName").stringValue, "NVIDIA A100 80GB");
  EXPECT_EQ(d.capacity.at("memory").value.ToString(), "80Gi");
  EXPECT_EQ(d.allNodes, true);  // no nodeSelector configured: the fabric reaches every node
  EXPECT_FALSE(d.nodeName || d.nodeSelector);
  EXPECT_EQ(d.bindsToNode, true);
  EXPECT_THAT(d.bindingConditions, ElementsAre("kubernetes.io/is-attached"));
  EXPECT_THAT(d.bindingFailureConditions, ElementsAre("kubernetes.io/attach-failed"));
  EXPECT_THAT(d.taints, IsEmpty());
  EXPECT_EQ(h->spec.pool.name, "fabric-h100");
  ASSERT_EQ(h->spec.devices.size(), 2u);
  EXPECT_EQ(h->spec.devices[1].name, "h100-1");
  EXPECT_EQ(h->spec.devices[1].attributes.at("memoryGiB").intValue, 80);

  // The store accepted them through the API server's validation; check it directly as well.
  for (const api::ResourceSlice& s : {*a100, *h}) {
    api::FieldErrors errs;
    api::ValidateResourceSlice(s, errs);
    EXPECT_TRUE(errs.empty()) << errs.Messages()[0];
  }
  EXPECT_EQ(driver_->GetStats().slice_writes, 2u);
}

TEST_F(FabricDriverTest, TheNodeSelectorScopesFreeDevices) {
  FabricConfig c = Config();
  c.node_selector = {{"fabric.example.com/switch", "sw1"}};
  StartDriver(c);
  std::optional<api::Device> d = SliceDevice("a100-80gb-0");
  ASSERT_TRUE(d && d->nodeSelector);
  EXPECT_FALSE(d->allNodes);
  ASSERT_EQ(d->nodeSelector->nodeSelectorTerms.size(), 1u);
  const api::NodeSelectorTerm& term = d->nodeSelector->nodeSelectorTerms[0];
  ASSERT_EQ(term.matchExpressions.size(), 1u);
  EXPECT_EQ(term.matchExpressions[0].key, "fabric.example.com/switch");
  EXPECT_EQ(term.matchExpressions[0].operator_, "In");
  EXPECT_THAT(term.matchExpressions[0].values, ElementsAre("sw1"));
}

TEST_F(FabricDriverTest, RefreshRecreatesADeletedSlice) {
  StartDriver(Config());
  ASSERT_TRUE(client_.Delete(Slices(), "", kSlice).ok());
  Advance(std::chrono::seconds(9));
  Tick();
  EXPECT_FALSE(GetSlice());  // not before refreshInterval (10 s)
  Advance(std::chrono::seconds(1));
  Tick();
  std::optional<api::ResourceSlice> s = GetSlice();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->spec.pool.generation, 2);  // above the deleted one's, so no consumer mixes them
  EXPECT_EQ(s->spec.devices.size(), 2u);
}

TEST_F(FabricDriverTest, RefreshCorrectsDriftAndOtherwiseWritesNothing) {
  StartDriver(Config());
  Advance(std::chrono::seconds(10));
  uint64_t rv = store_.CurrentResourceVersion();
  Tick();
  EXPECT_EQ(store_.CurrentResourceVersion(), rv);  // nothing to correct

  ASSERT_TRUE(store_
                  .Update(Slices(), "", kSlice,
                          [](const api::Object& cur) -> Result<std::unique_ptr<api::Object>> {
                            auto o = cur.Clone();
                            api::As<api::ResourceSlice>(*o)->spec.devices.pop_back();
                            return o;
                          })
                  .ok());
  Advance(std::chrono::seconds(10));
  Tick();
  std::optional<api::ResourceSlice> s = GetSlice();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->spec.devices.size(), 2u);
  EXPECT_EQ(s->spec.pool.generation, 2);
}

TEST_F(FabricDriverTest, OnlyTheFabricPoolsAreManaged) {
  auto slice = [](const std::string& name, const std::string& pool, bool per_device) {
    std::string json =
        R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":")" + name +
        R"("},"spec":{"driver":"gpu.example.com",)" +
        (per_device ? std::string(R"("perDeviceNodeSelection":true,)")
                    : std::string(R"("nodeName":"n-0",)")) +
        R"("pool":{"name":")" + pool +
        R"(","generation":7,"resourceSliceCount":1},"devices":[{"name":"x")" +
        (per_device ? std::string(R"(,"nodeName":"n-0")") : std::string()) + "}]}}";
    return testing::ObjectFromJson(json);
  };
  ASSERT_TRUE(client_.Create(Slices(), slice("n-0-gpu-example-com", "n-0", false)).ok());
  ASSERT_TRUE(client_.Create(Slices(), slice("leftover", kPool, true)).ok());
  StartDriver(Config());
  EXPECT_TRUE(GetSlice("n-0-gpu-example-com"));  // the node-local driver's
  EXPECT_FALSE(GetSlice("leftover"));            // a stray in our pool
  std::optional<api::ResourceSlice> s = GetSlice();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->spec.pool.generation, 8);  // above the stray's
}

}  // namespace
}  // namespace allot::drivers
