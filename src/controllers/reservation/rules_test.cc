#include "controllers/reservation/rules.h"

#include <gtest/gtest.h>

namespace allot::controllers {
namespace {

using api::Quantity;

const Time kCreated = Time::FromUnixSeconds(1700000000);

api::Reservation Make(std::string phase = "") {
  api::Reservation r;
  r.metadata.name = "r";
  r.metadata.uid = "r-uid";
  r.metadata.creationTimestamp = kCreated;
  r.spec.template_ = api::ReservationPodTemplate{};
  r.spec.owners.push_back({});
  api::SetReservationDefaults(r);
  r.status.phase = std::move(phase);
  return r;
}

api::Reservation Available(std::string node = "n1") {
  api::Reservation r = Make(std::string(api::kReservationAvailable));
  r.status.nodeName = std::move(node);
  r.status.allocatable = {{"cpu", Quantity::FromInt(4)}, {"memory", Quantity::FromInt(1 << 30)}};
  return r;
}

ReservationOwnerPod Owner(std::string uid, std::string node = "n1", int64_t cpu = 1) {
  return {"ns", "pod-" + uid, uid, std::move(node),
          {{"cpu", Quantity::FromInt(cpu)}, {"example.com/foo", Quantity::FromInt(1)}}, true};
}

Time After(int64_t seconds) { return Time::FromUnixSeconds(kCreated.unix_seconds() + seconds); }

TEST(ReservationExpiry, ExpiresWinsThenTtlFromCreationAndZeroNeverExpires) {
  api::Reservation r = Make();
  EXPECT_EQ(ReservationExpiry(r), After(24 * 3600));  // the default ttl
  r.spec.ttl = "1m";
  EXPECT_EQ(ReservationExpiry(r), After(60));
  r.spec.ttl = "0s";
  EXPECT_FALSE(ReservationExpiry(r));
  r.spec.ttl = "24h";  // Koordinator's CRD default, beside expires: expires wins
  r.spec.expires = After(5);
  EXPECT_EQ(ReservationExpiry(r), After(5));
}

// Koordinator forgets Pending reservations; here they expire like the rest.
TEST(NextReservationStatus, APendingReservationExpiresToo) {
  api::Reservation r = Make(std::string(api::kReservationPending));
  r.spec.ttl = "1m";
  EXPECT_FALSE(NextReservationStatus(r, {.now = After(59)}));
  auto s = NextReservationStatus(r, {.now = After(60)});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->phase, api::kReservationFailed);
  ASSERT_EQ(s->conditions.size(), 1u);
  EXPECT_EQ(s->conditions[0].type, api::kReservationConditionReady);
  EXPECT_EQ(s->conditions[0].status, "False");
  EXPECT_EQ(s->conditions[0].reason, api::kReasonReservationExpired);
  EXPECT_EQ(s->conditions[0].lastTransitionTime, After(60));
  EXPECT_NE(s->conditions[0].message.find("expired at"), std::string::npos);
}

TEST(NextReservationStatus, ANodeThatIsGoneFailsTheReservation) {
  api::Reservation r = Available();
  auto s = NextReservationStatus(r, {.now = After(1), .node_exists = false});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->phase, api::kReservationFailed);
  EXPECT_EQ(s->conditions[0].reason, api::kReasonReservationExpired);
  EXPECT_EQ(s->conditions[0].message, "node n1 no longer exists");
}

TEST(NextReservationStatus, TerminalReservationsDoNotChange) {
  api::Reservation r = Available();
  r.status.phase = std::string(api::kReservationSucceeded);
  EXPECT_FALSE(NextReservationStatus(r, {.now = After(100000), .node_exists = false}));
}

TEST(NextReservationStatus, OwnersAreCountedOnlyOnItsNodeWhileTheyRunMaskedToAllocatable) {
  api::Reservation r = Available();
  r.spec.allocateOnce = false;
  ReservationOwnerPod finished = Owner("c");
  finished.active = false;
  auto s = NextReservationStatus(
      r, {.now = After(1), .owners = {Owner("b", "n1", 2), Owner("a"), Owner("x", "n2"), finished}});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->phase, api::kReservationAvailable);
  ASSERT_EQ(s->currentOwners.size(), 2u);
  EXPECT_EQ(s->currentOwners[0].uid, "a");  // sorted by uid
  EXPECT_EQ(s->currentOwners[1].uid, "b");
  EXPECT_EQ(s->currentOwners[1].namespace_, "ns");
  ASSERT_EQ(s->allocated.size(), 1u) << "only the resources the reservation has";
  EXPECT_EQ(s->allocated.at("cpu"), Quantity::FromInt(3));
  // The same facts again: nothing to write.
  api::Reservation again = r;
  again.status = *s;
  EXPECT_FALSE(NextReservationStatus(again, {.now = After(2), .owners = {Owner("b", "n1", 2),
                                                                          Owner("a")}}));
  // The owners leave: the reservation is free again.
  auto empty = NextReservationStatus(again, {.now = After(3)});
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->currentOwners.empty());
  EXPECT_TRUE(empty->allocated.empty());
}

TEST(NextReservationStatus, AllocateOnceSucceedsWithTheFirstOwner) {
  api::Reservation r = Available();
  auto s = NextReservationStatus(r, {.now = After(1), .owners = {Owner("a")}});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->phase, api::kReservationSucceeded);
  ASSERT_EQ(s->currentOwners.size(), 1u);
  EXPECT_EQ(s->conditions.back().reason, api::kReasonReservationSucceeded);
  EXPECT_EQ(s->conditions.back().message, "allocated once, to ns/pod-a");
}

TEST(NextReservationStatus, NobodyOwnsAWaitingReservation) {
  api::Reservation r = Available();
  r.status.phase = std::string(api::kReservationWaiting);
  EXPECT_FALSE(NextReservationStatus(r, {.now = After(1), .owners = {Owner("a")}}));
}

TEST(ReservationCollectionTime, RetentionCountsFromBecomingTerminalWhateverTheReason) {
  api::Reservation r = Available();
  EXPECT_FALSE(ReservationCollectionTime(r, std::chrono::hours(24)));
  api::ReservationStatus failed = *NextReservationStatus(r, {.now = After(10), .node_exists = false});
  r.status = failed;
  EXPECT_EQ(ReservationCollectionTime(r, std::chrono::hours(24)), After(10 + 24 * 3600));
  r.status.conditions.clear();  // none: from creation
  EXPECT_EQ(ReservationCollectionTime(r, std::chrono::seconds(5)), After(5));
}

}  // namespace
}  // namespace allot::controllers
