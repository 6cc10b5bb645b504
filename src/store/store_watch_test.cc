// Store conformance: watch ordering, resume, selectors, 410.
#include "store/testing/util.h"

namespace allot::store {
namespace {

std::vector<WatchEvent> Collect(Watcher& w, size_t n) {
  std::vector<WatchEvent> out;
  WatchEvent ev;
  while (out.size() < n && w.WaitNext(ev, std::chrono::seconds(5))) out.push_back(ev);
  return out;
}

std::string Describe(const WatchEvent& ev) {
  return std::string(EventTypeName(ev.type)) + " " + (ev.object ? ev.object->metadata.name : "-");
}

TEST_P(StoreTest, WatchSeesChangesInOrder) {
  auto w =
      store_->Watch(&pods(), WatchOptions{.resource_version = store_->CurrentResourceVersion()});
  ASSERT_TRUE(w.ok());
  CreatePod("default", "a");
  CreatePod("default", "b");
  ASSERT_TRUE(store_
                  ->Update(pods(), "default", "a",
                           [](const Object& c) -> Result<std::unique_ptr<Object>> {
                             auto n = c.Clone();
                             n->metadata.labels["x"] = "y";
                             return n;
                           })
                  .ok());
  ASSERT_TRUE(store_->Delete(pods(), "default", "b").ok());
  auto events = Collect(**w, 4);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(Describe(events[0]), "ADDED a");
  EXPECT_EQ(Describe(events[1]), "ADDED b");
  EXPECT_EQ(Describe(events[2]), "MODIFIED a");
  EXPECT_EQ(Describe(events[3]), "DELETED b");
  for (size_t i = 1; i < events.size(); ++i) {
    EXPECT_GT(events[i].resource_version, events[i - 1].resource_version);
  }
  EXPECT_EQ(events[3].object->metadata.resourceVersion, std::to_string(events[3].resource_version));
}

TEST_P(StoreTest, WatchFromZeroStartsWithCurrentState) {
  CreatePod("default", "a");
  CreatePod("default", "b");
  auto w = store_->Watch(&pods(), WatchOptions{});
  ASSERT_TRUE(w.ok());
  CreatePod("default", "c");
  auto events = Collect(**w, 3);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(Describe(events[0]), "ADDED a");
  EXPECT_EQ(Describe(events[1]), "ADDED b");
  EXPECT_EQ(Describe(events[2]), "ADDED c");
}

TEST_P(StoreTest, WatchResumesFromResourceVersion) {
  ObjectPtr a = CreatePod("default", "a");
  CreatePod("default", "b");
  CreatePod("default", "c");
  auto w = store_->Watch(
      &pods(), WatchOptions{.resource_version = std::stoull(a->metadata.resourceVersion)});
  ASSERT_TRUE(w.ok());
  auto events = Collect(**w, 2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(Describe(events[0]), "ADDED b");
  EXPECT_EQ(Describe(events[1]), "ADDED c");
}

// Replayed from the history, where replaced versions are kept encoded: a change of an object
// stays MODIFIED (not ADDED) and carries the state it had then; with a selector, an object
// that left the selection is DELETED in its last matching state.
TEST_P(StoreTest, WatchResumeReplaysModificationsAsTheyWere) {
  ObjectPtr a = CreatePod("default", "a");
  auto relabel = [&](const std::string& v) {
    ASSERT_TRUE(store_
                    ->Update(pods(), "default", "a",
                             [&](const Object& c) -> Result<std::unique_ptr<Object>> {
                               auto n = c.Clone();
                               n->metadata.labels["v"] = v;
                               return n;
                             })
                    .ok());
  };
  relabel("1");
  relabel("2");
  uint64_t from = std::stoull(a->metadata.resourceVersion);
  auto w = store_->Watch(&pods(), WatchOptions{.resource_version = from});
  ASSERT_TRUE(w.ok());
  auto events = Collect(**w, 2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(Describe(events[0]), "MODIFIED a");
  EXPECT_EQ(events[0].object->metadata.labels.at("v"), "1");
  EXPECT_EQ(Describe(events[1]), "MODIFIED a");
  EXPECT_EQ(events[1].object->metadata.labels.at("v"), "2");

  auto sel = api::LabelSelectorExpr::Parse("v=1");
  ASSERT_TRUE(sel.ok());
  auto ws = store_->Watch(&pods(), WatchOptions{.label_selector = *sel, .resource_version = from});
  ASSERT_TRUE(ws.ok());
  events = Collect(**ws, 2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(Describe(events[0]), "ADDED a");
  EXPECT_EQ(Describe(events[1]), "DELETED a");
  EXPECT_EQ(events[1].object->metadata.labels.at("v"), "1");
}

TEST_P(StoreTest, WatchTooOldResourceVersionGetsExpiredError) {
  StoreOptions small;
  small.history_size = 3;
  Reopen(small);
  ObjectPtr first = CreatePod("default", "p0");
  for (int i = 1; i < 10; ++i) CreatePod("default", "p" + std::to_string(i));
  auto w = store_->Watch(
      &pods(), WatchOptions{.resource_version = std::stoull(first->metadata.resourceVersion)});
  ASSERT_TRUE(w.ok());
  auto events = Collect(**w, 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, EventType::kError);
  EXPECT_EQ(events[0].error.code(), StatusCode::kExpired);
  EXPECT_NE(events[0].error.message().find("too old resource version"), std::string::npos);
  std::vector<WatchEvent> rest;
  EXPECT_FALSE((*w)->Drain(rest));  // the watch has ended
}

TEST_P(StoreTest, WatchWithSelectorSeesObjectsEnterAndLeave) {
  WatchOptions opts;
  opts.resource_version = store_->CurrentResourceVersion();
  opts.label_selector = *api::LabelSelectorExpr::Parse("app=web");
  auto w = store_->Watch(&pods(), opts);
  CreatePod("default", "a");  // not matching: invisible
  auto relabel = [&](const std::string& value) {
    ASSERT_TRUE(store_
                    ->Update(pods(), "default", "a",
                             [&](const Object& c) -> Result<std::unique_ptr<Object>> {
                               auto n = c.Clone();
                               n->metadata.labels["app"] = value;
                               return n;
                             })
                    .ok());
  };
  relabel("web");  // enters: ADDED
  relabel("db");   // leaves: DELETED
  auto events = Collect(**w, 2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(Describe(events[0]), "ADDED a");
  EXPECT_EQ(Describe(events[1]), "DELETED a");
}

TEST_P(StoreTest, WatchSeesFinalizerDeletionAsModifiedThenDeleted) {
  auto pod = testing::PodManifest("default", "p");
  pod->metadata.finalizers = {"example.com/f"};
  ASSERT_TRUE(store_->Create(pods(), std::move(pod)).ok());
  auto w =
      store_->Watch(&pods(), WatchOptions{.resource_version = store_->CurrentResourceVersion()});
  ASSERT_TRUE(store_->Delete(pods(), "default", "p").ok());
  ASSERT_TRUE(store_
                  ->Update(pods(), "default", "p",
                           [](const Object& c) -> Result<std::unique_ptr<Object>> {
                             auto n = c.Clone();
                             n->metadata.finalizers.clear();
                             return n;
                           })
                  .ok());
  auto events = Collect(**w, 2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(Describe(events[0]), "MODIFIED p");
  EXPECT_TRUE(events[0].object->metadata.rare->deletionTimestamp);
  EXPECT_EQ(Describe(events[1]), "DELETED p");
}

TEST_P(StoreTest, ManyWatchersAllSeeEveryEvent) {
  std::vector<std::unique_ptr<Watcher>> ws;
  for (int i = 0; i < 50; ++i) {
    ws.push_back(std::move(*store_->Watch(
        &pods(), WatchOptions{.resource_version = store_->CurrentResourceVersion()})));
  }
  for (int i = 0; i < 20; ++i) CreatePod("default", "p" + std::to_string(i));
  for (auto& w : ws) EXPECT_EQ(Collect(*w, 20).size(), 20u);
}

TEST_P(StoreTest, ExactListAtOlderResourceVersion) {
  CreatePod("default", "a");
  ObjectPtr b = CreatePod("default", "b");
  uint64_t at = std::stoull(b->metadata.resourceVersion);
  ASSERT_TRUE(store_->Delete(pods(), "default", "a").ok());
  CreatePod("default", "c");
  ListOptions opts;
  opts.resource_version = at;
  auto r = store_->List(pods(), opts);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::string> names;
  for (auto& o : r->items) names.push_back(o->metadata.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b"}));
}

}  // namespace
}  // namespace allot::store
