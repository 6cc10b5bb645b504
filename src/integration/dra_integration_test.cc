// DRA end to end in one process: a memory store, the scheduler with DynamicResources, the
// resourceclaim controller, per-node ResourceSlices. Pods get claims from templates or share
// claims; devices freed by deleted pods go to waiting pods at once; and an auditor watching
// every claim write checks that no device is ever held by two claims.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "api/core/pod.h"
#include "integration/dra_fixture.h"
#include "testing/wait.h"

namespace allot::integration {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class DraIntegrationTest : public DraFixture {};

TEST_F(DraIntegrationTest, ClaimsFromTemplatesAndSharedClaims) {
  Cluster(4, 4);
  Template("one-gpu");
  Claim("shared");
  Start();
  for (int i = 0; i < 12; ++i) Pod("worker-" + std::to_string(i), "one-gpu");
  for (int i = 0; i < 3; ++i) Pod("sharer-" + std::to_string(i), "", "shared");
  ASSERT_TRUE(testing::WaitUntil([&] { return Bound() == 15; }, seconds(30)))
      << Bound() << " bound";
  // The three pods sharing a claim run where its device is.
  std::set<std::string> sharer_nodes;
  for (const auto& p : Pods()) {
    if (p->metadata.name.rfind("sharer-", 0) == 0) sharer_nodes.insert(p->spec.nodeName);
  }
  EXPECT_EQ(sharer_nodes.size(), 1u);
  // 16 devices, 13 claims: the rest cannot fit and says why.
  Pod("extra-0", "one-gpu");
  Pod("extra-1", "one-gpu");
  Pod("extra-2", "one-gpu");
  Pod("extra-3", "one-gpu");
  ASSERT_TRUE(testing::WaitUntil([&] { return Bound() == 18; }, seconds(30)));
  ASSERT_TRUE(testing::WaitUntil([&] { return !PodMessage("extra-3").empty() || Bound() == 19; },
                                 seconds(30)));
  int unbound = 0;
  for (const auto& p : Pods()) {
    if (p->spec.nodeName.empty()) {
      ++unbound;
      EXPECT_TRUE(testing::WaitUntil(
          [&] {
            return PodMessage(p->metadata.name) ==
                   "Unschedulable: 0/4 nodes are available: 4 cannot allocate all claims. "
                   "still not schedulable, preemption: 0/4 nodes are available: 4 No "
                   "preemption victims found for incoming pod.";
          },
          seconds(10)))
          << PodMessage(p->metadata.name);
    }
  }
  EXPECT_EQ(unbound, 1);
  ExpectInvariants();
}

TEST_F(DraIntegrationTest, FreedDevicesGoToTheWaitingPodAtOnce) {
  Cluster(1, 1);
  Template("one-gpu");
  Start();
  Pod("first", "one-gpu");
  ASSERT_TRUE(testing::WaitUntil([&] { return Bound() == 1; }, seconds(30)));
  Pod("second", "one-gpu");
  ASSERT_TRUE(testing::WaitUntil([&] { return !PodMessage("second").empty(); }, seconds(30)));
  EXPECT_EQ(PodMessage("second"),
            "Unschedulable: 0/1 nodes are available: 1 cannot allocate all claims. still not "
            "schedulable, preemption: 0/1 nodes are available: 1 No preemption victims found "
            "for incoming pod.");
  auto deleted_at = std::chrono::steady_clock::now();
  ASSERT_TRUE(client_->Delete(api::ResourceFor<api::Pod>(), "default", "first").ok());
  // The claim controller releases the claim; the claim event requeues "second" — long before
  // the periodic flush of unschedulable pods (30 s here, 5 min in Kubernetes) would.
  ASSERT_TRUE(testing::WaitUntil(
      [&] {
        for (const auto& p : Pods()) {
          if (p->metadata.name == "second" && !p->spec.nodeName.empty()) return true;
        }
        return false;
      },
      seconds(20)));
  EXPECT_LT(std::chrono::steady_clock::now() - deleted_at, seconds(10));
  ExpectInvariants();
}

// 10,000 pods on 1,000 nodes with 8 devices each, all through templates: 8,000 get a device,
// 2,000 stay pending with the DRA reason; then the invariants.
TEST_F(DraIntegrationTest, TenThousandPodsOnAThousandNodes) {
  Cluster(1000, 8);
  Template("one-gpu");
  Start();
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 10000; ++i) Pod("p-" + std::to_string(i), "one-gpu");
  ASSERT_TRUE(testing::WaitUntil([&] { return Bound() == 8000; }, seconds(240)))
      << Bound() << " bound";
  auto bound_at = std::chrono::steady_clock::now();
  auto pending_reported = [&] {
    int n = 0;
    for (const auto& p : Pods()) {
      if (!p->spec.nodeName.empty()) continue;
      for (const auto& c : p->status.conditions) {
        n +=
            c.type == "PodScheduled" && c.status == "False" &&
            c.message.rfind("0/1000 nodes are available: 1000 cannot allocate all claims.", 0) == 0;
      }
    }
    return n;
  };
  ASSERT_TRUE(testing::WaitUntil([&] { return pending_reported() == 2000; }, seconds(120)))
      << pending_reported() << " pending pods report the DRA reason";
  std::printf("8,000 pods bound in %.1f s\n",
              std::chrono::duration<double>(bound_at - start).count());
  EXPECT_EQ(Bound(), 8000);
  ExpectInvariants();
  std::lock_guard<std::mutex> lock(audit_mu_);
  EXPECT_GE(audit_.allocations_seen(), 8000u);
}

}  // namespace
}  // namespace allot::integration
