// FabricConfig parsing: every field, defaults, and errors that name the field path.
#include "drivers/fabric/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "drivers/fabric/devices.h"

namespace allot::drivers {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(FabricConfigTest, ParsesEveryField) {
  Result<FabricConfig> c = ParseFabricConfig(R"(
driver: fabric.example.com
nodeSelector:
  fabric.example.com/switch: sw1
pools:
- model: a100-80gb
  count: 4
  attributes:
    productName: NVIDIA A100 80GB
    memoryGiB: 80
    mig: true
    cudaComputeCapability: {version: 8.0.0}
  capacity:
    memory: 80Gi
    cores: 108
- model: h100
  count: 1
attachLatency: 2500ms
attachLatencyMax: 1m
detachLatency: 0s
failureRate: 0.25
failureCooldown: 1m
refreshInterval: 30s
seed: 7
bindingConditions: [example.com/attached, example.com/powered]
bindingFailureConditions: [example.com/failed]
onFailure: Remove
)");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->driver, "fabric.example.com");
  EXPECT_EQ(c->node_selector.at("fabric.example.com/switch"), "sw1");
  ASSERT_EQ(c->pools.size(), 2u);
  const FabricPoolConfig& p = c->pools[0];
  EXPECT_EQ(p.model, "a100-80gb");
  EXPECT_EQ(p.count, 4);
  EXPECT_EQ(p.attributes.at("productName").stringValue, "NVIDIA A100 80GB");
  EXPECT_EQ(p.attributes.at("memoryGiB").intValue, 80);
  EXPECT_EQ(p.attributes.at("mig").boolValue, true);
  EXPECT_EQ(p.attributes.at("cudaComputeCapability").versionValue, "8.0.0");
  EXPECT_EQ(p.capacity.at("memory").ToString(), "80Gi");
  EXPECT_EQ(p.capacity.at("cores").ToString(), "108");
  EXPECT_EQ(c->pools[1].model, "h100");
  EXPECT_EQ(c->attach_latency, std::chrono::milliseconds(2500));
  EXPECT_EQ(c->attach_latency_max, std::chrono::minutes(1));
  EXPECT_EQ(c->detach_latency, std::chrono::seconds(0));
  EXPECT_EQ(c->failure_rate, 0.25);
  EXPECT_EQ(c->failure_cooldown, std::chrono::minutes(1));
  EXPECT_EQ(c->refresh_interval, std::chrono::seconds(30));
  EXPECT_EQ(c->seed, 7u);
  EXPECT_THAT(c->binding_conditions, ElementsAre("example.com/attached", "example.com/powered"));
  EXPECT_THAT(c->binding_failure_conditions, ElementsAre("example.com/failed"));
  EXPECT_EQ(c->on_failure, FabricFailurePolicy::kRemove);
}

TEST(FabricConfigTest, OmittedFieldsTakeTheirDefaults) {
  Result<FabricConfig> c = ParseFabricConfig(R"({"pools": [{"model": "a100", "count": 2}]})");
  ASSERT_TRUE(c.ok()) << c.status().message();
  FabricConfig want;
  want.pools = {{.model = "a100", .count = 2}};
  EXPECT_EQ(*c, want);
  EXPECT_EQ(want.driver, "gpu.example.com");
  EXPECT_EQ(want.attach_latency, std::chrono::seconds(2));
  EXPECT_EQ(want.detach_latency, std::chrono::seconds(1));
  EXPECT_EQ(want.failure_rate, 0);
  EXPECT_EQ(want.failure_cooldown, std::chrono::seconds(60));
  EXPECT_EQ(want.refresh_interval, std::chrono::seconds(10));
  EXPECT_EQ(want.seed, 1u);
  EXPECT_THAT(want.binding_conditions, ElementsAre("kubernetes.io/is-attached"));
  EXPECT_THAT(want.binding_failure_conditions, ElementsAre("kubernetes.io/attach-failed"));
  EXPECT_EQ(want.on_failure, FabricFailurePolicy::kTaint);
  EXPECT_TRUE(want.node_selector.empty());
}

// The error for `yaml`, which must not parse.
std::string Error(std::string_view yaml) {
  Result<FabricConfig> c = ParseFabricConfig(yaml);
  EXPECT_FALSE(c.ok()) << yaml;
  if (c.ok()) return "";
  EXPECT_EQ(c.status().code(), StatusCode::kBadRequest);
  return c.status().message();
}

TEST(FabricConfigTest, ErrorsNameTheFieldPath) {
  constexpr std::string_view kPool = "pools: [{model: a, count: 1}, ";
  EXPECT_THAT(Error(std::string(kPool) + "{model: b, count: -1}]"),
              HasSubstr("pools[1].count: Invalid value: -1: must be positive"));
  EXPECT_THAT(Error(std::string(kPool) + "{model: b, count: 129}]"),
              HasSubstr("pools[1].count: Invalid value: 129: must be at most 128"));
  EXPECT_THAT(Error(std::string(kPool) + "{model: b, count: two}]"),
              HasSubstr(R"(pools[1].count: Invalid value: "two": must be an integer)"));
  EXPECT_THAT(Error(std::string(kPool) + "{model: b, count: 1, colour: red}]"),
              HasSubstr(R"(unknown field "pools[1].colour")"));
  EXPECT_THAT(Error("pools: [{model: a, count: 1}]\nattachLatncy: 2s"),
              HasSubstr(R"(unknown field "attachLatncy")"));
  EXPECT_THAT(Error(std::string(kPool) + "{model: B_1, count: 1}]"),
              HasSubstr(R"(pools[1].model: Invalid value: "B_1")"));
  EXPECT_THAT(Error(std::string(kPool) + "{model: a, count: 1}]"),
              HasSubstr(R"(pools[1].model: Duplicate value: "a")"));
  EXPECT_THAT(Error(std::string(kPool) + "{count: 1}]"),
              HasSubstr("pools[1].model: Required value"));
  EXPECT_THAT(Error(std::string(kPool) + "{model: b, count: 1, attributes: {model: x}}]"),
              HasSubstr("pools[1].attributes[model]: Invalid value: \"\": is set by the driver"));
  EXPECT_THAT(Error(std::string(kPool) + "{model: b, count: 1, attributes: {x: [1]}}]"),
              HasSubstr("pools[1].attributes[x]: Invalid value: \"[1]\": must be a string"));
  EXPECT_THAT(Error(std::string(kPool) + "{model: b, count: 1, attributes: {x: {float: 1}}}]"),
              HasSubstr(R"(pools[1].attributes[x]: Unsupported value: "float")"));
  EXPECT_THAT(Error(std::string(kPool) + "{model: b, count: 1, capacity: {memory: lots}}]"),
              HasSubstr(R"(pools[1].capacity[memory]: Invalid value: "lots")"));
  EXPECT_THAT(Error(std::string(kPool) + "{model: b, count: 1, attributes: {bad name: 1}}]"),
              HasSubstr("pools[1]: the pool's ResourceSlice would be invalid: "
                        "spec.devices[0].attributes[bad name]"));
  EXPECT_THAT(Error("pools: []"), HasSubstr("pools: Required value"));
  EXPECT_THAT(Error("driver: gpu.example.com"), HasSubstr("pools: Required value"));
  EXPECT_THAT(Error("pools: [{model: a, count: 1}]\ndriver: Not_A_Domain"),
              HasSubstr(R"(driver: Invalid value: "Not_A_Domain")"));
  EXPECT_THAT(Error("pools: [{model: a, count: 1}]\nfailureRate: 1.5"),
              HasSubstr("failureRate: Invalid value"));
  EXPECT_THAT(Error("pools: [{model: a, count: 1}]\nfailureRate: often"),
              HasSubstr(R"(failureRate: Invalid value: "often": must be a number)"));
  EXPECT_THAT(Error("pools: [{model: a, count: 1}]\nattachLatency: soon"),
              HasSubstr(R"(attachLatency: Invalid value: "soon": time: invalid duration)"));
  EXPECT_THAT(Error("pools: [{model: a, count: 1}]\ndetachLatency: -1s"),
              HasSubstr(R"(detachLatency: Invalid value: "-1s": must not be negative)"));
  EXPECT_THAT(Error("pools: [{model: a, count: 1}]\nrefreshInterval: 0s"),
              HasSubstr(R"(refreshInterval: Invalid value: "0s": must be positive)"));
  EXPECT_THAT(Error("pools: [{model: a, count: 1}]\nattachLatency: 5s\nattachLatencyMax: 2s"),
              HasSubstr("attachLatencyMax: Invalid value: 2000000: must not be less than "
                        "attachLatency"));
  EXPECT_THAT(Error("pools: [{model: a, count: 1}]\nattachLatency: 2"),
              HasSubstr("attachLatency: Invalid value: 2: must be a duration"));
  EXPECT_THAT(
      Error("pools: [{model: a, count: 1}]\nonFailure: Retry"),
      HasSubstr(R"(onFailure: Unsupported value: "Retry": supported values: "Remove", "Taint")"));
  EXPECT_THAT(Error("pools: [{model: a, count: 1}]\nseed: -1"),
              HasSubstr("seed: Invalid value: -1: must be a non-negative integer"));
  EXPECT_THAT(Error("pools: [{model: a, count: 1}]\nbindingConditions: []"),
              HasSubstr("bindingConditions: Required value"));
  EXPECT_THAT(Error("pools: [{model: a, count: 1}]\nbindingConditions: [a/b, a/b]"),
              HasSubstr(R"(bindingConditions[1]: Duplicate value: "a/b")"));
  EXPECT_THAT(
      Error("pools: [{model: a, count: 1}]\nbindingFailureConditions: "
            "[kubernetes.io/is-attached]"),
      HasSubstr(
          R"(bindingFailureConditions[0]: Invalid value: "kubernetes.io/is-attached": must not also be a binding condition)"));
  EXPECT_THAT(Error("pools: [{model: a, count: 1}]\nnodeSelector: {zone: [a]}"),
              HasSubstr("nodeSelector[zone]: Invalid value: \"[\\\"a\\\"]\": must be a string"));
  EXPECT_THAT(Error("pools: [{model: a, count: 1}]\nnodeSelector: {zone: \"a b\"}"),
              HasSubstr("nodeSelector[zone]: Invalid value: \"a b\""));
  EXPECT_THAT(Error("- a\n- b"), HasSubstr("must be a map of fields"));
  EXPECT_THAT(Error("pools: [{model: a, count: 1}\n"), HasSubstr("invalid fabric config: "));
}

TEST(FabricConfigTest, EveryProblemIsReported) {
  std::string msg = Error("pools: [{model: a, count: 0}]\nfailureRate: 2\ndetachLatency: -1s");
  EXPECT_THAT(msg, HasSubstr("invalid fabric config:\n  "));
  EXPECT_THAT(msg, HasSubstr("\n  pools[0].count"));
  EXPECT_THAT(msg, HasSubstr("\n  detachLatency"));
  EXPECT_THAT(msg, HasSubstr("\n  failureRate"));
  // Decoding problems (types, unknown fields) are reported together, before values are checked.
  msg = Error("pools: [{model: a, count: x, colour: red}]\nonFailure: x");
  EXPECT_THAT(msg, HasSubstr("pools[0].count"));
  EXPECT_THAT(msg, HasSubstr("pools[0].colour"));
  EXPECT_THAT(msg, HasSubstr("onFailure"));
}

TEST(FabricConfigTest, ValidateChecksConfigsBuiltInCode) {
  FabricConfig c;
  EXPECT_THAT(ValidateFabricConfig(c).message(), HasSubstr("pools: Required value"));
  c.pools = {{.model = std::string(60, 'a'), .count = 1}};
  EXPECT_THAT(ValidateFabricConfig(c).message(), HasSubstr("must be no more than 59 bytes"));
  c.pools = {{.model = std::string(59, 'a'), .count = 128}};
  EXPECT_TRUE(ValidateFabricConfig(c).ok()) << ValidateFabricConfig(c).message();
  EXPECT_EQ(FabricDeviceName(c.pools[0].model, 127).size(), 63u);
}

}  // namespace
}  // namespace allot::drivers
