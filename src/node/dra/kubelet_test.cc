// DraKubelet wired into a NodeSimulator over an in-process store: a bound pod waits for its
// claim, starts as soon as the claim is allocated and reserved for it (no backoff wait), and
// its claim is unprepared when it is deleted.
#include "node/dra/kubelet.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/core/pod.h"
#include "api/resource/types.h"
#include "node/testing/dra.h"
#include "node/testing/simulator.h"

namespace allot::node {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kClaimRef[] = R"("resourceClaims":[{"name":"gpu","resourceClaimName":"c"}])";

class DraKubeletTest : public SimulatorTest {
 protected:
  void SetUp() override {
    SimulatorTest::SetUp();
    dra_ = std::make_unique<DraKubelet>(*client_);
    ASSERT_TRUE(dra_->plugins().Register(gpu_).ok());
    Start(Options(1), /*watch=*/false);
    dra_->Install(*sim_);
    ASSERT_TRUE(dra_->Start(std::chrono::seconds(10)).ok());
    ASSERT_TRUE(sim_->Watch(std::chrono::seconds(10)).ok());
  }
  void TearDown() override {
    sim_->Stop();
    dra_->Stop();
    SimulatorTest::TearDown();
  }

  const api::ResourceInfo& Claims() { return api::ResourceFor<api::ResourceClaim>(); }
  void CreateClaim() {
    auto claim = MakeClaim("c")->Clone();
    claim->metadata.uid.clear();
    ASSERT_TRUE(store_->Create(Claims(), std::move(claim)).ok());
  }
  // What the scheduler does in PreBind: allocation, then the pod in reservedFor.
  void AllocateAndReserve(const std::string& pod_uid) {
    api::ObjectPtr current = Get("resource.k8s.io", "resourceclaims", "default", "c");
    ASSERT_NE(current, nullptr);
    auto claim = std::make_unique<api::ResourceClaim>(AsClaim(current));
    claim->status = AsClaim(MakeClaim("c", "gpu-0", {pod_uid})).status;
    claim->status.reservedFor[0].name = "p";
    Result<api::ObjectPtr> r = client_->UpdateStatus(Claims(), std::move(claim));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  NodeSimulator::Stats Stats() { return sim_->GetStats(); }

  FakePlugin gpu_;
  std::unique_ptr<DraKubelet> dra_;
};

TEST_F(DraKubeletTest, PodWaitsForItsClaimThenStartsWithoutWaitingOutTheBackoff) {
  CreateClaim();
  api::ObjectPtr pod = CreatePod("p", "n-0", {}, kClaimRef);
  // The kubelet's claim informer may see the pod before the claim ("not found" first); the
  // claim's arrival rechecks the pod.
  ASSERT_TRUE(TickUntil([&] {
    return Stats().last_error.find("resourceclaim default/c is not allocated") != std::string::npos;
  })) << Stats().last_error;
  EXPECT_EQ(Phase("p"), "Pending");
  EXPECT_THAT(gpu_.Prepared(), IsEmpty());

  AllocateAndReserve(pod->metadata.uid);
  // The clock does not move: the claim event rechecks the pod at once.
  ASSERT_TRUE(TickUntil([&] { return Phase("p") == "Running"; }));
  EXPECT_GE(dra_->rechecks(), 1u);
  EXPECT_THAT(gpu_.Prepared(), ElementsAre("c@n-0"));
  EXPECT_EQ(dra_->PreparerStats().prepared_claims, 1);

  ASSERT_TRUE(store_->Delete(api::ResourceFor<api::Pod>(), "default", "p").ok());
  ASSERT_TRUE(TickUntil([&] { return !gpu_.Unprepared().empty(); }));
  EXPECT_THAT(gpu_.Unprepared(), ElementsAre("c@n-0"));
  EXPECT_EQ(dra_->PreparerStats().prepared_claims, 0);
}

// A driver reporting its device ready (status.devices, e.g. a fabric device attached) is a
// claim change the pod may have been waiting for: it is rechecked at once, not after backoff.
TEST_F(DraKubeletTest, ADeviceReportedReadyRechecksThePod) {
  gpu_.need_device_status = true;
  CreateClaim();
  api::ObjectPtr pod = CreatePod("p", "n-0", {}, kClaimRef);
  AllocateAndReserve(pod->metadata.uid);
  ASSERT_TRUE(TickUntil([&] {
    return Stats().last_error.find("device not reported ready") != std::string::npos;
  })) << Stats().last_error;
  EXPECT_EQ(Phase("p"), "Pending");

  api::ObjectPtr current = Get("resource.k8s.io", "resourceclaims", "default", "c");
  auto claim = std::make_unique<api::ResourceClaim>(AsClaim(current));
  claim->status.devices.push_back({.driver = "gpu.example.com", .pool = "n-0", .device = "gpu-0"});
  ASSERT_TRUE(client_->UpdateStatus(Claims(), std::move(claim)).ok());
  // The clock does not move: only the recheck can start it.
  ASSERT_TRUE(TickUntil([&] { return Phase("p") == "Running"; }));
  EXPECT_THAT(gpu_.Prepared(), ElementsAre("c@n-0"));
}

TEST_F(DraKubeletTest, MissingClaimKeepsThePodPending) {
  CreatePod("p", "n-0", {}, kClaimRef);
  ASSERT_TRUE(TickUntil([&] { return Stats().start_refusals >= 1; }));
  EXPECT_EQ(Phase("p"), "Pending");
  EXPECT_THAT(Stats().last_error, HasSubstr("resourceclaim default/c not found"));
}

TEST_F(DraKubeletTest, ClaimOfAnUnregisteredDriverKeepsThePodPending) {
  dra_->plugins().Unregister("gpu.example.com");
  CreateClaim();
  api::ObjectPtr pod = CreatePod("p", "n-0", {}, kClaimRef);
  AllocateAndReserve(pod->metadata.uid);
  ASSERT_TRUE(TickUntil([&] {
    return Stats().last_error.find("driver gpu.example.com is not registered") != std::string::npos;
  }));
  EXPECT_EQ(Phase("p"), "Pending");
  EXPECT_THAT(gpu_.Prepared(), IsEmpty());
}

TEST_F(DraKubeletTest, PodsWithoutClaimsAreUnaffected) {
  CreatePod("plain", "n-0");
  ASSERT_TRUE(TickUntil([&] { return Phase("plain") == "Running"; }));
  EXPECT_THAT(gpu_.Prepared(), IsEmpty());
}

}  // namespace
}  // namespace allot::node
