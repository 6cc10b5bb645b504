// Claims generated from templates: names, metadata, ownership, the pod status record,
// idempotence across restarts and crashes, missing templates and failed creates.
#include <gtest/gtest.h>

#include "controllers/resourceclaim/testing/fixture.h"
#include "testing/wait.h"

namespace allot::controllers {
namespace {

using std::chrono::milliseconds;

class ClaimCreationTest : public ResourceClaimControllerTest {};

TEST_F(ClaimCreationTest, CreatesClaimFromTemplateAndRecordsItInPodStatus) {
  CreateTemplate("tmpl", R"({"labels":{"app":"train"},"annotations":{"team":"ml"}})");
  api::ObjectPtr pod = CreatePod("p1", "gpu", "tmpl");
  StartController();

  ASSERT_TRUE(testing::WaitUntil([&] { return !RecordedClaim("p1", "gpu").empty(); }));
  std::string name = RecordedClaim("p1", "gpu");
  EXPECT_EQ(name.rfind("p1-gpu-", 0), 0u) << name;
  EXPECT_EQ(name.size(), std::string("p1-gpu-").size() + 5) << name;

  const api::ResourceClaim* claim = GetClaim(name);
  ASSERT_NE(claim, nullptr);
  EXPECT_EQ(claim->metadata.generateName, "p1-gpu-");
  EXPECT_EQ(claim->metadata.labels, (api::StringMap{{"app", "train"}}));
  EXPECT_EQ(claim->metadata.annotations,
            (api::StringMap{{"team", "ml"}, {"resource.kubernetes.io/pod-claim-name", "gpu"}}));
  ASSERT_EQ(claim->metadata.ownerReferences.size(), 1u);
  EXPECT_EQ(claim->metadata.ownerReferences[0],
            (api::OwnerReference{"v1", "Pod", "p1", pod->metadata.uid, true, true}));
  ASSERT_EQ(claim->spec.devices.requests.size(), 1u);
  EXPECT_EQ(claim->spec.devices.requests[0].exactly->deviceClassName, "gpu.example.com");
  EXPECT_EQ(AllClaims().size(), 1u);
  EXPECT_EQ(client_->Count("create", "resourceclaims"), 1);
  EXPECT_EQ(client_->Count("patch-status", "pods"), 1);
}

// The sync of an unbound pod sends its writes and lets the worker go: one worker keeps the
// creates of several pods in flight at once, and each pod's status patch follows its create.
TEST_F(ClaimCreationTest, UnboundPodSyncsDoNotHoldTheWorkerThroughTheirWrites) {
  CreateTemplate("tmpl");
  client_->HoldClaimCreates();
  CreatePod("p1", "gpu", "tmpl");
  CreatePod("p2", "gpu", "tmpl");
  CreatePod("p3", "gpu", "tmpl");
  ResourceClaimControllerOptions opts;
  opts.workers = 1;
  StartController(registry_, opts);

  ASSERT_TRUE(testing::WaitUntil([&] { return client_->HeldClaimCreates() == 3; }))
      << client_->HeldClaimCreates() << " creates in flight: a worker waited on its write";
  EXPECT_EQ(Syncs("pod:default/p1"), 0) << "a sync ends when its writes are answered";
  client_->ReleaseClaimCreates();
  for (const char* pod : {"p1", "p2", "p3"}) {
    ASSERT_TRUE(testing::WaitUntil([&] { return !RecordedClaim(pod, "gpu").empty(); })) << pod;
  }
  ASSERT_TRUE(testing::WaitUntil([&] { return Syncs("pod:default/p3") >= 1; }));
  EXPECT_EQ(AllClaims().size(), 3u);
  EXPECT_EQ(client_->Count("patch-status", "pods"), 3);
  EXPECT_EQ(LastError("pod:default/p1"), "");
}

TEST_F(ClaimCreationTest, LongNamesAreTruncatedProportionally) {
  CreateTemplate("tmpl");
  std::string pod_name(50, 'p');
  std::string pod_claim(30, 'c');
  CreatePod(pod_name, pod_claim, "tmpl");
  StartController();

  ASSERT_TRUE(testing::WaitUntil([&] { return !RecordedClaim(pod_name, pod_claim).empty(); }));
  const api::ResourceClaim* claim = GetClaim(RecordedClaim(pod_name, pod_claim));
  ASSERT_NE(claim, nullptr);
  // 50 + 30 + 2 = 82 > 57: 50*57/82 = 34 and 30*57/82 = 20, joined by "-", no trailing "-".
  std::string prefix = std::string(34, 'p') + "-" + std::string(20, 'c');
  EXPECT_EQ(claim->metadata.generateName, prefix);
  EXPECT_EQ(claim->metadata.name.size(), prefix.size() + 5);
  EXPECT_EQ(claim->metadata.name.rfind(prefix, 0), 0u);
}

TEST_F(ClaimCreationTest, PodWithSeveralEntriesGetsOneClaimPerTemplateEntry) {
  CreateTemplate("tmpl");
  CreateClaim("shared", /*finalizer=*/false);
  std::string extra = R"("resourceClaims":[{"name":"a","resourceClaimTemplateName":"tmpl"},)"
                      R"({"name":"b","resourceClaimTemplateName":"tmpl"},)"
                      R"({"name":"s","resourceClaimName":"shared"}])";
  ASSERT_TRUE(inner_->Create(Pods(), testing::PodManifest("default", "p1", extra)).ok());
  StartController();

  ASSERT_TRUE(testing::WaitUntil(
      [&] { return !RecordedClaim("p1", "a").empty() && !RecordedClaim("p1", "b").empty(); }));
  EXPECT_NE(RecordedClaim("p1", "a"), RecordedClaim("p1", "b"));
  EXPECT_EQ(RecordedClaim("p1", "s"), "") << "direct claims are not recorded";
  EXPECT_EQ(AllClaims().size(), 3u);
  EXPECT_EQ(client_->Count("patch-status", "pods"), 1) << "one status write for both entries";
}

TEST_F(ClaimCreationTest, IdempotentAcrossControllerRestart) {
  CreateTemplate("tmpl");
  CreatePod("p1", "gpu", "tmpl");
  StartController();
  ASSERT_TRUE(testing::WaitUntil([&] { return !RecordedClaim("p1", "gpu").empty(); }));
  std::string first = RecordedClaim("p1", "gpu");
  StopController();

  metrics::Registry second_registry;
  StartController(second_registry);
  // The new controller finds the claim recorded: the pod needs nothing (its key is queued
  // before p2's, so a create for it would show by the time p2 has its claim).
  CreatePod("p2", "gpu", "tmpl");  // a later pod is still served
  ASSERT_TRUE(testing::WaitUntil([&] { return !RecordedClaim("p2", "gpu").empty(); }));
  EXPECT_EQ(RecordedClaim("p1", "gpu"), first);
  EXPECT_EQ(AllClaims().size(), 2u);
  EXPECT_EQ(client_->Count("create", "resourceclaims"), 2);
  StopController();  // before second_registry goes
}

TEST_F(ClaimCreationTest, AdoptsClaimCreatedBeforeACrash) {
  // A previous run created the claim but died before writing the pod status.
  CreateTemplate("tmpl");
  api::ObjectPtr pod = CreatePod("p1", "gpu", "tmpl");
  CreateClaim("p1-gpu-abcde", /*finalizer=*/false, "", pod.get(), "gpu");
  // A claim owned by the pod for another entry, and one for this entry owned by nobody, are
  // not adopted.
  CreateClaim("p1-other-xxxxx", false, "", pod.get(), "other");
  CreateClaim("p1-gpu-zzzzz", false);
  StartController();

  ASSERT_TRUE(testing::WaitUntil([&] { return !RecordedClaim("p1", "gpu").empty(); }));
  EXPECT_EQ(RecordedClaim("p1", "gpu"), "p1-gpu-abcde");
  EXPECT_EQ(client_->Count("create", "resourceclaims"), 0);
  EXPECT_EQ(AllClaims().size(), 3u);
}

TEST_F(ClaimCreationTest, RecreatesRecordedClaimThatWasDeletedOrNotOwned) {
  CreateTemplate("tmpl");
  CreatePod("p1", "gpu", "tmpl");
  StartController();
  ASSERT_TRUE(testing::WaitUntil([&] { return !RecordedClaim("p1", "gpu").empty(); }));
  std::string first = RecordedClaim("p1", "gpu");

  ASSERT_TRUE(inner_->Delete(Claims(), "default", first).ok());  // deleted by accident
  ASSERT_TRUE(testing::WaitUntil([&] {
    std::string now = RecordedClaim("p1", "gpu");
    return !now.empty() && now != first && GetClaim(now) != nullptr;
  }));
  EXPECT_EQ(AllClaims().size(), 1u);
}

TEST_F(ClaimCreationTest, MissingTemplateIsRetriedThenCreatedOnceItAppears) {
  CreatePod("p1", "gpu", "later");
  StartController();
  const std::string key = "pod:default/p1";
  ASSERT_TRUE(WaitForSync(key, 0));
  EXPECT_NE(LastError(key).find("resource claim template \"later\""), std::string::npos)
      << LastError(key);
  ASSERT_TRUE(testing::WaitUntil([&] { return !EventsFor("p1").empty(); }));
  const api::Event* ev = EventsFor("p1")[0];
  EXPECT_EQ(ev->reason, "FailedResourceClaimCreation");
  EXPECT_EQ(ev->type, "Warning");
  EXPECT_EQ(ev->source.component, "resource_claim");
  EXPECT_EQ(ev->involvedObject.kind, "Pod");
  EXPECT_EQ(ev->message,
            "PodResourceClaim gpu: resource claim template \"later\": "
            "resourceclaimtemplate.resource.k8s.io \"later\" not found");

  // Retried with backoff: the clock moves, the pod is synced again (and fails again).
  int before = Syncs(key);
  clock_.Advance(milliseconds(10));
  ASSERT_TRUE(WaitForSync(key, before));
  EXPECT_EQ(RecordedClaim("p1", "gpu"), "");
  EXPECT_EQ(client_->Count("create", "resourceclaims"), 0) << "no create without a template";

  CreateTemplate("later");
  ASSERT_TRUE(testing::WaitUntil([&] { return !RecordedClaim("p1", "gpu").empty(); }));
  EXPECT_EQ(AllClaims().size(), 1u);
}

TEST_F(ClaimCreationTest, FailedCreateRecordsEventAndIsRetried) {
  CreateTemplate("tmpl");
  client_->FailClaimCreates(1);
  CreatePod("p1", "gpu", "tmpl");
  StartController();

  ASSERT_TRUE(testing::WaitUntil([&] { return !EventsFor("p1").empty(); }));
  const api::Event* ev = EventsFor("p1")[0];
  EXPECT_EQ(ev->reason, "FailedResourceClaimCreation");
  EXPECT_EQ(ev->message.rfind("PodResourceClaim gpu: create ResourceClaim p1-gpu-: ", 0), 0u)
      << ev->message;
  clock_.Advance(milliseconds(10));
  ASSERT_TRUE(testing::WaitUntil([&] { return !RecordedClaim("p1", "gpu").empty(); }));
  EXPECT_EQ(client_->Count("create", "resourceclaims"), 2);
  EXPECT_EQ(AllClaims().size(), 1u);
}

TEST_F(ClaimCreationTest, FinishedAndDeletedPodsGetNoClaims) {
  CreateTemplate("tmpl");
  CreatePod("done", "gpu", "tmpl");
  SetPodPhase("done", "Succeeded");
  CreatePod("live", "gpu", "tmpl");
  StartController();
  ASSERT_TRUE(testing::WaitUntil([&] { return !RecordedClaim("live", "gpu").empty(); }));
  EXPECT_EQ(RecordedClaim("done", "gpu"), "");
  EXPECT_EQ(AllClaims().size(), 1u);
}

TEST_F(ClaimCreationTest, AdminAccessTemplateFailsWhenTheGateIsOff) {
  CreateTemplate("tmpl", "{}", /*admin_access=*/true);
  CreatePod("p1", "gpu", "tmpl");
  ResourceClaimControllerOptions opts;
  opts.admin_access_enabled = false;
  StartController(registry_, opts);
  ASSERT_TRUE(testing::WaitUntil([&] { return !EventsFor("p1").empty(); }));
  EXPECT_EQ(EventsFor("p1")[0]->message,
            "PodResourceClaim gpu: admin access is requested, but the feature is disabled");
  EXPECT_EQ(client_->Count("create", "resourceclaims"), 0);
}

TEST_F(ClaimCreationTest, ReservesAllocatedClaimForPodAlreadyBound) {
  // A pod bound without the scheduler (nodeName set) whose claim is allocated: the controller
  // adds it to reservedFor so the kubelet can run it.
  CreateClaim("shared");
  AllocateAndReserve("shared", {});
  api::ObjectPtr pod = CreatePod("p1", "gpu", "shared", "node-1", /*direct=*/true);
  StartController();
  ASSERT_TRUE(testing::WaitUntil([&] {
    const api::ResourceClaim* c = GetClaim("shared");
    return c && c->status.reservedFor.size() == 1;
  }));
  EXPECT_EQ(GetClaim("shared")->status.reservedFor[0],
            (api::ResourceClaimConsumerReference{"", "pods", "p1", pod->metadata.uid}));
}

}  // namespace
}  // namespace allot::controllers
