// DeviceProfile: defaults, YAML parsing and its errors, the devices it describes.
#include "drivers/nodelocal/device_profile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <set>

namespace allot::drivers {
namespace {

using ::testing::HasSubstr;

std::string StringAttr(const api::Device& d, const std::string& name) {
  return d.attributes.at(name).stringValue.value_or("<not a string>");
}
int64_t IntAttr(const api::Device& d, const std::string& name) {
  return d.attributes.at(name).intValue.value_or(-1);
}

TEST(DeviceProfileTest, DefaultsDescribeTheExampleDriversGpus) {
  DeviceProfile p;
  ASSERT_TRUE(ValidateDeviceProfile(p).ok());
  std::vector<api::Device> devices = DevicesForNode(p, "node-a");
  ASSERT_EQ(devices.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    const api::Device& d = devices[i];
    EXPECT_EQ(d.name, "gpu-" + std::to_string(i));
    EXPECT_EQ(IntAttr(d, "index"), i);
    EXPECT_EQ(IntAttr(d, "numa"), i < 4 ? 0 : 1);
    EXPECT_EQ(StringAttr(d, "model"), "LATEST-GPU-MODEL");
    EXPECT_EQ(StringAttr(d, "productName"), "Allot Simulated GPU");
    EXPECT_EQ(d.attributes.at("driverVersion").versionValue, "1.0.0");
    EXPECT_EQ(StringAttr(d, "uuid"), DeviceUuid("node-a", i));
    EXPECT_EQ(d.capacity.at("memory").value.ToString(), "80Gi");
  }
}

TEST(DeviceProfileTest, UuidsAreStablePerNodeAndIndexAndLookLikeUuids) {
  static const std::regex kUuid(
      "gpu-[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
      "[0-9a-f]{12}");
  std::set<std::string> seen;
  for (const char* node : {"n-0", "n-1", "n-10"}) {
    for (int i = 0; i < 16; ++i) {
      std::string id = DeviceUuid(node, i);
      EXPECT_TRUE(std::regex_match(id, kUuid)) << id;
      EXPECT_EQ(id, DeviceUuid(node, i));
      seen.insert(id);
    }
  }
  EXPECT_EQ(seen.size(), 48u);
}

TEST(DeviceProfileTest, ParsesEveryField) {
  Result<DeviceProfile> p = ParseDeviceProfile(R"(
driver: accel.example.org
devicePrefix: acc-
count: 4
model: A100
driverVersion: 2.3.4
productName: Example Accelerator
numaNodes: 4
memory: 40Gi
attributes:
  vendor: example
  cores: 108
  nvlink: true
  generation: {version: 1.2.0}
  family: {string: ampere}
capacity:
  bandwidth: 1555G
)");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->driver, "accel.example.org");
  std::vector<api::Device> devices = DevicesForNode(*p, "n");
  ASSERT_EQ(devices.size(), 4u);
  const api::Device& d = devices[3];
  EXPECT_EQ(d.name, "acc-3");
  EXPECT_EQ(IntAttr(d, "numa"), 3);
  EXPECT_EQ(StringAttr(d, "model"), "A100");
  EXPECT_EQ(StringAttr(d, "vendor"), "example");
  EXPECT_EQ(IntAttr(d, "cores"), 108);
  EXPECT_EQ(d.attributes.at("nvlink").boolValue, true);
  EXPECT_EQ(d.attributes.at("generation").versionValue, "1.2.0");
  EXPECT_EQ(StringAttr(d, "family"), "ampere");
  EXPECT_EQ(d.capacity.at("memory").value.ToString(), "40Gi");
  EXPECT_EQ(d.capacity.at("bandwidth").value.ToString(), "1555G");
}

TEST(DeviceProfileTest, EmptyDocumentIsTheDefault) {
  Result<DeviceProfile> p = ParseDeviceProfile("");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(*p, DeviceProfile());
}

TEST(DeviceProfileTest, ErrorsNameTheField) {
  struct Case {
    const char* yaml;
    const char* error;
  } cases[] = {
      {"colour: red", "device profile: unknown field \"colour\""},
      {"count: eight", "device profile: count: must be an integer"},
      {"count: 0", "count: must be between 1 and 128, got 0"},
      {"count: 129", "count: must be between 1 and 128, got 129"},
      {"memory: lots", "device profile: memory: quantities must match"},
      {"attributes: {x: [1]}", "device profile: attributes.x: must be a string"},
      {"attributes: {x: {float: 1}}", "unknown attribute type \"float\""},
      {"attributes: {model: x}", "attributes.model: is set by the profile itself"},
      {"capacity: {memory: 1Gi}", "capacity.memory: use the memory field"},
      {"driver: Not_A_Driver", "spec.driver"},
      {"devicePrefix: GPU_", "spec.devices[0].name"},
      {"driverVersion: v1", "spec.devices[0].attributes[driverVersion]"},
      {"[1, 2]", "must be a map of fields"},
  };
  for (const Case& c : cases) {
    Result<DeviceProfile> p = ParseDeviceProfile(c.yaml);
    ASSERT_FALSE(p.ok()) << c.yaml;
    EXPECT_EQ(p.status().code(), StatusCode::kBadRequest) << c.yaml;
    EXPECT_THAT(p.status().message(), HasSubstr(c.error)) << c.yaml;
  }
}

TEST(DeviceProfileTest, TooManyAttributesIsReported) {
  DeviceProfile p;
  for (int i = 0; i < 30; ++i) p.attributes["extra" + std::to_string(i)].intValue = i;
  Status st = ValidateDeviceProfile(p);
  EXPECT_THAT(st.message(), HasSubstr("spec.devices[0]"));
}

}  // namespace
}  // namespace allot::drivers
