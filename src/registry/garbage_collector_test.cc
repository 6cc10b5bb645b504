// store::Store conformance: ownerReferences and the garbage collector.
#include "registry/garbage_collector.h"

#include "store/testing/util.h"
#include "testing/wait.h"

namespace allot::registry {
namespace {

class GcTest : public store::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    gc_ = std::make_unique<GarbageCollector>(*store_);
    ASSERT_TRUE(gc_->Start().ok());
  }
  void TearDown() override { gc_.reset(); }

  ObjectPtr CreateOwned(const std::string& name, const ObjectPtr& owner, bool block = false) {
    auto pod = testing::PodManifest("default", name);
    api::OwnerReference ref;
    ref.apiVersion = "v1";
    ref.kind = "Pod";
    ref.name = owner->metadata.name;
    ref.uid = owner->metadata.uid;
    if (block) ref.blockOwnerDeletion = true;
    pod->metadata.ownerReferences.push_back(ref);
    auto r = store_->Create(pods(), std::move(pod));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return *r;
  }

  // Waits (bounded) until `pred` holds; the collector works asynchronously on its own thread.
  bool Gone(const std::string& name) {
    return store_->Get(pods(), "default", name).status().code() == StatusCode::kNotFound;
  }

  std::unique_ptr<GarbageCollector> gc_;
};

TEST_P(GcTest, BackgroundDeletesDependentsAfterOwner) {
  ObjectPtr owner = CreatePod("default", "owner");
  CreateOwned("dep1", owner);
  CreateOwned("dep2", owner);
  ASSERT_TRUE(store_->Delete(pods(), "default", "owner").ok());
  EXPECT_TRUE(testing::WaitUntil([&] { return Gone("dep1") && Gone("dep2"); }));
}

TEST_P(GcTest, DependentWithAnotherLiveOwnerSurvives) {
  ObjectPtr a = CreatePod("default", "a");
  ObjectPtr b = CreatePod("default", "b");
  auto pod = testing::PodManifest("default", "dep");
  for (const ObjectPtr& o : {a, b}) {
    pod->metadata.ownerReferences.push_back(
        {"v1", "Pod", o->metadata.name, o->metadata.uid, {}, {}});
  }
  ASSERT_TRUE(store_->Create(pods(), std::move(pod)).ok());
  ASSERT_TRUE(store_->Delete(pods(), "default", "a").ok());
  EXPECT_TRUE(testing::WaitUntil([&] {
    auto d = store_->Get(pods(), "default", "dep");
    return d.ok() && (*d)->metadata.ownerReferences.size() == 1;
  }));
  EXPECT_FALSE(Gone("dep"));
}

TEST_P(GcTest, ForegroundWaitsForBlockingDependents) {
  ObjectPtr owner = CreatePod("default", "owner");
  auto dep = testing::PodManifest("default", "dep");
  dep->metadata.finalizers = {"example.com/slow"};
  dep->metadata.ownerReferences.push_back({"v1", "Pod", "owner", owner->metadata.uid, true, true});
  ASSERT_TRUE(store_->Create(pods(), std::move(dep)).ok());
  DeleteOptions fg;
  fg.propagation_policy = "Foreground";
  auto del = store_->Delete(pods(), "default", "owner", fg);
  ASSERT_TRUE(del.ok());
  EXPECT_FALSE(del->removed);
  // The dependent gets deleted (held by its finalizer); the owner waits.
  EXPECT_TRUE(testing::WaitUntil([&] {
    auto d = store_->Get(pods(), "default", "dep");
    return d.ok() && (*d)->metadata.rare->deletionTimestamp.has_value();
  }));
  EXPECT_FALSE(Gone("owner"));
  ASSERT_TRUE(store_
                  ->Update(pods(), "default", "dep",
                           [](const Object& c) -> Result<std::unique_ptr<Object>> {
                             auto n = c.Clone();
                             n->metadata.finalizers.clear();
                             return n;
                           })
                  .ok());
  EXPECT_TRUE(testing::WaitUntil([&] { return Gone("dep") && Gone("owner"); }));
}

TEST_P(GcTest, OrphanKeepsDependentsAndDropsTheirReferences) {
  ObjectPtr owner = CreatePod("default", "owner");
  CreateOwned("dep", owner);
  DeleteOptions orphan;
  orphan.propagation_policy = "Orphan";
  ASSERT_TRUE(store_->Delete(pods(), "default", "owner", orphan).ok());
  EXPECT_TRUE(testing::WaitUntil([&] { return Gone("owner"); }));
  auto d = store_->Get(pods(), "default", "dep");
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE((*d)->metadata.ownerReferences.empty());
}

TEST_P(GcTest, DependentCreatedForMissingOwnerIsCollected) {
  auto pod = testing::PodManifest("default", "stray");
  pod->metadata.ownerReferences.push_back(
      {"v1", "Pod", "ghost", "00000000-0000-4000-8000-000000000000", {}, {}});
  ASSERT_TRUE(store_->Create(pods(), std::move(pod)).ok());
  EXPECT_TRUE(testing::WaitUntil([&] { return Gone("stray"); }));
}

TEST_P(GcTest, DeletingANamespaceDeletesItsObjects) {
  auto ns = testing::ObjectFromJson(
      R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"tmp"}})");
  ASSERT_TRUE(store_->Create(namespaces(), std::move(ns)).ok());
  ASSERT_TRUE(store_->Create(pods(), testing::PodManifest("tmp", "p")).ok());
  ASSERT_TRUE(store_->Delete(namespaces(), "", "tmp").ok());
  EXPECT_TRUE(testing::WaitUntil(
      [&] { return store_->Get(pods(), "tmp", "p").status().code() == StatusCode::kNotFound; }));
}

TEST_P(GcTest, AnOwnerIsNeverOfAnotherNamespace) {
  auto ns = testing::ObjectFromJson(
      R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"other"}})");
  ASSERT_TRUE(store_->Create(namespaces(), std::move(ns)).ok());
  ObjectPtr owner = CreatePod("default", "owner");
  // In another namespace, naming the owner's uid and blocking its deletion, held by a finalizer
  // of its own: not a dependent. Its owner is absent from its namespace, so it is collected
  // (the finalizer keeps it, deleting), and the owner's foreground deletion does not wait for it.
  auto stray = testing::PodManifest("other", "stray");
  stray->metadata.finalizers = {"example.com/hold"};
  stray->metadata.ownerReferences.push_back(
      {"v1", "Pod", "owner", owner->metadata.uid, true, true});
  ASSERT_TRUE(store_->Create(pods(), std::move(stray)).ok());
  EXPECT_TRUE(testing::WaitUntil([&] {
    auto d = store_->Get(pods(), "other", "stray");
    return d.ok() && (*d)->metadata.rare->deletionTimestamp.has_value();
  }));
  DeleteOptions fg;
  fg.propagation_policy = "Foreground";
  ASSERT_TRUE(store_->Delete(pods(), "default", "owner", fg).ok());
  EXPECT_TRUE(testing::WaitUntil([&] { return Gone("owner"); }));
  // A reference by the right uid and a wrong name is no owner either.
  ObjectPtr real = CreatePod("default", "real");
  auto misnamed = testing::PodManifest("default", "misnamed");
  misnamed->metadata.ownerReferences.push_back({"v1", "Pod", "fake", real->metadata.uid, {}, {}});
  ASSERT_TRUE(store_->Create(pods(), std::move(misnamed)).ok());
  EXPECT_TRUE(testing::WaitUntil([&] { return Gone("misnamed"); }));
  EXPECT_FALSE(Gone("real"));
}

TEST_P(GcTest, AClusterScopedObjectIsNeverCollectedThroughANamespacedOwner) {
  auto node = testing::ObjectFromJson(
      R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","ownerReferences":[)"
      R"({"apiVersion":"v1","kind":"Pod","name":"ghost","uid":"00000000-0000-4000-8000-00000000000a"}]}})");
  ASSERT_TRUE(store_->Create(testing::Resource("", "nodes"), std::move(node)).ok());
  // The collector takes events in commit order: once a later stray is collected, the Node's
  // event was handled.
  auto pod = testing::PodManifest("default", "stray");
  pod->metadata.ownerReferences.push_back(
      {"v1", "Pod", "ghost", "00000000-0000-4000-8000-00000000000b", {}, {}});
  ASSERT_TRUE(store_->Create(pods(), std::move(pod)).ok());
  EXPECT_TRUE(testing::WaitUntil([&] { return Gone("stray"); }));
  auto kept = store_->Get(testing::Resource("", "nodes"), "", "n1");
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ((*kept)->metadata.ownerReferences.size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Backends, GcTest, ::testing::Values("memory", "sqlite", "etcd"));

}  // namespace
}  // namespace allot::registry
