// Events kept encoded at rest (store/encoded_object.h): the encoding, and that nothing leaving
// the store (get, list, watch, the update path, exact lists, uid lookups) is ever encoded.
#include "store/encoded_object.h"

#include "api/core/types.h"
#include "store/testing/util.h"

namespace allot::store {
namespace {

using api::As;
using api::Event;

const api::ResourceInfo& Events() { return testing::Resource("", "events"); }

TEST(EncodedObjectTest, KeepsTheObjectAndOnlyTheIdentityTheIndexReads) {
  auto event = testing::MakeEvent("default", "p.1", R"("type":"Normal")");
  event->metadata.uid = "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9";
  event->metadata.resourceVersion = "7";
  event->metadata.labels["a"] = "b";
  api::ObjectPtr kept = EncodedObject::Make(*event);
  const EncodedObject* e = EncodedObject::Of(*kept);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->encoded()[0], 'p');  // Event has a protobuf message
  EXPECT_EQ(As<Event>(*kept), nullptr);
  EXPECT_EQ(kept->metadata.name, "p.1");
  EXPECT_EQ(kept->metadata.uid, "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9");
  EXPECT_EQ(kept->metadata.resourceVersion, "7");
  EXPECT_TRUE(kept->metadata.labels.empty());

  auto back = Materialize(Events(), kept);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_NE(As<Event>(**back), nullptr);
  EXPECT_TRUE(Event::Type().equal(**back, *event));
  // A decoded object passes through as it is.
  api::ObjectPtr plain(std::move(event));
  auto same = Materialize(Events(), plain);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->get(), plain.get());
}

TEST(EncodedObjectTest, FallsBackToJsonWhereProtobufCannotCarryTheObject) {
  // A probe whose command is not a list (the API server refuses that, a store need not) has no
  // protobuf form.
  auto pod = testing::ObjectFromJson(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"},)"
      R"("spec":{"containers":[{"name":"c","image":"i",)"
      R"("readinessProbe":{"exec":{"command":"true"}}}]}})");
  std::string encoded = EncodeForKeeping(*pod);
  EXPECT_EQ(encoded[0], 'j');
  auto back = DecodeKept(testing::Resource("", "pods"), encoded);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(api::Pod::Type().equal(**back, *pod));
  auto bad = DecodeKept(Events(), "p\xff\xff");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInternalError);
}

TEST(EncodedObjectTest, OnlyEventsAreKeptEncoded) {
  EXPECT_TRUE(KeptEncoded(Events()));
  EXPECT_FALSE(KeptEncoded(testing::Resource("", "pods")));
  EXPECT_FALSE(KeptEncoded(testing::Resource("resource.k8s.io", "resourceclaims")));
}

class EventsKeptEncodedTest : public StoreTest {
 protected:
  ObjectPtr CreateEvent(const std::string& name, const std::string& involved) {
    auto event = testing::MakeEvent("default", name);
    As<Event>(*event)->involvedObject.name = involved;
    auto r = store_->Create(Events(), std::move(event));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : nullptr;
  }
  static api::FieldSelectorExpr Involved(const std::string& name) {
    auto sel = api::FieldSelectorExpr::Parse("involvedObject.name=" + name);
    EXPECT_TRUE(sel.ok());
    return sel.ok() ? *sel : api::FieldSelectorExpr{};
  }
  // Moves the event to another involved object, through the update path.
  void Reinvolve(const std::string& name, const std::string& involved) {
    auto r = store_->Update(Events(), "default", name,
                            [&](const Object& current) -> Result<std::unique_ptr<Object>> {
                              const Event* e = As<Event>(current);
                              if (!e)
                                return InternalError("the update function got an encoded Event");
                              auto next = std::make_unique<Event>(*e);
                              next->involvedObject.name = involved;
                              next->count = e->count + 1;
                              return std::unique_ptr<Object>(std::move(next));
                            });
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
};

TEST_P(EventsKeptEncodedTest, GetListUpdateAndUidLookupsSeeDecodedEvents) {
  ObjectPtr e1 = CreateEvent("e1", "p1");
  CreateEvent("e2", "p2");
  auto got = store_->Get(Events(), "default", "e1");
  ASSERT_TRUE(got.ok());
  ASSERT_NE(As<Event>(**got), nullptr);
  EXPECT_TRUE(Event::Type().equal(**got, *e1));

  auto listed = store_->List(Events(), ListOptions{.field_selector = Involved("p1")});
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->items.size(), 1u);
  ASSERT_NE(As<Event>(*listed->items[0]), nullptr);
  EXPECT_EQ(listed->items[0]->metadata.name, "e1");
  const uint64_t before_update = store_->CurrentResourceVersion();

  Reinvolve("e1", "p3");
  got = store_->Get(Events(), "default", "e1");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(As<Event>(**got)->involvedObject.name, "p3");
  EXPECT_EQ(As<Event>(**got)->count, 2);

  // An exact list as of before the update undoes it from the history.
  auto old = store_->List(Events(), ListOptions{.resource_version = before_update});
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  ASSERT_EQ(old->items.size(), 2u);
  ASSERT_NE(As<Event>(*old->items[0]), nullptr);
  EXPECT_EQ(As<Event>(*old->items[0])->involvedObject.name, "p1");

  auto [resource, by_uid] = store_->FindByUid(e1->metadata.uid);
  ASSERT_NE(by_uid, nullptr);
  EXPECT_EQ(resource, &Events());
  ASSERT_NE(As<Event>(*by_uid), nullptr);

  DeleteOptions stale;
  stale.precondition_resource_version = e1->metadata.resourceVersion;
  auto conflict = store_->Delete(Events(), "default", "e1", stale);
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.status().code(), StatusCode::kConflict);
  ASSERT_TRUE(store_->Delete(Events(), "default", "e2").ok());
  EXPECT_FALSE(store_->Get(Events(), "default", "e2").ok());
}

TEST_P(EventsKeptEncodedTest, WatchesSeeDecodedEventsLiveAndReplayed) {
  const uint64_t from = store_->CurrentResourceVersion();
  auto selected = store_->Watch(
      &Events(), WatchOptions{.field_selector = Involved("p1"), .resource_version = from});
  ASSERT_TRUE(selected.ok());
  CreateEvent("e1", "p1");
  Reinvolve("e1", "p1");  // still selected: MODIFIED
  Reinvolve("e1", "p2");  // leaves the selection: DELETED, in its last selected state

  std::vector<WatchEvent> live;
  WatchEvent ev;
  while (live.size() < 3 && (*selected)->WaitNext(ev, std::chrono::seconds(5))) {
    live.push_back(ev);
  }
  ASSERT_EQ(live.size(), 3u);
  EXPECT_EQ(live[0].type, EventType::kAdded);
  EXPECT_EQ(live[1].type, EventType::kModified);
  EXPECT_EQ(live[2].type, EventType::kDeleted);
  for (const WatchEvent& e : live) ASSERT_NE(As<Event>(*e.object), nullptr);
  EXPECT_EQ(As<Event>(*live[2].object)->involvedObject.name, "p1");
  EXPECT_EQ(As<Event>(*live[2].object)->count, 2);

  // Replayed from the history: the replaced versions and the current one, decoded.
  auto replay = store_->Watch(
      &Events(), WatchOptions{.field_selector = Involved("p1"), .resource_version = from});
  ASSERT_TRUE(replay.ok());
  std::vector<WatchEvent> replayed;
  while (replayed.size() < 3 && (*replay)->WaitNext(ev, std::chrono::seconds(5))) {
    replayed.push_back(ev);
  }
  ASSERT_EQ(replayed.size(), 3u);
  for (const WatchEvent& e : replayed) ASSERT_NE(As<Event>(*e.object), nullptr);
  EXPECT_EQ(replayed[2].type, EventType::kDeleted);
  EXPECT_EQ(As<Event>(*replayed[2].object)->involvedObject.name, "p1");
}

INSTANTIATE_TEST_SUITE_P(Backends, EventsKeptEncodedTest,
                         ::testing::Values("memory", "sqlite", "etcd"));

}  // namespace
}  // namespace allot::store
