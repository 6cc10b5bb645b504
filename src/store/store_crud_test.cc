// Store conformance: create, get, list, update, delete semantics.
#include <thread>

#include "api/codec/codec.h"
#include "store/testing/util.h"

namespace allot::store {
namespace {

using testing::JsonAt;
using testing::PodManifest;

UpdateOptions StatusWrite() {
  UpdateOptions o;
  o.subresource = Subresource::kStatus;
  return o;
}

TEST_P(StoreTest, CreateAssignsServerFields) {
  clock_.Advance(std::chrono::seconds(5));
  ObjectPtr pod = CreatePod("default", "p1");
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->metadata.uid.size(), 36u);
  EXPECT_FALSE(pod->metadata.resourceVersion.empty());
  EXPECT_EQ(pod->metadata.generation, 1);
  ASSERT_TRUE(pod->metadata.creationTimestamp);
  EXPECT_EQ(pod->metadata.creationTimestamp->unix_seconds(), clock_.Now().unix_seconds());
  auto again = store_->Create(pods(), PodManifest("default", "p1"));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(again.status().message(), "pods \"p1\" already exists");
}

TEST_P(StoreTest, ResourceVersionsIncreaseAcrossResources) {
  uint64_t last = store_->CurrentResourceVersion();
  for (int i = 0; i < 5; ++i) {
    ObjectPtr p = CreatePod("default", "p" + std::to_string(i));
    uint64_t rv = std::stoull(p->metadata.resourceVersion);
    EXPECT_GT(rv, last);
    last = rv;
  }
  auto ns =
      testing::ObjectFromJson(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x"}})");
  auto created = store_->Create(namespaces(), std::move(ns));
  ASSERT_TRUE(created.ok());
  EXPECT_GT(std::stoull((*created)->metadata.resourceVersion), last);
  EXPECT_EQ(store_->CurrentResourceVersion(), std::stoull((*created)->metadata.resourceVersion));
}

TEST_P(StoreTest, GenerateName) {
  auto obj = testing::ObjectFromJson(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"web-","namespace":"default"},)"
      R"("spec":{"containers":[{"name":"c","image":"x"}]}})");
  auto r = store_->Create(pods(), std::move(obj));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::string& name = (*r)->metadata.name;
  ASSERT_EQ(name.size(), 9u);
  EXPECT_EQ(name.substr(0, 4), "web-");
  for (char c : name.substr(4))
    EXPECT_NE(std::string("bcdfghjklmnpqrstvwxz2456789").find(c), std::string::npos);
}

TEST_P(StoreTest, CreateInMissingNamespaceIsNotFound) {
  auto r = store_->Create(pods(), PodManifest("nope", "p"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(r.status().message(), "namespaces \"nope\" not found");
}

TEST_P(StoreTest, WellKnownNamespacesExist) {
  for (const char* ns : {"default", "kube-system", "kube-node-lease"}) {
    EXPECT_TRUE(store_->Get(namespaces(), "", ns).ok()) << ns;
  }
}

TEST_P(StoreTest, GetMissingIsNotFound) {
  auto r = store_->Get(pods(), "default", "ghost");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "pods \"ghost\" not found");
}

TEST_P(StoreTest, UpdateWithStaleResourceVersionConflicts) {
  ObjectPtr pod = CreatePod("default", "p");
  std::string stale = pod->metadata.resourceVersion;
  auto u1 = store_->Update(pods(), "default", "p",
                           [&](const Object& cur) -> Result<std::unique_ptr<Object>> {
                             auto next = cur.Clone();
                             next->metadata.labels["a"] = "1";
                             return next;
                           });
  ASSERT_TRUE(u1.ok()) << u1.status().ToString();
  auto u2 = store_->Update(pods(), "default", "p",
                           [&](const Object& cur) -> Result<std::unique_ptr<Object>> {
                             auto next = cur.Clone();
                             next->metadata.resourceVersion = stale;
                             next->metadata.labels["a"] = "2";
                             return next;
                           });
  ASSERT_FALSE(u2.ok());
  EXPECT_EQ(u2.status().code(), StatusCode::kConflict);
  EXPECT_EQ(u2.status().message(),
            "Operation cannot be fulfilled on pods \"p\": the object has been modified; please "
            "apply your changes to the latest version and try again");
}

TEST_P(StoreTest, ConcurrentReadModifyWriteLosesNoIncrement) {
  CreatePod("default", "counter");
  constexpr int kThreads = 4, kPerThread = 50;
  std::vector<std::thread> threads;
  std::atomic<int> conflicts{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        for (;;) {
          ObjectPtr cur = *store_->Get(pods(), "default", "counter");
          int n = cur->metadata.annotations.count("n")
                      ? std::stoi(cur->metadata.annotations.at("n"))
                      : 0;
          auto next = cur->Clone();
          next->metadata.annotations["n"] = std::to_string(n + 1);
          std::shared_ptr<Object> shared(std::move(next));
          auto r = store_->Update(pods(), "default", "counter",
                                  [&](const Object&) -> Result<std::unique_ptr<Object>> {
                                    return shared->Clone();  // carries the RV we read
                                  });
          if (r.ok()) break;
          ASSERT_EQ(r.status().code(), StatusCode::kConflict);
          ++conflicts;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  ObjectPtr final_pod = *store_->Get(pods(), "default", "counter");
  EXPECT_EQ(final_pod->metadata.annotations.at("n"), std::to_string(kThreads * kPerThread));
}

TEST_P(StoreTest, StatusUpdateLeavesSpecAndMainUpdateLeavesStatus) {
  CreatePod("default", "p");
  auto status_write = store_->Update(
      pods(), "default", "p",
      [](const Object& cur) -> Result<std::unique_ptr<Object>> {
        auto next = testing::ObjectFromJson(api::EncodeJson(cur));
        std::string json = api::EncodeJson(cur);
        // Change both spec and status; only status may stick.
        json.replace(json.find("\"busybox\""), 9, "\"nginx\"");
        json.replace(json.find("\"Pending\""), 9, "\"Running\"");
        return testing::ObjectFromJson(json);
      },
      StatusWrite());
  ASSERT_TRUE(status_write.ok()) << status_write.status().ToString();
  EXPECT_EQ(JsonAt(**status_write, "/status/phase"), "\"Running\"");
  EXPECT_EQ(JsonAt(**status_write, "/spec/containers/0/image"), "\"busybox\"");
  EXPECT_EQ((*status_write)->metadata.generation, 1);

  auto spec_write = store_->Update(pods(), "default", "p",
                                   [](const Object& cur) -> Result<std::unique_ptr<Object>> {
                                     std::string json = api::EncodeJson(cur);
                                     json.replace(json.find("\"busybox\""), 9, "\"nginx\"");
                                     json.replace(json.find("\"Running\""), 9, "\"Failed\"");
                                     return testing::ObjectFromJson(json);
                                   });
  ASSERT_TRUE(spec_write.ok()) << spec_write.status().ToString();
  EXPECT_EQ(JsonAt(**spec_write, "/spec/containers/0/image"), "\"nginx\"");
  EXPECT_EQ(JsonAt(**spec_write, "/status/phase"), "\"Running\"");
  EXPECT_EQ((*spec_write)->metadata.generation, 2);
}

TEST_P(StoreTest, NoOpUpdateKeepsResourceVersion) {
  ObjectPtr pod = CreatePod("default", "p");
  auto r = store_->Update(
      pods(), "default", "p",
      [](const Object& cur) -> Result<std::unique_ptr<Object>> { return cur.Clone(); });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->metadata.resourceVersion, pod->metadata.resourceVersion);
}

TEST_P(StoreTest, DeletePreconditions) {
  ObjectPtr pod = CreatePod("default", "p");
  DeleteOptions bad_uid;
  bad_uid.precondition_uid = "not-the-uid";
  auto r = store_->Delete(pods(), "default", "p", bad_uid);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kConflict);
  EXPECT_NE(r.status().message().find("Precondition failed: UID in precondition: not-the-uid"),
            std::string::npos);
  DeleteOptions bad_rv;
  bad_rv.precondition_resource_version = "1";
  EXPECT_EQ(store_->Delete(pods(), "default", "p", bad_rv).status().code(), StatusCode::kConflict);
  DeleteOptions good;
  good.precondition_uid = pod->metadata.uid;
  auto ok = store_->Delete(pods(), "default", "p", good);
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->removed);
  EXPECT_EQ(store_->Get(pods(), "default", "p").status().code(), StatusCode::kNotFound);
}

TEST_P(StoreTest, FinalizersHoldDeletionUntilRemoved) {
  auto pod = PodManifest("default", "p");
  pod->metadata.finalizers = {"example.com/hold"};
  ASSERT_TRUE(store_->Create(pods(), std::move(pod)).ok());
  clock_.Advance(std::chrono::seconds(3));
  auto del = store_->Delete(pods(), "default", "p");
  ASSERT_TRUE(del.ok());
  EXPECT_FALSE(del->removed);
  ASSERT_TRUE(del->object->metadata.rare->deletionTimestamp);
  EXPECT_EQ(del->object->metadata.rare->deletionTimestamp->unix_seconds(),
            clock_.Now().unix_seconds());
  // Still readable, and no new finalizers may be added.
  ASSERT_TRUE(store_->Get(pods(), "default", "p").ok());
  auto add = store_->Update(pods(), "default", "p",
                            [](const Object& cur) -> Result<std::unique_ptr<Object>> {
                              auto next = cur.Clone();
                              next->metadata.finalizers.push_back("example.com/another");
                              return next;
                            });
  ASSERT_FALSE(add.ok());
  EXPECT_EQ(add.status().code(), StatusCode::kInvalid);
  // Removing the last finalizer completes the deletion.
  auto done = store_->Update(pods(), "default", "p",
                             [](const Object& cur) -> Result<std::unique_ptr<Object>> {
                               auto next = cur.Clone();
                               next->metadata.finalizers.clear();
                               return next;
                             });
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(store_->Get(pods(), "default", "p").status().code(), StatusCode::kNotFound);
}

TEST_P(StoreTest, ListFiltersByNamespaceLabelAndField) {
  auto ns = testing::ObjectFromJson(
      R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"other"}})");
  ASSERT_TRUE(store_->Create(namespaces(), std::move(ns)).ok());
  for (int i = 0; i < 6; ++i) {
    auto pod = PodManifest(i % 2 ? "other" : "default", "p" + std::to_string(i),
                           i < 3 ? R"("nodeName":"n1")" : "");
    pod->metadata.labels["tier"] = i < 4 ? "web" : "db";
    ASSERT_TRUE(store_->Create(pods(), std::move(pod)).ok());
  }
  ListOptions all;
  EXPECT_EQ(store_->List(pods(), all)->items.size(), 6u);
  ListOptions in_default;
  in_default.namespace_ = "default";
  EXPECT_EQ(store_->List(pods(), in_default)->items.size(), 3u);
  ListOptions web;
  web.label_selector = *api::LabelSelectorExpr::Parse("tier=web");
  EXPECT_EQ(store_->List(pods(), web)->items.size(), 4u);
  ListOptions on_n1;
  on_n1.field_selector = *api::FieldSelectorExpr::Parse("spec.nodeName=n1");
  EXPECT_EQ(store_->List(pods(), on_n1)->items.size(), 3u);
}

TEST_P(StoreTest, PaginatedListIsOneSnapshot) {
  for (int i = 0; i < 10; ++i) CreatePod("default", "p" + std::to_string(i));
  ListOptions page;
  page.limit = 4;
  auto first = store_->List(pods(), page);
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->items.size(), 4u);
  ASSERT_FALSE(first->continue_token.empty());
  // Changes after the first page must not show up in later pages.
  ASSERT_TRUE(store_->Delete(pods(), "default", "p7").ok());
  CreatePod("default", "p99");
  // A later page shows p5 as it was (the history holds that version encoded).
  ASSERT_TRUE(store_
                  ->Update(pods(), "default", "p5",
                           [](const Object& c) -> Result<std::unique_ptr<Object>> {
                             auto n = c.Clone();
                             n->metadata.labels["changed"] = "after-the-first-page";
                             return n;
                           })
                  .ok());
  std::vector<std::string> names;
  for (auto& o : first->items) names.push_back(o->metadata.name);
  std::string token = first->continue_token;
  while (!token.empty()) {
    ListOptions next;
    next.limit = 4;
    next.continue_token = token;
    auto r = store_->List(pods(), next);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->resource_version, first->resource_version);
    for (auto& o : r->items) {
      names.push_back(o->metadata.name);
      EXPECT_EQ(o->metadata.labels.count("changed"), 0u) << o->metadata.name;
    }
    token = r->continue_token;
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9"}));
}

// remainingItemCount, as kube-apiserver gives it: what the later pages hold, when no selector
// filters them; unknown (-1) with a selector, and on the last page.
TEST_P(StoreTest, PagesCountWhatRemainsWithoutASelector) {
  for (int i = 0; i < 5; ++i) CreatePod("default", "p" + std::to_string(i));
  CreatePod("kube-system", "q");
  ListOptions page;
  page.namespace_ = "default";
  page.limit = 2;
  auto first = store_->List(pods(), page);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->remaining_item_count, 3);  // p2..p4, not the pod in kube-system
  page.continue_token = first->continue_token;
  auto second = store_->List(pods(), page);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->remaining_item_count, 1);
  page.continue_token = second->continue_token;
  auto last = store_->List(pods(), page);
  ASSERT_TRUE(last.ok());
  EXPECT_TRUE(last->continue_token.empty());
  EXPECT_EQ(last->remaining_item_count, -1);
  ListOptions all;
  all.limit = 2;
  EXPECT_EQ(store_->List(pods(), all)->remaining_item_count, 4);  // every namespace
  ListOptions selected;
  selected.limit = 2;
  selected.label_selector = *api::LabelSelectorExpr::Parse("!missing");
  auto filtered = store_->List(pods(), selected);
  ASSERT_TRUE(filtered.ok());
  EXPECT_FALSE(filtered->continue_token.empty());
  EXPECT_EQ(filtered->remaining_item_count, -1);
}

// Older than the history: 410 on a store of its own; on etcd the page is read from etcd at its
// revision (after etcd's compaction it is 410 too: EtcdReplicas*Older*).
TEST_P(StoreTest, ListContinueOlderThanTheHistory) {
  StoreOptions small;
  small.history_size = 5;
  Reopen(small);
  for (int i = 0; i < 4; ++i) CreatePod("default", "p" + std::to_string(i));
  ListOptions page;
  page.limit = 2;
  auto first = store_->List(pods(), page);
  for (int i = 0; i < 10; ++i) CreatePod("default", "q" + std::to_string(i));
  ListOptions next;
  next.continue_token = first->continue_token;
  auto r = store_->List(pods(), next);
  if (GetParam() == "etcd") {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> names;
    for (auto& o : r->items) names.push_back(o->metadata.name);
    EXPECT_EQ(names, (std::vector<std::string>{"p2", "p3"}));
    EXPECT_EQ(r->resource_version, first->resource_version);
    return;
  }
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kExpired);
}

TEST_P(StoreTest, RestartRecoversObjectsAndContinuesResourceVersions) {
  if (GetParam() == "memory") GTEST_SKIP() << "memory keeps nothing";
  for (int i = 0; i < 20; ++i) CreatePod("default", "p" + std::to_string(i));
  ASSERT_TRUE(store_->Delete(pods(), "default", "p3").ok());
  uint64_t rv = store_->CurrentResourceVersion();
  Reopen();
  EXPECT_EQ(store_->CurrentResourceVersion(), rv);
  EXPECT_EQ(store_->List(pods(), {})->items.size(), 19u);
  EXPECT_EQ(store_->Get(pods(), "default", "p3").status().code(), StatusCode::kNotFound);
  ObjectPtr next = CreatePod("default", "after");
  EXPECT_GT(std::stoull(next->metadata.resourceVersion), rv);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreTest, ::testing::Values("memory", "sqlite", "etcd"));

}  // namespace
}  // namespace allot::store
