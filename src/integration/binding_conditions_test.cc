// Device binding conditions (KEP-5007, docs/architecture.md §5.4) end to end in one process: the
// store, the resourceclaim controller and the scheduler, node-local slices and one "fabric" pool of
// devices usable from every node that must be attached first (bindsToNode, bindingConditions
// [example.com/attached], bindingFailureConditions [example.com/attach-failed]). The test plays
// the fabric driver: it writes the claims' status.devices conditions and taints devices.
//
// What is proven: node-local devices are preferred and bind at once; a pod with a fabric device
// waits in PreBind (nominated, with an event) until the condition is True and then binds to the
// nominated node; a failure condition or the timeout clears the claim and the pod is scheduled
// anew; several claims and shared claims; a scheduler restart resumes the wait (and Stop does
// not wait for it); with the gates off fabric devices are never picked; a thousand pods waiting
// at once hold up neither the pods without claims nor Stop; and no device is ever held by two
// claims.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <set>
#include <thread>

#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/core/types.h"
#include "api/resource/types.h"
#include "common/metrics.h"
#include "integration/dra_fixture.h"
#include "scheduler/plugins/dynamicresources/dynamic_resources.h"
#include "scheduler/plugins/names.h"
#include "testing/wait.h"

namespace allot::integration {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr char kAttached[] = "example.com/attached";
constexpr char kAttachFailed[] = "example.com/attach-failed";
constexpr char kFabricPool[] = "fabric";

class BindingConditionsTest : public DraFixture {
 protected:
  // The fabric pool: `devices` devices "fab-<i>", usable from every node once attached.
  void FabricSlice(int devices, const std::set<std::string>& tainted = {}) {
    auto s = std::make_unique<api::ResourceSlice>();
    s->metadata.name = "fabric";
    s->spec.driver = kDriver;
    s->spec.pool = {kFabricPool, 1, 1};
    s->spec.allNodes = true;
    for (int d = 0; d < devices; ++d) {
      api::Device dev;
      dev.name = "fab-" + std::to_string(d);
      dev.attributes["index"].intValue = d;
      dev.capacity["memory"].value = *api::Quantity::Parse("80Gi");
      dev.bindsToNode = true;
      dev.bindingConditions = {kAttached};
      dev.bindingFailureConditions = {kAttachFailed};
      if (tainted.count(dev.name)) dev.taints.push_back(Taint());
      s->spec.devices.push_back(std::move(dev));
    }
    Create(api::ResourceFor<api::ResourceSlice>(), std::move(s));
  }
  static api::DeviceTaint Taint() {
    api::DeviceTaint t;
    t.key = "example.com/unhealthy";
    t.effect = "NoSchedule";
    return t;
  }
  // As the driver: (un)taints fabric devices.
  void SetTainted(const std::set<std::string>& tainted) {
    for (int attempt = 0; attempt < 10; ++attempt) {
      auto cur = client_->Get(api::ResourceFor<api::ResourceSlice>(), "", "fabric");
      ASSERT_TRUE(cur.ok()) << cur.status().ToString();
      auto copy = std::make_unique<api::ResourceSlice>(*api::As<api::ResourceSlice>(**cur));
      for (api::Device& d : copy->spec.devices) {
        d.taints.clear();
        if (tainted.count(d.name)) d.taints.push_back(Taint());
      }
      auto w = client_->Update(api::ResourceFor<api::ResourceSlice>(), std::move(copy));
      if (w.ok()) return;
      ASSERT_EQ(w.status().code(), StatusCode::kConflict) << w.status().ToString();
    }
    FAIL() << "too many conflicts updating the fabric slice";
  }

  // As the driver: sets condition `type` on the claim's devices that have binding conditions
  // (only `device` when given).
  void SetCondition(const std::string& claim, const std::string& type,
                    const std::string& device = "") {
    for (int attempt = 0; attempt < 10; ++attempt) {
      auto cur = GetClaim(claim);
      ASSERT_TRUE(cur && cur->status.allocation) << "claim " << claim << " is not allocated";
      auto copy = std::make_unique<api::ResourceClaim>(*cur);
      for (const auto& r : cur->status.allocation->devices.results) {
        if (r.rare->bindingConditions.empty() || (!device.empty() && r.device != device)) continue;
        api::AllocatedDeviceStatus* st = nullptr;
        for (auto& d : copy->status.devices) {
          if (d.driver == r.driver && d.pool == r.pool && d.device == r.device &&
              d.shareID == r.rare->shareID) {
            st = &d;
          }
        }
        if (!st) {
          st = &copy->status.devices.emplace_back();
          st->driver = r.driver;
          st->pool = r.pool;
          st->device = r.device;
          st->shareID = r.rare->shareID;
        }
        std::erase_if(st->conditions, [&](const api::Condition& c) { return c.type == type; });
        api::Condition c;
        c.type = type;
        c.status = "True";
        c.reason = type == kAttachFailed ? "AttachFailed" : "Attached";
        c.message = type == kAttachFailed ? "the fabric switch refused the link" : "";
        c.lastTransitionTime = RealClock::Instance().Now().TruncatedToSeconds();
        st->conditions.push_back(std::move(c));
      }
      auto w = client_->UpdateStatus(api::ResourceFor<api::ResourceClaim>(), std::move(copy));
      if (w.ok()) return;
      ASSERT_EQ(w.status().code(), StatusCode::kConflict) << w.status().ToString();
    }
    FAIL() << "too many conflicts writing the status of claim " << claim;
  }

  bool Allocated(const std::string& claim) {
    auto c = GetClaim(claim);
    return c && c->status.allocation;
  }
  // The devices ("pool/device") allocated to the claim; empty when unallocated.
  std::vector<std::string> DevicesOf(const std::string& claim) {
    std::vector<std::string> out;
    auto c = GetClaim(claim);
    if (!c || !c->status.allocation) return out;
    for (const auto& r : c->status.allocation->devices.results)
      out.push_back(r.pool + "/" + r.device);
    return out;
  }
  std::string NodeOf(const std::string& pod) {
    auto p = GetPod(pod);
    return p ? p->spec.nodeName : "";
  }
  std::string NominatedOf(const std::string& pod) {
    auto p = GetPod(pod);
    return p ? p->status.nominatedNodeName : "";
  }
  // Events of `reason` about the pod.
  // The node the claim's allocation is pinned to: the one node of the cluster its node selector
  // matches ("" when it matches none or several).
  std::string PinnedNode(const std::string& claim) {
    auto c = GetClaim(claim);
    if (!c || !c->status.allocation || !c->status.allocation->nodeSelector) return "";
    std::string match;
    int n = 0;
    for (const auto& node : ListAll<api::Node>(*store_, api::ResourceFor<api::Node>())) {
      if (api::MatchesNodeSelector(*c->status.allocation->nodeSelector, node->metadata.labels,
                                   node->metadata.name)) {
        match = node->metadata.name;
        ++n;
      }
    }
    return n == 1 ? match : "";
  }
  // The pod waits in PreBind: once the scheduler has handled every claim change made so far
  // (Fence on its claim `ref`), the DynamicResources plugin still holds the pod's wait and the
  // pod is unbound. Nothing binds a waiting pod but a claim change, so this is decided here
  // rather than watched for a while.
  bool WaitsInPreBind(const std::string& pod, const std::string& ref = "gpu") {
    auto p = GetPod(pod);
    if (!p) return false;
    std::string claim;
    for (const api::PodResourceClaim& c : p->spec.resourceClaims) {
      if (c.name == ref) claim = c.resourceClaimName.value_or("");
    }
    if (!Fence(claim.empty() ? ClaimOf(pod, ref) : claim)) return false;
    p = GetPod(pod);
    if (!p || !p->spec.nodeName.empty()) return false;
    scheduler::Framework* fw = sched_->FrameworkFor("default-scheduler");
    auto* dra = fw ? dynamic_cast<scheduler::DynamicResources*>(
                         fw->FindPlugin(scheduler::names::kDynamicResources))
                   : nullptr;
    return dra && dra->binding_waiter().IsWaiting(p->metadata.uid);
  }

  // For tests running the scheduler in fake time; outlives the scheduler (TearDown stops it).
  FakeClock fake_clock_;

  // Scheduling attempts so far, whatever their result (scheduler_schedule_attempts_total).
  double Attempts() {
    auto& attempts =
        sched_->metrics_registry().AddCounter("scheduler_schedule_attempts_total", "",
                                              metrics::Stability::kStable, {"result", "profile"});
    double sum = 0;
    for (const char* result : {"scheduled", "unschedulable", "error"}) {
      sum += attempts.With({result, "default-scheduler"}).value();
    }
    return sum;
  }

  double Allocations(const std::string& status) {
    return sched_->metrics_registry()
        .AddCounter("scheduler_dra_bindingconditions_allocations_total", "",
                    metrics::Stability::kAlpha, {"profile", "driver", "status"})
        .With({"default-scheduler", kDriver, status})
        .value();
  }
  uint64_t PreBindObservations(const std::string& status, const std::string& requires_bc) {
    return sched_->metrics_registry()
        .AddHistogram("scheduler_dra_bindingconditions_prebind_duration_seconds", "",
                      metrics::Stability::kAlpha, {"status", "requires_bindingconditions"},
                      metrics::ExponentialBuckets(0.1, 2, 14))
        .With({status, requires_bc})
        .Read()
        .count;
  }
  uint64_t WaitObservations(const std::string& status) {
    return sched_->metrics_registry()
        .AddHistogram("scheduler_dra_bindingconditions_wait_duration_seconds", "",
                      metrics::Stability::kAlpha, {"profile", "driver", "status"},
                      metrics::ExponentialBuckets(0.1, 2, 14))
        .With({"default-scheduler", kDriver, status})
        .Read()
        .count;
  }

  double WaitSeconds(const std::string& status) {
    return sched_->metrics_registry()
        .AddHistogram("scheduler_dra_bindingconditions_wait_duration_seconds", "",
                      metrics::Stability::kAlpha, {"profile", "driver", "status"},
                      metrics::ExponentialBuckets(0.1, 2, 14))
        .With({"default-scheduler", kDriver, status})
        .Read()
        .sum;
  }

  // Waits until the pod waits for binding conditions: its claims allocated, the pod nominated.
  // Returns the nominated node.
  std::string WaitUntilWaiting(const std::string& pod) {
    std::string node;
    EXPECT_TRUE(testing::WaitUntil(
        [&] {
          node = NominatedOf(pod);
          return !node.empty();
        },
        seconds(10)))
        << pod << " was never nominated; " << PodMessage(pod);
    return node;
  }
};

// 1. Node-local devices first: the pod binds at once, without waiting. Only when they are taken
// does a pod get a fabric device, and then it waits for it.
TEST_F(BindingConditionsTest, NodeLocalDevicesArePreferredAndBindWithoutWaiting) {
  Cluster(1, 1);
  FabricSlice(2);
  Template("one-gpu");
  Start();
  Pod("local", "one-gpu");
  ASSERT_TRUE(testing::WaitUntil([&] { return !NodeOf("local").empty(); }, seconds(10)))
      << PodMessage("local");
  std::string local_claim = ClaimOf("local");
  EXPECT_EQ(DevicesOf(local_claim), std::vector<std::string>{"node-0/gpu-0"});
  auto c = GetClaim(local_claim);
  ASSERT_TRUE(c && c->status.allocation);
  EXPECT_TRUE(c->status.allocation->devices.results[0].rare->bindingConditions.empty());
  EXPECT_TRUE(EventMessages("local", "BindingConditionsPending").empty());
  EXPECT_EQ(NominatedOf("local"), "");
  EXPECT_EQ(PreBindObservations("success", "false"), 1u);

  // The node-local device is taken: the next pod gets a fabric device and waits for it.
  Pod("fabric", "one-gpu");
  std::string node = WaitUntilWaiting("fabric");
  EXPECT_EQ(node, "node-0");
  std::string fabric_claim = ClaimOf("fabric");
  ASSERT_EQ(DevicesOf(fabric_claim).size(), 1u);
  EXPECT_EQ(DevicesOf(fabric_claim)[0].rfind("fabric/fab-", 0), 0u) << DevicesOf(fabric_claim)[0];
  EXPECT_TRUE(WaitsInPreBind("fabric"));
  SetCondition(fabric_claim, kAttached);
  ASSERT_TRUE(testing::WaitUntil([&] { return NodeOf("fabric") == "node-0"; }, seconds(10)));
  ExpectInvariants();
}

// 1b. Across nodes: a node with a free node-local device is preferred over one where only a
// fabric device is left.
TEST_F(BindingConditionsTest, NodeWithAFreeLocalDeviceIsPreferred) {
  Cluster(2, 1);
  FabricSlice(4);
  Template("one-gpu");
  Start();
  Pod("first", "one-gpu");
  ASSERT_TRUE(testing::WaitUntil([&] { return !NodeOf("first").empty(); }, seconds(10)));
  Pod("second", "one-gpu");
  // "second" must get the other node's node-local device and bind at once, not a fabric
  // device on the first pod's node.
  ASSERT_TRUE(testing::WaitUntil([&] { return !NodeOf("second").empty(); }, seconds(5)))
      << "second waits on " << NominatedOf("second") << " for "
      << (DevicesOf(ClaimOf("second")).empty() ? "?" : DevicesOf(ClaimOf("second"))[0]);
  EXPECT_NE(NodeOf("first"), NodeOf("second"));
  for (const char* p : {"first", "second"}) {
    ASSERT_EQ(DevicesOf(ClaimOf(p)).size(), 1u);
    EXPECT_EQ(DevicesOf(ClaimOf(p))[0], NodeOf(p) + "/gpu-0");
  }
  ExpectInvariants();
}

// 2. The pod waits, not bound, nominated, with an event; its claim is allocated with the
// conditions copied, pinned to the node, timestamped. The condition turns True: it binds to the
// nominated node at once.
TEST_F(BindingConditionsTest, WaitsForTheConditionThenBindsToTheNominatedNode) {
  Cluster(2, 0);
  FabricSlice(2);
  Template("one-gpu");
  Start();
  Pod("p", "one-gpu");
  std::string node = WaitUntilWaiting("p");
  std::string claim = ClaimOf("p");
  auto c = GetClaim(claim);
  ASSERT_TRUE(c && c->status.allocation);
  const api::AllocationResult& alloc = *c->status.allocation;
  ASSERT_EQ(alloc.devices.results.size(), 1u);
  EXPECT_EQ(alloc.devices.results[0].pool, kFabricPool);
  EXPECT_EQ(alloc.devices.results[0].rare->bindingConditions, std::vector<std::string>{kAttached});
  EXPECT_EQ(alloc.devices.results[0].rare->bindingFailureConditions,
            std::vector<std::string>{kAttachFailed});
  ASSERT_TRUE(alloc.allocationTimestamp.has_value());
  EXPECT_LE(std::abs(alloc.allocationTimestamp->unix_seconds() -
                     RealClock::Instance().Now().unix_seconds()),
            30);
  EXPECT_EQ(PinnedNode(claim), node) << "bindsToNode pins the allocation to the nominated node";
  ASSERT_EQ(c->status.reservedFor.size(), 1u);
  EXPECT_EQ(c->status.reservedFor[0].name, "p");
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return HasEvent("p", "BindingConditionsPending", kAttached); }, seconds(5)));
  EXPECT_NE(EventMessages("p", "BindingConditionsPending")[0].find(node), std::string::npos)
      << EventMessages("p", "BindingConditionsPending")[0];
  EXPECT_TRUE(WaitsInPreBind("p"));
  EXPECT_EQ(Allocations("success"), 0);

  auto set_at = std::chrono::steady_clock::now();
  SetCondition(claim, kAttached);
  ASSERT_TRUE(testing::WaitUntil([&] { return !NodeOf("p").empty(); }, seconds(10)));
  EXPECT_LT(std::chrono::steady_clock::now() - set_at, seconds(2)) << "bound promptly";
  EXPECT_EQ(NodeOf("p"), node);
  EXPECT_EQ(Allocations("success"), 1);
  EXPECT_EQ(Allocations("failure"), 0);
  EXPECT_EQ(Allocations("timeout"), 0);
  EXPECT_EQ(WaitObservations("success"), 1u);
  EXPECT_EQ(PreBindObservations("success", "true"), 1u);
  auto bound_claim = GetClaim(claim);
  ASSERT_TRUE(bound_claim && bound_claim->status.allocation);
  EXPECT_EQ(bound_claim->status.allocation->allocationTimestamp, alloc.allocationTimestamp);
  ExpectInvariants();
}

// 3. A failure condition: the claim's allocation, reservedFor and device statuses are cleared,
// the pod reports the condition, and it is scheduled anew onto another device.
TEST_F(BindingConditionsTest, FailureConditionClearsTheClaimAndReschedules) {
  Cluster(2, 0);
  FabricSlice(2, {"fab-1"});  // fab-1 is unhealthy at first: the pod gets fab-0
  Template("one-gpu");
  Start();
  Pod("p", "one-gpu");
  WaitUntilWaiting("p");
  std::string claim = ClaimOf("p");
  ASSERT_EQ(DevicesOf(claim), std::vector<std::string>{"fabric/fab-0"});

  // The driver fails to attach fab-0 and marks it unhealthy; fab-1 is still unhealthy too, so
  // the pod cannot be placed at once and the cleared claim can be looked at.
  SetTainted({"fab-0", "fab-1"});
  SetCondition(claim, kAttachFailed);
  ASSERT_TRUE(testing::WaitUntil(
      [&] {
        auto c = GetClaim(claim);
        return c && !c->status.allocation && c->status.reservedFor.empty() &&
               c->status.devices.empty() && c->metadata.finalizers.empty();
      },
      seconds(10)))
      << "the claim was not cleared";
  ASSERT_TRUE(testing::WaitUntil([&] { return HasEvent("p", "FailedScheduling", kAttachFailed); },
                                 seconds(5)));
  EXPECT_TRUE(testing::WaitUntil([&] { return NominatedOf("p").empty(); }, seconds(5)));
  EXPECT_EQ(NodeOf("p"), "");
  EXPECT_EQ(Allocations("failure"), 1);

  // fab-1 recovers: the pod is scheduled onto it, waits, and binds once it is attached.
  SetTainted({"fab-0"});
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return DevicesOf(claim) == std::vector<std::string>{"fabric/fab-1"}; }, seconds(10)))
      << PodMessage("p");
  std::string node = WaitUntilWaiting("p");
  EXPECT_TRUE(WaitsInPreBind("p"));
  SetCondition(claim, kAttached);
  ASSERT_TRUE(testing::WaitUntil([&] { return !NodeOf("p").empty(); }, seconds(10)));
  EXPECT_EQ(NodeOf("p"), node);
  EXPECT_EQ(Allocations("success"), 1);
  ExpectInvariants();
}

// 4. The timeout, in fake time (bindingTimeout 2m from the scheduler configuration): not before
// allocationTimestamp + 2m, then the claim is cleared and the pod retried.
TEST_F(BindingConditionsTest, TimeoutClearsTheClaimAndRequeuesThePod) {
  FakeClock& clock = fake_clock_;
  Cluster(1, 0);
  FabricSlice(1);
  Template("one-gpu");
  StartControllers();
  StartScheduler([&](scheduler::SchedulerOptions& o) {
    o.clock = &clock;
    o.config.profiles[0].plugin_config.push_back(
        {"DynamicResources", R"({"bindingTimeout":"2m0s"})"});
  });
  // With a FakeClock the queue's backoff runs in fake time: move it along while waiting for
  // the pod, in steps far below the binding timeout.
  auto pump = [&] {
    clock.Advance(milliseconds(200));
    sched_->Housekeeping();
  };
  auto wait_pumping = [&](const std::function<bool()>& done) {
    return testing::WaitUntil(
        [&] {
          if (done()) return true;
          pump();
          return false;
        },
        seconds(10));
  };
  Pod("p", "one-gpu");
  ASSERT_TRUE(wait_pumping([&] { return !NominatedOf("p").empty(); })) << PodMessage("p");
  std::string claim = ClaimOf("p");
  auto c = GetClaim(claim);
  ASSERT_TRUE(c && c->status.allocation && c->status.allocation->allocationTimestamp);
  const Time allocated = *c->status.allocation->allocationTimestamp;
  // The timestamp is the scheduler's (fake) time.
  EXPECT_LE(allocated, clock.Now());
  EXPECT_GE(allocated.unix_seconds(), Time::FromUnixSeconds(1700000000).unix_seconds());

  // One second before the deadline: nothing happens.
  auto until = [&](Time t) {
    if (clock.Now() < t)
      clock.Advance(std::chrono::microseconds(t.unix_micros - clock.Now().unix_micros));
  };
  until(Time{allocated.unix_micros + std::chrono::microseconds(seconds(119)).count()});
  sched_->Housekeeping();
  EXPECT_TRUE(WaitsInPreBind("p"));
  EXPECT_TRUE(Allocated(claim));
  EXPECT_EQ(Allocations("timeout"), 0);

  // The deadline: the wait times out, the claim is cleared, the pod goes back to the queue.
  until(Time{allocated.unix_micros + std::chrono::microseconds(seconds(120)).count()});
  sched_->Housekeeping();
  ASSERT_TRUE(testing::WaitUntil([&] { return Allocations("timeout") == 1; }, seconds(5)));
  EXPECT_EQ(WaitObservations("timeout"), 1u);
  // Waits are measured in the scheduler's clock (fake here): about the 2 minutes.
  EXPECT_GE(WaitSeconds("timeout"), 110.0);
  EXPECT_EQ(PreBindObservations("timeout", "true"), 1u);
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return HasEvent("p", "FailedScheduling", "not met within 120s"); }, seconds(5)))
      << PodMessage("p");
  // Retried (after its backoff, in fake time): allocated anew with a new timestamp; this time
  // the device is attached in time.
  ASSERT_TRUE(wait_pumping([&] {
    auto now = GetClaim(claim);
    return now && now->status.allocation && now->status.allocation->allocationTimestamp &&
           *now->status.allocation->allocationTimestamp > allocated;
  })) << "the pod was not retried; it is in the queue's \""
      << sched_->queue().Where(GetPod("p")->metadata.uid) << "\" pods; " << PodMessage("p");
  ASSERT_TRUE(testing::WaitUntil([&] { return !NominatedOf("p").empty(); }, seconds(5)));
  SetCondition(claim, kAttached);
  ASSERT_TRUE(wait_pumping([&] { return !NodeOf("p").empty(); })) << PodMessage("p");
  EXPECT_EQ(Allocations("timeout"), 1);
  EXPECT_EQ(Allocations("success"), 1);
  ExpectInvariants();
}

// 5. A pod with two fabric claims binds only once both are attached.
TEST_F(BindingConditionsTest, SeveralClaimsBindOnlyWhenAllAreReady) {
  Cluster(1, 0);
  FabricSlice(3);
  Template("one-gpu");
  Start();
  PodWithClaims("p", {{"a", "one-gpu", ""}, {"b", "one-gpu", ""}});
  WaitUntilWaiting("p");
  std::string a = ClaimOf("p", "a"), b = ClaimOf("p", "b");
  ASSERT_TRUE(Allocated(a) && Allocated(b));
  SetCondition(a, kAttached);
  EXPECT_TRUE(WaitsInPreBind("p", "a"));
  SetCondition(b, kAttached);
  ASSERT_TRUE(testing::WaitUntil([&] { return !NodeOf("p").empty(); }, seconds(10)));
  EXPECT_EQ(Allocations("success"), 1);
  ExpectInvariants();
}

// 6. Two pods share one claim: both wait; one condition makes both bind.
TEST_F(BindingConditionsTest, PodsSharingAClaimAllBindWhenItIsReady) {
  Cluster(2, 0);
  FabricSlice(2);
  Claim("shared");
  Start();
  Pod("a", "", "shared");
  Pod("b", "", "shared");
  std::string node = WaitUntilWaiting("a");
  EXPECT_EQ(WaitUntilWaiting("b"), node);
  ASSERT_TRUE(testing::WaitUntil([&] { return GetClaim("shared")->status.reservedFor.size() == 2; },
                                 seconds(10)));
  EXPECT_TRUE(WaitsInPreBind("a"));
  EXPECT_TRUE(WaitsInPreBind("b"));
  SetCondition("shared", kAttached);
  ASSERT_TRUE(testing::WaitUntil([&] { return !NodeOf("a").empty() && !NodeOf("b").empty(); },
                                 seconds(10)));
  EXPECT_EQ(NodeOf("a"), node);
  EXPECT_EQ(NodeOf("b"), node);
  EXPECT_EQ(Allocations("success"), 2);
  ExpectInvariants();
}

// 6b. A failure on a shared claim fails every pod waiting on it, and the claim is cleared once,
// for all of them.
TEST_F(BindingConditionsTest, FailureOfASharedClaimFailsEveryWaitingPod) {
  Cluster(1, 0);
  FabricSlice(2, {"fab-1"});
  Claim("shared");
  Start();
  Pod("a", "", "shared");
  Pod("b", "", "shared");
  WaitUntilWaiting("a");
  WaitUntilWaiting("b");
  ASSERT_TRUE(testing::WaitUntil([&] { return GetClaim("shared")->status.reservedFor.size() == 2; },
                                 seconds(10)));
  SetTainted({"fab-0", "fab-1"});
  SetCondition("shared", kAttachFailed);
  ASSERT_TRUE(testing::WaitUntil(
      [&] {
        auto c = GetClaim("shared");
        return !c->status.allocation && c->status.reservedFor.empty() && c->status.devices.empty();
      },
      seconds(10)));
  ASSERT_TRUE(testing::WaitUntil([&] { return Allocations("failure") == 2; }, seconds(5)));
  SetTainted({});
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return !NominatedOf("a").empty() && !NominatedOf("b").empty(); }, seconds(10)));
  ASSERT_TRUE(testing::WaitUntil([&] { return Allocated("shared"); }, seconds(10)));
  SetCondition("shared", kAttached);
  ASSERT_TRUE(testing::WaitUntil([&] { return !NodeOf("a").empty() && !NodeOf("b").empty(); },
                                 seconds(10)));
  ExpectInvariants();
}

// 6c. A device fails after a pod runs with it; a second pod joining the shared claim fails its
// wait, but the claim stays allocated and reserved for the running pod.
TEST_F(BindingConditionsTest, LatecomerFailureDoesNotTakeTheClaimFromARunningPod) {
  Cluster(1, 0);
  FabricSlice(2);
  Claim("shared");
  Start();
  Pod("running", "", "shared");
  WaitUntilWaiting("running");
  SetCondition("shared", kAttached);
  ASSERT_TRUE(testing::WaitUntil([&] { return !NodeOf("running").empty(); }, seconds(10)));
  auto before = GetClaim("shared");
  // Later the driver reports the link down.
  SetCondition("shared", kAttachFailed);
  Pod("late", "", "shared");
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return HasEvent("late", "FailedScheduling", kAttachFailed); }, seconds(10)))
      << PodMessage("late");
  EXPECT_EQ(NodeOf("late"), "");
  // Whatever the late pod's retries do meanwhile (two more attempts, observed in the
  // scheduler's metrics), the running pod keeps its claim.
  const double attempts = Attempts();
  ASSERT_TRUE(testing::WaitUntil([&] { return Attempts() >= attempts + 2; }, seconds(10)));
  auto after = GetClaim("shared");
  ASSERT_TRUE(after->status.allocation) << "the allocation was taken from a running pod";
  EXPECT_EQ(*after->status.allocation, *before->status.allocation);
  bool running_reserved = false;
  for (const auto& r : after->status.reservedFor) running_reserved |= r.name == "running";
  EXPECT_TRUE(running_reserved);
  EXPECT_FALSE(after->status.devices.empty());
  EXPECT_FALSE(after->metadata.finalizers.empty());
  ASSERT_TRUE(client_->Delete(api::ResourceFor<api::Pod>(), "default", "late").ok());
  ExpectInvariants();
}

// 7. A scheduler restart while a pod waits: Stop returns at once (no 10-minute drain), the claim
// keeps its allocation and reservation, the new scheduler waits again and binds the pod when
// the condition turns True.
TEST_F(BindingConditionsTest, RestartedSchedulerResumesTheWait) {
  Cluster(2, 0);
  FabricSlice(2);
  Template("one-gpu");
  Start();
  Pod("p", "one-gpu");
  std::string node = WaitUntilWaiting("p");
  std::string claim = ClaimOf("p");
  auto before = GetClaim(claim);
  ASSERT_TRUE(before && before->status.allocation);

  auto stop_at = std::chrono::steady_clock::now();
  StopScheduler();
  EXPECT_LT(std::chrono::steady_clock::now() - stop_at, seconds(3)) << "Stop waited for the wait";
  auto after = GetClaim(claim);
  ASSERT_TRUE(after && after->status.allocation) << "the claim lost its allocation";
  EXPECT_EQ(*after->status.allocation, *before->status.allocation);
  ASSERT_EQ(after->status.reservedFor.size(), 1u);
  EXPECT_EQ(after->status.reservedFor[0].name, "p");

  size_t events = EventMessages("p", "BindingConditionsPending").size();
  StartScheduler();
  // The new scheduler finds the pod and waits again (a new event, same node).
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return EventMessages("p", "BindingConditionsPending").size() > events; }, seconds(10)))
      << PodMessage("p");
  EXPECT_TRUE(WaitsInPreBind("p"));
  EXPECT_EQ(NominatedOf("p"), node);
  SetCondition(claim, kAttached);
  ASSERT_TRUE(testing::WaitUntil([&] { return !NodeOf("p").empty(); }, seconds(10)));
  EXPECT_EQ(NodeOf("p"), node);
  EXPECT_EQ(Allocations("success"), 1);
  ExpectInvariants();
}

// 7b. The condition turns True while no scheduler runs: the next one binds the pod at once.
TEST_F(BindingConditionsTest, ConditionMetWhileNoSchedulerRunsBindsAtOnce) {
  Cluster(2, 0);
  FabricSlice(2);
  Template("one-gpu");
  Start();
  Pod("p", "one-gpu");
  std::string node = WaitUntilWaiting("p");
  std::string claim = ClaimOf("p");
  StopScheduler();
  SetCondition(claim, kAttached);
  StartScheduler();
  ASSERT_TRUE(testing::WaitUntil([&] { return !NodeOf("p").empty(); }, seconds(10)))
      << PodMessage("p");
  EXPECT_EQ(NodeOf("p"), node);
  ExpectInvariants();
}

// 8. With DRADeviceBindingConditions or DRAResourceClaimDeviceStatus off, fabric devices are
// never picked.
TEST_F(BindingConditionsTest, GatesOffFabricDevicesAreNeverPicked) {
  for (int gate = 0; gate < 2; ++gate) {
    SCOPED_TRACE(gate == 0 ? "DRADeviceBindingConditions=false"
                           : "DRAResourceClaimDeviceStatus=false");
    if (gate == 0) {
      Cluster(1, 0);
      FabricSlice(2);
      Template("one-gpu");
      StartControllers();
    }
    StartScheduler([&](scheduler::SchedulerOptions& o) {
      if (gate == 0) o.dra_features.binding_conditions = false;
      if (gate == 1) o.dra_features.resource_claim_device_status = false;
    });
    std::string pod = "p" + std::to_string(gate);
    Pod(pod, "one-gpu");
    ASSERT_TRUE(testing::WaitUntil(
        [&] { return PodMessage(pod).find("cannot allocate all claims") != std::string::npos; },
        seconds(10)))
        << PodMessage(pod);
    EXPECT_FALSE(Allocated(ClaimOf(pod)));
    EXPECT_EQ(NominatedOf(pod), "");
    StopScheduler();
  }
  EXPECT_EQ(Bound(), 0);
  ExpectInvariants();
}

// 9. Many pods waiting do not hold up the rest: 1,000 pods each wait for a device that is never
// attached (per node, 5 node-local devices with bindsToNode and binding conditions that never
// turn True), then 10,000 pods without claims are created; all of them bind while the 1,000
// keep waiting (their waits hold no thread: see RunPreBindAndBind), every device is held by
// one claim only, and Stop() abandons the waits at once instead of draining them.
// A liveness test, not a benchmark: the time bounds are generous and throughput is not checked.
TEST_F(BindingConditionsTest, ThousandWaitingPodsDoNotSlowOthers) {
  constexpr int kNodes = 200;         // 110 pods each: room for all 11,000
  constexpr int kDevicesPerNode = 5;  // 1,000 devices, one per waiting pod
  constexpr int kWaiting = kNodes * kDevicesPerNode;
  constexpr int kOthers = 10'000;
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  Cluster(kNodes, 0);
  for (int i = 0; i < kNodes; ++i) {
    const std::string node = "node-" + std::to_string(i);
    auto s = std::make_unique<api::ResourceSlice>();
    s->metadata.name = node + "-att";
    s->spec.driver = kDriver;
    s->spec.pool = {node + "-att", 1, 1};
    s->spec.nodeName = node;
    for (int d = 0; d < kDevicesPerNode; ++d) {
      api::Device dev;
      dev.name = "att-" + std::to_string(d);
      dev.capacity["memory"].value = *api::Quantity::Parse("80Gi");
      dev.bindsToNode = true;
      dev.bindingConditions = {kAttached};
      dev.bindingFailureConditions = {kAttachFailed};
      s->spec.devices.push_back(std::move(dev));
    }
    Create(api::ResourceFor<api::ResourceSlice>(), std::move(s));
  }
  Template("one-gpu");
  Start();

  // Polling 11,000 pods is not free: poll slowly, so the test does not compete with the
  // scheduler for the two cores it has.
  auto wait_slowly = [&](const std::function<bool()>& done, seconds timeout) {
    return testing::WaitUntil(done, timeout, milliseconds(200));
  };
  struct Counts {
    int waiting_bound = 0, waiting_nominated = 0, others_bound = 0, late_bound = 0;
  };
  auto count = [&] {
    Counts c;
    for (const auto& p : Pods()) {
      const std::string& name = p->metadata.name;
      const bool bound = !p->spec.nodeName.empty();
      if (name.rfind("wait-", 0) == 0) {
        c.waiting_bound += bound;
        c.waiting_nominated += !bound && !p->status.nominatedNodeName.empty();
      } else if (name.rfind("other-", 0) == 0) {
        c.others_bound += bound;
      } else {
        c.late_bound += bound;
      }
    }
    return c;
  };
  // Claims allocated a device with binding conditions, reserved for one pod and pinned to a
  // node.
  auto held = [&] {
    int n = 0;
    for (const auto& c : Claims()) {
      n += c->status.allocation.has_value() && c->status.reservedFor.size() == 1 &&
           c->status.allocation->nodeSelector.has_value() &&
           !c->status.allocation->devices.results.empty() &&
           !c->status.allocation->devices.results[0].rare->bindingConditions.empty();
    }
    return n;
  };

  for (int i = 0; i < kWaiting; ++i) Pod("wait-" + std::to_string(i), "one-gpu");
  ASSERT_TRUE(wait_slowly([&] { return count().waiting_nominated == kWaiting; }, seconds(60)))
      << count().waiting_nominated << " of " << kWaiting << " waiting pods nominated; e.g. "
      << PodMessage("wait-0");
  ASSERT_EQ(held(), kWaiting);
  EXPECT_EQ(count().waiting_bound, 0);
  EXPECT_EQ(sched_->bindings_in_flight(), static_cast<size_t>(kWaiting));
  const double waiting_at = elapsed();

  // The others: a container with small requests each, no claims.
  const auto others_from = std::chrono::steady_clock::now();
  for (int i = 0; i < kOthers; ++i) {
    auto p = std::make_unique<api::Pod>();
    p->metadata.name = "other-" + std::to_string(i);
    p->metadata.namespace_ = "default";
    api::Container c;
    c.name = "main";
    c.image = "registry.k8s.io/pause:3.10";
    c.resources.requests["cpu"] = *api::Quantity::Parse("10m");
    c.resources.requests["memory"] = *api::Quantity::Parse("16Mi");
    p->spec.containers.push_back(std::move(c));
    Create(api::ResourceFor<api::Pod>(), std::move(p));
  }
  ASSERT_TRUE(wait_slowly([&] { return count().others_bound == kOthers; }, seconds(120)))
      << count().others_bound << " of " << kOthers << " bound; " << PodMessage("other-0");
  const double others_took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - others_from).count();

  // The waiting pods still wait: unbound, nominated, in their binding stage, with their claims
  // allocated and reserved; no wait ended.
  Counts c = count();
  EXPECT_EQ(c.waiting_bound, 0);
  EXPECT_EQ(c.waiting_nominated, kWaiting);
  EXPECT_TRUE(testing::WaitUntil([&] { return sched_->bindings_in_flight() == size_t{kWaiting}; },
                                 seconds(5)))
      << sched_->bindings_in_flight() << " bindings in flight";
  EXPECT_EQ(held(), kWaiting);
  EXPECT_EQ(Allocations("success"), 0);
  EXPECT_EQ(Allocations("failure"), 0);
  EXPECT_EQ(Allocations("timeout"), 0);
  // Each waiting pod's claim is pinned to the node it is nominated for.
  int pinned_to_nomination = 0;
  for (int i = 0; i < kWaiting; i += 97) {
    const std::string pod = "wait-" + std::to_string(i);
    pinned_to_nomination += PinnedNode(ClaimOf(pod)) == NominatedOf(pod);
  }
  EXPECT_EQ(pinned_to_nomination, (kWaiting + 96) / 97);
  ExpectInvariants();  // no device held twice, over every claim write and in the end
  {
    std::lock_guard<std::mutex> lock(audit_mu_);
    EXPECT_GE(audit_.allocations_seen(), static_cast<size_t>(kWaiting));
  }

  // Pods with claims on devices without binding conditions still go through PreBind (it writes
  // their allocations) on the binding workers, which the 1,000 waits do not occupy: new plain
  // node-local devices on some nodes, and as many pods for them; they bind without waiting.
  constexpr int kLate = 20;
  for (int i = 0; i < kLate; ++i) {
    const std::string node = "node-" + std::to_string(i * (kNodes / kLate));
    auto s = std::make_unique<api::ResourceSlice>();
    s->metadata.name = node + "-gpu";
    s->spec.driver = kDriver;
    s->spec.pool = {node + "-gpu", 1, 1};
    s->spec.nodeName = node;
    api::Device dev;
    dev.name = "gpu-0";
    dev.capacity["memory"].value = *api::Quantity::Parse("80Gi");
    s->spec.devices.push_back(std::move(dev));
    Create(api::ResourceFor<api::ResourceSlice>(), std::move(s));
  }
  for (int i = 0; i < kLate; ++i) Pod("late-" + std::to_string(i), "one-gpu");
  ASSERT_TRUE(wait_slowly([&] { return count().late_bound == kLate; }, seconds(30)))
      << count().late_bound << " of " << kLate << " late pods bound; " << PodMessage("late-0");
  for (int i = 0; i < kLate; i += 7) {
    const std::string pod = "late-" + std::to_string(i);
    const std::vector<std::string> devices = DevicesOf(ClaimOf(pod));
    ASSERT_EQ(devices.size(), 1u);
    EXPECT_EQ(devices[0], NodeOf(pod) + "-gpu/gpu-0");
  }
  EXPECT_EQ(count().waiting_bound, 0);
  // (A late pod's binding stage ends just after its binding is visible.)
  EXPECT_TRUE(testing::WaitUntil([&] { return sched_->bindings_in_flight() == size_t{kWaiting}; },
                                 seconds(5)))
      << sched_->bindings_in_flight() << " bindings in flight";
  ExpectInvariants();

  // Stop abandons the 1,000 waits instead of draining them; the claims keep their state for the
  // next scheduler.
  const auto stop_at = std::chrono::steady_clock::now();
  StopScheduler();
  const double stop_took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - stop_at).count();
  EXPECT_LT(stop_took, 3.0) << "Stop waited for the waits";
  EXPECT_EQ(held(), kWaiting);
  EXPECT_EQ(count().waiting_bound, 0);
  std::printf("%d pods waiting after %.1f s; %d others bound in %.1f s; Stop took %.2f s\n",
              kWaiting, waiting_at, kOthers, others_took, stop_took);
}

}  // namespace
}  // namespace allot::integration
