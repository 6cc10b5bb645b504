// reservedFor cleanup, deallocation (structured and control-plane claims), deletion of unused
// generated claims, finishing the deletion of unused claims, and 409 retries.
#include <gtest/gtest.h>

#include "api/resource/pod_scheduling_context.h"
#include "controllers/resourceclaim/testing/fixture.h"
#include "testing/wait.h"

namespace allot::controllers {
namespace {

using std::chrono::milliseconds;

class ClaimCleanupTest : public ResourceClaimControllerTest {
 protected:
  bool Released(const std::string& claim) {
    const api::ResourceClaim* c = GetClaim(claim);
    return c && c->status.reservedFor.empty();
  }
  // Released, allocation cleared and the delete-protection finalizer removed.
  bool Deallocated(const std::string& claim) {
    const api::ResourceClaim* c = GetClaim(claim);
    return c && c->status.reservedFor.empty() && !c->status.allocation &&
           c->metadata.finalizers.empty();
  }
  // Forces one more sync of the claim and waits for it. (The handlers queue none where the
  // sync could not act: ClaimSyncMayAct.)
  void ResyncClaim(const std::string& claim) {
    int before = Syncs("claim:default/" + claim);
    controller_->QueueClaimSync("default", claim);
    ASSERT_TRUE(WaitForSync("claim:default/" + claim, before));
  }
  // Waits until the controller's claim informer holds `written` (its handlers ran: a sync they
  // queued is queued by now).
  void WaitUntilSeen(const api::ObjectPtr& written) {
    client::Informer& claims = factory_->For(Claims());
    ASSERT_TRUE(testing::WaitUntil([&] {
      api::ObjectPtr cached = claims.Get(written->metadata.namespace_, written->metadata.name);
      return cached && cached->metadata.resourceVersion == written->metadata.resourceVersion;
    }));
  }
  api::ObjectPtr CreatePodWithFinalizer(const std::string& name, const std::string& claim,
                                        const std::string& node) {
    auto pod = testing::PodManifest("default", name,
                                    R"("resourceClaims":[{"name":"gpu","resourceClaimName":")" +
                                        claim + R"("}])" +
                                        (node.empty() ? "" : R"(,"nodeName":")" + node + R"(")"));
    pod->metadata.finalizers = {"example.com/hold"};
    auto r = inner_->Create(Pods(), std::move(pod));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : nullptr;
  }
  void ReleasePodFinalizer(const std::string& name) {
    auto pod = std::make_unique<api::Pod>(*GetPod(name));
    pod->metadata.finalizers.clear();
    ASSERT_TRUE(inner_->Update(Pods(), std::move(pod)).ok());
  }
};

TEST_F(ClaimCleanupTest, DeletedPodIsRemovedAndStructuredClaimDeallocated) {
  CreateClaim("c1");
  api::ObjectPtr p1 = CreatePod("p1", "gpu", "c1", "node-1", /*direct=*/true);
  api::ObjectPtr p2 = CreatePod("p2", "gpu", "c1", "node-1", /*direct=*/true);
  AllocateAndReserve("c1", {p1, p2});
  StartController();
  ResyncClaim("c1");
  EXPECT_EQ(GetClaim("c1")->status.reservedFor.size(), 2u) << "running pods keep their entries";

  DeletePod("p1");
  ASSERT_TRUE(testing::WaitUntil([&] { return GetClaim("c1")->status.reservedFor.size() == 1; }));
  EXPECT_EQ(GetClaim("c1")->status.reservedFor[0].uid, p2->metadata.uid);
  EXPECT_TRUE(GetClaim("c1")->status.allocation) << "still used by p2";
  EXPECT_EQ(GetClaim("c1")->metadata.finalizers.size(), 1u);

  DeletePod("p2");
  ASSERT_TRUE(testing::WaitUntil([&] { return Deallocated("c1"); }));
  EXPECT_NE(GetClaim("c1"), nullptr) << "a user's claim is kept";
}

TEST_F(ClaimCleanupTest, SucceededAndFailedPodsAreRemoved) {
  CreateClaim("c1");
  CreateClaim("c2");
  api::ObjectPtr p1 = CreatePod("p1", "gpu", "c1", "node-1", true);
  api::ObjectPtr p2 = CreatePod("p2", "gpu", "c2", "node-1", true);
  AllocateAndReserve("c1", {p1});
  AllocateAndReserve("c2", {p2});
  StartController();
  SetPodPhase("p1", "Succeeded");
  SetPodPhase("p2", "Failed");
  ASSERT_TRUE(testing::WaitUntil([&] { return Deallocated("c1") && Deallocated("c2"); }));
}

TEST_F(ClaimCleanupTest, PodReplacedByAnotherWithTheSameNameIsRemoved) {
  CreateClaim("c1");
  api::ObjectPtr old_pod = CreatePod("p1", "gpu", "c1", "node-1", true);
  AllocateAndReserve("c1", {old_pod});
  // Replaced while no controller ran: only the uid tells the pods apart.
  DeletePod("p1");
  api::ObjectPtr new_pod = CreatePod("p1", "gpu", "c1", "", true);
  ASSERT_NE(old_pod->metadata.uid, new_pod->metadata.uid);
  StartController();
  ASSERT_TRUE(testing::WaitUntil([&] { return Deallocated("c1"); }));
}

TEST_F(ClaimCleanupTest, PendingPodKeepsItsReservation) {
  // The scheduler reserves before Bind: the pod exists, is not bound yet, and must keep it.
  CreateClaim("c1");
  api::ObjectPtr p1 = CreatePod("p1", "gpu", "c1", "", true);
  AllocateAndReserve("c1", {p1});
  StartController();
  ResyncClaim("c1");
  const api::ResourceClaim* c = GetClaim("c1");
  ASSERT_EQ(c->status.reservedFor.size(), 1u);
  EXPECT_EQ(c->status.reservedFor[0].uid, p1->metadata.uid);
  EXPECT_TRUE(c->status.allocation);
  EXPECT_EQ(client_->Count("status", "resourceclaims"), 0);
}

// A claim on its way to a running pod (created, given the finalizer, allocated and reserved for
// a pod the cache holds) costs no claim sync: none of those writes leaves the sync anything to
// do. A consumer the cache cannot vouch for, or a deletion, does queue one.
TEST_F(ClaimCleanupTest, WritesAfterWhichTheSyncCouldNotActQueueNoSync) {
  api::ObjectPtr p1 = CreatePod("p1", "gpu", "c1", "node-1", true);
  StartController();  // its pod cache holds p1 (listed before Start returns)
  api::ObjectPtr created = CreateClaim("c1", /*finalizer=*/false);
  WaitUntilSeen(created);
  auto updated = std::make_unique<api::ResourceClaim>(*GetClaim("c1"));
  updated->metadata.finalizers.push_back(std::string(api::kResourceClaimFinalizer));
  updated->metadata.labels["team"] = "a";
  ASSERT_TRUE(inner_->Update(Claims(), std::move(updated)).ok());
  WaitUntilSeen(AllocateAndReserve("c1", {p1}));
  EXPECT_EQ(Syncs("claim:default/c1"), 0);

  // A consumer the pod cache does not hold: only the API server can tell (it is gone).
  auto stranger = std::make_unique<api::ResourceClaim>(*GetClaim("c1"));
  stranger->status.reservedFor.push_back({"", "pods", "ghost", "uid-ghost"});
  ASSERT_TRUE(inner_->UpdateStatus(Claims(), std::move(stranger)).ok());
  ASSERT_TRUE(testing::WaitUntil([&] { return GetClaim("c1")->status.reservedFor.size() == 1; }));
  EXPECT_EQ(GetClaim("c1")->status.reservedFor[0].uid, p1->metadata.uid);
  ASSERT_TRUE(testing::WaitUntil([&] { return Syncs("claim:default/c1") == 1; }));
}

TEST_F(ClaimCleanupTest, DeletionBeforeSchedulingReleasesButRunningPodKeepsUntilGone) {
  CreateClaim("c1");
  CreateClaim("c2");
  api::ObjectPtr pending = CreatePodWithFinalizer("pending", "c1", "");
  api::ObjectPtr running = CreatePodWithFinalizer("running", "c2", "node-1");
  AllocateAndReserve("c1", {pending});
  AllocateAndReserve("c2", {running});
  StartController();

  DeletePod("pending");  // deletionTimestamp, not bound: it will never run
  DeletePod("running");  // deletionTimestamp, bound: its containers may still be stopping
  ASSERT_TRUE(testing::WaitUntil([&] { return Deallocated("c1"); }));
  ResyncClaim("c2");
  EXPECT_EQ(GetClaim("c2")->status.reservedFor.size(), 1u);

  ReleasePodFinalizer("running");  // now removed
  ASSERT_TRUE(testing::WaitUntil([&] { return Deallocated("c2"); }));
  ReleasePodFinalizer("pending");
}

TEST_F(ClaimCleanupTest, ControlPlaneClaimGetsDeallocationRequested) {
  CreateClaim("cp", /*finalizer=*/false, "ctrl.example.com");
  api::ObjectPtr p1 = CreatePod("p1", "gpu", "cp", "node-1", true);
  AllocateAndReserve("cp", {p1}, "ctrl.example.com");
  StartController();
  DeletePod("p1");
  ASSERT_TRUE(testing::WaitUntil([&] {
    const api::ResourceClaim* c = GetClaim("cp");
    return c && c->status.deallocationRequested;
  }));
  const api::ResourceClaim* c = GetClaim("cp");
  EXPECT_TRUE(c->status.reservedFor.empty());
  EXPECT_TRUE(c->status.allocation) << "the driver deallocates";
}

TEST_F(ClaimCleanupTest, ImmediateControlPlaneClaimStaysAllocated) {
  CreateClaim("cp", /*finalizer=*/false, "ctrl.example.com", nullptr, "",
              std::string(api::kClaimAllocationImmediate));
  api::ObjectPtr p1 = CreatePod("p1", "gpu", "cp", "node-1", true);
  AllocateAndReserve("cp", {p1}, "ctrl.example.com");
  StartController();
  DeletePod("p1");
  ASSERT_TRUE(testing::WaitUntil([&] {
    const api::ResourceClaim* c = GetClaim("cp");
    return c && c->status.reservedFor.empty();
  }));
  const api::ResourceClaim* c = GetClaim("cp");
  EXPECT_FALSE(c->status.deallocationRequested);
  EXPECT_TRUE(c->status.allocation) << "an Immediate claim stays allocated for its next user";
}

TEST_F(ClaimCleanupTest, PodBoundBySomeoneElseGetsAContextForItsControlPlaneClaim) {
  CreateClaim("cp", /*finalizer=*/false, "ctrl.example.com");
  api::ObjectPtr p1 = CreatePod("p1", "gpu", "cp", "node-1", true);
  StartController();
  const api::ResourceInfo& contexts = api::ResourceFor<api::PodSchedulingContext>();
  std::shared_ptr<const api::PodSchedulingContext> ctx;
  ASSERT_TRUE(testing::WaitUntil([&] {
    auto got = inner_->Get(contexts, "default", "p1");
    if (got.ok()) ctx = std::static_pointer_cast<const api::PodSchedulingContext>(*got);
    return ctx != nullptr;
  })) << LastError("pod:default/p1");
  EXPECT_EQ(ctx->spec.selectedNode, "node-1");
  ASSERT_EQ(ctx->metadata.ownerReferences.size(), 1u);
  EXPECT_EQ(ctx->metadata.ownerReferences[0].uid, p1->metadata.uid);
  EXPECT_TRUE(ctx->metadata.ownerReferences[0].controller.value_or(false));
}

TEST_F(ClaimCleanupTest, GeneratedClaimIsDeletedWhenItsPodIsDone) {
  CreateTemplate("tmpl");
  CreatePod("p1", "gpu", "tmpl", "node-1");
  StartController();
  ASSERT_TRUE(testing::WaitUntil([&] { return !RecordedClaim("p1", "gpu").empty(); }));
  std::string name = RecordedClaim("p1", "gpu");
  // The scheduler: finalizer, then allocation and reservation.
  auto with_finalizer = std::make_unique<api::ResourceClaim>(*GetClaim(name));
  with_finalizer->metadata.finalizers.push_back(std::string(api::kResourceClaimFinalizer));
  ASSERT_TRUE(inner_->Update(Claims(), std::move(with_finalizer)).ok());
  const api::Pod* pod = GetPod("p1");
  AllocateAndReserve(name, {held_.back()});
  ASSERT_EQ(GetClaim(name)->status.reservedFor[0].uid, pod->metadata.uid);
  ResyncClaim(name);
  ASSERT_NE(GetClaim(name), nullptr) << "in use";

  SetPodPhase("p1", "Succeeded");
  ASSERT_TRUE(testing::WaitUntil([&] { return GetClaim(name) == nullptr; }));
  EXPECT_EQ(client_->Count("delete", "resourceclaims"), 1);
}

TEST_F(ClaimCleanupTest, GeneratedClaimIsDeletedWhenItsPodIsRemoved) {
  // No garbage collector runs here: the controller deletes the claim of a pod it saw removed.
  CreateTemplate("tmpl");
  CreatePod("p1", "gpu", "tmpl");
  StartController();
  ASSERT_TRUE(testing::WaitUntil([&] { return !RecordedClaim("p1", "gpu").empty(); }));
  std::string name = RecordedClaim("p1", "gpu");
  DeletePod("p1");
  ASSERT_TRUE(testing::WaitUntil([&] { return GetClaim(name) == nullptr; }));
}

TEST_F(ClaimCleanupTest, UnusedClaimBeingDeletedIsDeallocatedAndGoes) {
  CreateClaim("c1");
  AllocateAndReserve("c1", {});  // allocated (e.g. immediate allocation), never used
  StartController();
  ResyncClaim("c1");
  EXPECT_TRUE(GetClaim("c1")->status.allocation) << "not deallocated while not being deleted";
  ASSERT_TRUE(inner_->Delete(Claims(), "default", "c1").ok());
  ASSERT_TRUE(testing::WaitUntil([&] { return GetClaim("c1") == nullptr; }));
}

TEST_F(ClaimCleanupTest, ClaimBeingDeletedWaitsForItsConsumers) {
  CreateClaim("c1");
  api::ObjectPtr p1 = CreatePod("p1", "gpu", "c1", "node-1", true);
  AllocateAndReserve("c1", {p1});
  StartController();
  ASSERT_TRUE(inner_->Delete(Claims(), "default", "c1").ok());
  ResyncClaim("c1");
  ASSERT_NE(GetClaim("c1"), nullptr) << "still reserved for a running pod";
  SetPodPhase("p1", "Succeeded");
  ASSERT_TRUE(testing::WaitUntil([&] { return GetClaim("c1") == nullptr; }));
}

TEST_F(ClaimCleanupTest, ConflictWithConcurrentWriterIsRetried) {
  CreateClaim("c1");
  api::ObjectPtr p1 = CreatePod("p1", "gpu", "c1", "node-1", true);
  AllocateAndReserve("c1", {p1});
  StartController();
  ResyncClaim("c1");
  // Just before the controller's status write, another writer changes the claim (a driver
  // writing device status would do the same): the controller's write carries a stale
  // resourceVersion and gets 409.
  client_->RaceNextClaimStatusUpdate([this] {
    auto other = std::make_unique<api::ResourceClaim>(*GetClaim("c1"));
    other->metadata.resourceVersion.clear();  // unconditional
    other->metadata.annotations["driver"] = "was-here";
    ASSERT_TRUE(inner_->Update(Claims(), std::move(other)).ok());
  });
  DeletePod("p1");
  ASSERT_TRUE(testing::WaitUntil([&] { return client_->Conflicts() >= 1; }));
  // The retry waits out its backoff on the fake clock. The conflict is counted before the
  // worker requeues the key, so the clock moves on while waiting, not once: a single step
  // taken before the requeue would leave the retry due in the fake clock's future.
  ASSERT_TRUE(testing::WaitUntil([&] {
    clock_.Advance(milliseconds(10));
    return Deallocated("c1");
  }));
  EXPECT_EQ(GetClaim("c1")->metadata.annotations.at("driver"), "was-here");
}

}  // namespace
}  // namespace allot::controllers
