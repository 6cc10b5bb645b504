#include "scheduler/plugins/dynamicresources/verdict_cache.h"

#include <gtest/gtest.h>

namespace allot::scheduler {
namespace {

api::ResourceClaimSpec Spec(int64_t count) {
  api::ResourceClaimSpec spec;
  api::DeviceRequest r;
  r.name = "gpu";
  r.exactly.emplace();
  r.exactly->deviceClassName = "gpu.example.com";
  r.exactly->count = count;
  spec.devices.requests.push_back(std::move(r));
  return spec;
}

std::shared_ptr<const dra::Inventory> EmptyInventory() { return dra::Inventory::Build({}); }

TEST(VerdictCache, PodsWithTheSameClaimsShareAClass) {
  VerdictCache cache;
  auto inv = EmptyInventory();
  api::ResourceClaimSpec one = Spec(1), one_again = Spec(1), two = Spec(2);
  auto a = cache.Lookup(inv, {&one}, false, 7);
  EXPECT_EQ(cache.Lookup(inv, {&one_again}, false, 7), a);
  EXPECT_NE(cache.Lookup(inv, {&two}, false, 7), a);
  EXPECT_NE(cache.Lookup(inv, {&one, &one}, false, 7), a);
  EXPECT_NE(cache.Lookup(inv, {&one}, true, 7), a);  // admin access allowed
  EXPECT_EQ(cache.size(), 4u);
  // Another class generation or inventory: new classes, and the old ones are dropped.
  auto b = cache.Lookup(inv, {&one}, false, 8);
  EXPECT_NE(b, a);
  EXPECT_EQ(cache.size(), 1u);
  auto c = cache.Lookup(EmptyInventory(), {&one}, false, 8);
  EXPECT_NE(c, b);
  EXPECT_EQ(cache.size(), 1u);
}

TEST(VerdictCache, VerdictsHoldWhileTheNodeAndItsDevicesAreUnchanged) {
  VerdictCache cache;
  api::ResourceClaimSpec one = Spec(1);
  auto cls = cache.Lookup(EmptyInventory(), {&one}, false, 0);
  std::vector<std::pair<VerdictCache::NodeKey, VerdictCache::Verdict>> fresh;
  fresh.emplace_back(VerdictCache::NodeKey{1, "n1"}, VerdictCache::Verdict{"10", 3, 5, true, -1, ""});
  fresh.emplace_back(VerdictCache::NodeKey{2, "n2"},
                     VerdictCache::Verdict{"11", 0, 5, false, 0, "cannot allocate all claims"});
  VerdictCache::Record(*cls, fresh);
  EXPECT_TRUE(fresh.empty());
  const VerdictCache::Verdict* v = cls->Find(1, "n1", "10", 3, 5);
  ASSERT_NE(v, nullptr);
  EXPECT_TRUE(v->feasible);
  EXPECT_EQ(v->score, -1);
  EXPECT_EQ(cls->Find(1, "n1", "12", 3, 5), nullptr);  // node object changed
  EXPECT_EQ(cls->Find(1, "n1", "10", 4, 5), nullptr);  // its devices' use changed
  EXPECT_EQ(cls->Find(1, "n1", "10", 3, 6), nullptr);  // shared devices' use changed
  EXPECT_EQ(cls->Find(3, "n3", "10", 3, 5), nullptr);
  ASSERT_NE(cls->Find(2, "n2", "11", 0, 5), nullptr);
  EXPECT_EQ(cls->Find(2, "n2", "11", 0, 5)->reason, "cannot allocate all claims");
}

TEST(VerdictCache, ANodesVerdictsKeepItsSlot) {
  VerdictCache cache;
  api::ResourceClaimSpec one = Spec(1);
  auto cls = cache.Lookup(EmptyInventory(), {&one}, false, 0);
  EXPECT_EQ(cls->ForNode(1, "n1"), nullptr);
  std::vector<std::pair<VerdictCache::NodeKey, VerdictCache::Verdict>> fresh;
  VerdictCache::Verdict v{"10", 3, 5, true, 0, ""};
  v.slot = 7;
  fresh.emplace_back(VerdictCache::NodeKey{1, "n1"}, v);
  VerdictCache::Record(*cls, fresh);
  const VerdictCache::NodeVerdicts* kept = cls->ForNode(1, "n1");
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->slot, 7u);
  EXPECT_NE(kept->Find("10", 3, 5), nullptr);
  EXPECT_EQ(kept->Find("10", 4, 5), nullptr);
  EXPECT_EQ(cls->ForNode(2, "n2"), nullptr);
}

TEST(VerdictCache, AnIndexReusedByAnotherNodeKeepsNothingOfTheOne) {
  VerdictCache cache;
  api::ResourceClaimSpec one = Spec(1);
  auto cls = cache.Lookup(EmptyInventory(), {&one}, false, 0);
  std::vector<std::pair<VerdictCache::NodeKey, VerdictCache::Verdict>> fresh;
  fresh.emplace_back(VerdictCache::NodeKey{4, "gone"}, VerdictCache::Verdict{"10", 3, 5, true, 0, ""});
  VerdictCache::Record(*cls, fresh);
  EXPECT_EQ(cls->ForNode(4, "new"), nullptr);
  EXPECT_EQ(cls->Find(4, "new", "10", 3, 5), nullptr);
  fresh.emplace_back(VerdictCache::NodeKey{4, "new"}, VerdictCache::Verdict{"20", 1, 5, false, 0, "no"});
  VerdictCache::Record(*cls, fresh);
  EXPECT_EQ(cls->ForNode(4, "gone"), nullptr);
  const VerdictCache::NodeVerdicts* kept = cls->ForNode(4, "new");
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->verdicts.size(), 1u);
  EXPECT_EQ(kept->Find("10", 3, 5), nullptr);
  EXPECT_NE(kept->Find("20", 1, 5), nullptr);
}

TEST(VerdictCache, VerdictsWithHeldDevicesAnswerOnlyTheSameHeldDevices) {
  VerdictCache cache;
  api::ResourceClaimSpec one = Spec(1);
  auto cls = cache.Lookup(EmptyInventory(), {&one}, false, 0);
  auto held = [](std::vector<dra::DeviceIndex> usable, std::vector<dra::DeviceIndex> taken) {
    dra::HeldDevices h;
    h.devices = std::move(usable);
    h.taken = std::move(taken);
    return h;
  };
  const dra::HeldDevices freed = held({3}, {}), promised = held({}, {2}), both = held({3}, {2});
  std::vector<std::pair<VerdictCache::NodeKey, VerdictCache::Verdict>> fresh;
  fresh.emplace_back(VerdictCache::NodeKey{1, "n1"}, VerdictCache::Verdict{"10", 3, 5, false, 0, "full"});
  fresh.emplace_back(VerdictCache::NodeKey{1, "n1"}, VerdictCache::Verdict{"10", 3, 5, true, 7, "", {3}, {}});
  fresh.emplace_back(VerdictCache::NodeKey{1, "n1"}, VerdictCache::Verdict{"10", 3, 5, false, 0, "taken", {}, {2}});
  VerdictCache::Record(*cls, fresh);
  ASSERT_NE(cls->Find(1, "n1", "10", 3, 5), nullptr);
  EXPECT_EQ(cls->Find(1, "n1", "10", 3, 5)->reason, "full");
  ASSERT_NE(cls->Find(1, "n1", "10", 3, 5, &freed), nullptr);
  EXPECT_TRUE(cls->Find(1, "n1", "10", 3, 5, &freed)->feasible);
  ASSERT_NE(cls->Find(1, "n1", "10", 3, 5, &promised), nullptr);
  EXPECT_EQ(cls->Find(1, "n1", "10", 3, 5, &promised)->reason, "taken");
  EXPECT_EQ(cls->Find(1, "n1", "10", 3, 5, &both), nullptr);
  EXPECT_EQ(cls->Find(1, "n1", "10", 4, 5, &freed), nullptr);  // the node's devices changed
  // A newer version replaces every verdict of the older one.
  fresh.emplace_back(VerdictCache::NodeKey{1, "n1"}, VerdictCache::Verdict{"10", 4, 5, true, 1, "", {3}, {}});
  VerdictCache::Record(*cls, fresh);
  EXPECT_EQ(cls->Find(1, "n1", "10", 3, 5), nullptr);
  ASSERT_NE(cls->Find(1, "n1", "10", 4, 5, &freed), nullptr);
  EXPECT_EQ(cls->Find(1, "n1", "10", 4, 5, &freed)->score, 1);
  // At most kVerdictsPerNode per node, the oldest dropped first.
  for (dra::DeviceIndex i = 0; i < VerdictCache::kVerdictsPerNode + 2; ++i) {
    fresh.emplace_back(VerdictCache::NodeKey{1, "n1"}, VerdictCache::Verdict{"10", 4, 5, true, 0, "", {100 + i}, {}});
  }
  VerdictCache::Record(*cls, fresh);
  EXPECT_EQ(cls->Find(1, "n1", "10", 4, 5, &freed), nullptr);
  const dra::HeldDevices last = held({100 + VerdictCache::kVerdictsPerNode + 1}, {});
  EXPECT_NE(cls->Find(1, "n1", "10", 4, 5, &last), nullptr);
  // Held devices of a reservation are never shared.
  dra::HeldDevices reserved = held({3}, {});
  reserved.reserved = {3};
  EXPECT_FALSE(VerdictCache::Cacheable(&reserved));
  EXPECT_TRUE(VerdictCache::Cacheable(&freed));
  EXPECT_TRUE(VerdictCache::Cacheable(nullptr));
}

TEST(VerdictCache, KeepsAtMostMaxClassesDroppingTheLeastRecentlyUsed) {
  VerdictCache cache(2);
  auto inv = EmptyInventory();
  api::ResourceClaimSpec s1 = Spec(1), s2 = Spec(2), s3 = Spec(3);
  auto c1 = cache.Lookup(inv, {&s1}, false, 0);
  auto c2 = cache.Lookup(inv, {&s2}, false, 0);
  EXPECT_EQ(cache.Lookup(inv, {&s1}, false, 0), c1);  // c1 used most recently
  cache.Lookup(inv, {&s3}, false, 0);                 // drops c2
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.Lookup(inv, {&s1}, false, 0), c1);
  EXPECT_NE(cache.Lookup(inv, {&s2}, false, 0), c2);
}

}  // namespace
}  // namespace allot::scheduler
