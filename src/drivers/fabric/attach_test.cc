// FabricDriver attaching: latency, the conditions written, hotplug in place, failures with
// their cooldown (Taint and Remove), several devices per claim, conflicts.
#include <set>

#include "drivers/fabric/testing/fixture.h"

namespace allot::drivers {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using Phase = FabricDriver::DevicePhase;

TEST_F(FabricDriverTest, AttachesAfterTheLatencyAndHotplugsInPlace) {
  StartDriver(Config());
  CreateClaim("c");
  Allocate("c", {FabricResult("a100-80gb-0")});
  Tick();
  EXPECT_EQ(Info("a100-80gb-0").phase, Phase::kAttaching);
  EXPECT_EQ(Info("a100-80gb-0").node, "n-0");

  Advance(std::chrono::milliseconds(1999));
  Tick();
  EXPECT_FALSE(Entry("c", "a100-80gb-0"));
  EXPECT_EQ(SliceDevice("a100-80gb-0")->allNodes, true);

  Advance(std::chrono::milliseconds(1));
  Tick();
  std::optional<api::AllocatedDeviceStatus> e = Entry("c", "a100-80gb-0");
  ASSERT_TRUE(e);
  ASSERT_EQ(e->conditions.size(), 1u);
  const api::Condition& cond = e->conditions[0];
  EXPECT_EQ(cond.type, "kubernetes.io/is-attached");
  EXPECT_EQ(cond.status, "True");
  EXPECT_EQ(cond.reason, "Attached");
  EXPECT_EQ(cond.message, "attached to node n-0");
  EXPECT_EQ(cond.lastTransitionTime, clock_.Now().TruncatedToSeconds());

  // Same slice, same pool, same name: now attached to n-0.
  std::optional<api::ResourceSlice> s = GetSlice();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->spec.pool.generation, 2);
  std::optional<api::Device> d = SliceDevice("a100-80gb-0");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->nodeName, "n-0");
  EXPECT_FALSE(d->allNodes || d->nodeSelector || d->bindsToNode);
  EXPECT_THAT(d->bindingConditions, IsEmpty());
  EXPECT_THAT(d->bindingFailureConditions, IsEmpty());
  EXPECT_EQ(d->attributes.at("model").stringValue, "a100-80gb");
  EXPECT_EQ(SliceDevice("a100-80gb-1")->allNodes, true);  // the other one is still free

  EXPECT_EQ(Info("a100-80gb-0").phase, Phase::kAttached);
  EXPECT_EQ(Info("a100-80gb-0").claim, "default/c");
  EXPECT_EQ(driver_->GetStats().attaches, 1u);
  EXPECT_EQ(driver_->GetStats().status_writes, 1u);
  // What the scheduler's PreBind and the node-local kubelet plugin look for.
  EXPECT_TRUE(ReportedReady(GetClaim("c").status, FabricResult("a100-80gb-0")));

  // Nothing more to do: no further writes.
  uint64_t rv = store_.CurrentResourceVersion();
  Advance(std::chrono::seconds(1));
  Tick();
  EXPECT_EQ(store_.CurrentResourceVersion(), rv);
}

TEST_F(FabricDriverTest, AttachesEveryFabricDeviceOfAClaimAndKeepsOtherEntries) {
  StartDriver(Config(3));
  CreateClaim("c", 3);
  api::DeviceRequestAllocationResult nic{
      .request = "gpu", .driver = "nic.example.com", .pool = "n-0", .device = "eth0"};
  Allocate("c", {FabricResult("a100-80gb-0"), nic, FabricResult("a100-80gb-2")});
  UpdateClaimStatus("c", [&](api::ResourceClaimStatus& s) {
    s.devices.push_back({.driver = "nic.example.com",
                         .pool = "n-0",
                         .device = "eth0",
                         .networkData = api::NetworkDeviceData{.interfaceName = "eth0"}});
  });
  Tick();
  Advance(std::chrono::seconds(2));
  Tick();
  api::ResourceClaim c = GetClaim("c");
  ASSERT_EQ(c.status.devices.size(), 3u);
  EXPECT_EQ(c.status.devices[0].driver, "nic.example.com");
  ASSERT_TRUE(c.status.devices[0].networkData);
  EXPECT_EQ(c.status.devices[0].networkData->interfaceName, "eth0");
  EXPECT_TRUE(ReportedReady(c.status, FabricResult("a100-80gb-0")));
  EXPECT_TRUE(ReportedReady(c.status, FabricResult("a100-80gb-2")));
  EXPECT_EQ(SliceDevice("a100-80gb-0")->nodeName, "n-0");
  EXPECT_EQ(SliceDevice("a100-80gb-1")->allNodes, true);
  EXPECT_EQ(SliceDevice("a100-80gb-2")->nodeName, "n-0");
  EXPECT_EQ(driver_->GetStats().attaches, 2u);
}

TEST_F(FabricDriverTest, StatusWritesRetryOnConflict) {
  InterferingClient interfering(client_);
  interfering.interfere = 2;
  StartDriver(Config(), &interfering);
  CreateClaim("c");
  Allocate("c", {FabricResult("a100-80gb-0")});
  Tick();
  Advance(std::chrono::seconds(2));
  Tick();
  api::ResourceClaim c = GetClaim("c");
  EXPECT_EQ(c.metadata.annotations.at("interfered"), "yes");
  EXPECT_TRUE(ReportedReady(c.status, FabricResult("a100-80gb-0")));
  EXPECT_EQ(interfering.interfere, 0);
  EXPECT_EQ(driver_->GetStats().status_errors, 0u);
}

TEST_F(FabricDriverTest, AFailedAttachReportsAndTaintsTheDeviceForTheCooldown) {
  FabricConfig config = Config();
  config.failure_rate = 1;
  StartDriver(config);
  CreateClaim("c");
  Allocate("c", {FabricResult("a100-80gb-0")}, "n-1");
  Tick();
  Advance(std::chrono::seconds(2));
  Tick();
  const Time failed_at = clock_.Now().TruncatedToSeconds();
  std::optional<api::AllocatedDeviceStatus> e = Entry("c", "a100-80gb-0");
  ASSERT_TRUE(e);
  ASSERT_EQ(e->conditions.size(), 1u);
  EXPECT_EQ(e->conditions[0].type, "kubernetes.io/attach-failed");
  EXPECT_EQ(e->conditions[0].status, "True");
  EXPECT_EQ(e->conditions[0].reason, "AttachFailed");
  EXPECT_EQ(e->conditions[0].message, "attaching a100-80gb-0 to node n-1 failed (simulated)");
  EXPECT_FALSE(ReportedReady(GetClaim("c").status, FabricResult("a100-80gb-0")));
  EXPECT_EQ(Info("a100-80gb-0").phase, Phase::kFailed);
  EXPECT_EQ(driver_->GetStats().failures, 1u);

  std::optional<api::Device> d = SliceDevice("a100-80gb-0");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->allNodes, true);  // never attached
  ASSERT_EQ(d->taints.size(), 1u);
  EXPECT_EQ(d->taints[0].key, "fabric.allot.dev/attach-failed");
  EXPECT_EQ(d->taints[0].value, "n-1");
  EXPECT_EQ(d->taints[0].effect, "NoSchedule");
  EXPECT_EQ(d->taints[0].timeAdded, failed_at);

  // The scheduler gives up on it: the device is free again, still tainted.
  Deallocate("c");
  Tick();
  EXPECT_EQ(Info("a100-80gb-0").phase, Phase::kFree);
  EXPECT_EQ(SliceDevice("a100-80gb-0")->taints.size(), 1u);

  Advance(std::chrono::seconds(59));
  Tick();
  EXPECT_EQ(SliceDevice("a100-80gb-0")->taints.size(), 1u);
  ASSERT_TRUE(driver_->NextDue());
  EXPECT_EQ(*driver_->NextDue(), Time{failed_at.unix_micros + 60'000'000});
  Advance(std::chrono::seconds(1));
  Tick();
  EXPECT_THAT(SliceDevice("a100-80gb-0")->taints, IsEmpty());
}

TEST_F(FabricDriverTest, WithOnFailureRemoveAFailedDeviceIsUnpublishedForTheCooldown) {
  FabricConfig config = Config();
  config.failure_rate = 1;
  config.on_failure = FabricFailurePolicy::kRemove;
  config.failure_cooldown = std::chrono::seconds(30);
  StartDriver(config);
  CreateClaim("c");
  Allocate("c", {FabricResult("a100-80gb-1")});
  Tick();
  Advance(std::chrono::seconds(2));
  Tick();
  ASSERT_TRUE(Entry("c", "a100-80gb-1"));
  EXPECT_FALSE(SliceDevice("a100-80gb-1"));
  ASSERT_TRUE(SliceDevice("a100-80gb-0"));
  EXPECT_THAT(SliceDevice("a100-80gb-0")->taints, IsEmpty());
  Deallocate("c");
  Advance(std::chrono::seconds(29));
  Tick();
  EXPECT_FALSE(SliceDevice("a100-80gb-1"));
  Advance(std::chrono::seconds(1));
  Tick();
  std::optional<api::Device> d = SliceDevice("a100-80gb-1");
  ASSERT_TRUE(d);
  EXPECT_THAT(d->taints, IsEmpty());
  EXPECT_EQ(d->allNodes, true);
}

TEST_F(FabricDriverTest, FailuresFollowTheSeededDraws) {
  // With failureRate 0.5 the outcomes depend only on the seed: two drivers agree.
  std::vector<Phase> outcomes[2];
  for (int run = 0; run < 2; ++run) {
    FabricConfig config = Config(8);
    config.failure_rate = 0.5;
    config.seed = 42;
    StartDriver(config);
    for (int i = 0; i < 8; ++i) {
      std::string name = "r" + std::to_string(run) + "-" + std::to_string(i);
      CreateClaim(name);
      Allocate(name, {FabricResult("a100-80gb-" + std::to_string(i))});
    }
    Tick();
    Advance(std::chrono::seconds(2));
    Tick();
    for (int i = 0; i < 8; ++i)
      outcomes[run].push_back(Info("a100-80gb-" + std::to_string(i)).phase);
    for (int i = 0; i < 8; ++i) DeleteClaim("r" + std::to_string(run) + "-" + std::to_string(i));
    driver_.reset();
  }
  EXPECT_EQ(outcomes[0], outcomes[1]);
  int failed = static_cast<int>(std::count(outcomes[0].begin(), outcomes[0].end(), Phase::kFailed));
  EXPECT_GT(failed, 0);
  EXPECT_LT(failed, 8);
}

TEST_F(FabricDriverTest, AttachLatencyMaxDrawsEachAttachFromTheRange) {
  FabricConfig config = Config(8);
  config.attach_latency = std::chrono::seconds(2);
  config.attach_latency_max = std::chrono::seconds(10);
  StartDriver(config);
  for (int i = 0; i < 8; ++i) {
    CreateClaim("c" + std::to_string(i));
    Allocate("c" + std::to_string(i), {FabricResult("a100-80gb-" + std::to_string(i))});
  }
  Tick();
  // Step through the range a second at a time: none before 2 s, all by 10 s, and not all at
  // the same moment.
  std::set<int> done_at;
  for (int t = 1; t <= 10; ++t) {
    Advance(std::chrono::seconds(1));
    Tick();
    for (int i = 0; i < 8; ++i) {
      if (Info("a100-80gb-" + std::to_string(i)).phase == Phase::kAttached && t < 2) {
        ADD_FAILURE() << "attached before attachLatency";
      }
    }
    int attached = 0;
    for (int i = 0; i < 8; ++i)
      attached += Info("a100-80gb-" + std::to_string(i)).phase == Phase::kAttached;
    if (attached > 0 && attached < 8) done_at.insert(t);
  }
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(Info("a100-80gb-" + std::to_string(i)).phase, Phase::kAttached) << i;
  }
  EXPECT_FALSE(done_at.empty());  // some attached while others still waited
}

TEST_F(FabricDriverTest, AnAllocationPinnedToNoNodeIsNotAttached) {
  StartDriver(Config());
  CreateClaim("c");
  Allocate("c", {FabricResult("a100-80gb-0")}, /*node=*/"");
  Tick();
  Advance(std::chrono::seconds(5));
  Tick();
  EXPECT_EQ(Info("a100-80gb-0").phase, Phase::kFree);
  EXPECT_FALSE(Entry("c", "a100-80gb-0"));
}

}  // namespace
}  // namespace allot::drivers
