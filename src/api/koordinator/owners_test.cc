// Reservation owners: which pods a reservation's owner entries match, and the admission of the
// reservation-allocated annotation (only an owner may say it draws from a reservation).
#include "api/koordinator/owners.h"

#include <gtest/gtest.h>

#include <map>

#include "api/koordinator/annotations.h"

namespace allot::api {
namespace {

// Stored reservations, by name.
class FakeReservations : public ObjectReader {
 public:
  void Add(std::shared_ptr<Reservation> r) { by_name_[r->metadata.name] = std::move(r); }
  ObjectPtr Get(const ResourceInfo&, std::string_view, std::string_view name) const override {
    auto it = by_name_.find(std::string(name));
    return it == by_name_.end() ? nullptr : it->second;
  }
  std::vector<ObjectPtr> List(const ResourceInfo&) const override { return {}; }

 private:
  std::map<std::string, ObjectPtr> by_name_;
};

std::shared_ptr<Reservation> ForJobPods(std::string name, std::string uid) {
  auto r = std::make_shared<Reservation>();
  r->metadata.name = std::move(name);
  r->metadata.uid = std::move(uid);
  ReservationOwner owner;
  owner.labelSelector.emplace();
  owner.labelSelector->matchLabels = {{"app", "job"}};
  r->spec.owners.push_back(std::move(owner));
  ReservationOwner named;
  named.object.emplace();
  named.object->namespace_ = "team";
  named.object->name = "special";
  r->spec.owners.push_back(std::move(named));
  return r;
}

Pod PodOf(std::string ns, std::string name, StringMap labels, std::string allocated = "") {
  Pod p;
  p.metadata.namespace_ = std::move(ns);
  p.metadata.name = std::move(name);
  p.metadata.labels = std::move(labels);
  if (!allocated.empty()) {
    p.metadata.annotations[std::string(kAnnotationReservationAllocated)] = std::move(allocated);
  }
  return p;
}

TEST(ReservationOwnersTest, EntriesAreOredAndAnObjectEntryNamesItsNamespace) {
  ReservationOwnerMatcher m = ReservationOwnerMatcher::Make(*ForJobPods("r", "u"));
  EXPECT_TRUE(m.Matches(PodOf("default", "a", {{"app", "job"}})));
  EXPECT_TRUE(m.Matches(PodOf("team", "special", {})));
  EXPECT_FALSE(m.Matches(PodOf("other", "special", {})));
  EXPECT_FALSE(m.Matches(PodOf("default", "a", {{"app", "web"}})));
}

TEST(ReservationOwnersTest, OnlyAnOwnerMaySayItDrawsFromAReservation) {
  FakeReservations objects;
  objects.Add(ForJobPods("r", "uid-r"));
  const std::string r = FormatReservationAllocated({"r", "uid-r"});
  EXPECT_TRUE(AdmitReservationAllocated(PodOf("default", "a", {{"app", "job"}}, r), nullptr, objects)
                  .ok());
  Status stranger = AdmitReservationAllocated(PodOf("other", "x", {}, r), nullptr, objects);
  EXPECT_EQ(stranger.code(), StatusCode::kForbidden);
  EXPECT_EQ(stranger.message(),
            "pods \"x\" is forbidden: pod is not an owner of reservation \"r\" "
            "(scheduling.koordinator.sh/reservation-allocated)");
  // The uid must be the reservation's (a reservation deleted and made again is another one),
  // and the reservation must exist.
  EXPECT_FALSE(AdmitReservationAllocated(
                   PodOf("default", "a", {{"app", "job"}}, FormatReservationAllocated({"r", "old"})),
                   nullptr, objects)
                   .ok());
  EXPECT_FALSE(AdmitReservationAllocated(PodOf("default", "a", {{"app", "job"}},
                                               FormatReservationAllocated({"gone", "uid-g"})),
                                         nullptr, objects)
                   .ok());
  // An update that keeps the annotation as it was is not judged again (the reservation may
  // since be gone); one that sets it is.
  Pod before = PodOf("other", "x", {}, FormatReservationAllocated({"gone", "uid-g"}));
  EXPECT_TRUE(AdmitReservationAllocated(before, &before, objects).ok());
  Pod plain = PodOf("other", "x", {});
  EXPECT_FALSE(AdmitReservationAllocated(PodOf("other", "x", {}, r), &plain, objects).ok());
  // A pod being created cannot claim a uid owner's uid: the store gives it its own.
  auto by_uid = ForJobPods("u", "uid-u");
  by_uid->spec.owners[1].object->uid = "pod-uid";
  objects.Add(by_uid);
  Pod claims = PodOf("team", "special", {}, FormatReservationAllocated({"u", "uid-u"}));
  claims.metadata.uid = "pod-uid";
  by_uid->spec.owners[1].object->namespace_.clear();
  by_uid->spec.owners[1].object->name.clear();
  EXPECT_FALSE(AdmitReservationAllocated(claims, nullptr, objects).ok());
  Pod stored = claims;
  stored.metadata.annotations.clear();
  EXPECT_TRUE(AdmitReservationAllocated(claims, &stored, objects).ok());  // an update: its uid
  // Without the annotation, or with a value that names nothing, there is nothing to judge.
  EXPECT_TRUE(AdmitReservationAllocated(plain, nullptr, objects).ok());
  EXPECT_TRUE(AdmitReservationAllocated(PodOf("other", "x", {}, "not json"), nullptr, objects).ok());
}

}  // namespace
}  // namespace allot::api
