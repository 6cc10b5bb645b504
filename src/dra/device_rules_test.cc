#include "dra/device_rules.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dra/testing/builders.h"

namespace allot::dra {
namespace {

using testing::DeviceBuilder;
using testing::Q;
using testing::ValidRange;
using testing::ValidValues;

std::string Amounts(const std::optional<std::vector<api::Quantity>>& v) {
  if (!v) return "none";
  std::string out;
  for (const api::Quantity& q : *v) out += (out.empty() ? "" : ",") + q.ToString();
  return out;
}

TEST(ConsumedCapacity, Table) {
  api::CapacityRequestPolicy no_default_range;
  no_default_range.validRange.emplace();
  no_default_range.validRange->min = Q("100m");
  no_default_range.validRange->step = Q("250m");
  struct Case {
    std::string name;
    api::Device device;
    std::map<std::string, std::string> request;
    std::string want;  // amounts in capacity-name order, or "none"
  } cases[] = {
      {"no policy, no request: everything",
       DeviceBuilder("d").Capacity("mem", "8Gi").Build(),
       {},
       "8Gi"},
      {"no policy, request as is",
       DeviceBuilder("d").Capacity("mem", "8Gi").Build(),
       {{"mem", "3Gi"}},
       "3Gi"},
      {"default",
       DeviceBuilder("d").Capacity("mem", "8Gi", ValidRange("1Gi", "1Gi")).Build(),
       {},
       "1Gi"},
      {"range without step",
       DeviceBuilder("d").Capacity("mem", "8Gi", ValidRange("1Gi", "1Gi")).Build(),
       {{"mem", "1500Mi"}},
       "1500Mi"},
      {"range step",
       DeviceBuilder("d").Capacity("mem", "8Gi", ValidRange("1Gi", "1Gi", "", "512Mi")).Build(),
       {{"mem", "1100Mi"}},
       "1536Mi"},
      {"fractional step",
       DeviceBuilder("d").Capacity("cpu", "4", no_default_range).Build(),
       {{"cpu", "300m"}},
       "350m"},
      {"fractional step, exact",
       DeviceBuilder("d").Capacity("cpu", "4", no_default_range).Build(),
       {{"cpu", "600m"}},
       "600m"},
      {"range max",
       DeviceBuilder("d").Capacity("mem", "8Gi", ValidRange("1Gi", "1Gi", "4Gi")).Build(),
       {{"mem", "5Gi"}},
       "none"},
      {"valid values",
       DeviceBuilder("d").Capacity("q", "8", ValidValues("1", {"1", "2", "8"})).Build(),
       {{"q", "3"}},
       "8"},
      {"valid values, above all",
       DeviceBuilder("d").Capacity("q", "8", ValidValues("1", {"1", "2"})).Build(),
       {{"q", "3"}},
       "none"},
      {"unknown capacity", DeviceBuilder("d").Capacity("q", "8").Build(), {{"x", "1"}}, "none"},
      {"every capacity listed",
       DeviceBuilder("d").Capacity("a", "0").Capacity("b", "5").Build(),
       {{"b", "2"}},
       "0,2"},
      {"driver-qualified request",
       DeviceBuilder("d").Capacity("b", "5").Build(),
       {{"gpu.example.com/b", "2"}},
       "2"},
      {"driver-qualified capacity",
       DeviceBuilder("d").Capacity("gpu.example.com/b", "5").Build(),
       {{"b", "2"}},
       "2"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    api::CapacityRequirements req;
    for (const auto& [k, v] : c.request) req.requests[k] = Q(v);
    EXPECT_EQ(Amounts(ConsumedCapacity(&req, c.device, "gpu.example.com")), c.want);
  }
}

TEST(ConsumedCapacity, FitsCapacity) {
  api::Device d = DeviceBuilder("d").Capacity("a", "2").Capacity("b", "5").Build();
  EXPECT_TRUE(FitsCapacity({Q("2"), Q("5")}, d));
  EXPECT_FALSE(FitsCapacity({Q("2"), Q("5001m")}, d));
}

TEST(Tolerations, ToleratesTaint) {
  api::DeviceTaint taint{"k", "v", "NoSchedule", std::nullopt};
  auto t = [](std::string key, std::string op, std::string value, std::string effect) {
    return api::DeviceToleration{key, op, value, effect, std::nullopt};
  };
  EXPECT_TRUE(ToleratesTaint(t("k", "Equal", "v", "NoSchedule"), taint));
  EXPECT_TRUE(ToleratesTaint(t("k", "", "v", ""), taint));
  EXPECT_TRUE(ToleratesTaint(t("", "Exists", "", ""), taint));
  EXPECT_FALSE(ToleratesTaint(t("k", "Equal", "w", ""), taint));
  EXPECT_FALSE(ToleratesTaint(t("k", "Exists", "", "NoExecute"), taint));
  EXPECT_FALSE(ToleratesTaint(t("k", "Lt", "v", ""), taint));
}

}  // namespace
}  // namespace allot::dra
