// KEP-3063 control-plane claims end to end in one process: a driver built on the driver library
// (drivers/controlplane/) allocates an Immediate claim on its own, and the scheduler sends the
// pod that uses it to the node the allocation names.
#include <gtest/gtest.h>

#include <mutex>
#include <span>

#include "api/core/pod.h"
#include "api/resource/node_pinning.h"
#include "api/resource/types.h"
#include "drivers/controlplane/controller.h"
#include "integration/dra_fixture.h"
#include "workloads/objects.h"

namespace allot::integration {
namespace {

constexpr char kControlPlaneDriver[] = "controller.example.com";

// Network-attached accelerators reachable from one node only ("node-2").
class OneNodeDriver final : public drivers::controlplane::Driver {
 public:
  Status UnsuitableNodes(const api::Pod&, std::span<drivers::controlplane::ClaimAllocation> claims,
                         const std::vector<std::string>& nodes) override {
    for (auto& c : claims) {
      for (const std::string& n : nodes) {
        if (n != "node-2") c.unsuitable_nodes.push_back(n);
      }
    }
    return Status::Ok();
  }
  void Allocate(std::span<drivers::controlplane::ClaimAllocation> claims,
                const std::string& node) override {
    for (auto& c : claims) {
      if (!node.empty() && node != "node-2") {
        c.error = BadRequestError("not reachable from " + node);
        continue;
      }
      api::AllocationResult a;
      a.devices.results.push_back({.request = "gpu",
                                   .driver = kControlPlaneDriver,
                                   .pool = "rack-1",
                                   .device = "acc-0"});
      a.nodeSelector = api::PinnedTo("node-2");
      c.allocation = a;
    }
  }
  Status Deallocate(const api::ResourceClaim&) override { return Status::Ok(); }
};

class ControlPlaneTest : public DraFixture {
 protected:
  void TearDown() override {
    if (driver_controller_) driver_controller_->Stop();
    DraFixture::TearDown();
  }
  void StartDriver() {
    driver_controller_ = std::make_unique<drivers::controlplane::Controller>(
        *client_, driver_,
        drivers::controlplane::ControllerOptions{.driver_name = kControlPlaneDriver});
    ASSERT_TRUE(driver_controller_->Start().ok());
  }
  void ControlPlaneClaim(const std::string& name, std::string_view mode) {
    auto c = workloads::MakeClaim(name, "default", workloads::ClaimSpec(kControlPlaneDriver, 1));
    c->spec.controllerName = kControlPlaneDriver;
    c->spec.allocationMode = std::string(mode);
    Create(api::ResourceFor<api::ResourceClaim>(), std::move(c));
  }
  std::string NodeOf(const std::string& pod) {
    auto p = GetPod(pod);
    return p ? p->spec.nodeName : "";
  }

  OneNodeDriver driver_;
  std::unique_ptr<drivers::controlplane::Controller> driver_controller_;
};

TEST_F(ControlPlaneTest, AnImmediateClaimIsAllocatedByItsDriverAndThePodGoesWhereItIs) {
  Cluster(3, 0);
  StartDriver();
  ControlPlaneClaim("imm", api::kClaimAllocationImmediate);
  Start();
  Pod("p", "", "imm");
  ASSERT_TRUE(WaitFor([&] { return !NodeOf("p").empty(); }, std::chrono::seconds(10)));
  EXPECT_EQ(NodeOf("p"), "node-2");
  auto claim = GetClaim("imm");
  ASSERT_TRUE(claim->status.allocation);
  EXPECT_EQ(claim->status.allocation->controllerName, kControlPlaneDriver);
  ASSERT_EQ(claim->status.reservedFor.size(), 1u);
  EXPECT_EQ(claim->status.reservedFor[0].name, "p");
}

}  // namespace
}  // namespace allot::integration
