// One conformance suite for both Client implementations: the same calls give the same objects
// and the same Kubernetes errors in-process and over HTTP.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "client/testing/fixture.h"

namespace allot::client {
namespace {

using ConformanceTest = ClientTest;
ALLOT_CLIENT_TEST_SUITE(ConformanceTest);

TEST_P(ConformanceTest, CreateGetListDelete) {
  ObjectPtr created = CreatePod("p1");
  ASSERT_TRUE(created);
  EXPECT_FALSE(created->metadata.uid.empty());
  EXPECT_FALSE(created->metadata.resourceVersion.empty());
  ASSERT_TRUE(api::As<api::Pod>(*created));

  auto got = client_->Get(Pods(), "default", "p1");
  ASSERT_OK(got);
  EXPECT_EQ((*got)->metadata.uid, created->metadata.uid);
  EXPECT_EQ(api::As<api::Pod>(**got)->spec.containers.at(0).image, "busybox");

  CreatePod("p2");
  CreatePod("other", {}, "kube-system");
  api::ListOptions in_default;
  in_default.namespace_ = "default";
  auto list = client_->List(Pods(), in_default);
  ASSERT_OK(list);
  ASSERT_EQ(list->items.size(), 2u);
  EXPECT_EQ(list->items[0]->metadata.name, "p1");
  EXPECT_EQ(list->items[1]->metadata.name, "p2");
  EXPECT_EQ(list->resource_version, store_->CurrentResourceVersion());
  auto all = client_->List(Pods(), {});
  ASSERT_OK(all);
  EXPECT_EQ(all->items.size(), 3u);

  auto deleted = client_->Delete(Pods(), "default", "p1");
  ASSERT_OK(deleted);
  EXPECT_TRUE(deleted->removed);
  EXPECT_EQ(deleted->object->metadata.name, "p1");
  EXPECT_EQ(deleted->object->metadata.uid, created->metadata.uid);

  auto gone = client_->Get(Pods(), "default", "p1");
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(gone.status().message(), "pods \"p1\" not found");
  EXPECT_EQ(gone.status().details().name, "p1");
  EXPECT_EQ(gone.status().details().kind, "pods");
}

TEST_P(ConformanceTest, ClusterScopedResource) {
  ASSERT_TRUE(CreateNode("n1"));
  auto got = client_->Get(Nodes(), "", "n1");
  ASSERT_OK(got);
  EXPECT_TRUE((*got)->metadata.namespace_.empty());
  auto list = client_->List(Nodes(), {});
  ASSERT_OK(list);
  EXPECT_EQ(list->items.size(), 1u);
}

TEST_P(ConformanceTest, CreateErrors) {
  CreatePod("p1");
  auto dup = client_->Create(Pods(), testing::PodManifest("default", "p1"));
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(dup.status().message(), "pods \"p1\" already exists");

  auto invalid = client_->Create(Pods(), testing::PodManifest("default", "Bad_Name"));
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(invalid.status().message().rfind("Pod \"Bad_Name\" is invalid: metadata.name", 0), 0u)
      << invalid.status().message();
  ASSERT_FALSE(invalid.status().details().causes.empty());
  EXPECT_EQ(invalid.status().details().causes[0].field, "metadata.name");
  EXPECT_EQ(invalid.status().details().causes[0].reason, "FieldValueInvalid");
  EXPECT_EQ(invalid.status().details().kind, "Pod");

  auto no_ns = client_->Create(Pods(), testing::PodManifest("nosuchns", "p1"));
  ASSERT_FALSE(no_ns.ok());
  EXPECT_EQ(no_ns.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(no_ns.status().message(), "namespaces \"nosuchns\" not found");
}

TEST_P(ConformanceTest, UpdateWithCompareAndSwap) {
  ObjectPtr v1 = CreatePod("p1");
  auto changed = Mutable(v1);
  changed->metadata.labels["app"] = "web";
  auto v2 = client_->Update(Pods(), std::move(changed));
  ASSERT_OK(v2);
  EXPECT_EQ((*v2)->metadata.labels.at("app"), "web");
  EXPECT_NE((*v2)->metadata.resourceVersion, v1->metadata.resourceVersion);

  // A writer still holding v1 loses.
  auto stale = Mutable(v1);
  stale->metadata.labels["app"] = "db";
  auto conflict = client_->Update(Pods(), std::move(stale));
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.status().code(), StatusCode::kConflict);
  EXPECT_EQ(conflict.status().message(),
            "Operation cannot be fulfilled on pods \"p1\": the object has been modified; please "
            "apply your changes to the latest version and try again");

  // The main resource ignores status; spec rules still hold (422).
  auto with_status = Mutable(*v2);
  with_status->status.phase = "Running";
  auto v3 = client_->Update(Pods(), std::move(with_status));
  ASSERT_OK(v3);
  EXPECT_EQ(api::As<api::Pod>(**v3)->status.phase, "Pending");
  auto bad = Mutable(*v3);
  bad->spec.containers.push_back(bad->spec.containers[0]);
  auto invalid = client_->Update(Pods(), std::move(bad));
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.status().code(), StatusCode::kInvalid);

  auto missing = testing::PodManifest("default", "nope");
  auto not_found = client_->Update(Pods(), std::move(missing));
  ASSERT_FALSE(not_found.ok());
  EXPECT_EQ(not_found.status().code(), StatusCode::kNotFound);
}

TEST_P(ConformanceTest, UpdateStatus) {
  ObjectPtr v1 = CreatePod("p1");
  auto changed = Mutable(v1);
  changed->status.phase = "Running";
  changed->metadata.labels["ignored"] = "yes";  // status writes change status only
  auto v2 = client_->UpdateStatus(Pods(), std::move(changed));
  ASSERT_OK(v2);
  EXPECT_EQ(api::As<api::Pod>(**v2)->status.phase, "Running");
  EXPECT_EQ((*v2)->metadata.labels.count("ignored"), 0u);

  auto stale = Mutable(v1);
  stale->status.phase = "Failed";
  auto conflict = client_->UpdateStatus(Pods(), std::move(stale));
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.status().code(), StatusCode::kConflict);
}

TEST_P(ConformanceTest, MergeAndStrategicPatch) {
  CreatePod("p1", R"("containers":[{"name":"a","image":"img-a"},{"name":"b","image":"img-b"}])");
  auto merged = client_->Patch(Pods(), "default", "p1", PatchKind::kMerge,
                               R"({"metadata":{"labels":{"app":"web"}}})");
  ASSERT_OK(merged);
  EXPECT_EQ((*merged)->metadata.labels.at("app"), "web");

  // Strategic merge merges containers by name; a merge patch would replace the list.
  auto strategic = client_->Patch(Pods(), "default", "p1", PatchKind::kStrategicMerge,
                                  R"({"spec":{"containers":[{"name":"b","image":"img-b2"}]}})");
  ASSERT_OK(strategic);
  const auto& containers = api::As<api::Pod>(**strategic)->spec.containers;
  ASSERT_EQ(containers.size(), 2u);
  EXPECT_EQ(containers[0].image, "img-a");
  EXPECT_EQ(containers[1].image, "img-b2");

  auto json = client_->Patch(Pods(), "default", "p1", PatchKind::kJson,
                             R"([{"op":"remove","path":"/metadata/labels/app"}])");
  ASSERT_OK(json);
  EXPECT_EQ((*json)->metadata.labels.count("app"), 0u);

  auto status = client_->Patch(Pods(), "default", "p1", PatchKind::kMerge,
                               R"({"status":{"phase":"Running"}})", /*status=*/true);
  ASSERT_OK(status);
  EXPECT_EQ(api::As<api::Pod>(**status)->status.phase, "Running");

  auto missing = client_->Patch(Pods(), "default", "nope", PatchKind::kMerge, "{}");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  auto forbidden = client_->Patch(Pods(), "default", "p1", PatchKind::kMerge,
                                  R"({"spec":{"containers":[{"name":"x","image":"y"}]}})");
  ASSERT_FALSE(forbidden.ok());
  EXPECT_EQ(forbidden.status().code(), StatusCode::kInvalid);
  auto malformed = client_->Patch(Pods(), "default", "p1", PatchKind::kMerge, "{");
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(malformed.status().code(), StatusCode::kBadRequest);
}

TEST_P(ConformanceTest, ApplyPatchCreatesThenUpdates) {
  std::string manifest =
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"a1","namespace":"default"},)"
      R"("spec":{"containers":[{"name":"c","image":"busybox"}]}})";
  auto created = client_->Patch(Pods(), "default", "a1", PatchKind::kApply, manifest);
  ASSERT_OK(created);
  auto relabel = client_->Patch(Pods(), "default", "a1", PatchKind::kApply,
                                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a1\n  labels:\n"
                                "    app: x\nspec:\n  containers:\n  - name: c\n"
                                "    image: busybox\n");
  ASSERT_OK(relabel);
  EXPECT_EQ((*relabel)->metadata.labels.at("app"), "x");
  EXPECT_EQ((*relabel)->metadata.uid, (*created)->metadata.uid);
}

TEST_P(ConformanceTest, BindThenConflictOnRebind) {
  ObjectPtr pod = CreatePod("p1");
  ASSERT_TRUE(pod);
  Status bound = client_->Bind("default", "p1", pod->metadata.uid, "n1");
  ASSERT_TRUE(bound.ok()) << bound.ToString();
  auto got = client_->Get(Pods(), "default", "p1");
  ASSERT_OK(got);
  const api::Pod& p = *api::As<api::Pod>(**got);
  EXPECT_EQ(p.spec.nodeName, "n1");
  EXPECT_EQ(p.metadata.generation, pod->metadata.generation);
  ASSERT_EQ(p.status.conditions.size(), 1u);
  EXPECT_EQ(p.status.conditions[0].type, "PodScheduled");
  EXPECT_EQ(p.status.conditions[0].status, "True");
  EXPECT_EQ(p.status.conditions[0].lastTransitionTime, clock_.Now().TruncatedToSeconds());

  Status again = client_->Bind("default", "p1", "", "n2");
  EXPECT_EQ(again.code(), StatusCode::kConflict);
  EXPECT_EQ(again.message(),
            "Operation cannot be fulfilled on pods/binding \"p1\": pod p1 is already assigned to "
            "node \"n1\"");
}

TEST_P(ConformanceTest, BindReplacesAnUnschedulableCondition) {
  ObjectPtr pod = CreatePod("p1");
  auto pending = Mutable(pod);
  api::PodCondition unschedulable;
  unschedulable.type = "PodScheduled";
  unschedulable.status = "False";
  unschedulable.reason = "Unschedulable";
  unschedulable.message = "0/1 nodes are available";
  unschedulable.lastTransitionTime = clock_.Now().TruncatedToSeconds();
  api::PodCondition ready;
  ready.type = "Ready";
  ready.status = "False";
  pending->status.conditions = {unschedulable, ready};
  ASSERT_OK(client_->UpdateStatus(Pods(), std::move(pending)));

  clock_.Advance(std::chrono::seconds(5));
  ASSERT_TRUE(client_->Bind("default", "p1", "", "n1").ok());
  auto got = client_->Get(Pods(), "default", "p1");
  ASSERT_OK(got);
  const auto& conditions = api::As<api::Pod>(**got)->status.conditions;
  ASSERT_EQ(conditions.size(), 2u);
  EXPECT_EQ(conditions[0].type, "PodScheduled");  // replaced in place
  EXPECT_EQ(conditions[0].status, "True");
  EXPECT_EQ(conditions[0].reason, "");
  EXPECT_EQ(conditions[0].message, "");
  EXPECT_EQ(conditions[0].lastTransitionTime, clock_.Now().TruncatedToSeconds());
  EXPECT_EQ(conditions[1].type, "Ready");
}

TEST_P(ConformanceTest, BindErrors) {
  Status missing = client_->Bind("default", "nope", "", "n1");
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.message(), "pods \"nope\" not found");

  CreatePod("gated", R"("schedulingGates":[{"name":"example.com/wait"}])");
  Status gated = client_->Bind("default", "gated", "", "n1");
  EXPECT_EQ(gated.code(), StatusCode::kConflict);
  EXPECT_EQ(gated.message(),
            "Operation cannot be fulfilled on pods/binding \"gated\": pod gated has non-empty "
            ".spec.schedulingGates");

  ObjectPtr pod = CreatePod("p1");
  Status wrong_uid = client_->Bind("default", "p1", "not-the-uid", "n1");
  EXPECT_EQ(wrong_uid.code(), StatusCode::kConflict);
  EXPECT_NE(wrong_uid.message().find("Precondition failed: UID in precondition: not-the-uid"),
            std::string::npos)
      << wrong_uid.message();

  Status no_node = client_->Bind("default", "p1", "", "");
  EXPECT_EQ(no_node.code(), StatusCode::kInvalid);
  EXPECT_EQ(no_node.message(), "Binding \"p1\" is invalid: target.name: Required value");

  // A pod being deleted (held by a finalizer) cannot be bound.
  auto held = testing::PodManifest("default", "held");
  held->metadata.finalizers.push_back("example.com/hold");
  ASSERT_OK(client_->Create(Pods(), std::move(held)));
  ASSERT_OK(client_->Delete(Pods(), "default", "held"));
  Status deleting = client_->Bind("default", "held", "", "n1");
  EXPECT_EQ(deleting.code(), StatusCode::kConflict);
  EXPECT_NE(deleting.message().find("pod held is being deleted, cannot be assigned to a host"),
            std::string::npos)
      << deleting.message();
}

TEST_P(ConformanceTest, DeleteWithFinalizersAndPreconditions) {
  auto held = testing::PodManifest("default", "held");
  held->metadata.finalizers.push_back("example.com/hold");
  auto created = client_->Create(Pods(), std::move(held));
  ASSERT_OK(created);

  api::DeleteOptions wrong;
  wrong.precondition_uid = "other";
  auto refused = client_->Delete(Pods(), "default", "held", wrong);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kConflict);
  EXPECT_NE(refused.status().message().find("Precondition failed: UID in precondition: other"),
            std::string::npos);

  auto pending = client_->Delete(Pods(), "default", "held");
  ASSERT_OK(pending);
  EXPECT_FALSE(pending->removed);
  EXPECT_TRUE(pending->object->metadata.rare->deletionTimestamp.has_value());

  auto release = Mutable(pending->object);
  release->metadata.finalizers.clear();
  ASSERT_OK(client_->Update(Pods(), std::move(release)));
  auto gone = client_->Get(Pods(), "default", "held");
  EXPECT_EQ(gone.status().code(), StatusCode::kNotFound);

  auto missing = client_->Delete(Pods(), "default", "held");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

TEST_P(ConformanceTest, ListPagesAndSelectors) {
  for (int i = 0; i < 5; ++i) {
    auto pod = testing::PodManifest("default", "p" + std::to_string(i));
    pod->metadata.labels["tier"] = i % 2 ? "odd" : "even";
    ASSERT_OK(client_->Create(Pods(), std::move(pod)));
  }
  api::ListOptions opts;
  opts.namespace_ = "default";
  opts.limit = 2;
  std::vector<std::string> names;
  uint64_t rv = 0;
  int pages = 0;
  do {
    auto page = client_->List(Pods(), opts);
    ASSERT_OK(page);
    if (pages++ == 0) rv = page->resource_version;
    EXPECT_EQ(page->resource_version, rv);
    for (const auto& obj : page->items) names.push_back(obj->metadata.name);
    opts.continue_token = page->continue_token;
  } while (!opts.continue_token.empty());
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(names, (std::vector<std::string>{"p0", "p1", "p2", "p3", "p4"}));

  api::ListOptions odd;
  auto sel = api::LabelSelectorExpr::Parse("tier=odd");
  ASSERT_OK(sel);
  odd.label_selector = *sel;
  auto fsel = api::FieldSelectorExpr::Parse("metadata.name!=p1");
  ASSERT_OK(fsel);
  odd.field_selector = *fsel;
  auto filtered = client_->List(Pods(), odd);
  ASSERT_OK(filtered);
  ASSERT_EQ(filtered->items.size(), 1u);
  EXPECT_EQ(filtered->items[0]->metadata.name, "p3");
}

TEST_P(ConformanceTest, WatchDeliversEventsInOrder) {
  ObjectPtr before = CreatePod("before");
  api::WatchOptions opts;
  opts.namespace_ = "default";
  opts.resource_version = store_->CurrentResourceVersion();
  auto watch = client_->Watch(Pods(), opts);
  ASSERT_OK(watch);
  api::Watcher& w = **watch;

  ObjectPtr p1 = CreatePod("p1");
  auto changed = Mutable(p1);
  changed->metadata.labels["x"] = "y";
  ASSERT_OK(client_->Update(Pods(), std::move(changed)));
  ASSERT_OK(client_->Delete(Pods(), "default", "p1"));
  CreatePod("elsewhere", {}, "kube-system");  // filtered out by namespace

  std::vector<api::WatchEvent> events;
  for (int i = 0; i < 3; ++i) {
    api::WatchEvent ev;
    ASSERT_TRUE(w.WaitNext(ev, std::chrono::seconds(10))) << "event " << i;
    events.push_back(std::move(ev));
  }
  EXPECT_EQ(events[0].type, api::EventType::kAdded);
  EXPECT_EQ(events[1].type, api::EventType::kModified);
  EXPECT_EQ(events[2].type, api::EventType::kDeleted);
  for (const auto& ev : events) {
    EXPECT_EQ(ev.resource, &Pods());
    ASSERT_TRUE(ev.object);
    EXPECT_EQ(ev.object->metadata.name, "p1");
  }
  EXPECT_LT(events[0].resource_version, events[1].resource_version);
  EXPECT_LT(events[1].resource_version, events[2].resource_version);
  EXPECT_EQ(events[1].object->metadata.labels.at("x"), "y");
  w.Stop();
  std::vector<api::WatchEvent> rest;
  EXPECT_FALSE(w.Drain(rest));
}

TEST_P(ConformanceTest, WatchFromZeroSendsCurrentState) {
  CreatePod("a");
  CreatePod("b");
  api::WatchOptions opts;
  opts.namespace_ = "default";
  auto watch = client_->Watch(Pods(), opts);
  ASSERT_OK(watch);
  std::set<std::string> added;
  for (int i = 0; i < 2; ++i) {
    api::WatchEvent ev;
    ASSERT_TRUE((*watch)->WaitNext(ev, std::chrono::seconds(10)));
    EXPECT_EQ(ev.type, api::EventType::kAdded);
    added.insert(ev.object->metadata.name);
  }
  EXPECT_EQ(added, (std::set<std::string>{"a", "b"}));
}

TEST_P(ConformanceTest, WatchFromExpiredVersionIsGone) {
  store::StoreOptions small;
  small.history_size = 2;
  Open(small);
  for (int i = 0; i < 5; ++i) CreatePod("p" + std::to_string(i));
  api::WatchOptions opts;
  opts.resource_version = 1;
  auto watch = client_->Watch(Pods(), opts);
  if (!watch.ok()) {
    EXPECT_EQ(HttpCode(watch.status().code()), 410) << watch.status().ToString();
    return;
  }
  api::WatchEvent ev;
  ASSERT_TRUE((*watch)->WaitNext(ev, std::chrono::seconds(10)));
  EXPECT_EQ(ev.type, api::EventType::kError);
  EXPECT_EQ(ev.error.code(), StatusCode::kExpired);
  EXPECT_NE(ev.error.message().find("too old resource version"), std::string::npos);
  std::vector<api::WatchEvent> rest;
  EXPECT_FALSE((*watch)->Drain(rest)) << "the watch ends after the error";
  EXPECT_TRUE(rest.empty());
}

TEST_P(ConformanceTest, ConcurrentAsyncWritesFromManyThreads) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 50;
  Waiter waiter;
  std::atomic<int> done{0};
  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        std::string name = "p" + std::to_string(t) + "-" + std::to_string(i);
        client_->CreateAsync(Pods(), testing::PodManifest("default", name),
                             [&](Result<ObjectPtr> r) {
                               waiter.Notify([&] {
                                 if (!r.ok()) failed++;
                                 done++;
                               });
                             });
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_TRUE(waiter.WaitFor([&] { return done.load() == kThreads * kPerThread; }));
  EXPECT_EQ(failed.load(), 0);
  auto list = client_->List(Pods(), {});
  ASSERT_OK(list);
  EXPECT_EQ(list->items.size(), size_t{kThreads * kPerThread});
}

}  // namespace
}  // namespace allot::client
