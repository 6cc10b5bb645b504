#include "controllers/resourceclaim/rules.h"

#include <gtest/gtest.h>

#include "controllers/uid_cache.h"
#include "testing/objects.h"

namespace allot::controllers {
namespace {

api::Pod MakePod(const std::string& extra_spec = {}) {
  auto obj = testing::PodManifest("ns", "p1", extra_spec);
  api::Pod pod = *api::As<api::Pod>(*obj);
  pod.metadata.uid = "uid-p1";
  return pod;
}

api::PodResourceClaim TemplateEntry(const std::string& name, const std::string& tmpl) {
  api::PodResourceClaim pc;
  pc.name = name;
  pc.resourceClaimTemplateName = tmpl;
  return pc;
}

TEST(GeneratedClaimNameTest, ShortNamesKeepBothPartsAndTrailingHyphen) {
  EXPECT_EQ(GeneratedClaimName("my-pod", "gpu"), "my-pod-gpu-");
  // Exactly 57 characters: not cut.
  std::string pod(50, 'p');
  EXPECT_EQ(GeneratedClaimName(pod, "abcde"), pod + "-abcde-");
}

TEST(GeneratedClaimNameTest, LongNamesAreCutInProportion) {
  std::string pod(60, 'p');
  std::string claim(30, 'c');
  // total = 60 + 30 + 2 = 92; pod part 60*57/92 = 37, claim part 30*57/92 = 18.
  EXPECT_EQ(GeneratedClaimName(pod, claim), std::string(37, 'p') + "-" + std::string(18, 'c'));
  // Integer arithmetic, as Kubernetes: a short claim name next to a huge pod name may vanish
  // (253 + 3 + 2 = 258: 253*57/258 = 55, 3*57/258 = 0).
  EXPECT_EQ(GeneratedClaimName(std::string(253, 'x'), "gpu"), std::string(55, 'x') + "-");
  EXPECT_EQ(GeneratedClaimName(std::string(40, 'x'), std::string(40, 'y')),
            std::string(27, 'x') + "-" + std::string(27, 'y'));
}

TEST(ClaimNameForTest, DirectTemplateRecordedAndNotNeeded) {
  api::Pod pod = MakePod();
  api::PodResourceClaim direct;
  direct.name = "a";
  direct.resourceClaimName = "shared";
  PodClaimName n = ClaimNameFor(pod, direct);
  EXPECT_EQ(n.kind, PodClaimName::Kind::kName);
  EXPECT_EQ(n.name, "shared");
  EXPECT_FALSE(n.check_owner);

  api::PodResourceClaim tmpl = TemplateEntry("b", "t");
  EXPECT_EQ(ClaimNameFor(pod, tmpl).kind, PodClaimName::Kind::kNotCreated);
  pod.status.resourceClaimStatuses.push_back({"b", std::string("p1-b-xyz12")});
  n = ClaimNameFor(pod, tmpl);
  EXPECT_EQ(n.kind, PodClaimName::Kind::kName);
  EXPECT_EQ(n.name, "p1-b-xyz12");
  EXPECT_TRUE(n.check_owner);
  pod.status.resourceClaimStatuses[0].resourceClaimName.reset();
  EXPECT_EQ(ClaimNameFor(pod, tmpl).kind, PodClaimName::Kind::kNotNeeded);

  api::PodResourceClaim neither;
  neither.name = "c";
  EXPECT_EQ(ClaimNameFor(pod, neither).kind, PodClaimName::Kind::kUnknownSource);
}

TEST(PodStateTest, DoneAndNeedsClaims) {
  api::Pod pod = MakePod();
  EXPECT_FALSE(IsPodDone(pod));
  EXPECT_TRUE(PodNeedsClaims(pod, false));
  EXPECT_FALSE(PodNeedsClaims(pod, true));
  pod.metadata.rare.edit().deletionTimestamp = Time::FromUnixSeconds(1);
  EXPECT_TRUE(IsPodDone(pod)) << "deleted before scheduling";
  pod.spec.nodeName = "n1";
  EXPECT_FALSE(IsPodDone(pod)) << "deleted but maybe still running on its node";
  pod.metadata.rare.edit().deletionTimestamp.reset();
  for (const char* phase : {"Succeeded", "Failed"}) {
    pod.status.phase = phase;
    EXPECT_TRUE(IsPodDone(pod)) << phase;
    EXPECT_FALSE(PodNeedsClaims(pod, false)) << phase;
  }
  pod.status.phase = "Running";
  EXPECT_FALSE(IsPodDone(pod));
}

TEST(ClaimChangeTest, OnlyChangesTheClaimSyncReadsNeedASync) {
  api::ResourceClaim before;
  before.metadata.name = "c";
  before.metadata.ownerReferences.push_back({"v1", "Pod", "p1", "uid-p1", true, true});
  api::ResourceClaim after = before;
  EXPECT_FALSE(ClaimChangeNeedsSync(before, after));
  // The scheduler's finalizer, labels, a driver's device status: nothing for the sync.
  after.metadata.finalizers.push_back("resource.kubernetes.io/delete-protection");
  after.metadata.labels["x"] = "y";
  after.status.devices.emplace_back();
  EXPECT_FALSE(ClaimChangeNeedsSync(before, after));
  // A consumer added (it may already be gone), or one replaced by another of the same name.
  api::ResourceClaim reserved = after;
  reserved.status.reservedFor.push_back({"", "pods", "p1", "uid-p1"});
  EXPECT_TRUE(ClaimChangeNeedsSync(after, reserved));
  EXPECT_TRUE(ClaimChangeNeedsSync(reserved, after));
  api::ResourceClaim replaced = reserved;
  replaced.status.reservedFor[0].uid = "uid-p1-again";
  EXPECT_TRUE(ClaimChangeNeedsSync(reserved, replaced));
  // Allocated or deallocated.
  api::ResourceClaim allocated = after;
  allocated.status.allocation.emplace();
  EXPECT_TRUE(ClaimChangeNeedsSync(after, allocated));
  EXPECT_TRUE(ClaimChangeNeedsSync(allocated, after));
  // Any change while it is being deleted (its finalizer may be removed now).
  api::ResourceClaim deleting = after;
  deleting.metadata.rare.edit().deletionTimestamp = Time::FromUnixSeconds(1);
  EXPECT_TRUE(ClaimChangeNeedsSync(after, deleting));
  EXPECT_TRUE(ClaimChangeNeedsSync(deleting, deleting));
  // Another owner.
  api::ResourceClaim orphaned = after;
  orphaned.metadata.ownerReferences.clear();
  EXPECT_TRUE(ClaimChangeNeedsSync(after, orphaned));
}

TEST(ClaimFromTemplateTest, CopiesMetadataSpecAndOwner) {
  api::Pod pod = MakePod();
  api::ResourceClaimTemplate tmpl;
  tmpl.metadata.name = "t";
  tmpl.spec.metadata.labels = {{"app", "x"}};
  tmpl.spec.metadata.annotations = {{"note", "y"}};
  api::DeviceRequest req;
  req.name = "req-0";
  req.exactly.emplace();
  req.exactly->deviceClassName = "gpu";
  tmpl.spec.spec.devices.requests.push_back(req);

  auto claim = ClaimFromTemplate(pod, TemplateEntry("gpu", "t"), tmpl);
  EXPECT_EQ(claim->metadata.generateName, "p1-gpu-");
  EXPECT_EQ(claim->metadata.name, "");
  EXPECT_EQ(claim->metadata.namespace_, "ns");
  EXPECT_EQ(claim->metadata.labels, (api::StringMap{{"app", "x"}}));
  EXPECT_EQ(claim->metadata.annotations,
            (api::StringMap{{"note", "y"}, {"resource.kubernetes.io/pod-claim-name", "gpu"}}));
  ASSERT_EQ(claim->metadata.ownerReferences.size(), 1u);
  const api::OwnerReference& owner = claim->metadata.ownerReferences[0];
  EXPECT_EQ(owner, (api::OwnerReference{"v1", "Pod", "p1", "uid-p1", true, true}));
  EXPECT_EQ(claim->spec, tmpl.spec.spec);

  EXPECT_TRUE(CheckClaimIsForPod(pod, *claim).ok());
  pod.metadata.uid = "other";
  Status st = CheckClaimIsForPod(pod, *claim);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("pod is not owner"), std::string::npos) << st.message();

  ASSERT_TRUE(OwningPod(*claim));
  EXPECT_EQ(OwningPod(*claim)->uid, "uid-p1");
  EXPECT_EQ(ClaimOwnerPodUids(*claim), std::vector<std::string>{"uid-p1"});
}

TEST(ClaimRulesTest, AdminAccessAndControlPlane) {
  api::ResourceClaim claim;
  EXPECT_FALSE(NeedsAdminAccess(claim.spec));
  api::DeviceRequest req;
  req.exactly.emplace();
  req.exactly->rare.edit().adminAccess = true;
  claim.spec.devices.requests.push_back(req);
  EXPECT_TRUE(NeedsAdminAccess(claim.spec));

  EXPECT_FALSE(IsControlPlaneClaim(claim));
  claim.status.allocation.emplace();
  claim.status.allocation->controllerName = "ctrl.example.com";
  EXPECT_TRUE(IsControlPlaneClaim(claim));
  claim.status.allocation.reset();
  claim.spec.controllerName = "ctrl.example.com";
  EXPECT_TRUE(IsControlPlaneClaim(claim));
}

TEST(ClaimRulesTest, ReservedForAndCanBeReserved) {
  api::Pod pod = MakePod();
  api::ResourceClaim claim;
  EXPECT_FALSE(IsReservedForPod(pod, claim));
  EXPECT_TRUE(CanBeReserved(claim));
  claim.status.reservedFor.push_back({"", "pods", "p1", "uid-p1"});
  EXPECT_TRUE(IsReservedForPod(pod, claim));
  claim.status.deallocationRequested = true;
  EXPECT_FALSE(CanBeReserved(claim));
  claim.status.deallocationRequested = false;
  claim.status.reservedFor.resize(256, {"", "pods", "x", "y"});
  EXPECT_FALSE(CanBeReserved(claim));
}

TEST(ClaimRulesTest, StatusPatchAndPodIndex) {
  EXPECT_EQ(ResourceClaimStatusesPatch({{"a", "p1-a-x"}, {"b", "p1-b-y"}}),
            R"({"status":{"resourceClaimStatuses":[{"name":"a","resourceClaimName":"p1-a-x"},)"
            R"({"name":"b","resourceClaimName":"p1-b-y"}]}})");
  api::Pod pod = MakePod();
  api::PodResourceClaim direct;
  direct.name = "d";
  direct.resourceClaimName = "shared";
  pod.spec.resourceClaims = {direct, TemplateEntry("t", "tmpl")};
  EXPECT_EQ(PodClaimKeys(pod), std::vector<std::string>{"ns/shared"});
  pod.status.resourceClaimStatuses.push_back({"t", std::string("p1-t-abcde")});
  EXPECT_EQ(PodClaimKeys(pod), (std::vector<std::string>{"ns/shared", "ns/p1-t-abcde"}));
}

TEST(UidCacheTest, EvictsOldest) {
  UidCache cache(2);
  cache.Add("a");
  cache.Add("b");
  cache.Add("a");  // a becomes the newest
  cache.Add("c");  // evicts b
  EXPECT_TRUE(cache.Has("a"));
  EXPECT_FALSE(cache.Has("b"));
  EXPECT_TRUE(cache.Has("c"));
  EXPECT_EQ(cache.Size(), 2u);
}

}  // namespace
}  // namespace allot::controllers
