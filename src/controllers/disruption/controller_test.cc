// The disruption controller against a memory store, with a FakeClock: a budget's status follows
// its pods' readiness and numbers, an eviction's record expires, events are recorded.
#include "controllers/disruption/controller.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <thread>

#include "api/core/types.h"
#include "api/machinery/conditions.h"
#include "api/policy/pod_disruption_budget.h"
#include "client/informer_factory.h"
#include "client/inprocess/inprocess_client.h"
#include "controllers/testing/controller_test.h"
#include "store/backend.h"
#include "store/store.h"
#include "testing/objects.h"
#include "testing/wait.h"

namespace allot::controllers {
namespace {

using std::chrono::seconds;

class DisruptionControllerTest
    : public ControllerTest<DisruptionController, DisruptionControllerOptions> {
 protected:
  void Start() { StartController(); }
  static const api::ResourceInfo& Pods() { return api::ResourceFor<api::Pod>(); }
  static const api::ResourceInfo& Budgets() { return api::ResourceFor<api::PodDisruptionBudget>(); }

  void CreateBudget(const std::string& spec) {
    auto r = client_->Create(
        Budgets(),
        testing::ObjectFromJson(R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget",)"
                                R"("metadata":{"name":"db","namespace":"default"},"spec":)" +
                                spec + "}"));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  void CreatePod(const std::string& name, bool ready) {
    auto obj = testing::PodManifest("default", name, R"("nodeName":"n1")");
    obj->metadata.labels = {{"app", "db"}};
    auto r = client_->Create(Pods(), std::move(obj));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    SetReady(name, ready);
  }
  void SetReady(const std::string& name, bool ready) {
    auto cur = client_->Get(Pods(), "default", name);
    ASSERT_TRUE(cur.ok());
    auto pod = std::make_unique<api::Pod>(*api::As<api::Pod>(**cur));
    pod->status.phase = "Running";
    pod->status.conditions = {{.type = "Ready", .status = ready ? "True" : "False"}};
    auto w = client_->UpdateStatus(Pods(), std::move(pod));
    ASSERT_TRUE(w.ok()) << w.status().ToString();
  }
  std::shared_ptr<const api::PodDisruptionBudget> Budget() {
    auto r = client_->Get(Budgets(), "default", "db");
    if (!r.ok()) return nullptr;
    return std::static_pointer_cast<const api::PodDisruptionBudget>(*r);
  }
  int32_t Allowed() {
    auto b = Budget();
    return b ? b->status.disruptionsAllowed : -1;
  }
  // The reasons of the events recorded about `name`.
  std::vector<std::string> EventReasons(const std::string& name) {
    api::ListOptions opts;
    opts.namespace_ = "default";
    auto list = client_->List(api::ResourceFor<api::Event>(), opts);
    std::vector<std::string> out;
    if (!list.ok()) return out;
    for (const auto& o : list->items) {
      const auto* e = api::As<api::Event>(*o);
      if (e && e->involvedObject.name == name) out.push_back(e->reason);
    }
    return out;
  }
};

TEST_F(DisruptionControllerTest, TheStatusFollowsThePods) {
  CreateBudget(R"({"minAvailable":2,"selector":{"matchLabels":{"app":"db"}}})");
  Start();
  ASSERT_TRUE(testing::WaitUntil([&] { return Budget()->status.observedGeneration == 1; }));
  EXPECT_EQ(Allowed(), 0);
  EXPECT_EQ(Budget()->status.expectedPods, 0);
  ASSERT_TRUE(
      testing::WaitUntil([&] { return EventReasons("db") == std::vector<std::string>{"NoPods"}; }));

  CreatePod("a", true);
  CreatePod("b", true);
  CreatePod("c", true);
  ASSERT_TRUE(testing::WaitUntil([&] { return Allowed() == 1; })) << Allowed();
  auto b = Budget();
  EXPECT_EQ(b->status.expectedPods, 3);
  EXPECT_EQ(b->status.currentHealthy, 3);
  EXPECT_EQ(b->status.desiredHealthy, 2);
  const api::Condition* c =
      api::FindStatusCondition(b->status.conditions, api::kDisruptionAllowedCondition);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->reason, "SufficientPods");

  SetReady("a", false);
  ASSERT_TRUE(testing::WaitUntil([&] { return Budget()->status.currentHealthy == 2; }));
  EXPECT_EQ(Allowed(), 0);
  ASSERT_TRUE(client_->Delete(Pods(), "default", "a").ok());
  ASSERT_TRUE(testing::WaitUntil([&] { return Budget()->status.expectedPods == 2; }));
}

TEST_F(DisruptionControllerTest, AnEvictionThatNeverDeletedItsPodExpiresAfterTwoMinutes) {
  CreateBudget(R"({"minAvailable":1,"selector":{"matchLabels":{"app":"db"}}})");
  CreatePod("a", true);
  CreatePod("b", true);
  Start();
  ASSERT_TRUE(testing::WaitUntil([&] { return Allowed() == 1; }));
  // What pods/eviction writes; the pod's deletion then never comes.
  auto copy = std::make_unique<api::PodDisruptionBudget>(*Budget());
  copy->status.disruptionsAllowed = 0;
  copy->status.disruptedPods["a"] = clock_.Now().TruncatedToSeconds();
  ASSERT_TRUE(client_->UpdateStatus(Budgets(), std::move(copy)).ok());
  // The controller agrees: a is about to go, so b alone is healthy.
  ASSERT_TRUE(testing::WaitUntil([&] { return Budget()->status.currentHealthy == 1; }));
  EXPECT_EQ(Allowed(), 0);

  clock_.Advance(seconds(121));
  ASSERT_TRUE(testing::WaitUntil([&] { return Budget()->status.disruptedPods.empty(); }));
  EXPECT_EQ(Allowed(), 1);
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return EventReasons("a") == std::vector<std::string>{"NotDeleted"}; }));
}

TEST_F(DisruptionControllerTest, MaxUnavailableOverUnmanagedPodsAllowsNothingAndSaysWhy) {
  CreateBudget(R"({"maxUnavailable":1,"selector":{"matchLabels":{"app":"db"}}})");
  CreatePod("a", true);
  Start();
  ASSERT_TRUE(testing::WaitUntil([&] { return Budget()->status.observedGeneration == 1; }));
  EXPECT_EQ(Allowed(), 0);
  EXPECT_EQ(Budget()->status.currentHealthy, 1);
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return EventReasons("db") == std::vector<std::string>{"UnmanagedPods"}; }));
}

}  // namespace
}  // namespace allot::controllers
