// Reservations end to end in one process: the scheduler places reservations like pods, holds
// their capacity against everyone but their owners, and hands it to owner pods; the
// reservation controller keeps owners and phases current. The invariants check that no node
// is over-committed counting Available reservations as used (nothing handed out twice).
#include "api/koordinator/reservation.h"

#include <gtest/gtest.h>

#include "api/koordinator/annotations.h"
#include "integration/dra_fixture.h"
#include "scheduler/plugins/names.h"
#include "testing/objects.h"
#include "testing/wait.h"

namespace allot::integration {
namespace {

// What DefaultPreemption adds to the message of a pod that fits nowhere.
constexpr std::string_view kNoVictims1 =
    " preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.";
constexpr std::string_view kNoVictims2 =
    " preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.";
constexpr std::string_view kNotHelpful1 =
    " preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.";

using std::chrono::seconds;

struct ReservationSpec {
  std::string cpu = "2";
  std::string owner_app = "job";  // owners: pods labelled app=<owner_app>
  std::string policy;             // allocatePolicy
  bool allocate_once = true;
  std::string node;   // template.spec.nodeName
  std::string order;  // the reservation-order label
  std::string ttl;
  bool pre_allocation = false;
};

class ReservationTest : public DraFixture {
 protected:
  static const api::ResourceInfo& Reservations() { return api::ResourceFor<api::Reservation>(); }

  // `n` nodes "node-<i>" with `cpu` cpus each.
  void Nodes(int n, const std::string& cpu = "4") {
    const workloads::NodeShape shape{.cpu = cpu, .memory = "32Gi", .ready_condition = false};
    for (int i = 0; i < n; ++i) {
      std::string name = "node-" + std::to_string(i);
      Create(api::ResourceFor<api::Node>(), workloads::MakeNode(name, shape));
      ASSERT_TRUE(
          client_->UpdateStatus(api::ResourceFor<api::Node>(), workloads::MakeNode(name, shape))
              .ok());
    }
  }

  void Reserve(const std::string& name, const ReservationSpec& s = {}) {
    std::string labels = s.order.empty() ? "{}"
                                         : R"({")" + std::string(api::kLabelReservationOrder) +
                                               R"(":")" + s.order + R"("})";
    std::string tspec =
        R"({"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":")" + s.cpu +
        R"("}}}])";
    if (!s.node.empty()) tspec += R"(,"nodeName":")" + s.node + R"(")";
    tspec += "}";
    std::string spec = R"({"template":{"spec":)" + tspec +
                       R"(},"owners":[{"labelSelector":{"matchLabels":{"app":")" + s.owner_app +
                       R"("}}}])";
    if (!s.policy.empty()) spec += R"(,"allocatePolicy":")" + s.policy + R"(")";
    if (!s.allocate_once) spec += R"(,"allocateOnce":false)";
    if (!s.ttl.empty()) spec += R"(,"ttl":")" + s.ttl + R"(")";
    if (s.pre_allocation) spec += R"(,"preAllocation":true)";
    spec += "}";
    auto r = client_->Create(Reservations(), testing::MakeReservation(name, spec, labels));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  // A pod asking for `cpu`, labelled app=<app>, with these annotations.
  void CpuPod(const std::string& name, const std::string& cpu, const std::string& app,
              const api::StringMap& annotations = {}) {
    auto p = workloads::MakePod("default", name, cpu, "100Mi");
    p->metadata.labels["app"] = app;
    p->metadata.annotations = annotations;
    Create(api::ResourceFor<api::Pod>(), std::move(p));
  }

  std::shared_ptr<const api::Reservation> GetReservation(const std::string& name) {
    auto r = client_->Get(Reservations(), "", name);
    if (!r.ok() || !api::As<api::Reservation>(**r)) return nullptr;
    return std::static_pointer_cast<const api::Reservation>(*r);
  }
  std::string Phase(const std::string& name) {
    auto r = GetReservation(name);
    return r ? r->status.phase : "<gone>";
  }
  bool WaitPhase(const std::string& name, std::string_view phase) {
    return testing::WaitUntil([&] { return Phase(name) == phase; }, seconds(10));
  }
  std::string NodeOf(const std::string& pod) {
    auto p = GetPod(pod);
    return p ? p->spec.nodeName : "";
  }
  bool WaitBound(const std::string& pod) {
    return testing::WaitUntil([&] { return !NodeOf(pod).empty(); }, seconds(10));
  }
  // The reservation a bound pod draws from (its reservation-allocated annotation), "" for none.
  std::string AllocatedFrom(const std::string& pod) {
    auto p = GetPod(pod);
    if (!p) return "";
    auto it = p->metadata.annotations.find(std::string(api::kAnnotationReservationAllocated));
    if (it == p->metadata.annotations.end()) return "";
    auto a = api::ParseReservationAllocated(it->second);
    return a ? a->name : "";
  }
  // Waits until the pod has been tried and found unschedulable; returns the message.
  std::string WaitUnschedulable(const std::string& pod) {
    std::string msg;
    testing::WaitUntil(
        [&] {
          msg = PodMessage(pod);
          return msg.starts_with("Unschedulable");
        },
        seconds(10));
    return msg;
  }
  const api::ReservationCondition* Condition(const api::Reservation& r, std::string_view type) {
    for (const auto& c : r.status.conditions) {
      if (c.type == type) return &c;
    }
    return nullptr;
  }

  // The auditor: no node is over-committed, counting what each Available reservation still
  // holds: its allocatable less what the pods naming it (reservation-allocated) take. Computed
  // from the pods, not from status.allocated, which the controller writes later.
  void ExpectNoOverCommit() {
    std::map<std::string, int64_t> used;
    std::map<std::string, int64_t> taken;  // by reservation uid
    for (const auto& p : Pods()) {
      if (p->spec.nodeName.empty()) continue;
      int64_t cpu = api::PodRequests(*p).at("cpu").MilliValue();
      used[p->spec.nodeName] += cpu;
      auto it = p->metadata.annotations.find(std::string(api::kAnnotationReservationAllocated));
      if (it == p->metadata.annotations.end()) continue;
      if (auto a = api::ParseReservationAllocated(it->second)) taken[a->uid] += cpu;
    }
    for (const auto& r : ListAll<api::Reservation>(*store_, Reservations())) {
      if (r->status.phase != api::kReservationAvailable) continue;
      int64_t alloc =
          r->status.allocatable.count("cpu") ? r->status.allocatable.at("cpu").MilliValue() : 0;
      used[r->status.nodeName] += std::max<int64_t>(0, alloc - taken[r->metadata.uid]);
    }
    for (const auto& n : ListAll<api::Node>(*store_, api::ResourceFor<api::Node>())) {
      int64_t cap = n->status.allocatable.at("cpu").MilliValue();
      EXPECT_LE(used[n->metadata.name], cap) << n->metadata.name << " over-committed";
    }
  }
};

TEST_F(ReservationTest, PlacedHeldFromOthersAndHandedToItsOwner) {
  Nodes(1);
  Start();
  Reserve("r");
  ASSERT_TRUE(WaitPhase("r", api::kReservationAvailable)) << Phase("r");
  auto r = GetReservation("r");
  EXPECT_EQ(r->status.nodeName, "node-0");
  EXPECT_EQ(r->status.allocatable.at("cpu").MilliValue(), 2000);
  ASSERT_NE(Condition(*r, "Scheduled"), nullptr);
  EXPECT_EQ(Condition(*r, "Scheduled")->status, "True");
  EXPECT_EQ(Condition(*r, "Ready")->reason, "Available");
  EXPECT_TRUE(WaitEvent("r", "Scheduled", "Successfully assigned r to node-0"));
  // The metrics follow the scheduler's informer, which may trail the store.
  std::string metrics;
  EXPECT_TRUE(testing::WaitUntil(
      [&] {
        metrics = sched_->metrics_registry().Expose();
        return metrics.find(
                   R"(scheduler_reservation_status_phase{name="r",phase="Available"} 1)") !=
               std::string::npos;
      },
      seconds(5)))
      << metrics;
  EXPECT_NE(metrics.find(R"(scheduler_reservation_status_phase{name="r",phase="Pending"} 0)"),
            std::string::npos);
  EXPECT_NE(
      metrics.find(
          R"(scheduler_reservation_resource{type="allocatable",name="r",resource="cpu",unit="core"} 2)"),
      std::string::npos);

  // 4 cpus, 2 reserved: a stranger asking for 3 does not fit; one asking for 2 does.
  CpuPod("stranger", "3", "web");
  EXPECT_EQ(
      WaitUnschedulable("stranger"),
      "Unschedulable: 0/1 nodes are available: 1 Insufficient cpu." + std::string(kNoVictims1));
  CpuPod("small", "2", "web");
  ASSERT_TRUE(WaitBound("small"));
  EXPECT_EQ(AllocatedFrom("small"), "");

  // The owner takes the reservation (the node's free capacity is gone) and, allocateOnce, the
  // reservation is then Succeeded.
  CpuPod("owner", "2", "job");
  ASSERT_TRUE(WaitBound("owner")) << PodMessage("owner");
  EXPECT_EQ(AllocatedFrom("owner"), "r");
  ASSERT_TRUE(WaitPhase("r", api::kReservationSucceeded)) << Phase("r");
  EXPECT_TRUE(NodeOf("stranger").empty());
  ExpectNoOverCommit();
}

TEST_F(ReservationTest, UnschedulableReservationStaysPendingAndSaysWhy) {
  Nodes(2);
  Start();
  Reserve("huge", {.cpu = "100"});
  std::shared_ptr<const api::Reservation> r;
  ASSERT_TRUE(testing::WaitUntil(
      [&] {
        r = GetReservation("huge");
        return r && Condition(*r, "Scheduled");
      },
      seconds(10)));
  EXPECT_EQ(r->status.phase, "Pending");
  const api::ReservationCondition* c = Condition(*r, "Scheduled");
  EXPECT_EQ(c->status, "False");
  EXPECT_EQ(c->reason, "Unschedulable");
  EXPECT_EQ(c->message, "0/2 nodes are available: 2 Insufficient cpu.");
  EXPECT_TRUE(WaitEvent("huge", "FailedScheduling", "2 Insufficient cpu"));
}

TEST_F(ReservationTest, TemplateNodeNamePinsTheNode) {
  Nodes(3);
  Start();
  Reserve("pinned", {.node = "node-2"});
  ASSERT_TRUE(WaitPhase("pinned", api::kReservationAvailable));
  EXPECT_EQ(GetReservation("pinned")->status.nodeName, "node-2");
  Reserve("nowhere", {.node = "node-9"});
  ASSERT_TRUE(testing::WaitUntil(
      [&] {
        auto r = GetReservation("nowhere");
        return r && Condition(*r, "Scheduled");
      },
      seconds(10)));
  EXPECT_EQ(Phase("nowhere"), "Pending");
}

// Koordinator #2731: with two Aligned reservations on a node, an owner of one larger than it
// may take the node's free capacity but never the other reservation's.
TEST_F(ReservationTest, AlignedOwnerLargerThanItsReservationTakesOnlyFreeCapacity) {
  Nodes(1);
  Start();
  Reserve("a", {.cpu = "2", .owner_app = "a", .policy = "Aligned"});
  Reserve("b", {.cpu = "1", .owner_app = "b", .policy = "Aligned"});
  ASSERT_TRUE(WaitPhase("a", api::kReservationAvailable));
  ASSERT_TRUE(WaitPhase("b", api::kReservationAvailable));
  CpuPod("too-big", "4", "a");  // 2 from a + 1 free; b's 1 stays held
  EXPECT_EQ(
      WaitUnschedulable("too-big"),
      "Unschedulable: 0/1 nodes are available: 1 Insufficient cpu." + std::string(kNoVictims1));
  CpuPod("fits", "3", "a");
  ASSERT_TRUE(WaitBound("fits")) << PodMessage("fits");
  EXPECT_EQ(AllocatedFrom("fits"), "a");
  ExpectNoOverCommit();
}

TEST_F(ReservationTest, RestrictedOwnerGetsOnlyTheReservedAmount) {
  Nodes(1);
  Start();
  Reserve("r", {.cpu = "2", .policy = "Restricted"});
  ASSERT_TRUE(WaitPhase("r", api::kReservationAvailable));
  // 3 cpus do not fit in the reservation, and the node's free 2 cannot hold them either.
  CpuPod("big", "3", "job");
  EXPECT_EQ(
      WaitUnschedulable("big"),
      "Unschedulable: 0/1 nodes are available: 1 Insufficient cpu." + std::string(kNoVictims1));
  // With the affinity annotation the pod must use a reservation: the reason says so.
  CpuPod("big-affine", "3", "job",
         {{std::string(api::kAnnotationReservationAffinity), R"({"reservationSelector":{}})"}});
  EXPECT_EQ(WaitUnschedulable("big-affine"),
            "Unschedulable: 0/1 nodes are available: 1 Reservation(s) Insufficient cpu." +
                std::string(kNoVictims1));
  CpuPod("ok", "2", "job");
  ASSERT_TRUE(WaitBound("ok"));
  EXPECT_EQ(AllocatedFrom("ok"), "r");
}

TEST_F(ReservationTest, ReusableReservationKeepsOwnersCurrent) {
  Nodes(1);
  Start();
  Reserve("pool", {.cpu = "2", .allocate_once = false});
  ASSERT_TRUE(WaitPhase("pool", api::kReservationAvailable));
  CpuPod("w1", "1", "job");
  CpuPod("w2", "1", "job");
  ASSERT_TRUE(WaitBound("w1"));
  ASSERT_TRUE(WaitBound("w2"));
  EXPECT_EQ(AllocatedFrom("w1"), "pool");
  EXPECT_EQ(AllocatedFrom("w2"), "pool");
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return GetReservation("pool")->status.currentOwners.size() == 2; }, seconds(10)));
  EXPECT_EQ(Phase("pool"), "Available");
  // Both reserved cpus are used: a third owner still draws from the pool (Aligned: what the
  // pool has left, nothing, then the node's free capacity); a fourth finds no room.
  CpuPod("w3", "2", "job");
  ASSERT_TRUE(WaitBound("w3"));
  EXPECT_EQ(AllocatedFrom("w3"), "pool");
  CpuPod("w4", "1", "job");
  EXPECT_EQ(WaitUnschedulable("w4"), "Unschedulable: 0/1 nodes are available: 1 Insufficient cpu." +
                                         std::string(kNoVictims1));
  ExpectNoOverCommit();
}

TEST_F(ReservationTest, AffinityByNameAndOrderChooseTheReservation) {
  Nodes(3);
  Start();
  Reserve("r0", {.cpu = "1", .node = "node-0", .order = "3"});
  Reserve("r1", {.cpu = "1", .node = "node-1", .order = "1"});
  Reserve("r2", {.cpu = "1", .node = "node-2"});
  for (const char* n : {"r0", "r1", "r2"}) ASSERT_TRUE(WaitPhase(n, api::kReservationAvailable));
  CpuPod("by-order", "1", "job");
  ASSERT_TRUE(WaitBound("by-order"));
  EXPECT_EQ(AllocatedFrom("by-order"), "r1");
  EXPECT_EQ(NodeOf("by-order"), "node-1");
  CpuPod("by-name", "1", "job",
         {{std::string(api::kAnnotationReservationAffinity), R"({"name":"r2"})"}});
  ASSERT_TRUE(WaitBound("by-name"));
  EXPECT_EQ(AllocatedFrom("by-name"), "r2");
  EXPECT_EQ(NodeOf("by-name"), "node-2");
}

TEST_F(ReservationTest, IgnoredPodsAndBadAnnotations) {
  Nodes(1, "2");
  Start();
  Reserve("r", {.cpu = "2"});
  ASSERT_TRUE(WaitPhase("r", api::kReservationAvailable));
  // An owner labelled reservation-ignored does not draw from it, and it stays held.
  auto p = workloads::MakePod("default", "ignored", "1", "100Mi");
  p->metadata.labels["app"] = "job";
  p->metadata.labels[std::string(api::kLabelReservationIgnored)] = "true";
  Create(api::ResourceFor<api::Pod>(), std::move(p));
  EXPECT_EQ(
      WaitUnschedulable("ignored"),
      "Unschedulable: 0/1 nodes are available: 1 Insufficient cpu." + std::string(kNoVictims1));
  CpuPod("bad", "1", "job", {{std::string(api::kAnnotationReservationAffinity), "{not json"}});
  EXPECT_NE(WaitUnschedulable("bad").find(
                "annotation scheduling.koordinator.sh/reservation-affinity: invalid JSON"),
            std::string::npos)
      << PodMessage("bad");
  CpuPod("nomatch", "1", "job",
         {{std::string(api::kAnnotationReservationAffinity), R"({"name":"other"})"}});
  EXPECT_EQ(WaitUnschedulable("nomatch"),
            "Unschedulable: 0/1 nodes are available: node(s) no reservations match reservation "
            "affinity." +
                std::string(kNotHelpful1));
}

TEST_F(ReservationTest, FinishedOrDeletedReservationGivesItsCapacityBack) {
  Nodes(2);
  Start();
  Reserve("expiring", {.cpu = "3", .node = "node-0"});
  Reserve("deleted", {.cpu = "3", .node = "node-1"});
  ASSERT_TRUE(WaitPhase("expiring", api::kReservationAvailable));
  ASSERT_TRUE(WaitPhase("deleted", api::kReservationAvailable));
  CpuPod("waiting", "3", "web");
  CpuPod("waiting-too", "3", "web");
  EXPECT_EQ(
      WaitUnschedulable("waiting"),
      "Unschedulable: 0/2 nodes are available: 2 Insufficient cpu." + std::string(kNoVictims2));
  // Failed as the controller marks an expired reservation (its timers have FakeClock tests of
  // their own): the pods waiting for room are retried at once, not at the periodic flush.
  auto failed = std::make_unique<api::Reservation>(*GetReservation("expiring"));
  failed->status.phase = std::string(api::kReservationFailed);
  ASSERT_TRUE(client_->UpdateStatus(Reservations(), std::move(failed)).ok());
  ASSERT_TRUE(client_->Delete(Reservations(), "", "deleted").ok());
  ASSERT_TRUE(WaitBound("waiting")) << PodMessage("waiting");
  ASSERT_TRUE(WaitBound("waiting-too")) << PodMessage("waiting-too");
  ExpectNoOverCommit();
}

// preAllocation, as seed 002 defines it: placed without the free-capacity check, Waiting (and
// holding the node) until what it reserves is free, then Available; no owner uses it before.
TEST_F(ReservationTest, PreAllocationWaitsForTheNodeToFreeUp) {
  Nodes(1);
  Start();
  CpuPod("busy", "3", "batch");
  ASSERT_TRUE(WaitBound("busy"));
  Reserve("later", {.cpu = "2", .allocate_once = false, .node = "node-0", .pre_allocation = true});
  ASSERT_TRUE(WaitPhase("later", api::kReservationWaiting)) << Phase("later");
  auto r = GetReservation("later");
  EXPECT_EQ(r->status.nodeName, "node-0");
  ASSERT_NE(Condition(*r, "Ready"), nullptr);
  EXPECT_EQ(Condition(*r, "Ready")->status, "False");
  EXPECT_EQ(Condition(*r, "Ready")->reason, "Waiting");
  // Nothing else gets the node meanwhile, and the owner cannot use the reservation yet.
  CpuPod("stranger", "1", "web");
  CpuPod("owner", "1", "job",
         {{std::string(api::kAnnotationReservationAffinity), R"({"name":"later"})"}});
  EXPECT_EQ(
      WaitUnschedulable("stranger"),
      "Unschedulable: 0/1 nodes are available: 1 Insufficient cpu." + std::string(kNoVictims1));
  EXPECT_EQ(WaitUnschedulable("owner"),
            "Unschedulable: 0/1 nodes are available: node(s) no reservations match reservation "
            "affinity." +
                std::string(kNotHelpful1));
  // The busy pod goes: the reservation becomes Available and its owner lands in it; the
  // stranger gets what is left.
  ASSERT_TRUE(client_->Delete(api::ResourceFor<api::Pod>(), "default", "busy").ok());
  ASSERT_TRUE(WaitPhase("later", api::kReservationAvailable)) << Phase("later");
  EXPECT_TRUE(WaitEvent("later", "Available"));
  ASSERT_TRUE(WaitBound("owner")) << PodMessage("owner");
  EXPECT_EQ(AllocatedFrom("owner"), "later");
  ASSERT_TRUE(WaitBound("stranger")) << PodMessage("stranger");
  ExpectNoOverCommit();
  // A preAllocation reservation larger than the node is still unschedulable.
  Reserve("too-big", {.cpu = "8", .pre_allocation = true});
  ASSERT_TRUE(testing::WaitUntil(
      [&] {
        auto big = GetReservation("too-big");
        return big && Condition(*big, "Scheduled");
      },
      seconds(10)));
  EXPECT_EQ(Phase("too-big"), "Pending");
}

TEST_F(ReservationTest, RestartedSchedulerKeepsWaitingReservationsWaiting) {
  Nodes(1);
  Start();
  CpuPod("busy", "3", "batch");
  ASSERT_TRUE(WaitBound("busy"));
  Reserve("later", {.cpu = "2", .node = "node-0", .pre_allocation = true});
  ASSERT_TRUE(WaitPhase("later", api::kReservationWaiting)) << Phase("later");
  StopScheduler();
  StartScheduler();
  // The new scheduler counts the Waiting reservation on its node and finishes its wait.
  CpuPod("stranger", "1", "web");
  EXPECT_EQ(
      WaitUnschedulable("stranger"),
      "Unschedulable: 0/1 nodes are available: 1 Insufficient cpu." + std::string(kNoVictims1));
  ASSERT_TRUE(client_->Delete(api::ResourceFor<api::Pod>(), "default", "busy").ok());
  ASSERT_TRUE(WaitPhase("later", api::kReservationAvailable)) << Phase("later");
  ASSERT_TRUE(WaitBound("stranger"));
  ExpectNoOverCommit();
}

TEST_F(ReservationTest, RestartedSchedulerRebuildsReservationsFromObjects) {
  Nodes(1);
  Start();
  Reserve("r", {.cpu = "2", .allocate_once = false});
  ASSERT_TRUE(WaitPhase("r", api::kReservationAvailable));
  CpuPod("owner", "1", "job");
  ASSERT_TRUE(WaitBound("owner"));
  StopScheduler();
  StartScheduler();
  // The restarted scheduler counts r (1 cpu left) and the owner (1 cpu) again: 2 are free.
  CpuPod("stranger", "3", "web");
  EXPECT_EQ(
      WaitUnschedulable("stranger"),
      "Unschedulable: 0/1 nodes are available: 1 Insufficient cpu." + std::string(kNoVictims1));
  CpuPod("owner-2", "1", "job");
  ASSERT_TRUE(WaitBound("owner-2"));
  EXPECT_EQ(AllocatedFrom("owner-2"), "r");
  CpuPod("stranger-2", "2", "web");
  ASSERT_TRUE(WaitBound("stranger-2"));
  ExpectNoOverCommit();
}

}  // namespace
}  // namespace allot::integration
