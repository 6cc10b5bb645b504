// The Reservation plugin's pure parts: node accounting of reservations (NodeInfo / Cache),
// owner matching, the pod's annotations, the fit rules and the owner index.
#include <gtest/gtest.h>

#include "api/koordinator/annotations.h"
#include "common/time.h"
#include "scheduler/cache/cache.h"
#include "scheduler/framework/reservation_info.h"
#include "scheduler/plugins/reservation/matching.h"
#include "scheduler/plugins/reservation/owner_index.h"
#include "scheduler/testing/builders.h"

namespace allot::scheduler {
namespace {

using testing::NodeBuilder;
using testing::PodBuilder;

// An Available reservation of `cpu` on `node`, owned by pods labelled app=<app>.
std::shared_ptr<api::Reservation> MakeReservation(const std::string& name, const std::string& cpu,
                                                  const std::string& node,
                                                  const std::string& app = "job") {
  auto r = std::make_shared<api::Reservation>();
  r->metadata.name = name;
  r->metadata.uid = "uid-" + name;
  api::ReservationPodTemplate t;
  api::Container c;
  c.name = "c";
  c.resources.requests["cpu"] = api::Quantity::Parse(cpu).value();
  t.spec.containers.push_back(c);
  r->spec.template_ = t;
  api::ReservationOwner o;
  o.labelSelector = api::LabelSelector{};
  o.labelSelector->matchLabels["app"] = app;
  r->spec.owners.push_back(o);
  if (!node.empty()) {
    r->status.phase = std::string(api::kReservationAvailable);
    r->status.nodeName = node;
  }
  return r;
}

PodInfoPtr Owner(const std::string& name, const std::string& cpu, const std::string& node,
                 const std::string& reservation_uid) {
  PodBuilder b(name);
  b.Uid("uid-" + name).Req(cpu).NodeName(node);
  if (!reservation_uid.empty()) {
    b.Annotation(std::string(api::kAnnotationReservationAllocated),
                 api::FormatReservationAllocated({"r", reservation_uid}));
  }
  return b.Info();
}

TEST(ReservedSlot, RemainingCountsAsUsedUntilOwnersTakeIt) {
  NodeInfo n;
  n.SetNode(NodeBuilder("n").Cap("8", "8Gi").Build());
  auto info = ReservationInfo::Make(MakeReservation("r", "4", "n"));
  n.AddReservation(info);
  EXPECT_EQ(n.requested().milli_cpu, 4000);
  n.AddPod(Owner("o1", "1", "n", info->uid));  // 1 of the 4: the node still counts 4
  EXPECT_EQ(n.requested().milli_cpu, 4000);
  EXPECT_EQ(n.FindReservation(info->uid)->owners, 1);
  n.AddPod(Owner("o2", "5", "n", info->uid));  // larger than what is left: 1 + 5 = 6
  EXPECT_EQ(n.requested().milli_cpu, 6000);
  EXPECT_EQ(n.FindReservation(info->uid)->Remaining().milli_cpu, 0);
  n.AddPod(Owner("x", "1", "n", ""));  // not an owner
  EXPECT_EQ(n.requested().milli_cpu, 7000);
  ASSERT_TRUE(n.RemovePod("uid-o2"));
  EXPECT_EQ(n.requested().milli_cpu, 5000);  // o1 + x + the 3 left in r
  NodeInfo view = n;
  view.ReleaseReservation(info->uid);  // an owner's view
  EXPECT_EQ(view.requested().milli_cpu, 2000);
  ASSERT_TRUE(n.RemoveReservation(info->uid));  // r ends: its owners stay as plain pods
  EXPECT_EQ(n.requested().milli_cpu, 2000);
}

TEST(ReservedSlot, OwnersKnownBeforeTheirReservationAreCounted) {
  // After a restart the pods may arrive before the reservation.
  NodeInfo n;
  n.AddPod(Owner("o1", "1", "n", "uid-r"));
  n.AddReservation(ReservationInfo::Make(MakeReservation("r", "2", "n")));
  EXPECT_EQ(n.requested().milli_cpu, 2000);
  EXPECT_EQ(n.FindReservation("uid-r")->owners, 1);
}

TEST(CacheReservations, AssignMovesAnAssumedPodIntoTheReservation) {
  FakeClock clock;
  Cache cache(clock, std::chrono::seconds(30));
  cache.AddNode(NodeBuilder("n").Cap("8", "8Gi").Build());
  // The reserve pod assumed while its binding runs, then the reservation itself.
  auto reservation = MakeReservation("r", "4", "");
  auto pending = ReservationInfo::Make(reservation);
  ASSERT_TRUE(cache.AssumePod(MakeReservePodInfo(pending), "n").ok());
  EXPECT_EQ(cache.GetNodeInfo("n")->requested().milli_cpu, 4000);
  cache.AddReservation(ReservationInfo::Make(MakeReservation("r", "4", "n")));
  EXPECT_EQ(cache.AssumedPodCount(), 0u);
  EXPECT_EQ(cache.GetNodeInfo("n")->requested().milli_cpu, 4000);

  PodInfoPtr owner = PodBuilder("o").Uid("uid-o").Req("3").Info();
  ASSERT_TRUE(cache.AssumePod(owner, "n").ok());
  EXPECT_EQ(cache.GetNodeInfo("n")->requested().milli_cpu, 7000);
  ASSERT_TRUE(cache.AssignToReservation("uid-o", "uid-r").ok());
  EXPECT_EQ(cache.GetNodeInfo("n")->requested().milli_cpu, 4000);
  EXPECT_FALSE(cache.AssignToReservation("uid-o", "uid-elsewhere").ok());
  cache.UnassignFromReservation("uid-o");
  EXPECT_EQ(cache.GetNodeInfo("n")->requested().milli_cpu, 7000);
  ASSERT_TRUE(cache.AssignToReservation("uid-o", "uid-r").ok());
  // The bound pod arrives with its annotation: nothing changes.
  cache.AddPod(Owner("o", "3", "n", "uid-r"));
  EXPECT_EQ(cache.GetNodeInfo("n")->requested().milli_cpu, 4000);
  cache.RemoveReservation("uid-r");
  EXPECT_EQ(cache.GetNodeInfo("n")->requested().milli_cpu, 3000);
  EXPECT_EQ(cache.ReservationCount(), 0u);
}

TEST(ReservePod, CarriesTheTemplateAndTheReservation) {
  auto r = MakeReservation("r", "2", "");
  r->metadata.labels["team"] = "a";
  r->spec.template_->metadata.labels["team"] = "b";
  r->spec.template_->spec.nodeName = "n1";
  auto pod = MakeReservePod(*r);
  EXPECT_EQ(pod->metadata.uid, "uid-r");
  EXPECT_EQ(pod->metadata.namespace_, "default");
  EXPECT_EQ(pod->metadata.labels.at("team"), "a");  // the reservation's win
  EXPECT_EQ(pod->spec.nodeName, "");
  EXPECT_EQ(pod->metadata.annotations.at(std::string(api::kAnnotationReservationNode)), "n1");
  EXPECT_EQ(pod->spec.schedulerName, "default-scheduler");
  EXPECT_EQ(*pod->spec.priority, 2147483647);
  auto info = ReservationInfo::Make(r);
  EXPECT_EQ(info->pinned_node, "n1");
  EXPECT_EQ(info->allocatable.milli_cpu, 2000);
  EXPECT_TRUE(info->NeedsScheduling());
  EXPECT_FALSE(info->IsAvailable());
}

TEST(ReservationOwnerMatcher, EntriesAreOredFieldsAnded) {
  auto r = MakeReservation("r", "1", "n");
  api::ReservationOwner both;
  both.object = api::ObjectReference{};
  both.object->name = "p2";
  both.labelSelector = api::LabelSelector{};
  both.labelSelector->matchLabels["tier"] = "x";
  r->spec.owners.push_back(both);
  api::ReservationOwner ctrl;
  ctrl.controller = api::ReservationControllerReference{};
  ctrl.controller->uid = "rs-1";
  ctrl.controller->namespace_ = "team";
  r->spec.owners.push_back(ctrl);
  auto m = api::ReservationOwnerMatcher::Make(*r);
  EXPECT_TRUE(m.Matches(*PodBuilder("p1").Label("app", "job").Build()));
  EXPECT_FALSE(m.Matches(*PodBuilder("p2").Build()));                    // name alone
  EXPECT_TRUE(m.Matches(*PodBuilder("p2").Label("tier", "x").Build()));  // name and labels
  auto owned = PodBuilder("p3", "team").Build();
  owned->metadata.ownerReferences.push_back(
      {.apiVersion = "apps/v1", .kind = "ReplicaSet", .name = "rs", .uid = "rs-1"});
  EXPECT_TRUE(m.Matches(*owned));
  owned->metadata.namespace_ = "other";
  EXPECT_FALSE(m.Matches(*owned));
}

TEST(PodReservationPrefs, AffinityTaintsAndExactMatch) {
  auto r = MakeReservation("r", "2", "n");
  r->metadata.labels["zone"] = "a";
  r->spec.taints.push_back({.key = "dedicated", .value = "x", .effect = "NoSchedule"});
  auto info = ReservationInfo::Make(r);
  Resource two_cpu;
  two_cpu.milli_cpu = 2000;
  // No annotation: the taint is not tolerated (Koordinator lets such owners ignore it).
  auto plain = reservation::PodReservationPrefs::Parse(*PodBuilder("p").Build());
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->Admits(*info, nullptr, two_cpu));
  auto tolerant = reservation::PodReservationPrefs::Parse(
      *PodBuilder("p")
           .Annotation(
               std::string(api::kAnnotationReservationAffinity),
               R"({"reservationSelector":{"zone":"a"},"tolerations":[{"key":"dedicated","operator":"Exists"}]})")
           .Build());
  ASSERT_TRUE(tolerant.ok());
  EXPECT_TRUE(tolerant->Admits(*info, nullptr, two_cpu));
  api::StringMap node_labels{{"zone", "b"}};  // the reservation's labels win over the node's
  EXPECT_TRUE(tolerant->Admits(*info, &node_labels, two_cpu));
  auto by_name = reservation::PodReservationPrefs::Parse(
      *PodBuilder("p")
           .Annotation(std::string(api::kAnnotationReservationAffinity), R"({"name":"r"})")
           .Annotation(std::string(api::kAnnotationExactMatchReservation),
                       R"({"resourceNames":["memory","cpu"]})")
           .Build());
  ASSERT_TRUE(by_name.ok());
  // Memory is absent on both sides; Koordinator would stop there and skip the cpu check.
  EXPECT_TRUE(by_name->Admits(*info, nullptr, two_cpu));
  Resource one_cpu;
  one_cpu.milli_cpu = 1000;
  EXPECT_FALSE(by_name->Admits(*info, nullptr, one_cpu));
  auto bad = reservation::PodReservationPrefs::Parse(
      *PodBuilder("p")
           .Annotation(std::string(api::kAnnotationExactMatchReservation), "[1]")
           .Build());
  EXPECT_FALSE(bad.ok());
}

TEST(OwnerIndex, FindsCandidatesByOwnerWithoutScanning) {
  reservation::OwnerIndex index;
  for (int i = 0; i < 100; ++i) {
    index.Set(ReservationInfo::Make(
        MakeReservation("r" + std::to_string(i), "1", "n", "job-" + std::to_string(i))));
  }
  auto by_uid = MakeReservation("by-uid", "1", "n");
  by_uid->spec.owners.clear();
  by_uid->spec.owners.push_back({.object = api::ObjectReference{.uid = "pod-uid"}});
  index.Set(ReservationInfo::Make(by_uid));
  std::vector<reservation::IndexedReservationPtr> out;
  index.Candidates(*PodBuilder("p").Label("app", "job-7").Build(), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]->info->name, "r7");
  out.clear();
  index.Candidates(*PodBuilder("p").Uid("pod-uid").Label("app", "web").Build(), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]->info->name, "by-uid");
  index.Remove("uid-r7");
  out.clear();
  index.Candidates(*PodBuilder("p").Label("app", "job-7").Build(), out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(index.size(), 100u);
}

TEST(FitsReservation, AlignedAndRestricted) {
  NodeInfo n;
  n.SetNode(NodeBuilder("n").Cap("4", "8Gi").Build());
  auto r = MakeReservation("r", "2", "n");
  r->spec.allocatePolicy = "Restricted";
  auto info = ReservationInfo::Make(r);
  n.AddReservation(info);
  NodeInfo view = n;
  view.ReleaseReservation(info->uid);
  const ReservedSlot& slot = *n.FindReservation(info->uid);
  Resource want;
  want.milli_cpu = 3000;
  std::vector<std::string> reasons;
  EXPECT_FALSE(reservation::FitsReservation(want, view, slot, Resource{}, &reasons));
  EXPECT_EQ(reasons, std::vector<std::string>{"Reservation(s) Insufficient cpu"});
  want.milli_cpu = 2000;
  EXPECT_TRUE(reservation::FitsReservation(want, view, slot, Resource{}));
  Resource held;
  held.milli_cpu = 2000;
  EXPECT_TRUE(reservation::FitsNodeAlone(want, view, held));
  want.milli_cpu = 3000;
  EXPECT_FALSE(reservation::FitsNodeAlone(want, view, held));
}

}  // namespace
}  // namespace allot::scheduler
