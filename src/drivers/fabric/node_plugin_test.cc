// FabricNodePlugin: a pod's fabric device is usable on a node only once the claim shows it
// attached there; registration yields to a node-local driver of the same name.
#include "drivers/fabric/node_plugin.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/resource/node_pinning.h"

namespace allot::drivers {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr const char* kDriver = "fabric.example.com";

FabricConfig Config() {
  FabricConfig c;
  c.driver = kDriver;
  c.pools.push_back({.model = "a100", .count = 4});
  return c;
}

api::Condition Cond(std::string type, std::string status) {
  return api::Condition{.type = std::move(type),
                        .status = std::move(status),
                        .lastTransitionTime = Time::FromUnixSeconds(1700000000),
                        .reason = "Test"};
}

// A claim allocated fabric-a100/a100-<i> for each index, pinned to `node`, with the fabric's
// binding conditions on every result and no status entries yet.
api::ResourceClaim Claim(const std::string& uid, const std::string& node,
                         std::vector<int> indexes) {
  api::ResourceClaim c;
  c.metadata.namespace_ = "default";
  c.metadata.name = "claim-" + uid;
  c.metadata.uid = uid;
  api::AllocationResult alloc;
  for (int i : indexes) {
    api::DeviceRequestAllocationResult r;
    r.request = "gpu";
    r.driver = kDriver;
    r.pool = "fabric-a100";
    r.device = "a100-" + std::to_string(i);
    r.rare.edit().bindingConditions = {"example.com/attached"};
    r.rare.edit().bindingFailureConditions = {"example.com/attach-failed"};
    alloc.devices.results.push_back(std::move(r));
  }
  alloc.nodeSelector = api::PinnedTo(node);
  c.status.allocation = std::move(alloc);
  return c;
}

void ReportAttached(api::ResourceClaim& c, int index, bool ok) {
  c.status.devices.push_back(
      {.driver = kDriver,
       .pool = "fabric-a100",
       .device = "a100-" + std::to_string(index),
       .conditions = {Cond("example.com/attached", ok ? "True" : "False"),
                      Cond("example.com/attach-failed", ok ? "False" : "True")}});
}

TEST(FabricNodePluginTest, PreparesOnlyDevicesShownAttachedToTheNode) {
  FabricNodePlugin plugin(Config());
  EXPECT_EQ(plugin.driver_name(), kDriver);
  api::ResourceClaim c = Claim("u1", "n-0", {0, 1});

  Status st = plugin.PrepareResources(c, "n-0");
  EXPECT_EQ(st.code(), StatusCode::kServiceUnavailable);
  EXPECT_THAT(st.message(),
              HasSubstr("device fabric.example.com/fabric-a100/a100-0 is not yet attached to "
                        "node n-0"));
  ReportAttached(c, 0, true);
  EXPECT_THAT(plugin.PrepareResources(c, "n-0").message(), HasSubstr("a100-1 is not yet"));
  ReportAttached(c, 1, true);
  ASSERT_TRUE(plugin.PrepareResources(c, "n-0").ok());
  ASSERT_TRUE(plugin.PrepareResources(c, "n-0").ok());  // idempotent
  EXPECT_THAT(plugin.PreparedDevices("n-0"),
              ElementsAre("fabric-a100/a100-0", "fabric-a100/a100-1"));

  // Pinned to n-0: not usable on n-1.
  st = plugin.PrepareResources(c, "n-1");
  EXPECT_EQ(st.code(), StatusCode::kConflict);
  EXPECT_THAT(st.message(), HasSubstr("is allocated for node n-0, not n-1"));
  EXPECT_THAT(plugin.PreparedDevices("n-1"), IsEmpty());

  ASSERT_TRUE(plugin.UnprepareResources({"default", "claim-u1", "u1"}, "n-0").ok());
  ASSERT_TRUE(plugin.UnprepareResources({"default", "claim-u1", "u1"}, "n-0").ok());
  EXPECT_THAT(plugin.PreparedDevices("n-0"), IsEmpty());
}

TEST(FabricNodePluginTest, RefusesFailedForeignAndUnallocatedClaims) {
  FabricNodePlugin plugin(Config());
  api::ResourceClaim failed = Claim("u2", "n-0", {2});
  ReportAttached(failed, 2, false);
  EXPECT_EQ(plugin.PrepareResources(failed, "n-0").code(), StatusCode::kServiceUnavailable);

  api::ResourceClaim foreign = Claim("u3", "n-0", {0});
  foreign.status.allocation->devices.results[0].pool = "n-0";  // a node-local pool
  Status st = plugin.PrepareResources(foreign, "n-0");
  EXPECT_EQ(st.code(), StatusCode::kBadRequest);
  EXPECT_THAT(st.message(), HasSubstr("fabric.example.com/n-0/a100-0 is not a fabric device"));

  api::ResourceClaim unpinned = Claim("u4", "n-0", {3});
  unpinned.status.allocation->nodeSelector.reset();
  EXPECT_THAT(plugin.PrepareResources(unpinned, "n-0").message(),
              HasSubstr("is allocated for no node"));

  api::ResourceClaim none;
  none.metadata.namespace_ = "default";
  none.metadata.name = "bare";
  EXPECT_EQ(plugin.PrepareResources(none, "n-0").code(), StatusCode::kBadRequest);

  // Results of other drivers are not ours to check.
  api::ResourceClaim other = Claim("u5", "n-0", {0});
  other.status.allocation->devices.results[0].driver = "gpu.example.com";
  EXPECT_TRUE(plugin.PrepareResources(other, "n-0").ok());
}

// A node-local plugin class that serves the same driver name.
class NamedPlugin final : public node::DraKubeletPlugin {
 public:
  explicit NamedPlugin(std::string name) : name_(std::move(name)) {}
  std::string_view driver_name() const override { return name_; }
  Status PrepareResources(const api::ResourceClaim&, std::string_view) override {
    return Status::Ok();
  }
  Status UnprepareResources(const node::ClaimRef&, std::string_view) override {
    return Status::Ok();
  }

 private:
  std::string name_;
};

TEST(FabricNodePluginTest, RegistersOnlyWhereTheDriverNameIsFree) {
  FabricNodePlugin plugin(Config());
  node::DraPluginRegistry free_registry;
  EXPECT_TRUE(RegisterFabricNodePlugin(free_registry, plugin));
  EXPECT_EQ(free_registry.Find(kDriver), &plugin);

  node::DraPluginRegistry taken;
  NamedPlugin local(kDriver);
  ASSERT_TRUE(taken.Register(local).ok());
  EXPECT_FALSE(RegisterFabricNodePlugin(taken, plugin));
  EXPECT_EQ(taken.Find(kDriver), &local);
}

}  // namespace
}  // namespace allot::drivers
