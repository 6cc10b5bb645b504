#include "scheduler/cache/cache.h"

#include <gtest/gtest.h>

#include "scheduler/testing/builders.h"

namespace allot::scheduler {
namespace {

using testing::NodeBuilder;
using testing::PodBuilder;

class CacheTest : public ::testing::Test {
 protected:
  FakeClock clock_;
  Cache cache_{clock_, std::chrono::seconds(30)};
  Snapshot snapshot_;

  PodInfoPtr Pod(const std::string& name, const std::string& node, const std::string& cpu = "1") {
    return PodBuilder(name).Req(cpu, "1Gi").NodeName(node).Info();
  }
  int64_t SnapshotCpu(const std::string& node) {
    return snapshot_.Get(node)->requested().milli_cpu;
  }
};

TEST_F(CacheTest, AssumeConfirmForget) {
  cache_.AddNode(NodeBuilder("n1").Cap("4", "8Gi").Build());
  auto p = Pod("p", "n1");
  ASSERT_TRUE(cache_.AssumePod(p, "n1").ok());
  EXPECT_FALSE(cache_.AssumePod(p, "n1").ok());  // already there
  EXPECT_TRUE(cache_.IsAssumed(p->uid()));
  cache_.UpdateSnapshot(snapshot_);
  EXPECT_EQ(SnapshotCpu("n1"), 1000);

  // The informer confirms the bound pod: no longer assumed, still counted once.
  cache_.FinishBinding(p->uid());
  cache_.AddPod(p);
  EXPECT_FALSE(cache_.IsAssumed(p->uid()));
  cache_.UpdateSnapshot(snapshot_);
  EXPECT_EQ(SnapshotCpu("n1"), 1000);
  EXPECT_EQ(snapshot_.Get("n1")->pods().size(), 1u);

  // A failed binding forgets the pod.
  auto q = Pod("q", "n1", "2");
  ASSERT_TRUE(cache_.AssumePod(q, "n1").ok());
  cache_.ForgetPod(q->uid());
  cache_.UpdateSnapshot(snapshot_);
  EXPECT_EQ(SnapshotCpu("n1"), 1000);
  EXPECT_EQ(cache_.AssumedPodCount(), 0u);
}

TEST_F(CacheTest, ConfirmationOnAnotherNodeMovesThePod) {
  cache_.AddNode(NodeBuilder("n1").Cap("4", "8Gi").Build());
  cache_.AddNode(NodeBuilder("n2").Cap("4", "8Gi").Build());
  ASSERT_TRUE(cache_.AssumePod(Pod("p", ""), "n1").ok());
  cache_.AddPod(Pod("p", "n2"));
  cache_.UpdateSnapshot(snapshot_);
  EXPECT_EQ(SnapshotCpu("n1"), 0);
  EXPECT_EQ(SnapshotCpu("n2"), 1000);
}

// The cache keys its pods by a view of the uid inside the PodInfo it holds: each replacement
// frees the PodInfo the key viewed, and every lookup afterwards must still find the pod (under
// ALLOT_SANITIZE a stale view is a use-after-free).
TEST_F(CacheTest, PodsStayFoundWhileTheirPodInfosAreReplaced) {
  cache_.AddNode(NodeBuilder("n1").Cap("64", "64Gi").Build());
  cache_.AddNode(NodeBuilder("n2").Cap("64", "64Gi").Build());
  const std::vector<std::string> names = {"d", "b", "e", "a", "c"};
  for (const std::string& name : names) ASSERT_TRUE(cache_.AssumePod(Pod(name, ""), "n1").ok());
  for (int round = 0; round < 3; ++round) {
    for (const std::string& name : names) cache_.AddPod(Pod(name, round % 2 ? "n1" : "n2"));
  }
  EXPECT_EQ(cache_.PodCount(), names.size());
  EXPECT_EQ(cache_.AssumedPodCount(), 0u);
  for (const std::string& name : names) {
    const std::string uid = Pod(name, "")->uid();
    EXPECT_EQ(cache_.NodeOf(uid), "n2") << name;
    EXPECT_FALSE(cache_.IsAssumed(uid)) << name;
  }
  cache_.RemovePod(*Pod("b", "")->pod);
  cache_.RemovePod(*Pod("e", "")->pod);
  EXPECT_EQ(cache_.PodCount(), 3u);
  EXPECT_EQ(cache_.NodeOf(Pod("b", "")->uid()), std::nullopt);
  cache_.UpdateSnapshot(snapshot_);
  EXPECT_EQ(SnapshotCpu("n2"), 3000);
  EXPECT_EQ(SnapshotCpu("n1"), 0);
}

TEST_F(CacheTest, AssumedPodsExpireOnlyAfterBindingFinishedAndTtl) {
  cache_.AddNode(NodeBuilder("n1").Cap("4", "8Gi").Build());
  auto p = Pod("p", "n1");
  ASSERT_TRUE(cache_.AssumePod(p, "n1").ok());
  clock_.Advance(std::chrono::minutes(10));
  cache_.CleanupExpiredAssumedPods();
  EXPECT_TRUE(cache_.IsAssumed(p->uid()));  // binding still running: never expires
  cache_.FinishBinding(p->uid());
  clock_.Advance(std::chrono::seconds(29));
  cache_.CleanupExpiredAssumedPods();
  EXPECT_TRUE(cache_.IsAssumed(p->uid()));
  clock_.Advance(std::chrono::seconds(2));
  cache_.CleanupExpiredAssumedPods();
  EXPECT_FALSE(cache_.IsAssumed(p->uid()));
  EXPECT_EQ(cache_.PodCount(), 0u);
  cache_.UpdateSnapshot(snapshot_);
  EXPECT_EQ(SnapshotCpu("n1"), 0);
}

TEST_F(CacheTest, NodesGetDenseIndexesThatAreReusedOnceTheyGo) {
  cache_.AddNode(NodeBuilder("n1").Cap("4", "8Gi").Build());
  cache_.AddNode(NodeBuilder("n2").Cap("4", "8Gi").Build());
  cache_.UpdateSnapshot(snapshot_);
  const uint32_t i1 = snapshot_.Get("n1")->index(), i2 = snapshot_.Get("n2")->index();
  EXPECT_NE(i1, i2);
  EXPECT_LT(std::max(i1, i2), 2u);
  cache_.RemoveNode("n1");
  cache_.AddNode(NodeBuilder("n3").Cap("4", "8Gi").Build());
  cache_.UpdateSnapshot(snapshot_);
  EXPECT_EQ(snapshot_.Get("n3")->index(), i1) << "n1's, free again";
  EXPECT_EQ(snapshot_.Get("n2")->index(), i2);
  EXPECT_EQ(NodeInfo().index(), NodeInfo::kNoIndex);
}

TEST_F(CacheTest, SnapshotCopiesOnlyChangedNodes) {
  for (int i = 0; i < 5; ++i) {
    cache_.AddNode(NodeBuilder("n" + std::to_string(i)).Cap("4", "8Gi").Build());
  }
  cache_.UpdateSnapshot(snapshot_);
  ASSERT_EQ(snapshot_.NumNodes(), 5u);
  const NodeInfo* n0 = snapshot_.Get("n0");
  const NodeInfo* n3 = snapshot_.Get("n3");
  int64_t g0 = n0->generation();
  int64_t g3 = n3->generation();
  cache_.AddPod(Pod("p", "n3"));
  cache_.UpdateSnapshot(snapshot_);
  EXPECT_EQ(snapshot_.Get("n0"), n0);  // same object, untouched
  EXPECT_EQ(n0->generation(), g0);
  EXPECT_GT(n3->generation(), g3);  // updated in place
  EXPECT_EQ(n3->requested().milli_cpu, 1000);
  EXPECT_GE(snapshot_.generation(), n3->generation());
}

TEST_F(CacheTest, NodeRemovalKeepsOrderAndPodsOfGhostNodes) {
  cache_.AddNode(NodeBuilder("a").Cap("4", "8Gi").Build());
  cache_.AddNode(NodeBuilder("b").Cap("4", "8Gi").Build());
  cache_.AddNode(NodeBuilder("c").Cap("4", "8Gi").Build());
  cache_.AddPod(Pod("p", "b"));
  cache_.UpdateSnapshot(snapshot_);
  cache_.RemoveNode("b");
  cache_.RemoveNode("c");
  cache_.UpdateSnapshot(snapshot_);
  ASSERT_EQ(snapshot_.NumNodes(), 1u);
  EXPECT_EQ(snapshot_.nodes()[0]->name(), "a");
  EXPECT_EQ(snapshot_.Get("b"), nullptr);
  EXPECT_EQ(snapshot_.Get("c"), nullptr);
  EXPECT_EQ(cache_.PodCount(), 1u);  // the pod on b is still known
  // The node comes back: its pod is counted again.
  cache_.AddNode(NodeBuilder("b").Cap("4", "8Gi").Build());
  cache_.UpdateSnapshot(snapshot_);
  ASSERT_EQ(snapshot_.NumNodes(), 2u);
  EXPECT_EQ(SnapshotCpu("b"), 1000);
  // Pods that arrive before their node.
  cache_.AddPod(Pod("early", "d"));
  cache_.UpdateSnapshot(snapshot_);
  EXPECT_EQ(snapshot_.NumNodes(), 2u);
  cache_.AddNode(NodeBuilder("d").Cap("4", "8Gi").Build());
  cache_.UpdateSnapshot(snapshot_);
  EXPECT_EQ(SnapshotCpu("d"), 1000);
  cache_.RemovePod(*Pod("early", "d")->pod);
  cache_.UpdateSnapshot(snapshot_);
  EXPECT_EQ(SnapshotCpu("d"), 0);
}

TEST_F(CacheTest, UpdateNodeChangesAllocatable) {
  cache_.AddNode(NodeBuilder("n").Cap("4", "8Gi").Build());
  cache_.UpdateSnapshot(snapshot_);
  cache_.UpdateNode(NodeBuilder("n").Cap("8", "8Gi").Label("x", "y").Build());
  cache_.UpdateSnapshot(snapshot_);
  EXPECT_EQ(snapshot_.Get("n")->allocatable().milli_cpu, 8000);
  EXPECT_EQ(snapshot_.Get("n")->node()->metadata.labels.at("x"), "y");
  EXPECT_EQ(snapshot_.NumNodes(), 1u);
}

}  // namespace
}  // namespace allot::scheduler
