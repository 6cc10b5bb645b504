#include "dra/features.h"

#include <gtest/gtest.h>

namespace allot::dra {
namespace {

TEST(ParseFeatureGates, Table) {
  Features all_on;
  Features all_off{false, false, false, false, false, false, false};
  struct Case {
    std::string spec;
    Features base;
    Features want;
  } cases[] = {
      {"", all_on, all_on},
      {"DRADeviceTaints=false", all_on, {true, true, false, true, true, true, true}},
      {" DRAAdminAccess = false , DRAPrioritizedList=0,",
       all_on,
       {false, false, true, true, true, true, true}},
      {"DRAConsumableCapacity=T,DRADeviceBindingConditions=TRUE",
       all_off,
       {false, false, false, false, true, true, false}},
      {"DRAPartitionableDevices=1,DRAControlPlaneController=true",
       all_off,
       {false, false, false, true, false, false, true}},
      // Kubernetes gates that are not DRA's are accepted and ignored.
      {"SchedulerQueueingHints=false,DynamicResourceAllocation=true", all_on, all_on},
      // AllAlpha / AllBeta first, explicit gates win whatever the order.
      {"DRADeviceTaints=false,AllAlpha=true",
       all_off,
       {false, false, false, true, true, true, false}},
      {"AllBeta=true", all_off, {true, true, false, false, false, false, false}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.spec);
    Result<Features> got = ParseFeatureGates(c.spec, c.base);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->prioritized_list, c.want.prioritized_list);
    EXPECT_EQ(got->admin_access, c.want.admin_access);
    EXPECT_EQ(got->device_taints, c.want.device_taints);
    EXPECT_EQ(got->partitionable_devices, c.want.partitionable_devices);
    EXPECT_EQ(got->consumable_capacity, c.want.consumable_capacity);
    EXPECT_EQ(got->binding_conditions, c.want.binding_conditions);
    EXPECT_EQ(got->control_plane_controller, c.want.control_plane_controller);
  }
}

TEST(ParseFeatureGates, Errors) {
  struct Case {
    std::string spec;
    std::string message;
  } cases[] = {
      {"DRAFoo=true", "unrecognized feature gate: DRAFoo"},
      {"DRADeviceTaints=maybe",
       "invalid value of DRADeviceTaints=maybe, err: strconv.ParseBool: parsing \"maybe\": "
       "invalid syntax"},
      {"DRADeviceTaints", "missing bool value for DRADeviceTaints"},
      {"DRAAdminAccess=true,Nope=false", "unrecognized feature gate: Nope"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.spec);
    Result<Features> got = ParseFeatureGates(c.spec);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kBadRequest);
    EXPECT_EQ(got.status().message(), c.message);
  }
}

}  // namespace
}  // namespace allot::dra
