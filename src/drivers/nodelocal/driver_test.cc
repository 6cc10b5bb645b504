// NodeLocalDriver against an in-process store: publishing slices (create, update with a
// generation bump, delete), the DeviceClass, and the kubelet-plugin side.
#include "drivers/nodelocal/driver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "client/inprocess/inprocess_client.h"
#include "common/time.h"
#include "registry/garbage_collector.h"
#include "store/backend.h"
#include "store/store.h"
#include "testing/objects.h"
#include "testing/wait.h"

namespace allot::drivers {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class NodeLocalDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.Open().ok());
    for (const char* n : {"n-0", "n-1", "n-2"}) CreateNode(n);
  }
  void TearDown() override { store_.Close(); }

  const api::ResourceInfo& Slices() {
    return testing::Resource("resource.k8s.io", "resourceslices");
  }
  const api::ResourceInfo& Nodes() { return testing::Resource("", "nodes"); }

  void CreateNode(const std::string& name) {
    ASSERT_TRUE(
        store_
            .Create(Nodes(), testing::ObjectFromJson(
                                 R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
                                 R"("}})"))
            .ok());
  }
  std::string NodeUid(const std::string& name) {
    Result<api::ObjectPtr> n = store_.Get(Nodes(), "", name);
    return n.ok() ? (*n)->metadata.uid : "";
  }
  // Every ResourceSlice, by name.
  std::map<std::string, api::ResourceSlice> AllSlices() {
    std::map<std::string, api::ResourceSlice> out;
    Result<api::ListResult> r = store_.List(Slices(), {});
    EXPECT_TRUE(r.ok());
    for (const api::ObjectPtr& o : r->items) {
      out[o->metadata.name] = *api::As<api::ResourceSlice>(*o);
    }
    return out;
  }
  void CreateSlice(const std::string& name, const std::string& driver, const std::string& node) {
    std::string json = R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{)"
                       R"("name":")" +
                       name + R"("},"spec":{"driver":")" + driver + R"(","nodeName":")" + node +
                       R"(","pool":{"name":")" + node +
                       R"(","generation":7,"resourceSliceCount":1},"devices":[{"name":"x"}]}})";
    ASSERT_TRUE(store_.Create(Slices(), testing::ObjectFromJson(json)).ok());
  }
  // A claim allocated the given devices ("driver/pool/device").
  api::ResourceClaim Claim(const std::string& name, const std::vector<std::string>& devices) {
    api::ResourceClaim c;
    c.metadata.namespace_ = "default";
    c.metadata.name = name;
    c.metadata.uid = "uid-" + name;
    c.status.allocation.emplace();
    for (const std::string& id : devices) {
      size_t a = id.find('/'), b = id.rfind('/');
      c.status.allocation->devices.results.push_back({.request = "gpu",
                                                      .driver = id.substr(0, a),
                                                      .pool = id.substr(a + 1, b - a - 1),
                                                      .device = id.substr(b + 1)});
    }
    return c;
  }

  FakeClock clock_;
  store::Store store_{store::NewMemoryBackend(), clock_};
  client::InProcessClient client_{store_, clock_};
  NodeLocalDriver driver_{client_, DeviceProfile()};
};

TEST_F(NodeLocalDriverTest, PublishesOneSliceForEachServedNode) {
  driver_.SetNodes({"n-0", "n-1", "n-2"});
  ASSERT_TRUE(driver_.Publish().ok());
  std::map<std::string, api::ResourceSlice> slices = AllSlices();
  ASSERT_EQ(slices.size(), 3u);
  const api::ResourceSlice& s = slices.at("n-1-gpu-example-com");
  EXPECT_EQ(s.spec.driver, "gpu.example.com");
  EXPECT_EQ(s.spec.nodeName, "n-1");
  EXPECT_EQ(s.spec.pool, (api::ResourcePool{"n-1", 1, 1}));
  ASSERT_EQ(s.metadata.ownerReferences.size(), 1u);
  const api::OwnerReference& owner = s.metadata.ownerReferences[0];
  EXPECT_EQ(owner.apiVersion, "v1");
  EXPECT_EQ(owner.kind, "Node");
  EXPECT_EQ(owner.name, "n-1");
  EXPECT_EQ(owner.uid, NodeUid("n-1"));
  EXPECT_EQ(owner.controller, true);
  EXPECT_EQ(s.spec.devices, DevicesForNode(DeviceProfile(), "n-1"));
  ASSERT_EQ(s.spec.devices.size(), 8u);
  EXPECT_EQ(s.spec.devices[5].name, "gpu-5");
  EXPECT_EQ(s.spec.devices[5].attributes.at("uuid").stringValue, DeviceUuid("n-1", 5));
  EXPECT_EQ(s.spec.devices[5].capacity.at("memory").value.ToString(), "80Gi");
  EXPECT_EQ(driver_.GetStats().slices_created, 3u);
  EXPECT_THAT(driver_.PublishedNodes(), ElementsAre("n-0", "n-1", "n-2"));
}

TEST_F(NodeLocalDriverTest, RepublishingWithoutChangesWritesNothing) {
  driver_.SetNodes({"n-0", "n-1"});
  ASSERT_TRUE(driver_.Publish().ok());
  uint64_t rv = store_.CurrentResourceVersion();
  ASSERT_TRUE(driver_.Publish().ok());
  EXPECT_EQ(store_.CurrentResourceVersion(), rv);
  EXPECT_EQ(driver_.GetStats().slices_updated, 0u);
}

TEST_F(NodeLocalDriverTest, ProfileChangeUpdatesSlicesAndBumpsThePoolGeneration) {
  driver_.SetNodes({"n-0", "n-1"});
  ASSERT_TRUE(driver_.Publish().ok());
  DeviceProfile p;
  p.count = 4;
  p.model = "NEXT-GPU-MODEL";
  ASSERT_TRUE(driver_.SetProfile(p).ok());
  ASSERT_TRUE(driver_.Publish().ok());
  const api::ResourceSlice s = AllSlices().at("n-0-gpu-example-com");
  EXPECT_EQ(s.spec.pool.generation, 2);
  ASSERT_EQ(s.spec.devices.size(), 4u);
  EXPECT_EQ(s.spec.devices[0].attributes.at("model").stringValue, "NEXT-GPU-MODEL");
  EXPECT_EQ(driver_.GetStats().slices_updated, 2u);

  DeviceProfile other;
  other.driver = "other.example.com";
  EXPECT_THAT(driver_.SetProfile(other).message(), HasSubstr("cannot change"));
  p.count = 0;
  EXPECT_EQ(driver_.SetProfile(p).code(), StatusCode::kBadRequest);
}

TEST_F(NodeLocalDriverTest, RepairedOwnerReferenceKeepsTheGeneration) {
  driver_.SetNodes({"n-0"});
  ASSERT_TRUE(driver_.Publish().ok());
  ASSERT_TRUE(store_
                  .Update(Slices(), "", "n-0-gpu-example-com",
                          [](const api::Object& cur) -> Result<std::unique_ptr<api::Object>> {
                            auto o = cur.Clone();
                            o->metadata.ownerReferences.clear();
                            return o;
                          })
                  .ok());
  ASSERT_TRUE(driver_.Publish().ok());
  const api::ResourceSlice s = AllSlices().at("n-0-gpu-example-com");
  EXPECT_EQ(s.spec.pool.generation, 1);
  ASSERT_EQ(s.metadata.ownerReferences.size(), 1u);
  EXPECT_EQ(s.metadata.ownerReferences[0].uid, NodeUid("n-0"));
}

TEST_F(NodeLocalDriverTest, NodesNoLongerServedLoseTheirSlicesOnly) {
  CreateSlice("elsewhere-gpu", "gpu.example.com", "elsewhere");  // another process's node
  CreateSlice("n-1-nic", "nic.example.com", "n-1");              // another driver's slice
  driver_.SetNodes({"n-0", "n-1", "n-2"});
  ASSERT_TRUE(driver_.Publish().ok());
  driver_.SetNodes({"n-0"});
  ASSERT_TRUE(driver_.Publish().ok());
  std::map<std::string, api::ResourceSlice> slices = AllSlices();
  EXPECT_TRUE(slices.contains("n-0-gpu-example-com"));
  EXPECT_FALSE(slices.contains("n-1-gpu-example-com"));
  EXPECT_FALSE(slices.contains("n-2-gpu-example-com"));
  EXPECT_TRUE(slices.contains("elsewhere-gpu"));
  EXPECT_TRUE(slices.contains("n-1-nic"));
  EXPECT_EQ(driver_.GetStats().slices_deleted, 2u);
  EXPECT_THAT(driver_.PublishedNodes(), ElementsAre("n-0"));
}

TEST_F(NodeLocalDriverTest, AnExistingSliceOfAServedNodeIsAdopted) {
  CreateSlice("n-0-gpu.example.com-x7k2p", "gpu.example.com", "n-0");  // e.g. generateName
  driver_.SetNodes({"n-0"});
  ASSERT_TRUE(driver_.Publish().ok());
  std::map<std::string, api::ResourceSlice> slices = AllSlices();
  ASSERT_EQ(slices.size(), 1u);
  // Brought up to date: its devices changed, so the generation moved on from 7.
  const api::ResourceSlice& s = slices.at("n-0-gpu.example.com-x7k2p");
  EXPECT_EQ(s.spec.pool.generation, 8);
  EXPECT_EQ(s.spec.devices.size(), 8u);
}

TEST_F(NodeLocalDriverTest, DuplicateSlicesOfAServedNodeAreDeleted) {
  driver_.SetNodes({"n-0"});
  ASSERT_TRUE(driver_.Publish().ok());
  CreateSlice("n-0-leftover", "gpu.example.com", "n-0");
  ASSERT_TRUE(driver_.Publish().ok());
  std::map<std::string, api::ResourceSlice> slices = AllSlices();
  ASSERT_EQ(slices.size(), 1u);
  EXPECT_TRUE(slices.contains("n-0-gpu-example-com"));
  EXPECT_EQ(slices.at("n-0-gpu-example-com").spec.pool.generation, 1);
}

TEST_F(NodeLocalDriverTest, AMissingNodeFailsAloneAndIsRetried) {
  driver_.SetNodes({"n-0", "late"});
  Status st = driver_.Publish();
  EXPECT_THAT(st.message(), HasSubstr("failed for 1 node(s)"));
  EXPECT_THAT(st.message(), HasSubstr("late"));
  EXPECT_THAT(driver_.PublishedNodes(), ElementsAre("n-0"));
  CreateNode("late");
  ASSERT_TRUE(driver_.Publish().ok());
  EXPECT_TRUE(AllSlices().contains("late-gpu-example-com"));
}

TEST_F(NodeLocalDriverTest, GarbageCollectorRemovesTheSliceWithItsNode) {
  registry::GarbageCollector gc(store_);
  ASSERT_TRUE(gc.Start().ok());
  driver_.SetNodes({"n-0", "n-1"});
  ASSERT_TRUE(driver_.Publish().ok());
  ASSERT_TRUE(store_.Delete(Nodes(), "", "n-0").ok());
  EXPECT_TRUE(testing::WaitUntil([&] { return !AllSlices().contains("n-0-gpu-example-com"); }));
  EXPECT_TRUE(AllSlices().contains("n-1-gpu-example-com"));
  gc.Stop();
}

TEST_F(NodeLocalDriverTest, SliceNamesFitTheNameLimit) {
  EXPECT_EQ(NodeLocalDriver::SliceName("n-0", "gpu.example.com"), "n-0-gpu-example-com");
  std::string node(250, 'a');
  std::string name = NodeLocalDriver::SliceName(node, "gpu.example.com");
  EXPECT_LE(name.size(), 253u);
  EXPECT_NE(name, NodeLocalDriver::SliceName(std::string(251, 'a'), "gpu.example.com"));
}

TEST_F(NodeLocalDriverTest, EnsureDeviceClassCreatesItOnceAndLeavesItAlone) {
  ASSERT_TRUE(EnsureDeviceClass(client_, "gpu.example.com").ok());
  const api::ResourceInfo& classes = testing::Resource("resource.k8s.io", "deviceclasses");
  Result<api::ObjectPtr> cls = store_.Get(classes, "", "gpu.example.com");
  ASSERT_TRUE(cls.ok());
  const auto& dc = *api::As<api::DeviceClass>(**cls);
  ASSERT_EQ(dc.spec.selectors.size(), 1u);
  EXPECT_EQ(dc.spec.selectors[0].cel->expression, "device.driver == 'gpu.example.com'");
  ASSERT_TRUE(store_
                  .Update(classes, "", "gpu.example.com",
                          [](const api::Object& cur) -> Result<std::unique_ptr<api::Object>> {
                            auto o = cur.Clone();
                            o->metadata.labels["edited"] = "by-admin";
                            return o;
                          })
                  .ok());
  ASSERT_TRUE(EnsureDeviceClass(client_, "gpu.example.com").ok());
  EXPECT_EQ((*store_.Get(classes, "", "gpu.example.com"))->metadata.labels.at("edited"),
            "by-admin");
}

TEST_F(NodeLocalDriverTest, PrepareChecksTheDevicesAreOnTheNode) {
  driver_.SetNodes({"n-0", "n-1"});
  ASSERT_TRUE(driver_.Publish().ok());
  api::ResourceClaim claim =
      Claim("c", {"gpu.example.com/n-0/gpu-1", "gpu.example.com/n-0/gpu-3",
                  "nic.example.com/n-0/eth0"});  // another driver's: not ours to check
  ASSERT_TRUE(driver_.PrepareResources(claim, "n-0").ok());
  ASSERT_TRUE(driver_.PrepareResources(claim, "n-0").ok());  // idempotent
  EXPECT_EQ(driver_.GetStats().prepared_claims, 1);
  EXPECT_THAT(driver_.PreparedDevices("n-0"), ElementsAre("gpu-1", "gpu-3"));
  EXPECT_THAT(driver_.PreparedDevices("n-1"), IsEmpty());

  EXPECT_THAT(driver_.PrepareResources(Claim("x", {"gpu.example.com/n-1/gpu-0"}), "n-0").message(),
              HasSubstr("device gpu.example.com/n-1/gpu-0 is not a device of node n-0"));
  EXPECT_THAT(driver_.PrepareResources(Claim("y", {"gpu.example.com/n-0/gpu-8"}), "n-0").message(),
              HasSubstr("device gpu.example.com/n-0/gpu-8 is not a device of node n-0"));
  EXPECT_THAT(driver_.PrepareResources(Claim("z", {"gpu.example.com/n-2/gpu-0"}), "n-2").message(),
              HasSubstr("has not published devices for node n-2"));
  api::ResourceClaim unallocated = Claim("u", {});
  unallocated.status.allocation.reset();
  EXPECT_THAT(driver_.PrepareResources(unallocated, "n-0").message(),
              HasSubstr("default/u is not allocated"));
  EXPECT_EQ(driver_.GetStats().prepared_claims, 1);

  ASSERT_TRUE(driver_.UnprepareResources({"default", "c", "uid-c"}, "n-0").ok());
  ASSERT_TRUE(driver_.UnprepareResources({"default", "c", "uid-c"}, "n-0").ok());  // idempotent
  EXPECT_EQ(driver_.GetStats().prepared_claims, 0);
  EXPECT_THAT(driver_.PreparedDevices("n-0"), IsEmpty());
}

// A fabric device (drivers/fabric/driver.h) allocated to the claim and hot-plugged into n-0: its
// pool is not the node, so the claim's status must show it attached there.
TEST_F(NodeLocalDriverTest, PrepareAcceptsAFabricDeviceShownAttachedToTheNode) {
  driver_.SetNodes({"n-0", "n-1"});
  ASSERT_TRUE(driver_.Publish().ok());
  api::ResourceClaim claim =
      Claim("f", {"gpu.example.com/n-0/gpu-1", "gpu.example.com/fabric-a100/a100-0"});
  api::DeviceRequestAllocationResult& fabric = claim.status.allocation->devices.results[1];
  fabric.rare.edit().bindingConditions = {"kubernetes.io/is-attached"};
  fabric.rare.edit().bindingFailureConditions = {"kubernetes.io/attach-failed"};
  api::NodeSelector pinned;
  pinned.nodeSelectorTerms.push_back(
      {.matchFields = {{.key = "metadata.name", .operator_ = "In", .values = {"n-0"}}}});
  claim.status.allocation->nodeSelector = pinned;
  auto condition = [](std::string type, std::string status) {
    return api::Condition{.type = std::move(type),
                          .status = std::move(status),
                          .lastTransitionTime = Time::FromUnixSeconds(1700000000),
                          .reason = "Test"};
  };

  // No status entry yet: the attach has not been reported.
  EXPECT_THAT(driver_.PrepareResources(claim, "n-0").message(),
              HasSubstr("device gpu.example.com/fabric-a100/a100-0 is not a device of node n-0 "
                        "(nor shown attached to it in the claim's status.devices)"));
  claim.status.devices.push_back({.driver = "gpu.example.com",
                                  .pool = "fabric-a100",
                                  .device = "a100-0",
                                  .conditions = {condition("kubernetes.io/is-attached", "False")}});
  EXPECT_EQ(driver_.PrepareResources(claim, "n-0").code(), StatusCode::kBadRequest);
  EXPECT_EQ(driver_.GetStats().prepared_claims, 0);

  claim.status.devices[0].conditions[0].status = "True";
  ASSERT_TRUE(driver_.PrepareResources(claim, "n-0").ok());
  EXPECT_THAT(driver_.PreparedDevices("n-0"), ElementsAre("fabric-a100/a100-0", "gpu-1"));

  // Attached to n-0, so not usable on n-1.
  api::ResourceClaim elsewhere = claim;
  elsewhere.metadata.uid = "uid-elsewhere";
  elsewhere.status.allocation->devices.results.erase(
      elsewhere.status.allocation->devices.results.begin());
  EXPECT_THAT(driver_.PrepareResources(elsewhere, "n-1").message(),
              HasSubstr("is not a device of node n-1"));
  // A failure condition True outweighs the binding condition.
  api::ResourceClaim failed = claim;
  failed.metadata.uid = "uid-failed";
  failed.status.devices[0].conditions.push_back(condition("kubernetes.io/attach-failed", "True"));
  EXPECT_EQ(driver_.PrepareResources(failed, "n-0").code(), StatusCode::kBadRequest);
  // Allocated while it was already attached (the result has no binding conditions): the
  // driver's entry with its conditions True is what counts.
  api::ResourceClaim reused = claim;
  reused.metadata.uid = "uid-reused";
  reused.status.allocation->devices.results[1].rare.edit().bindingConditions.clear();
  reused.status.allocation->devices.results[1].rare.edit().bindingFailureConditions.clear();
  EXPECT_TRUE(driver_.PrepareResources(reused, "n-0").ok());
  reused.status.devices.clear();
  reused.metadata.uid = "uid-reused-2";
  EXPECT_EQ(driver_.PrepareResources(reused, "n-0").code(), StatusCode::kBadRequest);
  EXPECT_EQ(driver_.GetStats().prepared_claims, 2);
}

}  // namespace
}  // namespace allot::drivers
