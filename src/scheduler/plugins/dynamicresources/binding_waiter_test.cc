// BindingWaiter and EvaluateBindingConditions (KEP-5007): when a pod's wait for the binding
// conditions of its devices ends, and how. Time is a FakeClock; claims come from a map the test
// edits and then announces with OnClaim, as the claim informer would.
#include "scheduler/plugins/dynamicresources/binding_waiter.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace allot::scheduler {
namespace {

using std::chrono::seconds;
using Outcome = BindingWaiter::Outcome;
using State = BindingVerdict::State;

constexpr char kDriver[] = "fabric.example.com";
constexpr char kAttached[] = "example.com/attached";
constexpr char kReachable[] = "example.com/reachable";
constexpr char kFailed[] = "example.com/attach-failed";

api::DeviceRequestAllocationResult Result(const std::string& device,
                                          std::vector<std::string> conditions = {kAttached},
                                          std::vector<std::string> failure = {kFailed}) {
  api::DeviceRequestAllocationResult r;
  r.request = "gpu";
  r.driver = kDriver;
  r.pool = "fabric";
  r.device = device;
  r.rare.edit().bindingConditions = std::move(conditions);
  r.rare.edit().bindingFailureConditions = std::move(failure);
  return r;
}

api::Condition Cond(const std::string& type, const std::string& status,
                    const std::string& reason = "Reported", const std::string& message = "") {
  api::Condition c;
  c.type = type;
  c.status = status;
  c.reason = reason;
  c.message = message;
  c.lastTransitionTime = Time::FromUnixSeconds(1700000000);
  return c;
}

// The status.devices entry for `device` (created if missing), for the test to add conditions.
api::AllocatedDeviceStatus& DeviceStatus(api::ResourceClaim& claim, const std::string& device,
                                         std::optional<std::string> share_id = std::nullopt) {
  for (auto& d : claim.status.devices) {
    if (d.device == device && d.shareID == share_id) return d;
  }
  api::AllocatedDeviceStatus& d = claim.status.devices.emplace_back();
  d.driver = kDriver;
  d.pool = "fabric";
  d.device = device;
  d.shareID = std::move(share_id);
  return d;
}

api::ResourceClaim Claim(std::vector<api::DeviceRequestAllocationResult> results) {
  api::ResourceClaim c;
  c.metadata.namespace_ = "default";
  c.metadata.name = "c";
  c.metadata.uid = "uid-c";
  c.status.allocation.emplace();
  c.status.allocation->devices.results = std::move(results);
  return c;
}

// --- EvaluateBindingConditions
// --------------------------------------------------------------------

TEST(EvaluateBindingConditionsTest, ResultsWithoutConditionsAreReady) {
  api::ResourceClaim c = Claim({Result("dev-0", {}, {}), Result("dev-1", {}, {})});
  BindingVerdict v = EvaluateBindingConditions(c, *c.status.allocation);
  EXPECT_EQ(v.state, State::kReady);
  EXPECT_EQ(v.message, "");
  EXPECT_EQ(v.driver, "");
  EXPECT_FALSE(HasBindingConditions(*c.status.allocation));
  // An empty allocation too.
  api::AllocationResult empty;
  EXPECT_EQ(EvaluateBindingConditions(c, empty).state, State::kReady);
}

TEST(EvaluateBindingConditionsTest, PendingNamesTheDeviceAndTheMissingConditions) {
  api::ResourceClaim c =
      Claim({Result("dev-0", {kAttached, kReachable}), Result("dev-1"), Result("local", {}, {})});
  ASSERT_TRUE(HasBindingConditions(*c.status.allocation));
  DeviceStatus(c, "dev-0").conditions.push_back(Cond(kAttached, "True"));
  DeviceStatus(c, "dev-1").conditions.push_back(Cond(kAttached, "False"));  // not True yet
  BindingVerdict v = EvaluateBindingConditions(c, *c.status.allocation);
  EXPECT_EQ(v.state, State::kPending);
  EXPECT_EQ(v.driver, kDriver);
  EXPECT_EQ(v.message,
            "device fabric.example.com/fabric/dev-0: example.com/reachable; "
            "device fabric.example.com/fabric/dev-1: example.com/attached");

  DeviceStatus(c, "dev-0").conditions.push_back(Cond(kReachable, "True"));
  DeviceStatus(c, "dev-1").conditions[0].status = "True";
  v = EvaluateBindingConditions(c, *c.status.allocation);
  EXPECT_EQ(v.state, State::kReady) << v.message;
  EXPECT_EQ(v.message, "");
}

TEST(EvaluateBindingConditionsTest, UnknownStatusIsNotTrue) {
  api::ResourceClaim c = Claim({Result("dev-0")});
  DeviceStatus(c, "dev-0").conditions.push_back(Cond(kAttached, "Unknown"));
  DeviceStatus(c, "dev-0").conditions.push_back(Cond(kFailed, "Unknown"));
  EXPECT_EQ(EvaluateBindingConditions(c, *c.status.allocation).state, State::kPending);
}

TEST(EvaluateBindingConditionsTest, FailureConditionTrueFailsWithReasonAndMessage) {
  api::ResourceClaim c = Claim({Result("dev-0"), Result("dev-1")});
  // dev-0 is even attached: failure is checked before readiness.
  DeviceStatus(c, "dev-0").conditions.push_back(Cond(kAttached, "True"));
  DeviceStatus(c, "dev-1")
      .conditions.push_back(
          Cond(kFailed, "True", "AttachFailed", "the fabric switch refused the link"));
  BindingVerdict v = EvaluateBindingConditions(c, *c.status.allocation);
  EXPECT_EQ(v.state, State::kFailed);
  EXPECT_EQ(v.driver, kDriver);
  EXPECT_EQ(v.message,
            "device fabric.example.com/fabric/dev-1: binding failure condition "
            "example.com/attach-failed is True: AttachFailed: the fabric switch refused the link");

  // False failure conditions are no failure.
  DeviceStatus(c, "dev-1").conditions[0].status = "False";
  EXPECT_EQ(EvaluateBindingConditions(c, *c.status.allocation).state, State::kPending);
}

TEST(EvaluateBindingConditionsTest, StatusOfAnotherDeviceDoesNotCount) {
  api::ResourceClaim c = Claim({Result("dev-0")});
  DeviceStatus(c, "dev-9").conditions.push_back(Cond(kAttached, "True"));
  auto& other_pool = DeviceStatus(c, "dev-0");
  other_pool.pool = "other";
  other_pool.conditions.push_back(Cond(kAttached, "True"));
  EXPECT_EQ(EvaluateBindingConditions(c, *c.status.allocation).state, State::kPending);
}

TEST(EvaluateBindingConditionsTest, SharedDevicesMatchByShareID) {
  const std::string mine = "11111111-1111-1111-1111-111111111111";
  const std::string other = "22222222-2222-2222-2222-222222222222";
  api::DeviceRequestAllocationResult r = Result("dev-0");
  r.rare.edit().shareID = mine;
  api::ResourceClaim c = Claim({r});
  // The other share of the same device is attached, ours failed: neither decides ours.
  DeviceStatus(c, "dev-0", other).conditions.push_back(Cond(kAttached, "True"));
  EXPECT_EQ(EvaluateBindingConditions(c, *c.status.allocation).state, State::kPending);
  DeviceStatus(c, "dev-0", mine).conditions.push_back(Cond(kAttached, "True"));
  EXPECT_EQ(EvaluateBindingConditions(c, *c.status.allocation).state, State::kReady);
  DeviceStatus(c, "dev-0", other).conditions.push_back(Cond(kFailed, "True"));
  EXPECT_EQ(EvaluateBindingConditions(c, *c.status.allocation).state, State::kReady);
  DeviceStatus(c, "dev-0", mine).conditions.push_back(Cond(kFailed, "True"));
  EXPECT_EQ(EvaluateBindingConditions(c, *c.status.allocation).state, State::kFailed);
}

TEST(BindingWaiterOutcomeTest, Names) {
  EXPECT_EQ(BindingWaiter::OutcomeName(Outcome::kReady), "success");
  EXPECT_EQ(BindingWaiter::OutcomeName(Outcome::kFailed), "failure");
  EXPECT_EQ(BindingWaiter::OutcomeName(Outcome::kTimedOut), "timeout");
  EXPECT_EQ(BindingWaiter::OutcomeName(Outcome::kAbandoned), "abandoned");
}

// --- BindingWaiter
// --------------------------------------------------------------------------------

class BindingWaiterTest : public ::testing::Test {
 protected:
  static constexpr seconds kTimeout{600};

  struct Report {
    Outcome outcome;
    std::string message, driver;
  };

  // A claim "ns/name" allocated now (allocationTimestamp = the fake now, in whole seconds, as
  // PreBind writes it) with one fabric device per name in `devices`.
  api::ResourceClaim& Put(const std::string& name, std::vector<std::string> devices = {"dev-0"}) {
    std::vector<api::DeviceRequestAllocationResult> results;
    for (const std::string& d : devices) results.push_back(Result(d));
    api::ResourceClaim c = Claim(std::move(results));
    c.metadata.name = name;
    c.metadata.uid = "uid-" + name;
    c.metadata.resourceVersion = std::to_string(++rv_);
    c.status.allocation->allocationTimestamp = clock_.Now().TruncatedToSeconds();
    api::ResourceClaim& slot = claims_[name];
    slot = std::move(c);
    return slot;
  }
  // Announces a change of claim `name` (after editing claims_[name]), as the informer would.
  void Changed(const std::string& name) {
    if (auto it = claims_.find(name); it != claims_.end()) {
      it->second.metadata.resourceVersion = std::to_string(++rv_);
    }
    waiter_.OnClaim("default", name);
  }
  void SetCondition(const std::string& claim, const std::string& type,
                    const std::string& device = "dev-0") {
    DeviceStatus(claims_.at(claim), device).conditions.push_back(Cond(type, "True"));
    Changed(claim);
  }
  BindingWaiter::ClaimRef Ref(const std::string& name) { return {"default", name, "uid-" + name}; }
  // Starts the wait of `pod` for `claims`; its reports go to reports_[pod].
  void Add(const std::string& pod, const std::vector<std::string>& claims) {
    std::vector<BindingWaiter::ClaimRef> refs;
    for (const std::string& c : claims) refs.push_back(Ref(c));
    AddRefs(pod, std::move(refs));
  }
  void AddRefs(const std::string& pod, std::vector<BindingWaiter::ClaimRef> refs) {
    reports_[pod];  // a pod that was added has an entry, maybe empty
    waiter_.Add(pod, std::move(refs), [this, pod](Outcome o, std::string msg, std::string drv) {
      // The waiter's lock is not held: calling back into it must not deadlock.
      (void)waiter_.size();
      reports_[pod].push_back({o, std::move(msg), std::move(drv)});
    });
  }
  // The one report of `pod`; fails the test unless there is exactly one.
  Report Only(const std::string& pod) {
    const auto& r = reports_[pod];
    EXPECT_EQ(r.size(), 1u) << "reports for " << pod;
    return r.empty() ? Report{Outcome::kAbandoned, "<none>", ""} : r.front();
  }
  size_t Count(const std::string& pod) { return reports_[pod].size(); }

  FakeClock clock_;
  uint64_t rv_ = 100;
  std::map<std::string, api::ResourceClaim> claims_;  // by name, namespace "default"
  std::map<std::string, std::vector<Report>> reports_;
  BindingWaiter waiter_{
      clock_, kTimeout,
      [this](const std::string& ns,
             const std::string& name) -> std::shared_ptr<const api::ResourceClaim> {
        if (ns != "default") return nullptr;
        auto it = claims_.find(name);
        if (it == claims_.end()) return nullptr;
        return std::make_shared<api::ResourceClaim>(it->second);
      }};
};

TEST_F(BindingWaiterTest, AlreadyReadyEndsAtOnce) {
  Put("c");
  DeviceStatus(claims_["c"], "dev-0").conditions.push_back(Cond(kAttached, "True"));
  Add("p", {"c"});
  Report r = Only("p");
  EXPECT_EQ(r.outcome, Outcome::kReady);
  EXPECT_EQ(r.driver, kDriver);
  EXPECT_EQ(waiter_.size(), 0u);
  // Nothing is left that could report again.
  Changed("c");
  clock_.Advance(kTimeout * 2);
  waiter_.CheckDeadlines();
  waiter_.AbandonAll();
  EXPECT_EQ(Count("p"), 1u);
}

TEST_F(BindingWaiterTest, NoClaimsIsReady) {
  Add("p", {});
  EXPECT_EQ(Only("p").outcome, Outcome::kReady);
}

TEST_F(BindingWaiterTest, PendingUntilTheConditionTurnsTrueThenReadyExactlyOnce) {
  Put("c");
  Add("p", {"c"});
  EXPECT_EQ(Count("p"), 0u);
  EXPECT_EQ(waiter_.size(), 1u);
  Changed("c");  // an unrelated change
  waiter_.OnClaim("default", "unrelated");
  waiter_.CheckDeadlines();
  EXPECT_EQ(Count("p"), 0u);
  // The driver reports the device attached.
  SetCondition("c", kAttached);
  Report r = Only("p");
  EXPECT_EQ(r.outcome, Outcome::kReady);
  EXPECT_EQ(r.driver, kDriver);
  EXPECT_EQ(waiter_.size(), 0u);
  Changed("c");
  clock_.Advance(kTimeout * 2);
  waiter_.CheckDeadlines();
  EXPECT_EQ(Count("p"), 1u);
}

TEST_F(BindingWaiterTest, FailureConditionFails) {
  Put("c");
  Add("p", {"c"});
  DeviceStatus(claims_["c"], "dev-0")
      .conditions.push_back(Cond(kFailed, "True", "AttachFailed", "no free port"));
  Changed("c");
  Report r = Only("p");
  EXPECT_EQ(r.outcome, Outcome::kFailed);
  EXPECT_EQ(r.driver, kDriver);
  EXPECT_EQ(r.message,
            "claim default/c: device fabric.example.com/fabric/dev-0: binding failure condition "
            "example.com/attach-failed is True: AttachFailed: no free port");
  EXPECT_EQ(waiter_.size(), 0u);
  SetCondition("c", kAttached);  // too late
  EXPECT_EQ(Count("p"), 1u);
}

TEST_F(BindingWaiterTest, AlreadyFailedEndsAtOnce) {
  Put("c");
  DeviceStatus(claims_["c"], "dev-0").conditions.push_back(Cond(kFailed, "True"));
  Add("p", {"c"});
  EXPECT_EQ(Only("p").outcome, Outcome::kFailed);
}

TEST_F(BindingWaiterTest, ClaimDeletedFails) {
  Put("c");
  Add("p", {"c"});
  claims_.erase("c");
  Changed("c");
  Report r = Only("p");
  EXPECT_EQ(r.outcome, Outcome::kFailed);
  EXPECT_NE(r.message.find("claim default/c"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("deleted"), std::string::npos) << r.message;
}

TEST_F(BindingWaiterTest, ClaimReplacedFails) {
  Put("c");
  Add("p", {"c"});
  claims_["c"].metadata.uid = "uid-other";
  Changed("c");
  Report r = Only("p");
  EXPECT_EQ(r.outcome, Outcome::kFailed);
  EXPECT_NE(r.message.find("replaced"), std::string::npos) << r.message;
}

TEST_F(BindingWaiterTest, ClaimDeallocatedFails) {
  Put("c");
  Add("p", {"c"});
  claims_["c"].status.allocation.reset();
  claims_["c"].status.devices.clear();
  Changed("c");
  Report r = Only("p");
  EXPECT_EQ(r.outcome, Outcome::kFailed);
  EXPECT_NE(r.message.find("deallocated"), std::string::npos) << r.message;
}

TEST_F(BindingWaiterTest, TimesOutAtAllocationTimestampPlusTimeout) {
  Put("c");
  Add("p", {"c"});
  clock_.Advance(kTimeout - seconds(1));
  waiter_.CheckDeadlines();
  Changed("c");
  EXPECT_EQ(Count("p"), 0u);
  clock_.Advance(seconds(1));
  waiter_.CheckDeadlines();
  Report r = Only("p");
  EXPECT_EQ(r.outcome, Outcome::kTimedOut);
  EXPECT_EQ(r.driver, kDriver);
  EXPECT_NE(r.message.find("claim default/c"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("600s"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("example.com/attached"), std::string::npos) << r.message;
  EXPECT_EQ(waiter_.size(), 0u);
  clock_.Advance(kTimeout);
  waiter_.CheckDeadlines();
  EXPECT_EQ(Count("p"), 1u);
}

TEST_F(BindingWaiterTest, TimeoutCountsFromTheAllocationNotFromTheWait) {
  Put("c");
  clock_.Advance(seconds(500));  // e.g. a restarted scheduler resumes the wait
  Add("p", {"c"});
  clock_.Advance(seconds(99));
  waiter_.CheckDeadlines();
  EXPECT_EQ(Count("p"), 0u);
  clock_.Advance(seconds(1));
  waiter_.CheckDeadlines();
  EXPECT_EQ(Only("p").outcome, Outcome::kTimedOut);
}

TEST_F(BindingWaiterTest, AllocationAlreadyTooOldTimesOutAtOnce) {
  Put("c");
  clock_.Advance(kTimeout + seconds(5));
  Add("p", {"c"});
  EXPECT_EQ(Only("p").outcome, Outcome::kTimedOut);
}

TEST_F(BindingWaiterTest, ReadyBeatsAPassedDeadline) {
  Put("c");
  Add("p", {"c"});
  clock_.Advance(kTimeout + seconds(1));
  // The condition arrived after the deadline but before housekeeping looked: readiness first.
  SetCondition("c", kAttached);
  EXPECT_EQ(Only("p").outcome, Outcome::kReady);
}

TEST_F(BindingWaiterTest, ClaimWithoutTimestampIsTimedFromTheWait) {
  Put("c").status.allocation->allocationTimestamp.reset();
  clock_.Advance(seconds(100));
  Add("p", {"c"});
  clock_.Advance(kTimeout - seconds(1));
  waiter_.CheckDeadlines();
  EXPECT_EQ(Count("p"), 0u);
  clock_.Advance(seconds(1));
  waiter_.CheckDeadlines();
  EXPECT_EQ(Only("p").outcome, Outcome::kTimedOut);
}

TEST_F(BindingWaiterTest, SharedClaimTimesOutForEveryPodAtTheSameInstant) {
  Put("shared");
  Add("first", {"shared"});
  clock_.Advance(seconds(200));
  Add("second", {"shared"});  // joined later: still timed from the allocation
  clock_.Advance(kTimeout - seconds(201));
  waiter_.CheckDeadlines();
  EXPECT_EQ(Count("first"), 0u);
  EXPECT_EQ(Count("second"), 0u);
  clock_.Advance(seconds(1));
  waiter_.CheckDeadlines();
  EXPECT_EQ(Only("first").outcome, Outcome::kTimedOut);
  EXPECT_EQ(Only("second").outcome, Outcome::kTimedOut);
}

TEST_F(BindingWaiterTest, SharedClaimReadyEndsEveryWait) {
  Put("shared");
  Add("first", {"shared"});
  Add("second", {"shared"});
  SetCondition("shared", kAttached);
  EXPECT_EQ(Only("first").outcome, Outcome::kReady);
  EXPECT_EQ(Only("second").outcome, Outcome::kReady);
}

TEST_F(BindingWaiterTest, SeveralClaimsWaitForAll) {
  Put("a");
  Put("b", {"dev-1", "dev-2"});
  Add("p", {"a", "b"});
  SetCondition("a", kAttached);
  EXPECT_EQ(Count("p"), 0u);
  SetCondition("b", kAttached, "dev-1");
  EXPECT_EQ(Count("p"), 0u);
  SetCondition("b", kAttached, "dev-2");
  EXPECT_EQ(Only("p").outcome, Outcome::kReady);
}

TEST_F(BindingWaiterTest, SeveralClaimsEachTimedFromItsOwnAllocation) {
  Put("early");
  clock_.Advance(seconds(100));
  Put("late");
  Add("p", {"early", "late"});
  // The early claim becomes ready: its deadline no longer matters, the late one's does.
  SetCondition("early", kAttached);
  clock_.Advance(kTimeout - seconds(100));  // the early claim's deadline
  waiter_.CheckDeadlines();
  EXPECT_EQ(Count("p"), 0u);
  clock_.Advance(seconds(99));
  waiter_.CheckDeadlines();
  EXPECT_EQ(Count("p"), 0u);
  clock_.Advance(seconds(1));  // the late claim's deadline
  waiter_.CheckDeadlines();
  Report r = Only("p");
  EXPECT_EQ(r.outcome, Outcome::kTimedOut);
  EXPECT_NE(r.message.find("claim default/late"), std::string::npos) << r.message;
}

TEST_F(BindingWaiterTest, SeveralClaimsTheEarliestDeadlineDecides) {
  Put("early");
  clock_.Advance(seconds(100));
  Put("late");
  Add("p", {"late", "early"});
  clock_.Advance(kTimeout - seconds(100));
  waiter_.CheckDeadlines();
  Report r = Only("p");
  EXPECT_EQ(r.outcome, Outcome::kTimedOut);
  EXPECT_NE(r.message.find("claim default/early"), std::string::npos) << r.message;
}

TEST_F(BindingWaiterTest, FailureOfOneClaimBeatsTheTimeoutOfAnother) {
  Put("a");
  Put("b");
  Add("p", {"a", "b"});
  clock_.Advance(kTimeout + seconds(1));
  // Both decide at once: the failure is the more precise answer (and the metric's status).
  DeviceStatus(claims_["b"], "dev-0").conditions.push_back(Cond(kFailed, "True"));
  Changed("b");
  Report r = Only("p");
  EXPECT_EQ(r.outcome, Outcome::kFailed);
  EXPECT_NE(r.message.find("claim default/b"), std::string::npos) << r.message;
}

TEST_F(BindingWaiterTest, ReallocatedClaimIsTimedFromItsNewAllocation) {
  Put("c");
  Add("p", {"c"});
  clock_.Advance(seconds(300));
  // Someone re-wrote the allocation (same uid, a later timestamp) while the pod waited.
  claims_["c"].status.allocation->allocationTimestamp = clock_.Now();
  Changed("c");
  clock_.Advance(seconds(300));  // the first deadline: not decided any more
  waiter_.CheckDeadlines();
  EXPECT_EQ(Count("p"), 0u);
  clock_.Advance(seconds(300));
  waiter_.CheckDeadlines();
  EXPECT_EQ(Only("p").outcome, Outcome::kTimedOut);
}

TEST_F(BindingWaiterTest, AbandonAllEndsEveryWait) {
  Put("a");
  Put("b");
  Add("p1", {"a"});
  Add("p2", {"a", "b"});
  Add("p3", {"b"});
  EXPECT_EQ(waiter_.size(), 3u);
  waiter_.AbandonAll();
  for (const char* p : {"p1", "p2", "p3"}) EXPECT_EQ(Only(p).outcome, Outcome::kAbandoned);
  EXPECT_EQ(waiter_.size(), 0u);
  SetCondition("a", kAttached);
  clock_.Advance(kTimeout * 2);
  waiter_.CheckDeadlines();
  for (const char* p : {"p1", "p2", "p3"}) EXPECT_EQ(Count(p), 1u);
}

TEST_F(BindingWaiterTest, AddAfterAbandonAllIsAbandonedAtOnce) {
  // Scheduler::Stop abandons the waits while a binding worker may still be in PreBind: a wait
  // that starts afterwards must not hold the drain for the whole timeout.
  Put("c");
  waiter_.AbandonAll();
  Add("late", {"c"});
  EXPECT_EQ(Only("late").outcome, Outcome::kAbandoned);
  EXPECT_EQ(waiter_.size(), 0u);
}

TEST_F(BindingWaiterTest, SecondAddForTheSamePodAbandonsTheFirst) {
  Put("a");
  Put("b");
  reports_["p"];
  std::vector<Report> first, second;
  waiter_.Add("p", {Ref("a")}, [&](Outcome o, std::string m, std::string d) {
    first.push_back({o, m, d});
  });
  waiter_.Add("p", {Ref("b")}, [&](Outcome o, std::string m, std::string d) {
    second.push_back({o, m, d});
  });
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].outcome, Outcome::kAbandoned);
  EXPECT_TRUE(second.empty());
  EXPECT_EQ(waiter_.size(), 1u);
  // The first wait's claim no longer concerns the pod.
  SetCondition("a", kAttached);
  EXPECT_TRUE(second.empty());
  SetCondition("b", kAttached);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].outcome, Outcome::kReady);
  EXPECT_EQ(first.size(), 1u);
  // The first wait's deadline entry is stale and must not end anything.
  clock_.Advance(kTimeout * 2);
  waiter_.CheckDeadlines();
  EXPECT_EQ(first.size(), 1u);
  EXPECT_EQ(second.size(), 1u);
}

TEST_F(BindingWaiterTest, StaleInformerCopyIsNotEvidence) {
  // PreBind has just written the allocation (resourceVersion 200); the informer still holds the
  // claim as it was before (unallocated, resourceVersion 150). That is no deallocation.
  api::ResourceClaim& c = Put("c");
  c.status.allocation.reset();
  c.metadata.resourceVersion = "150";
  BindingWaiter::ClaimRef ref = Ref("c");
  ref.resource_version = 200;
  AddRefs("p", {ref});
  EXPECT_EQ(Count("p"), 0u);
  // The informer catches up: allocated, not attached yet.
  claims_["c"].status.allocation = Claim({Result("dev-0")}).status.allocation;
  claims_["c"].status.allocation->allocationTimestamp = clock_.Now();
  claims_["c"].metadata.resourceVersion = "200";
  waiter_.OnClaim("default", "c");
  EXPECT_EQ(Count("p"), 0u);
  DeviceStatus(claims_["c"], "dev-0").conditions.push_back(Cond(kAttached, "True"));
  claims_["c"].metadata.resourceVersion = "201";
  waiter_.OnClaim("default", "c");
  EXPECT_EQ(Only("p").outcome, Outcome::kReady);
}

TEST_F(BindingWaiterTest, StaleInformerCopyStillTimesOut) {
  api::ResourceClaim& c = Put("c");
  c.status.allocation.reset();
  c.metadata.resourceVersion = "150";
  BindingWaiter::ClaimRef ref = Ref("c");
  ref.resource_version = 200;
  AddRefs("p", {ref});
  clock_.Advance(kTimeout);
  waiter_.CheckDeadlines();
  EXPECT_EQ(Only("p").outcome, Outcome::kTimedOut);
}

TEST_F(BindingWaiterTest, ManyPodsManyEvents) {
  // 50 pods over 10 claims; conditions arrive claim by claim; each pod reports once.
  for (int c = 0; c < 10; ++c) Put("c" + std::to_string(c));
  for (int p = 0; p < 50; ++p) {
    Add("p" + std::to_string(p),
        {"c" + std::to_string(p % 10), "c" + std::to_string((p + 3) % 10)});
  }
  EXPECT_EQ(waiter_.size(), 50u);
  for (int c = 0; c < 10; ++c) SetCondition("c" + std::to_string(c), kAttached);
  for (int p = 0; p < 50; ++p) EXPECT_EQ(Only("p" + std::to_string(p)).outcome, Outcome::kReady);
  EXPECT_EQ(waiter_.size(), 0u);
}

}  // namespace
}  // namespace allot::scheduler
