// DeviceTaintRule: codec, validation and registration.
#include "api/resource/device_taint_rule.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/machinery/resources.h"
#include "api/testing/expectations.h"

namespace allot::api {
namespace {

TEST(DeviceTaintRuleTest, RoundTripAndValidation) {
  testing::ExpectRoundTrip(
      R"({"kind":"DeviceTaintRule","apiVersion":"resource.k8s.io/v1","metadata":{"name":"r"},)"
      R"("spec":{"deviceSelector":{"driver":"gpu.example.com","device":"gpu-0"},)"
      R"("taint":{"key":"example.com/unhealthy","effect":"NoExecute"}},"status":{}})");
  DeviceTaintRule rule;
  rule.metadata.name = "r";
  rule.spec.deviceSelector = DeviceTaintSelector{.driver = "Not_A_Driver", .device = "GPU 0"};
  rule.spec.taint.key = "example.com/t";
  rule.spec.taint.effect = "PreferNoSchedule";
  FieldErrors errs;
  ValidateDeviceTaintRule(rule, errs);
  std::vector<std::string> m = errs.Messages();
  ASSERT_EQ(m.size(), 3u) << ::testing::PrintToString(m);
  EXPECT_EQ(m[0].rfind("spec.deviceSelector.driver: Invalid value: \"Not_A_Driver\"", 0), 0u);
  EXPECT_EQ(m[1].rfind("spec.deviceSelector.device: Invalid value: \"GPU 0\"", 0), 0u);
  EXPECT_EQ(m[2], "spec.taint.effect: Unsupported value: \"PreferNoSchedule\": supported values: "
                  "\"NoExecute\", \"NoSchedule\", \"None\"");
  const ResourceInfo* r = ResourceRegistry::Default().Find("resource.k8s.io", "v1",
                                                           "devicetaintrules");
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->namespaced);
  EXPECT_TRUE(r->status_subresource);
  EXPECT_TRUE(r->counts_generation);
}

}  // namespace
}  // namespace allot::api
