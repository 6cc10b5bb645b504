// FabricDriver detaching (deallocation, deletion, cancelled attaches, re-use of a device still
// attached) and restarting from the claims.
#include "drivers/fabric/testing/fixture.h"
#include "testing/wait.h"

namespace allot::drivers {
namespace {

using ::testing::ElementsAre;
using Phase = FabricDriver::DevicePhase;

class FabricDetachTest : public FabricDriverTest {
 protected:
  // Claim `name` with device a100-80gb-0 attached on n-0.
  void AttachOne(const std::string& name) {
    CreateClaim(name);
    Allocate(name, {FabricResult("a100-80gb-0")});
    Tick();
    Advance(std::chrono::seconds(2));
    Tick();
    ASSERT_EQ(SliceDevice("a100-80gb-0")->nodeName, "n-0");
  }
  void ExpectFree(const std::string& device) {
    EXPECT_EQ(Info(device).phase, Phase::kFree);
    std::optional<api::Device> d = SliceDevice(device);
    ASSERT_TRUE(d);
    EXPECT_FALSE(d->nodeName);
    EXPECT_EQ(d->allNodes, true);
    EXPECT_EQ(d->bindsToNode, true);
    EXPECT_THAT(d->bindingConditions, ElementsAre("kubernetes.io/is-attached"));
  }
};

TEST_F(FabricDetachTest, DetachesAfterTheLatencyOnceDeallocated) {
  StartDriver(Config());
  AttachOne("c");
  Deallocate("c");
  Tick();
  EXPECT_EQ(Info("a100-80gb-0").phase, Phase::kDetaching);
  EXPECT_EQ(SliceDevice("a100-80gb-0")->nodeName, "n-0");  // still attached while detaching
  Advance(std::chrono::milliseconds(999));
  Tick();
  EXPECT_EQ(SliceDevice("a100-80gb-0")->nodeName, "n-0");
  Advance(std::chrono::milliseconds(1));
  Tick();
  ExpectFree("a100-80gb-0");
  EXPECT_EQ(driver_->GetStats().detaches, 1u);
}

TEST_F(FabricDetachTest, DetachesWhenTheClaimIsDeleted) {
  StartDriver(Config());
  AttachOne("c");
  DeleteClaim("c");
  Tick();
  EXPECT_EQ(Info("a100-80gb-0").phase, Phase::kDetaching);
  Advance(std::chrono::seconds(1));
  Tick();
  ExpectFree("a100-80gb-0");
  EXPECT_EQ(driver_->GetStats().detaches, 1u);
}

TEST_F(FabricDetachTest, APendingAttachIsCancelled) {
  StartDriver(Config());
  CreateClaim("c");
  Allocate("c", {FabricResult("a100-80gb-0")});
  Tick();
  Advance(std::chrono::seconds(1));
  Deallocate("c");
  Tick();
  EXPECT_EQ(Info("a100-80gb-0").phase, Phase::kFree);
  Advance(std::chrono::seconds(5));
  Tick();
  EXPECT_TRUE(GetClaim("c").status.devices.empty());
  ExpectFree("a100-80gb-0");
  FabricDriver::Stats s = driver_->GetStats();
  EXPECT_EQ(s.cancelled, 1u);
  EXPECT_EQ(s.attaches, 0u);
  EXPECT_EQ(s.status_writes, 0u);
}

TEST_F(FabricDetachTest, ADeviceAllocatedAgainOnItsNodeBeforeTheDetachStaysAttached) {
  StartDriver(Config());
  AttachOne("a");
  Deallocate("a");
  Tick();
  ASSERT_EQ(Info("a100-80gb-0").phase, Phase::kDetaching);
  // The scheduler saw an attached device on n-0 (no binding conditions) and gave it to b.
  CreateClaim("b");
  api::DeviceRequestAllocationResult r = FabricResult("a100-80gb-0");
  r.rare.edit().bindingConditions.clear();
  r.rare.edit().bindingFailureConditions.clear();
  Allocate("b", {r});
  Tick();
  EXPECT_EQ(Info("a100-80gb-0").phase, Phase::kAttached);
  EXPECT_EQ(Info("a100-80gb-0").claim, "default/b");
  EXPECT_TRUE(ReportedReady(GetClaim("b").status, r));  // at once, no attach latency
  Advance(std::chrono::seconds(5));
  Tick();
  EXPECT_EQ(SliceDevice("a100-80gb-0")->nodeName, "n-0");
  EXPECT_EQ(driver_->GetStats().detaches, 0u);
}

TEST_F(FabricDetachTest, ARestartedDriverResumesFromTheClaims) {
  FabricConfig config = Config(3);
  StartDriver(config);
  AttachOne("attached");
  // A failed attach on device 2 (written as a failed driver would have), 10 s ago.
  CreateClaim("failed");
  Allocate("failed", {FabricResult("a100-80gb-2")}, "n-1");
  UpdateClaimStatus("failed", [&](api::ResourceClaimStatus& s) {
    s.devices.push_back({.driver = kDriver,
                         .pool = kPool,
                         .device = "a100-80gb-2",
                         .conditions = {{.type = "kubernetes.io/attach-failed",
                                         .status = "True",
                                         .lastTransitionTime = clock_.Now().TruncatedToSeconds(),
                                         .reason = "AttachFailed",
                                         .message = "boom"}}});
  });
  driver_.reset();

  // While no driver runs: device 1 is allocated.
  Advance(std::chrono::seconds(10));
  CreateClaim("pending");
  Allocate("pending", {FabricResult("a100-80gb-1")}, "n-1");

  StartDriver(config);
  EXPECT_EQ(Info("a100-80gb-0").phase, Phase::kAttached);
  EXPECT_EQ(Info("a100-80gb-0").node, "n-0");
  EXPECT_EQ(SliceDevice("a100-80gb-0")->nodeName, "n-0");
  EXPECT_EQ(Info("a100-80gb-1").phase, Phase::kAttaching);
  EXPECT_EQ(Info("a100-80gb-2").phase, Phase::kFailed);
  EXPECT_TRUE(Info("a100-80gb-2").cooling_down);
  ASSERT_EQ(SliceDevice("a100-80gb-2")->taints.size(), 1u);
  EXPECT_EQ(SliceDevice("a100-80gb-2")->taints[0].value, "n-1");

  Advance(std::chrono::seconds(2));
  Tick();
  EXPECT_TRUE(ReportedReady(GetClaim("pending").status, FabricResult("a100-80gb-1")));
  EXPECT_EQ(SliceDevice("a100-80gb-1")->nodeName, "n-1");
  EXPECT_EQ(driver_->GetStats().attaches, 1u);                               // only the pending one
  EXPECT_EQ(Entry("failed", "a100-80gb-2")->conditions[0].message, "boom");  // left alone

  // The cooldown ran from the failure, not from the restart.
  Advance(std::chrono::seconds(48));
  Tick();
  EXPECT_TRUE(SliceDevice("a100-80gb-2")->taints.empty());
  // And the attached one still detaches once released.
  Deallocate("attached");
  Tick();
  Advance(std::chrono::seconds(1));
  Tick();
  ExpectFree("a100-80gb-0");
}

TEST_F(FabricDetachTest, RunTicksByItself) {
  FabricConfig config = Config();
  config.attach_latency = std::chrono::microseconds(0);
  driver_ =
      std::make_unique<FabricDriver>(client_, clock_, config,
                                     FabricDriverOptions{.shared_claims = claims_.get(),
                                                         .max_idle = std::chrono::milliseconds(5)});
  ASSERT_TRUE(driver_->Run().ok());
  CreateClaim("c");
  Allocate("c", {FabricResult("a100-80gb-0")});
  // The claim event wakes the thread; the attach is due at once. (Waiting for that thread.)
  testing::WaitUntil([&] { return Entry("c", "a100-80gb-0").has_value(); });
  EXPECT_TRUE(ReportedReady(GetClaim("c").status, FabricResult("a100-80gb-0")));
  driver_->Stop();
  driver_->Stop();  // idempotent
}

}  // namespace
}  // namespace allot::drivers
