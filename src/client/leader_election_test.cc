#include "client/leader_election.h"

#include <gtest/gtest.h>

#include "api/core/types.h"
#include "client/inprocess/inprocess_client.h"
#include "store/store.h"

namespace allot::client {
namespace {

class LeaderElectionTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(store_.Open().ok()); }
  LeaderElectionConfig Config(const std::string& id) {
    LeaderElectionConfig c;
    c.lock_name = "allot-scheduler";
    c.identity = id;
    c.lease_duration = std::chrono::seconds(15);
    return c;
  }
  const api::Lease* Lease(ObjectPtr& keep) {
    const auto& leases = api::ResourceFor<api::Lease>();
    keep = *client_.Get(leases, "kube-system", "allot-scheduler");
    return api::As<api::Lease>(*keep);
  }

  FakeClock clock_;
  store::Store store_{store::NewMemoryBackend(), clock_};
  InProcessClient client_{store_, clock_};
};

TEST_F(LeaderElectionTest, OnlyOneHolderUntilTheLeaseExpires) {
  LeaderElector a(client_, clock_, Config("a"));
  LeaderElector b(client_, clock_, Config("b"));
  EXPECT_TRUE(a.TryAcquireOrRenew());
  EXPECT_FALSE(b.TryAcquireOrRenew());
  clock_.Advance(std::chrono::seconds(10));
  EXPECT_TRUE(a.TryAcquireOrRenew());  // renews
  clock_.Advance(std::chrono::seconds(10));
  EXPECT_FALSE(b.TryAcquireOrRenew());  // renewed 10 s ago: still held
  ObjectPtr keep;
  EXPECT_EQ(Lease(keep)->spec.holderIdentity.value_or(""), "a");
  EXPECT_EQ(Lease(keep)->spec.leaseTransitions.value_or(-1), 0);
}

TEST_F(LeaderElectionTest, ACandidateTakesOverAnExpiredLease) {
  LeaderElector a(client_, clock_, Config("a"));
  LeaderElector b(client_, clock_, Config("b"));
  ASSERT_TRUE(a.TryAcquireOrRenew());
  clock_.Advance(std::chrono::seconds(16));  // a stopped renewing (killed)
  EXPECT_TRUE(b.TryAcquireOrRenew());
  EXPECT_FALSE(a.TryAcquireOrRenew());  // a comes back: the lease is b's now
  EXPECT_FALSE(a.IsLeader());
  ObjectPtr keep;
  const api::Lease* lease = Lease(keep);
  EXPECT_EQ(lease->spec.holderIdentity.value_or(""), "b");
  EXPECT_EQ(lease->spec.leaseTransitions.value_or(-1), 1);
  EXPECT_EQ(lease->spec.acquireTime->time, clock_.Now());
}

// A holder stopped on request gives the lease up: the next candidate takes it at once, not
// after the lease duration; releasing a lease held by another changes nothing.
TEST_F(LeaderElectionTest, AReleasedLeaseIsTakenAtOnce) {
  LeaderElector a(client_, clock_, Config("a"));
  LeaderElector b(client_, clock_, Config("b"));
  ASSERT_TRUE(a.TryAcquireOrRenew());
  b.Release();
  EXPECT_FALSE(b.TryAcquireOrRenew());
  a.Release();
  EXPECT_FALSE(a.IsLeader());
  ObjectPtr keep;
  EXPECT_EQ(Lease(keep)->spec.holderIdentity.value_or("?"), "");
  EXPECT_TRUE(b.TryAcquireOrRenew());
  EXPECT_EQ(Lease(keep)->spec.holderIdentity.value_or(""), "b");
  EXPECT_EQ(Lease(keep)->spec.leaseTransitions.value_or(-1), 1);
}

TEST_F(LeaderElectionTest, RacingCandidatesCannotBothWin) {
  LeaderElector a(client_, clock_, Config("a"));
  ASSERT_TRUE(a.TryAcquireOrRenew());
  clock_.Advance(std::chrono::seconds(20));
  std::vector<std::unique_ptr<LeaderElector>> rivals;
  for (int i = 0; i < 8; ++i) {
    rivals.push_back(
        std::make_unique<LeaderElector>(client_, clock_, Config("r" + std::to_string(i))));
  }
  std::vector<std::thread> threads;
  std::atomic<int> winners{0};
  for (auto& r : rivals) {
    threads.emplace_back([&, e = r.get()] {
      if (e->TryAcquireOrRenew()) ++winners;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(winners.load(), 1);
}

}  // namespace
}  // namespace allot::client
