#include "scheduler/plugins/dynamicresources/controller_claims.h"

#include <gtest/gtest.h>

namespace allot::scheduler::dra_plugin {
namespace {

PendingControllerClaim Claim(std::string entry, std::string driver, bool answered = false,
                             std::vector<std::string> unsuitable = {}) {
  PendingControllerClaim p;
  p.pod_claim_name = std::move(entry);
  p.driver = std::move(driver);
  p.answered = answered;
  p.unsuitable = std::move(unsuitable);
  std::sort(p.unsuitable.begin(), p.unsuitable.end());
  return p;
}

std::vector<NodeRanking::Entry> Ranking(int n) {
  std::vector<NodeRanking::Entry> out;
  // node-000 scores lowest: the best nodes are the last ones.
  for (int i = 0; i < n; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "node-%03d", i);
    out.push_back({name, i});
  }
  return out;
}

TEST(DecideContext, PotentialNodesAreTheBestScoredAndSortedByName) {
  std::vector<PendingControllerClaim> pending = {Claim("a", "x.example.com"),
                                                 Claim("b", "y.example.com")};
  auto spec = DecideContext("node-199", Ranking(200), nullptr, pending);
  ASSERT_EQ(spec.potentialNodes.size(), kMaxContextNodes);
  EXPECT_EQ(spec.potentialNodes.front(), "node-072");  // 199 - 127
  EXPECT_EQ(spec.potentialNodes.back(), "node-199");
  EXPECT_TRUE(std::is_sorted(spec.potentialNodes.begin(), spec.potentialNodes.end()));
  EXPECT_EQ(spec.selectedNode, "");  // two claims, no answers yet
}

TEST(DecideContext, TiesAreBrokenByNameNotAtRandom) {
  std::vector<NodeRanking::Entry> ranking;
  for (const char* n : {"c", "a", "d", "b"}) ranking.push_back({n, 5});
  std::vector<PendingControllerClaim> pending = {Claim("a", "x"), Claim("b", "y")};
  auto spec = DecideContext("d", ranking, nullptr, pending, 3);
  EXPECT_EQ(spec.potentialNodes, (std::vector<std::string>{"a", "b", "d"}));  // host kept
}

TEST(DecideContext, TheChosenNodeAndTheLastSelectedNodeAreAlwaysIn) {
  std::vector<PendingControllerClaim> pending = {Claim("a", "x"), Claim("b", "y")};
  api::PodSchedulingContextSpec current;
  current.selectedNode = "node-001";
  current.potentialNodes = {"node-001"};
  auto spec = DecideContext("node-000", Ranking(200), &current, pending);
  ASSERT_EQ(spec.potentialNodes.size(), kMaxContextNodes);
  EXPECT_EQ(spec.potentialNodes[0], "node-000");
  EXPECT_EQ(spec.potentialNodes[1], "node-001");
}

TEST(DecideContext, APublishedSetIsKeptWhileItHoldsTheHostAndNoNodeIsUnsuitable) {
  api::PodSchedulingContextSpec current;
  current.potentialNodes = {"node-003", "node-005"};
  std::vector<PendingControllerClaim> pending = {Claim("a", "x", true), Claim("b", "y")};
  auto spec = DecideContext("node-005", Ranking(10), &current, pending);
  EXPECT_EQ(spec.potentialNodes, current.potentialNodes);
  // A driver ruled node-003 out: the set moves on.
  pending[0] = Claim("a", "x", true, {"node-003"});
  spec = DecideContext("node-005", Ranking(10), &current, pending);
  EXPECT_EQ(spec.potentialNodes.size(), 10u);
  // The host is not in it: it moves on too.
  pending[0] = Claim("a", "x", true);
  spec = DecideContext("node-009", Ranking(10), &current, pending);
  EXPECT_EQ(spec.potentialNodes.size(), 10u);
}

TEST(DecideContext, SelectsOnceEveryPendingClaimHasAnAnswer) {
  std::vector<PendingControllerClaim> pending = {Claim("a", "x", true), Claim("b", "y")};
  EXPECT_EQ(DecideContext("n", Ranking(3), nullptr, pending).selectedNode, "");
  pending[1].answered = true;
  EXPECT_EQ(DecideContext("n", Ranking(3), nullptr, pending).selectedNode, "n");
  // Upstream's rule left structured claims + two answered controller claims waiting forever;
  // structured claims play no part here, so three answered controller claims select too.
  pending.push_back(Claim("c", "x", true));
  EXPECT_EQ(DecideContext("n", Ranking(3), nullptr, pending).selectedNode, "n");
}

TEST(DecideContext, ASingleControllerClaimSelectsAtOnce) {
  std::vector<PendingControllerClaim> pending = {Claim("a", "x")};
  auto spec = DecideContext("node-002", Ranking(3), nullptr, pending);
  EXPECT_EQ(spec.selectedNode, "node-002");
}

TEST(DecideContext, StaysOnTheNodeBeingAllocatedFor) {
  api::PodSchedulingContextSpec current;
  current.selectedNode = "node-001";
  current.potentialNodes = {"node-001", "node-002"};
  std::vector<PendingControllerClaim> pending = {Claim("a", "x", true), Claim("b", "y")};
  auto spec = DecideContext("node-001", Ranking(3), &current, pending);
  EXPECT_EQ(spec, current);  // nothing to write
}

TEST(NodeInAllocation, TheSelectedNodeUnlessAClaimRuledItOut) {
  api::PodSchedulingContext ctx;
  std::vector<PendingControllerClaim> pending = {Claim("a", "x", true), Claim("b", "y")};
  EXPECT_EQ(NodeInAllocation(&ctx, pending), "");
  ctx.spec.selectedNode = "n1";
  EXPECT_EQ(NodeInAllocation(&ctx, pending), "n1");
  EXPECT_EQ(NodeInAllocation(nullptr, pending), "");
  pending[0].unsuitable = {"n1"};
  EXPECT_EQ(NodeInAllocation(&ctx, pending), "");
}

TEST(VettedNodes, AskedAndNotRuledOutOnceEveryClaimAnswered) {
  api::PodSchedulingContext ctx;
  ctx.spec.potentialNodes = {"b", "a", "c"};
  ctx.spec.selectedNode = "d";
  std::vector<PendingControllerClaim> pending = {Claim("x", "x", true, {"a"}), Claim("y", "y")};
  EXPECT_TRUE(VettedNodes(&ctx, pending).empty());  // y has not answered
  pending[1] = Claim("y", "y", true, {"d"});
  EXPECT_EQ(VettedNodes(&ctx, pending), (std::vector<std::string>{"b", "c"}));
  EXPECT_TRUE(VettedNodes(nullptr, pending).empty());
}

TEST(AwaitedDrivers, UnansweredClaimsOrAllOnceANodeIsSelected) {
  std::vector<PendingControllerClaim> pending = {Claim("a", "y", true), Claim("b", "x"),
                                                 Claim("c", "x")};
  api::PodSchedulingContextSpec spec;
  EXPECT_EQ(AwaitedDrivers(spec, pending), (std::vector<std::string>{"x"}));
  spec.selectedNode = "n";
  EXPECT_EQ(AwaitedDrivers(spec, pending), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(WaitingMessage({"x"}, ""), "waiting for resource driver x to provide information");
  EXPECT_EQ(WaitingMessage({"x", "y"}, "n"),
            "waiting for resource drivers x, y to allocate the pod's claims");
}

TEST(ClassesAllow, EveryRequestNeedsAClassThatAllowsTheNode) {
  auto cls = [](std::optional<std::string> rack) {
    auto c = std::make_shared<api::DeviceClass>();
    if (rack) {
      api::NodeSelector sel;
      api::NodeSelectorTerm term;
      term.matchExpressions.push_back({"rack", "In", {*rack}});
      sel.nodeSelectorTerms.push_back(std::move(term));
      c->spec.suitableNodes = std::move(sel);
    }
    return std::shared_ptr<const api::DeviceClass>(c);
  };
  api::Node node;
  node.metadata.name = "n";
  node.metadata.labels["rack"] = "r1";
  PendingControllerClaim p;
  p.classes = {{cls("r1")}, {cls(std::nullopt)}};
  EXPECT_TRUE(ClassesAllow(p, node));
  p.classes.push_back({cls("r2")});
  EXPECT_FALSE(ClassesAllow(p, node));
  p.classes.back().push_back(cls("r1"));  // firstAvailable: one alternative suffices
  EXPECT_TRUE(ClassesAllow(p, node));
}

}  // namespace
}  // namespace allot::scheduler::dra_plugin
