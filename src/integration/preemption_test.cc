// Priority and preemption through the whole system (scheduler, resourceclaim controller, store):
// a pod of higher priority evicts pods of lower priority on a node and binds there; CPU,
// devices, shared claims, PodDisruptionBudgets, nominations that hold the space while victims
// terminate, and preemptionPolicy Never.
#include <gtest/gtest.h>

#include <random>

#include "api/koordinator/annotations.h"
#include "api/koordinator/reservation.h"
#include "api/policy/pod_disruption_budget.h"
#include "api/scheduling/priority_class.h"
#include "integration/dra_fixture.h"
#include "testing/objects.h"
#include "testing/wait.h"

namespace allot::integration {
namespace {

using std::chrono::seconds;

class PreemptionTest : public DraFixture {
 protected:
  void Class(const std::string& name, int32_t value, std::string policy = "") {
    auto pc = std::make_unique<api::PriorityClass>();
    pc->metadata.name = name;
    pc->value = value;
    if (!policy.empty()) pc->preemptionPolicy = policy;
    Create(api::ResourceFor<api::PriorityClass>(), std::move(pc));
  }
  void CpuPod(const std::string& name, const std::string& cpu, const std::string& priority_class,
              const std::string& app = "", const std::string& tmpl = "",
              const std::string& claim = "") {
    auto p = workloads::MakePod("default", name, cpu, "100Mi");
    p->spec.priorityClassName = priority_class;
    if (!app.empty()) p->metadata.labels["app"] = app;
    if (!tmpl.empty()) workloads::AddTemplateClaim(*p, "gpu", tmpl);
    if (!claim.empty()) workloads::AddExistingClaim(*p, "gpu", claim);
    Create(api::ResourceFor<api::Pod>(), std::move(p));
  }
  bool WaitBound(const std::string& name) {
    return testing::WaitUntil(
        [&] {
          auto p = GetPod(name);
          return p && !p->spec.nodeName.empty();
        },
        seconds(20));
  }
  bool WaitGone(const std::string& name) {
    return testing::WaitUntil([&] { return GetPod(name) == nullptr; }, seconds(20));
  }
  std::string Nominated(const std::string& name) {
    auto p = GetPod(name);
    return p ? p->status.nominatedNodeName : "<gone>";
  }
  // "slow" (priority class low, 40 CPUs, a finalizer that keeps it terminating) runs on
  // node-0; "high" (40 CPUs) preempts it and is nominated there.
  bool SlowVictimAndNominatedPreemptor() {
    auto p = workloads::MakePod("default", "slow", "40", "100Mi");
    p->spec.priorityClassName = "low";
    p->metadata.finalizers = {"example.com/hold"};
    Create(api::ResourceFor<api::Pod>(), std::move(p));
    if (!WaitBound("slow")) return false;
    CpuPod("high", "40", "high");
    return testing::WaitUntil([&] { return Nominated("high") == "node-0"; }, seconds(10));
  }
  // A reservation of `cpu` for pods labelled app=<owner_app> (reserve pods have the highest
  // priority, as in Koordinator).
  void Reserve(const std::string& name, const std::string& cpu, const std::string& owner_app) {
    const std::string spec =
        R"({"template":{"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":)"
        R"({"cpu":")" +
        cpu + R"("}}}]}},"owners":[{"labelSelector":{"matchLabels":{"app":")" + owner_app +
        R"("}}}],"allocateOnce":false})";
    auto r = client_->Create(api::ResourceFor<api::Reservation>(),
                             allot::testing::MakeReservation(name, spec));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  // Reserve, then wait until the scheduler placed it.
  bool AvailableReservation(const std::string& name, const std::string& cpu,
                            const std::string& owner_app) {
    Reserve(name, cpu, owner_app);
    return testing::WaitUntil([&] { return ReservationPhase(name) == api::kReservationAvailable; },
                              seconds(10));
  }
  std::string ReservationPhase(const std::string& name) {
    auto r = client_->Get(api::ResourceFor<api::Reservation>(), "", name);
    return r.ok() ? api::As<api::Reservation>(**r)->status.phase : "<gone>";
  }
  // A budget "db" (minAvailable 1) over the pods labelled app=db.
  void DbBudget() {
    auto pdb = std::make_unique<api::PodDisruptionBudget>();
    pdb->metadata.name = "db";
    pdb->metadata.namespace_ = "default";
    pdb->spec.minAvailable = api::IntOrString{.int_value = 1};
    pdb->spec.selector = api::LabelSelector{.matchLabels = {{"app", "db"}}};
    Create(api::ResourceFor<api::PodDisruptionBudget>(), std::move(pdb));
  }
  static SchedulerCustomizer PreemptionArgs(std::string json) {
    return [json](scheduler::SchedulerOptions& o) {
      o.config.profiles[0].plugin_config.push_back({"DefaultPreemption", json});
    };
  }
  const api::PodCondition* Condition(const api::Pod& pod, std::string_view type) {
    for (const api::PodCondition& c : pod.status.conditions) {
      if (c.type == type) return &c;
    }
    return nullptr;
  }
};

TEST_F(PreemptionTest, HigherPriorityPodEvictsOneVictimAndBinds) {
  Cluster(1, 0);
  Class("low", 100);
  Class("high", 1000);
  Start();
  CpuPod("low-0", "20", "low");
  CpuPod("low-1", "20", "low");
  CpuPod("filler", "24", "high");
  ASSERT_TRUE(WaitBound("low-0") && WaitBound("low-1") && WaitBound("filler"));
  CpuPod("high", "20", "high");
  ASSERT_TRUE(WaitBound("high")) << PodMessage("high");
  EXPECT_EQ(GetPod("high")->spec.nodeName, "node-0");
  // The node is full (24 + 20 + 20): one victim frees the 20 needed; "filler" has the
  // preemptor's priority and is no victim.
  int left = (GetPod("low-0") != nullptr) + (GetPod("low-1") != nullptr);
  EXPECT_EQ(left, 1);
  const std::string victim = GetPod("low-0") ? "low-1" : "low-0";
  ASSERT_TRUE(WaitEvent(victim, "Preempted", "on node node-0"));
  EXPECT_TRUE(HasEvent(victim, "Preempted", "Preempted by pod " + GetPod("high")->metadata.uid));
  std::string metrics = sched_->metrics_registry().Expose();
  EXPECT_NE(metrics.find("scheduler_preemption_attempts_total 1"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("scheduler_preemption_victims_count 1"), std::string::npos);
}

TEST_F(PreemptionTest, PreemptionPolicyNeverWaits) {
  Cluster(1, 0);
  Class("low", 100);
  Class("polite", 1000, "Never");
  Start();
  CpuPod("low", "40", "low");
  ASSERT_TRUE(WaitBound("low"));
  CpuPod("polite", "40", "polite");
  ASSERT_TRUE(testing::WaitUntil([&] { return !PodMessage("polite").empty(); }, seconds(10)));
  EXPECT_EQ(PodMessage("polite"),
            "Unschedulable: 0/1 nodes are available: 1 Insufficient cpu. preemption: not "
            "eligible due to preemptionPolicy=Never.");
  EXPECT_NE(GetPod("low"), nullptr);
}

TEST_F(PreemptionTest, TerminatingVictimKeepsTheNominationAndTheSpace) {
  Cluster(1, 0);
  Class("low", 100);
  Class("mid", 500);
  Class("high", 1000);
  Start();
  ASSERT_TRUE(SlowVictimAndNominatedPreemptor()) << PodMessage("high");
  auto slow = GetPod("slow");
  ASSERT_TRUE(slow->metadata.rare->deletionTimestamp);
  const api::PodCondition* dt = Condition(*slow, "DisruptionTarget");
  ASSERT_NE(dt, nullptr);
  EXPECT_EQ(dt->reason, "PreemptionByScheduler");
  EXPECT_EQ(dt->message, "default-scheduler: preempting to accommodate a higher priority pod");
  // The space "slow" frees is the nominated pod's: a pod of lower priority cannot take it.
  CpuPod("mid", "30", "mid");
  ASSERT_TRUE(testing::WaitUntil([&] { return !PodMessage("mid").empty(); }, seconds(10)));
  EXPECT_TRUE(GetPod("mid")->spec.nodeName.empty());
  EXPECT_TRUE(GetPod("high")->spec.nodeName.empty());
  // The finalizer goes: "high" binds where it was nominated, "mid" still does not fit.
  auto copy = std::static_pointer_cast<const api::Pod>(slow)->Clone();
  copy->metadata.finalizers.clear();
  ASSERT_TRUE(client_->Update(api::ResourceFor<api::Pod>(), std::move(copy)).ok());
  ASSERT_TRUE(WaitBound("high"));
  EXPECT_EQ(GetPod("high")->spec.nodeName, "node-0");
  EXPECT_TRUE(GetPod("mid")->spec.nodeName.empty());
}

TEST_F(PreemptionTest, DeletedPreemptorLosesItsNomination) {
  Cluster(1, 0);
  Class("low", 100);
  Class("high", 1000);
  Start();
  ASSERT_TRUE(SlowVictimAndNominatedPreemptor());
  ASSERT_TRUE(client_->Delete(api::ResourceFor<api::Pod>(), "default", "high").ok());
  ASSERT_TRUE(testing::WaitUntil([&] { return sched_->nominator().empty(); }, seconds(10)));
}

TEST_F(PreemptionTest, BudgetProtectedPodIsSparedForAnother) {
  Cluster(2, 0);
  Class("low", 100);
  Class("high", 1000);
  DbBudget();  // allows 0 disruptions
  Start();
  CpuPod("db", "40", "low", "db");
  ASSERT_TRUE(WaitBound("db"));
  CpuPod("web", "40", "low", "web");
  ASSERT_TRUE(WaitBound("web"));
  ASSERT_NE(GetPod("db")->spec.nodeName, GetPod("web")->spec.nodeName);
  CpuPod("high", "40", "high");
  ASSERT_TRUE(WaitBound("high")) << PodMessage("high");
  EXPECT_NE(GetPod("db"), nullptr);
  EXPECT_TRUE(WaitGone("web"));
}

TEST_F(PreemptionTest, DevicesOfTheVictimGoToThePreemptor) {
  Cluster(1, 1);
  Template("one-gpu");
  Class("low", 100);
  Class("high", 1000);
  Start();
  CpuPod("low", "1", "low", "", "one-gpu");
  ASSERT_TRUE(WaitBound("low"));
  CpuPod("high", "1", "high", "", "one-gpu");
  ASSERT_TRUE(WaitBound("high")) << PodMessage("high");
  EXPECT_TRUE(WaitGone("low"));
  ExpectInvariants();
}

TEST_F(PreemptionTest, SharedClaimOfAPodThatStaysIsNotFreed) {
  Cluster(1, 1);
  Template("one-gpu");
  Claim("shared");
  Class("low", 100);
  Class("high", 1000);
  Class("top", 2000);
  Start();
  CpuPod("low", "1", "low", "", "", "shared");
  CpuPod("top", "1", "top", "", "", "shared");
  ASSERT_TRUE(WaitBound("low") && WaitBound("top"));
  CpuPod("high", "1", "high", "", "one-gpu");
  ASSERT_TRUE(testing::WaitUntil([&] { return !PodMessage("high").empty(); }, seconds(10)));
  EXPECT_EQ(PodMessage("high"),
            "Unschedulable: 0/1 nodes are available: 1 cannot allocate all claims. still not "
            "schedulable, preemption: 0/1 nodes are available: 1 cannot allocate all claims.");
  EXPECT_NE(GetPod("low"), nullptr);
  ExpectInvariants();
}

TEST_F(PreemptionTest, ABudgetThatAllowsNothingStopsPreemptionAndSaysSo) {
  Cluster(1, 0);
  Class("low", 100);
  Class("high", 1000);
  DbBudget();  // minAvailable 1 over the one db pod: allows no disruption
  Start();
  CpuPod("db", "40", "low", "db");
  ASSERT_TRUE(WaitBound("db"));
  CpuPod("high", "40", "high");
  ASSERT_TRUE(testing::WaitUntil([&] { return !PodMessage("high").empty(); }, seconds(10)));
  EXPECT_EQ(PodMessage("high"),
            "Unschedulable: 0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes "
            "are available: 1 Preemption would violate a PodDisruptionBudget.");
  EXPECT_NE(GetPod("db"), nullptr);
  EXPECT_EQ(Nominated("high"), "");
}

TEST_F(PreemptionTest, BudgetsAreBestEffortWhenTheArgsSaySo) {
  Cluster(1, 0);
  Class("low", 100);
  Class("high", 1000);
  DbBudget();  // minAvailable 1 over the one db pod: allows no disruption
  Start(PreemptionArgs(R"({"allowBudgetViolations":true})"));
  CpuPod("db", "40", "low", "db");
  ASSERT_TRUE(WaitBound("db"));
  CpuPod("high", "40", "high");
  ASSERT_TRUE(WaitBound("high")) << PodMessage("high");
  EXPECT_TRUE(WaitGone("db"));
}

TEST_F(PreemptionTest, TheDeviceAVictimFreedStaysWithItsNominatedPreemptor) {
  Cluster(1, 2);
  Template("one-gpu");
  Class("low", 100);
  Class("high", 1000);
  // A backoff long enough to act in while the preemptor waits out its first.
  Start([](scheduler::SchedulerOptions& o) {
    o.config.pod_initial_backoff = std::chrono::milliseconds(3000);
    o.config.pod_max_backoff = std::chrono::milliseconds(3000);
  });
  CpuPod("a", "1", "low", "", "one-gpu");
  CpuPod("b", "1", "low", "", "one-gpu");
  ASSERT_TRUE(WaitBound("a") && WaitBound("b"));
  CpuPod("high", "1", "high", "", "one-gpu");
  ASSERT_TRUE(testing::WaitUntil([&] { return Nominated("high") == "node-0"; }, seconds(10)));
  // The victim is gone and its claim released: a device is free while the preemptor backs off.
  ASSERT_TRUE(testing::WaitUntil(
      [&] {
        int allocated = 0;
        for (const auto& c : Claims()) allocated += c->status.allocation.has_value();
        return (!GetPod("a") || !GetPod("b")) && allocated == 1;
      },
      seconds(10)));
  ASSERT_TRUE(GetPod("high")->spec.nodeName.empty());
  // A new pod of lower priority sees that device as the preemptor's, and cannot preempt a pod of
  // its own priority: it waits, and the preemptor binds.
  CpuPod("late", "1", "low", "", "one-gpu");
  ASSERT_TRUE(testing::WaitUntil([&] { return !PodMessage("late").empty(); }, seconds(10)));
  EXPECT_TRUE(GetPod("late")->spec.nodeName.empty());
  ASSERT_TRUE(WaitBound("high")) << PodMessage("high");
  EXPECT_TRUE(GetPod("late")->spec.nodeName.empty());
  ExpectInvariants();
}

// A nominated pod whose victim is still terminating (its claim allocated) holds nothing free on
// the node; a second preemptor of its priority must not count on the device that victim frees.
TEST_F(PreemptionTest, ASecondPreemptorDoesNotCountOnTheFirstOnesVictim) {
  Cluster(1, 2);
  Template("one-gpu");
  Class("lowest", 50);
  Class("low", 100);
  Class("high", 1000);
  Start();
  auto slow = workloads::MakePod("default", "slow", "1", "100Mi");
  slow->spec.priorityClassName = "lowest";
  slow->metadata.finalizers = {"example.com/hold"};
  workloads::AddTemplateClaim(*slow, "gpu", "one-gpu");
  Create(api::ResourceFor<api::Pod>(), std::move(slow));
  CpuPod("b", "1", "low", "", "one-gpu");
  ASSERT_TRUE(WaitBound("slow") && WaitBound("b"));
  // "first" preempts "slow" (the least important), which stays terminating with its device.
  CpuPod("first", "1", "high", "", "one-gpu");
  ASSERT_TRUE(testing::WaitUntil([&] { return Nominated("first") == "node-0"; }, seconds(10)));
  ASSERT_TRUE(GetPod("slow")->metadata.rare->deletionTimestamp);
  // "second" needs a device of its own: "b"'s, not the one "slow" frees for "first".
  CpuPod("second", "1", "high", "", "one-gpu");
  ASSERT_TRUE(WaitGone("b")) << PodMessage("second");
  EXPECT_TRUE(GetPod("slow")->metadata.rare->deletionTimestamp);
  auto copy = GetPod("slow")->Clone();
  copy->metadata.finalizers.clear();
  ASSERT_TRUE(client_->Update(api::ResourceFor<api::Pod>(), std::move(copy)).ok());
  ASSERT_TRUE(WaitBound("first")) << PodMessage("first");
  ASSERT_TRUE(WaitBound("second")) << PodMessage("second");
  ExpectInvariants();
}

TEST_F(PreemptionTest, AReservationPreemptsOnlyWhenTheArgsSaySo) {
  Cluster(1, 0);
  Class("low", 100);
  Start();
  CpuPod("job", "40", "low");
  ASSERT_TRUE(WaitBound("job"));
  Reserve("r", "40", "train");
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return HasEvent("r", "FailedScheduling", "Insufficient cpu"); }, seconds(10)));
  EXPECT_EQ(ReservationPhase("r"), api::kReservationPending);
  EXPECT_NE(GetPod("job"), nullptr);  // reservations do not preempt by default
}

TEST_F(PreemptionTest, AReservationPreemptsAndItsOwnerRunsInIt) {
  Cluster(1, 0);
  Class("low", 100);
  Start(PreemptionArgs(R"({"reservationPreemption":true})"));
  CpuPod("job", "40", "low");
  ASSERT_TRUE(WaitBound("job"));
  Reserve("r", "40", "train");
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return ReservationPhase("r") == api::kReservationAvailable; }, seconds(20)))
      << ReservationPhase("r");
  EXPECT_TRUE(WaitGone("job"));
  // The space is the reservation's: a pod of low priority that does not own it cannot use it
  // (nor preempt the reservation), its owner can.
  CpuPod("other", "40", "low");
  CpuPod("owner", "40", "low", "train");
  ASSERT_TRUE(WaitBound("owner")) << PodMessage("owner");
  ASSERT_TRUE(testing::WaitUntil([&] { return !PodMessage("other").empty(); }, seconds(10)));
  EXPECT_TRUE(GetPod("other")->spec.nodeName.empty());
  ExpectInvariants();
}

TEST_F(PreemptionTest, AVictimInsideAReservationFreesItsSpaceOnlyForTheOwners) {
  Cluster(1, 0);  // 64 CPU
  Class("low", 100);
  Class("high", 1000);
  Start();
  ASSERT_TRUE(AvailableReservation("r", "40", "train"));
  CpuPod("inside", "40", "low", "train");  // an owner, in the reservation
  ASSERT_TRUE(WaitBound("inside")) << PodMessage("inside");
  CpuPod("outside", "20", "low");
  ASSERT_TRUE(WaitBound("outside"));
  // 4 CPU left. Evicting "inside" would free reservation capacity this pod may not use.
  CpuPod("high", "20", "high");
  ASSERT_TRUE(WaitBound("high")) << PodMessage("high");
  EXPECT_TRUE(WaitGone("outside"));
  EXPECT_NE(GetPod("inside"), nullptr);
  ExpectInvariants();
}

TEST_F(PreemptionTest, AnOwnerPreemptsInsideItsReservation) {
  Cluster(1, 0);  // 64 CPU
  Class("low", 100);
  Class("high", 1000);
  Start();
  ASSERT_TRUE(AvailableReservation("r", "40", "train"));
  CpuPod("a", "40", "low", "train");  // fills the reservation
  ASSERT_TRUE(WaitBound("a")) << PodMessage("a");
  CpuPod("filler", "24", "low");  // fills the rest of the node
  ASSERT_TRUE(WaitBound("filler"));
  CpuPod("b", "40", "high", "train");
  ASSERT_TRUE(WaitBound("b")) << PodMessage("b");
  EXPECT_TRUE(WaitGone("a"));
  EXPECT_NE(GetPod("filler"), nullptr);
  EXPECT_NE(
      GetPod("b")->metadata.annotations.count(std::string(api::kAnnotationReservationAllocated)),
      0u);
  ExpectInvariants();
}

// Victim selection with devices, through the whole system, against an oracle on small random
// nodes: preemption happens exactly when the preemptor fits (CPU and devices) once every pod of
// lower priority is gone; the preemptor then binds, only lower-priority pods are evicted, and
// none of them could have stayed.
TEST_F(PreemptionTest, VictimsWithDevicesMatchTheOracleOnRandomNodes) {
  constexpr int64_t kCpu = 8, kDevices = 4;
  Cluster(0, 0);  // the device class
  for (int p = 0; p < 5; ++p) Class("p" + std::to_string(p), 100 * (p + 1));
  for (int k = 1; k <= 3; ++k) {
    Create(api::ResourceFor<api::ResourceClaimTemplate>(),
           workloads::MakeClaimTemplate("default", "gpus-" + std::to_string(k),
                                        workloads::ClaimSpec(kDriver, k)));
  }
  Start();
  std::mt19937 rng(11);
  int preempted = 0, refused = 0;
  for (int round = 0; round < 30; ++round) {
    const std::string r = std::to_string(round);
    const std::string node = "node-" + r;
    const workloads::NodeShape shape{
        .cpu = std::to_string(kCpu), .memory = "256Gi", .ready_condition = false};
    auto n = workloads::MakeNode(node, shape);
    n->metadata.labels["round"] = r;
    Create(api::ResourceFor<api::Node>(), std::move(n));
    ASSERT_TRUE(
        client_->UpdateStatus(api::ResourceFor<api::Node>(), workloads::MakeNode(node, shape))
            .ok());
    Create(api::ResourceFor<api::ResourceSlice>(),
           workloads::MakeNodeLocalSlice(node + "-gpu", kDriver, node, kDevices));
    struct Placed {
      std::string name;
      int64_t cpu, devices;
      int priority;
    };
    auto pod = [&](const std::string& name, int64_t cpu, int64_t devices, int priority) {
      auto p = workloads::MakePod("default", name, std::to_string(cpu), "100Mi");
      p->spec.priorityClassName = "p" + std::to_string(priority);
      p->spec.nodeSelector = {{"round", r}};
      if (devices > 0) workloads::AddTemplateClaim(*p, "gpu", "gpus-" + std::to_string(devices));
      Create(api::ResourceFor<api::Pod>(), std::move(p));
    };
    std::vector<Placed> placed;
    int64_t cpu_used = 0, dev_used = 0;
    for (int i = 0; i < 5; ++i) {
      const int64_t cpu = 1 + rng() % 3, dev = rng() % 3;
      if (cpu_used + cpu > kCpu || dev_used + dev > kDevices) break;
      cpu_used += cpu;
      dev_used += dev;
      placed.push_back({"r" + r + "-p" + std::to_string(i), cpu, dev, static_cast<int>(rng() % 4)});
      pod(placed.back().name, cpu, dev, placed.back().priority);
    }
    for (const Placed& p : placed) ASSERT_TRUE(WaitBound(p.name)) << PodMessage(p.name);
    const int64_t pre_cpu = 1 + rng() % kCpu, pre_dev = 1 + rng() % 3;
    const int pre_priority = 2 + static_cast<int>(rng() % 3);
    const std::string preemptor = "r" + r + "-preemptor";
    pod(preemptor, pre_cpu, pre_dev, pre_priority);

    int64_t kept_cpu = 0, kept_dev = 0;
    bool any_lower = false;
    for (const Placed& p : placed) {
      if (p.priority >= pre_priority) {
        kept_cpu += p.cpu;
        kept_dev += p.devices;
      }
      any_lower = any_lower || p.priority < pre_priority;
    }
    const bool possible = any_lower && kept_cpu + pre_cpu <= kCpu && kept_dev + pre_dev <= kDevices;
    const bool fits_now = cpu_used + pre_cpu <= kCpu && dev_used + pre_dev <= kDevices;
    if (fits_now) {  // no preemption needed: nothing to check here
      ASSERT_TRUE(WaitBound(preemptor)) << PodMessage(preemptor);
      continue;
    }
    if (!possible) {
      ++refused;
      ASSERT_TRUE(testing::WaitUntil([&] { return !PodMessage(preemptor).empty(); }, seconds(10)));
      EXPECT_TRUE(GetPod(preemptor)->spec.nodeName.empty()) << "round " << round;
      for (const Placed& p : placed) EXPECT_NE(GetPod(p.name), nullptr) << "round " << round;
      ASSERT_TRUE(client_->Delete(api::ResourceFor<api::Pod>(), "default", preemptor).ok());
      continue;
    }
    ++preempted;
    ASSERT_TRUE(WaitBound(preemptor)) << PodMessage(preemptor) << " round " << round;
    EXPECT_EQ(GetPod(preemptor)->spec.nodeName, node);
    int64_t rem_cpu = 0, rem_dev = 0;
    std::vector<Placed> victims;
    for (const Placed& p : placed) {
      if (GetPod(p.name)) {
        rem_cpu += p.cpu;
        rem_dev += p.devices;
      } else {
        victims.push_back(p);
      }
    }
    EXPECT_FALSE(victims.empty()) << "round " << round;
    EXPECT_LE(rem_cpu + pre_cpu, kCpu) << "round " << round;
    EXPECT_LE(rem_dev + pre_dev, kDevices) << "round " << round;
    for (const Placed& v : victims) {
      EXPECT_LT(v.priority, pre_priority) << v.name << " round " << round;
      EXPECT_TRUE(rem_cpu + v.cpu + pre_cpu > kCpu || rem_dev + v.devices + pre_dev > kDevices)
          << v.name << " could have stayed, round " << round;
    }
  }
  EXPECT_GE(preempted, 5);
  EXPECT_GE(refused, 3);
  ExpectInvariants();
}

}  // namespace
}  // namespace allot::integration
