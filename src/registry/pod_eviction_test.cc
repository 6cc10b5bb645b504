// pods/eviction against a memory store: budgets that allow, refuse (429 with Kubernetes' cause),
// are not yet processed, are too many; pods a budget does not guard (Pending, finished, unready);
// the DisruptionTarget condition; dry run; preconditions.
#include "registry/pod_eviction.h"

#include <gtest/gtest.h>

#include <future>
#include <memory>

#include "api/core/pod_state.h"
#include "api/core/types.h"
#include "api/machinery/conditions.h"
#include "api/policy/pod_disruption_budget.h"
#include "store/backend.h"
#include "testing/objects.h"

namespace allot::registry {
namespace {

class PodEvictionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_unique<store::Store>(store::NewMemoryBackend(), clock_);
    ASSERT_TRUE(store_->Open().ok());
  }
  void TearDown() override { store_->Close(); }

  static const ResourceInfo& Pods() { return api::ResourceFor<api::Pod>(); }
  static const ResourceInfo& Budgets() { return api::ResourceFor<api::PodDisruptionBudget>(); }

  // A running pod labelled app=db, Ready unless said otherwise.
  void CreatePod(const std::string& name, bool ready = true, const std::string& phase = "Running",
                 const std::string& app = "db", std::vector<std::string> finalizers = {}) {
    auto obj = testing::PodManifest("default", name, R"("nodeName":"n1")");
    obj->metadata.labels = {{"app", app}};
    obj->metadata.finalizers.assign(finalizers.begin(), finalizers.end());
    auto created = store_->Create(Pods(), std::move(obj), {});
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    auto pod = std::make_unique<api::Pod>(*api::As<api::Pod>(**created));
    pod->status.phase = phase;
    pod->status.conditions = {{.type = "Ready", .status = ready ? "True" : "False"}};
    store::UpdateOptions o;
    o.subresource = store::Subresource::kStatus;
    auto w = store_->Update(
        Pods(), "default", name,
        [&](const Object&) -> Result<std::unique_ptr<Object>> { return pod->Clone(); }, o);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
  }

  // A budget selecting app=db, with the status a disruption controller would have written.
  void CreateBudget(const std::string& name, int32_t allowed, int32_t healthy = 3,
                    int32_t desired = 2, const std::string& app = "db") {
    auto obj = testing::ObjectFromJson(
        R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":")" + name +
        R"(","namespace":"default"},"spec":{"minAvailable":2,"selector":{"matchLabels":{"app":")" +
        app + R"("}}}})");
    auto created = store_->Create(Budgets(), std::move(obj), {});
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    SetBudgetStatus(name, [&](api::PodDisruptionBudgetStatus& s) {
      s.observedGeneration = 1;
      s.disruptionsAllowed = allowed;
      s.currentHealthy = healthy;
      s.desiredHealthy = desired;
      s.expectedPods = 3;
    });
  }
  void SetBudgetStatus(const std::string& name,
                       const std::function<void(api::PodDisruptionBudgetStatus&)>& fn) {
    store::UpdateOptions o;
    o.subresource = store::Subresource::kStatus;
    auto w = store_->Update(
        Budgets(), "default", name,
        [&](const Object& cur) -> Result<std::unique_ptr<Object>> {
          auto b =
              std::make_unique<api::PodDisruptionBudget>(*api::As<api::PodDisruptionBudget>(cur));
          fn(b->status);
          api::UpdateDisruptionAllowedCondition(*b, clock_.Now());
          return std::unique_ptr<Object>(std::move(b));
        },
        o);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
  }

  Status Evict(const std::string& pod, api::DeleteOptions opts = {}) {
    std::promise<Status> p;
    EvictPodAsync(*store_, {.namespace_ = "default", .name = pod, .delete_options = opts}, clock_,
                  [&p](Status s) { p.set_value(std::move(s)); });
    return p.get_future().get();
  }

  const api::PodDisruptionBudget* Budget(const std::string& name) {
    budget_ = *store_->Get(Budgets(), "default", name);
    return api::As<api::PodDisruptionBudget>(*budget_);
  }
  bool PodExists(const std::string& name) { return store_->Get(Pods(), "default", name).ok(); }

  FakeClock clock_;
  std::unique_ptr<store::Store> store_;
  ObjectPtr budget_;
};

TEST_F(PodEvictionTest, APodNoBudgetGuardsIsDeleted) {
  CreatePod("a", true, "Running", "web");
  CreateBudget("db", 0);
  EXPECT_TRUE(Evict("a").ok());
  EXPECT_FALSE(PodExists("a"));  // no grace period: gone at once
  EXPECT_EQ(Evict("nope").code(), StatusCode::kNotFound);
}

TEST_F(PodEvictionTest, ABudgetWithDisruptionsLeftIsSpentAndRemembersThePod) {
  CreatePod("a");
  CreateBudget("db", 1);
  ASSERT_TRUE(Evict("a").ok());
  EXPECT_FALSE(PodExists("a"));
  const api::PodDisruptionBudget* b = Budget("db");
  EXPECT_EQ(b->status.disruptionsAllowed, 0);
  ASSERT_EQ(b->status.disruptedPods.count("a"), 1u);
  EXPECT_EQ(b->status.disruptedPods.at("a"), clock_.Now().TruncatedToSeconds());
  const api::Condition* c =
      api::FindStatusCondition(b->status.conditions, api::kDisruptionAllowedCondition);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->status, "False");
  EXPECT_EQ(c->reason, "InsufficientPods");
}

TEST_F(PodEvictionTest, ABudgetWithNoDisruptionLeftRefusesWith429) {
  CreatePod("a");
  CreateBudget("db", 0, /*healthy=*/2, /*desired=*/2);
  Status s = Evict("a");
  EXPECT_EQ(s.code(), StatusCode::kTooManyRequests);
  EXPECT_EQ(s.message(), "Cannot evict pod as it would violate the pod's disruption budget.");
  ASSERT_EQ(s.details().causes.size(), 1u);
  EXPECT_EQ(s.details().causes[0].reason, "DisruptionBudget");
  EXPECT_EQ(s.details().causes[0].message,
            "The disruption budget db needs 2 healthy pods and has 2 currently");
  EXPECT_TRUE(PodExists("a"));
  EXPECT_TRUE(Budget("db")->status.disruptedPods.empty());
}

TEST_F(PodEvictionTest, TwoEvictionsCannotSpendOneDisruption) {
  CreatePod("a");
  CreatePod("b");
  CreateBudget("db", 1);
  std::promise<Status> pa, pb;
  EvictPodAsync(*store_, {.namespace_ = "default", .name = "a"}, clock_,
                [&](Status s) { pa.set_value(std::move(s)); });
  EvictPodAsync(*store_, {.namespace_ = "default", .name = "b"}, clock_,
                [&](Status s) { pb.set_value(std::move(s)); });
  Status a = pa.get_future().get(), b = pb.get_future().get();
  EXPECT_NE(a.ok(), b.ok());
  EXPECT_EQ((a.ok() ? b : a).code(), StatusCode::kTooManyRequests);
  EXPECT_NE(PodExists("a"), PodExists("b"));
}

TEST_F(PodEvictionTest, ABudgetNotYetProcessedOrBrokenRefuses) {
  CreatePod("a");
  CreateBudget("db", 1);
  SetBudgetStatus("db", [](api::PodDisruptionBudgetStatus& s) { s.observedGeneration = 0; });
  Status s = Evict("a");
  EXPECT_EQ(s.code(), StatusCode::kTooManyRequests);
  ASSERT_EQ(s.details().causes.size(), 1u);
  EXPECT_EQ(s.details().causes[0].message,
            "The disruption budget db is still being processed by the server.");

  SetBudgetStatus("db", [](api::PodDisruptionBudgetStatus& s) {
    s.observedGeneration = 1;
    for (int i = 0; i <= 2000; ++i) s.disruptedPods["p" + std::to_string(i)] = Time{};
  });
  s = Evict("a");
  EXPECT_EQ(s.code(), StatusCode::kForbidden);
  EXPECT_EQ(s.message(),
            "poddisruptionbudget.policy \"db\" is forbidden: DisruptedPods map too big - too many "
            "evictions not confirmed by PDB controller");
  EXPECT_TRUE(PodExists("a"));
}

TEST_F(PodEvictionTest, TwoBudgetsForOnePodAreA500) {
  CreatePod("a");
  CreateBudget("db", 1);
  CreateBudget("db2", 1);
  Status s = Evict("a");
  EXPECT_EQ(s.code(), StatusCode::kInternalError);
  EXPECT_EQ(s.message(),
            "This pod has more than one PodDisruptionBudget, which the eviction subresource does "
            "not support.");
  EXPECT_TRUE(PodExists("a"));
}

TEST_F(PodEvictionTest, PendingAndFinishedPodsIgnoreBudgets) {
  CreatePod("pending", true, "Pending");
  CreatePod("done", false, "Succeeded");
  CreateBudget("db", 0);
  EXPECT_TRUE(Evict("pending").ok());
  EXPECT_TRUE(Evict("done").ok());
  EXPECT_FALSE(PodExists("pending"));
  EXPECT_FALSE(PodExists("done"));
  EXPECT_EQ(Budget("db")->status.disruptionsAllowed, 0);
}

TEST_F(PodEvictionTest, AnUnreadyPodGoesWithoutSpendingAHealthyBudget) {
  CreatePod("sick", /*ready=*/false);
  CreateBudget("db", 0, /*healthy=*/2, /*desired=*/2);  // healthy enough without it
  EXPECT_TRUE(Evict("sick").ok());
  EXPECT_FALSE(PodExists("sick"));
  EXPECT_TRUE(Budget("db")->status.disruptedPods.empty());

  // An unhealthy budget guards even unready pods, unless it says AlwaysAllow.
  CreatePod("sick2", /*ready=*/false);
  SetBudgetStatus("db", [](api::PodDisruptionBudgetStatus& s) { s.currentHealthy = 1; });
  EXPECT_EQ(Evict("sick2").code(), StatusCode::kTooManyRequests);
  auto w = store_->Update(Budgets(), "default", "db",
                          [](const Object& cur) -> Result<std::unique_ptr<Object>> {
                            auto b = std::make_unique<api::PodDisruptionBudget>(
                                *api::As<api::PodDisruptionBudget>(cur));
                            b->spec.unhealthyPodEvictionPolicy = "AlwaysAllow";
                            return std::unique_ptr<Object>(std::move(b));
                          },
                          {});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_TRUE(Evict("sick2").ok());
  EXPECT_FALSE(PodExists("sick2"));
}

TEST_F(PodEvictionTest, TheEvictedPodIsMarkedDisruptionTargetWhileItTerminates) {
  CreatePod("a", true, "Running", "db", {"example.com/hold"});
  CreateBudget("db", 1);
  api::DeleteOptions opts;
  ASSERT_TRUE(Evict("a", opts).ok());
  auto obj = store_->Get(Pods(), "default", "a");
  ASSERT_TRUE(obj.ok());  // a finalizer holds it: terminating
  const auto* pod = api::As<api::Pod>(**obj);
  EXPECT_TRUE(pod->metadata.rare->deletionTimestamp);
  const api::PodCondition* c = api::FindPodCondition(pod->status, "DisruptionTarget");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->status, "True");
  EXPECT_EQ(c->reason, "EvictionByEvictionAPI");
  EXPECT_EQ(c->message, "Eviction API: evicting");

  // Evicting it again: already being deleted, so no budget is asked.
  EXPECT_TRUE(Evict("a", opts).ok());
  EXPECT_EQ(Budget("db")->status.disruptionsAllowed, 0);
}

TEST_F(PodEvictionTest, DryRunWritesNothing) {
  CreatePod("a");
  CreateBudget("db", 1);
  api::DeleteOptions opts;
  opts.dry_run = true;
  ASSERT_TRUE(Evict("a", opts).ok());
  EXPECT_TRUE(PodExists("a"));
  EXPECT_EQ(Budget("db")->status.disruptionsAllowed, 1);
  EXPECT_TRUE(Budget("db")->status.disruptedPods.empty());
}

TEST_F(PodEvictionTest, PreconditionsAreTheDeletes) {
  CreatePod("a", true, "Running", "web");
  api::DeleteOptions opts;
  opts.precondition_uid = "not-the-uid";
  EXPECT_EQ(Evict("a", opts).code(), StatusCode::kConflict);
  EXPECT_TRUE(PodExists("a"));
  opts.precondition_uid.reset();
  opts.precondition_resource_version =
      (*store_->Get(Pods(), "default", "a"))->metadata.resourceVersion;
  EXPECT_TRUE(Evict("a", opts).ok());  // the caller's version, moved past the condition write
  EXPECT_FALSE(PodExists("a"));
}

}  // namespace
}  // namespace allot::registry
