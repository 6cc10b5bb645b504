#include "scheduler/plugins/dynamicresources/negotiations.h"

#include <gtest/gtest.h>

namespace allot::scheduler {
namespace {

using std::chrono::seconds;

api::PodSchedulingContextSpec Spec(std::string selected, std::vector<std::string> potential) {
  api::PodSchedulingContextSpec s;
  s.selectedNode = std::move(selected);
  s.potentialNodes = std::move(potential);
  return s;
}

class NegotiationsTest : public ::testing::Test {
 protected:
  Negotiations n{
      [](std::string_view driver) { return driver == "slow" ? seconds(60) : seconds(10); }};
  Negotiations::TimePoint t0{};
};

TEST_F(NegotiationsTest, FinishReportsRoundsAndTimes) {
  n.Waiting("u1", "ns", "p", Spec("", {"a", "b"}), {"x"}, t0);
  n.Waiting("u1", "ns", "p", Spec("a", {"a", "b"}), {"x"}, t0 + seconds(2));
  n.Waiting("u1", "ns", "p", Spec("a", {"a", "b"}), {"x"}, t0 + seconds(3));  // same request
  auto f = n.Finish("u1", t0 + seconds(5));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->rounds, 3);
  EXPECT_EQ(f->to_selected->count(), 2.0);
  EXPECT_EQ(f->to_allocated->count(), 3.0);
  EXPECT_EQ(n.size(), 0u);
  EXPECT_FALSE(n.Finish("u1", t0));  // never waited (or already finished)
}

// A hold needs a negotiation; the pod's next round takes it back, and a pod that never comes
// back loses it at its deadline (Expire) or when its negotiation is forgotten.
TEST_F(NegotiationsTest, HeldDevicesGoBackByTakeForgetOrExpire) {
  EXPECT_FALSE(n.Hold("u1", {"c1"}));  // not negotiating
  n.Waiting("u1", "ns", "p", Spec("a", {"a"}), {"x"}, t0);
  EXPECT_TRUE(n.Hold("u1", {"c1", "c2"}));
  EXPECT_EQ(n.TakeHeld("u1"), (std::vector<std::string>{"c1", "c2"}));
  EXPECT_TRUE(n.TakeHeld("u1").empty());
  EXPECT_TRUE(n.Hold("u1", {"c3"}));
  EXPECT_EQ(n.Forget("u1"), (std::vector<std::string>{"c3"}));
  n.Waiting("u2", "ns", "q", Spec("a", {"a"}), {"x"}, t0);
  EXPECT_TRUE(n.Hold("u2", {"c4"}));
  auto expired = n.Expire(t0 + seconds(10));
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].held, (std::vector<std::string>{"c4"}));
  n.Waiting("u3", "ns", "r", Spec("a", {"a"}), {"x"}, t0);
  EXPECT_TRUE(n.Hold("u3", {"c5"}));
  auto f = n.Finish("u3", t0 + seconds(1));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->held, (std::vector<std::string>{"c5"}));
}

TEST_F(NegotiationsTest, TheDeadlineCountsFromTheLastChangedRequestPerDriver) {
  n.Waiting("u1", "ns", "p", Spec("", {"a"}), {"slow", "x"}, t0);
  n.Waiting("u1", "ns", "p", Spec("", {"a"}), {"slow", "x"}, t0 + seconds(8));  // same request
  EXPECT_TRUE(n.Expire(t0 + seconds(9)).empty());
  auto expired = n.Expire(t0 + seconds(10));
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].drivers, (std::vector<std::string>{"x"}));  // "slow" has 60 s
  EXPECT_EQ(expired[0].waited, seconds(10));
  EXPECT_EQ(n.size(), 0u);  // forgotten: a deleted pod leaves nothing behind
}

TEST_F(NegotiationsTest, ANewRequestRestartsTheClock) {
  n.Waiting("u1", "ns", "p", Spec("", {"a"}), {"x"}, t0);
  n.Waiting("u1", "ns", "p", Spec("b", {"a", "b"}), {"x"}, t0 + seconds(9));
  EXPECT_TRUE(n.Expire(t0 + seconds(18)).empty());
  auto expired = n.Expire(t0 + seconds(19));
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].selected_node, "b");
}

TEST_F(NegotiationsTest, RemembersWhatDriversRuledOutUntilTheNegotiationEnds) {
  EXPECT_EQ(n.Unsuitable("u1", "gpu", {"b", "a"}), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(n.Unsuitable("u1", "gpu", {"c"}), (std::vector<std::string>{"c"}));  // not negotiating
  n.Waiting("u1", "ns", "p", Spec("", {"a", "b"}), {"x"}, t0);
  EXPECT_EQ(n.Unsuitable("u1", "gpu", {"b", "a"}), (std::vector<std::string>{"a", "b"}));
  // The driver's next answer replaces its first one in the context; the first stays known.
  EXPECT_EQ(n.Unsuitable("u1", "gpu", {"c"}), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(n.Unsuitable("u1", "other", {}), (std::vector<std::string>{}));
  n.Forget("u1");
  EXPECT_EQ(n.Unsuitable("u1", "gpu", {"c"}), (std::vector<std::string>{"c"}));
  EXPECT_EQ(n.size(), 0u);
}

}  // namespace
}  // namespace allot::scheduler
