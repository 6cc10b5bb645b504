#include "scheduler/framework/nominator.h"

#include <gtest/gtest.h>

#include "scheduler/testing/builders.h"

namespace allot::scheduler {
namespace {

using testing::PodBuilder;

PodInfoPtr Pod(const std::string& name, const std::string& nominated = "") {
  auto p = PodBuilder(name).Uid("uid-" + name).Build();
  p->status.nominatedNodeName = nominated;
  return PodInfo::Make(p);
}

TEST(NominatorTest, SetMoveAndRemove) {
  Nominator n;
  EXPECT_TRUE(n.empty());
  n.Set(Pod("a"), "n1");
  n.Set(Pod("b"), "n1");
  EXPECT_EQ(n.ForNode("n1").size(), 2u);
  n.Set(Pod("a"), "n2");  // moves
  EXPECT_EQ(n.ForNode("n1").size(), 1u);
  EXPECT_EQ(n.NodeOf("uid-a"), "n2");
  auto snapshot = n.Current();
  n.Set(Pod("b"), "");  // clears
  EXPECT_EQ(snapshot->at("n1").size(), 1u) << "a snapshot does not change";
  EXPECT_TRUE(n.ForNode("n1").empty());
  n.Remove("uid-a");
  EXPECT_TRUE(n.empty());
  EXPECT_TRUE(n.Current()->empty());
}

TEST(NominatorTest, UpdateFollowsThePodButKeepsAnUnseenNomination) {
  Nominator n;
  n.Set(Pod("a"), "n1");  // PostFilter, before the API write comes back
  auto old_pod = Pod("a");
  // An update that names no node, of a version that named none: the informer is behind.
  n.Update(old_pod->pod.get(), Pod("a"));
  EXPECT_EQ(n.NodeOf("uid-a"), "n1");
  // The write arrives, then a later attempt clears it in the API.
  auto written = Pod("a", "n1");
  n.Update(old_pod->pod.get(), written);
  EXPECT_EQ(n.NodeOf("uid-a"), "n1");
  n.Update(written->pod.get(), Pod("a"));
  EXPECT_EQ(n.NodeOf("uid-a"), "");
  // A pod that arrives nominated.
  n.Update(nullptr, Pod("b", "n3"));
  EXPECT_EQ(n.NodeOf("uid-b"), "n3");
}

}  // namespace
}  // namespace allot::scheduler
