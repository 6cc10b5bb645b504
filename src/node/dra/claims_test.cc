// The DRA start rule: which claims a pod uses, and each refusal reason.
#include "node/dra/claims.h"

#include <gtest/gtest.h>

#include "node/testing/dra.h"

namespace allot::node {
namespace {

class DraStartRuleTest : public ::testing::Test {
 protected:
  std::string Why(const api::ObjectPtr& pod) { return rule_.WhyNotStart(AsPod(pod), "n-0"); }

  MapClaimSource claims_;
  DraStartRule rule_{claims_};
};

TEST_F(DraStartRuleTest, PodWithoutClaimsMayStart) { EXPECT_EQ(Why(MakeDraPod("u1", "")), ""); }

TEST_F(DraStartRuleTest, MissingClaim) {
  api::ObjectPtr pod = MakeDraPod("u1", R"({"name":"gpu","resourceClaimName":"c"})");
  EXPECT_EQ(Why(pod), "resourceclaim default/c not found");
}

TEST_F(DraStartRuleTest, UnallocatedClaim) {
  claims_.Put(MakeClaim("c"));
  api::ObjectPtr pod = MakeDraPod("u1", R"({"name":"gpu","resourceClaimName":"c"})");
  EXPECT_EQ(Why(pod), "resourceclaim default/c is not allocated");
}

TEST_F(DraStartRuleTest, AllocatedButNotReservedForThePod) {
  claims_.Put(MakeClaim("c", "gpu-0", {"someone-else"}));
  api::ObjectPtr pod = MakeDraPod("u1", R"({"name":"gpu","resourceClaimName":"c"})");
  EXPECT_EQ(Why(pod), "resourceclaim default/c is not reserved for the pod");
}

TEST_F(DraStartRuleTest, AllocatedAndReservedMayStart) {
  claims_.Put(MakeClaim("c", "gpu-0", {"someone-else", "u1"}));
  api::ObjectPtr pod = MakeDraPod("u1", R"({"name":"gpu","resourceClaimName":"c"})");
  EXPECT_EQ(Why(pod), "");
}

TEST_F(DraStartRuleTest, FirstBlockingClaimWins) {
  claims_.Put(MakeClaim("a", "gpu-0", {"u1"}));
  claims_.Put(MakeClaim("b"));
  api::ObjectPtr pod = MakeDraPod("u1", R"({"name":"x","resourceClaimName":"a"},)"
                                        R"({"name":"y","resourceClaimName":"b"})");
  EXPECT_EQ(Why(pod), "resourceclaim default/b is not allocated");
}

TEST_F(DraStartRuleTest, TemplateWithoutStatusEntryIsNotReady) {
  api::ObjectPtr pod = MakeDraPod("u1", R"({"name":"gpu","resourceClaimTemplateName":"t"})");
  EXPECT_EQ(Why(pod), "resourceclaim for pod claim \"gpu\" has not been created yet");
}

TEST_F(DraStartRuleTest, TemplateStatusWithoutClaimNeedsNothing) {
  api::ObjectPtr pod =
      MakeDraPod("u1", R"({"name":"gpu","resourceClaimTemplateName":"t"})", R"({"name":"gpu"})");
  EXPECT_TRUE(PodClaims(AsPod(pod)).empty());
  EXPECT_EQ(Why(pod), "");
}

TEST_F(DraStartRuleTest, GeneratedClaimMustBeControlledByThePod) {
  api::ObjectPtr pod = MakeDraPod("u1", R"({"name":"gpu","resourceClaimTemplateName":"t"})",
                                  R"({"name":"gpu","resourceClaimName":"p-gpu-abc"})");
  claims_.Put(MakeClaim("p-gpu-abc", "gpu-0", {"u1"}, /*owner_uid=*/"an-earlier-pod"));
  EXPECT_EQ(Why(pod), "resourceclaim default/p-gpu-abc was not created for the pod");
  claims_.Put(MakeClaim("p-gpu-abc", "gpu-0", {"u1"}, /*owner_uid=*/"u1"));
  EXPECT_EQ(Why(pod), "");
}

TEST_F(DraStartRuleTest, PodClaimsResolvesNamesInSpecOrder) {
  api::ObjectPtr pod = MakeDraPod("u1",
                                  R"({"name":"a","resourceClaimName":"direct"},)"
                                  R"({"name":"b","resourceClaimTemplateName":"t"},)"
                                  R"({"name":"c","resourceClaimTemplateName":"t"})",
                                  R"({"name":"b","resourceClaimName":"p-b-1"})");
  std::vector<PodClaimUse> uses = PodClaims(AsPod(pod));
  ASSERT_EQ(uses.size(), 3u);
  EXPECT_EQ(uses[0].claim_name, "direct");
  EXPECT_FALSE(uses[0].generated);
  EXPECT_EQ(uses[1].claim_name, "p-b-1");
  EXPECT_TRUE(uses[1].generated);
  EXPECT_EQ(uses[2].entry, "c");
  EXPECT_TRUE(uses[2].not_ready);
}

}  // namespace
}  // namespace allot::node
