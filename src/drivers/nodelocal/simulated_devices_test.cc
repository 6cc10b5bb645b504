// SimulatedDevices with a NodeSimulator over an in-process store, end to end: slices and the
// DeviceClass appear for the simulated nodes; a pod bound with an unallocated claim stays
// Pending, runs once the claim is allocated from its node and reserved for it (the test plays
// the scheduler), and its devices are released when it is deleted.
#include "api/core/pod.h"
#include "api/resource/types.h"
#include "drivers/nodelocal/simulated_devices.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "node/testing/simulator.h"

namespace allot::drivers {
namespace {

using ::testing::AnyOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class SimulatedDevicesTest : public node::SimulatorTest {
 protected:
  void SetUp() override {
    SimulatorTest::SetUp();
    DeviceProfile profile;
    profile.count = 4;
    devices_ = std::make_unique<SimulatedDevices>(
        *client_, SimulatedDevicesOptions{.profile = profile, .resync_period = {}});
    Start(Options(2), /*watch=*/false);
    devices_->Install(*sim_);
    ASSERT_TRUE(sim_->Watch(std::chrono::seconds(10)).ok());
    ASSERT_TRUE(devices_->Start(*sim_).ok());
  }
  void TearDown() override {
    sim_->Stop();
    devices_->Stop();
    SimulatorTest::TearDown();
  }

  void CreateClaim(const std::string& name) {
    std::string json = R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":)"
                       R"({"name":")" +
                       name +
                       R"(","namespace":"default"},"spec":{"devices":)"
                       R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":)"
                       R"("gpu.example.com"}}]}}})";
    ASSERT_TRUE(
        store_->Create(api::ResourceFor<api::ResourceClaim>(), testing::ObjectFromJson(json))
            .ok());
  }
  // The scheduler's PreBind: allocate `device` of `node` and reserve the claim for the pod.
  void Allocate(const std::string& claim_name, const std::string& node, const std::string& device,
                const api::ObjectPtr& pod) {
    api::ObjectPtr cur = Get("resource.k8s.io", "resourceclaims", "default", claim_name);
    ASSERT_NE(cur, nullptr);
    auto claim = std::make_unique<api::ResourceClaim>(*api::As<api::ResourceClaim>(*cur));
    claim->status.allocation.emplace();
    claim->status.allocation->devices.results.push_back(
        {.request = "gpu", .driver = "gpu.example.com", .pool = node, .device = device});
    claim->status.reservedFor.push_back(
        {.resource = "pods", .name = pod->metadata.name, .uid = pod->metadata.uid});
    Result<api::ObjectPtr> r =
        client_->UpdateStatus(api::ResourceFor<api::ResourceClaim>(), std::move(claim));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  std::string SpecExtra(const std::string& claim) {
    return R"("resourceClaims":[{"name":"gpu","resourceClaimName":")" + claim + R"("}])";
  }

  std::unique_ptr<SimulatedDevices> devices_;
};

TEST_F(SimulatedDevicesTest, PublishesSlicesAndTheDeviceClassForTheSimulatedNodes) {
  EXPECT_NE(Get("resource.k8s.io", "deviceclasses", "", "gpu.example.com"), nullptr);
  for (const char* node : {"n-0", "n-1"}) {
    api::ObjectPtr obj =
        Get("resource.k8s.io", "resourceslices", "", std::string(node) + "-gpu-example-com");
    ASSERT_NE(obj, nullptr) << node;
    const auto& slice = *api::As<api::ResourceSlice>(*obj);
    EXPECT_EQ(slice.spec.nodeName, node);
    EXPECT_EQ(slice.spec.devices.size(), 4u);
    ASSERT_EQ(slice.metadata.ownerReferences.size(), 1u);
    EXPECT_EQ(slice.metadata.ownerReferences[0].uid, Get("", "nodes", "", node)->metadata.uid);
  }
}

TEST_F(SimulatedDevicesTest, PodRunsOnceItsClaimIsAllocatedAndReservedAndIsUnpreparedOnDelete) {
  CreateClaim("c");
  api::ObjectPtr pod = CreatePod("p", "n-1", {}, SpecExtra("c"));
  // Refused while the claim is unallocated. The claim informer may deliver the claim after the
  // pod, so the refusal may also say "not found"; the retry then waits for the (fake) clock or
  // for the claim's allocation, which comes next.
  ASSERT_TRUE(TickUntil([&] { return sim_->GetStats().start_refusals >= 1; }));
  EXPECT_EQ(Phase("p"), "Pending");
  EXPECT_THAT(sim_->GetStats().last_error,
              AnyOf(HasSubstr("resourceclaim default/c is not allocated"),
                    HasSubstr("resourceclaim default/c not found")));

  Allocate("c", "n-1", "gpu-2", pod);
  ASSERT_TRUE(TickUntil([&] { return Phase("p") == "Running"; }));  // the clock stands still
  EXPECT_THAT(devices_->driver().PreparedDevices("n-1"), ElementsAre("gpu-2"));
  EXPECT_EQ(devices_->driver().GetStats().prepared_claims, 1);

  ASSERT_TRUE(store_->Delete(api::ResourceFor<api::Pod>(), "default", "p").ok());
  ASSERT_TRUE(TickUntil([&] { return devices_->driver().GetStats().prepared_claims == 0; }));
  EXPECT_THAT(devices_->driver().PreparedDevices("n-1"), IsEmpty());
}

TEST_F(SimulatedDevicesTest, DeviceOfAnotherNodeKeepsThePodPending) {
  CreateClaim("c");
  api::ObjectPtr pod = CreatePod("p", "n-0", {}, SpecExtra("c"));
  Allocate("c", "n-1", "gpu-0", pod);  // a broken allocation: the device is on n-1
  ASSERT_TRUE(TickUntil([&] {
    return sim_->GetStats().last_error.find("is not a device of node n-0") != std::string::npos;
  }));
  EXPECT_EQ(Phase("p"), "Pending");
  EXPECT_EQ(devices_->driver().GetStats().prepared_claims, 0);
}

}  // namespace
}  // namespace allot::drivers
