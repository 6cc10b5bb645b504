#include "store/history.h"

#include <gtest/gtest.h>

#include <vector>

#include "api/codec/codec.h"
#include "testing/objects.h"

namespace allot::store {
namespace {

using api::EventType;
using api::ObjectPtr;

const api::ResourceInfo& Pods() { return testing::Resource("", "pods"); }

// A new version of `obj` with `label` set and resourceVersion `rv`.
ObjectPtr Relabel(const api::Object& obj, const std::string& label, uint64_t rv) {
  auto n = obj.Clone();
  n->metadata.labels["v"] = label;
  n->metadata.resourceVersion = std::to_string(rv);
  return ObjectPtr(std::move(n));
}

ObjectPtr Pod(const std::string& name, std::string_view extra_spec = {}) {
  auto p = testing::PodManifest("default", name, extra_spec);
  p->metadata.uid = "uid-" + name;
  p->metadata.resourceVersion = "1";
  return ObjectPtr(std::move(p));
}

struct Seen {
  EventType type;
  ObjectPtr object;
  ObjectPtr prev;
  uint64_t rv;
};

std::vector<Seen> Replay(const History& h, uint64_t after, bool need_prev) {
  std::vector<Seen> out;
  Status st = h.ReplayAfter(after, &Pods(), need_prev,
                            [&](const api::ResourceInfo&, EventType type, const ObjectPtr& obj,
                                const ObjectPtr& prev, uint64_t rv) {
                              out.push_back({type, obj, prev, rv});
                            });
  EXPECT_TRUE(st.ok()) << st.message();
  return out;
}

// A replaced version is held encoded and reads back as the same object; the current version is
// the index's own object, not a copy.
TEST(HistoryTest, ReplacedVersionsAreEncodedAndReadBackEqual) {
  History h(100);
  ObjectPtr v1 = Pod("a");
  ObjectPtr v2 = Relabel(*v1, "two", 2);
  h.Record(Pods(), EventType::kAdded, v1, nullptr, 1);
  EXPECT_EQ(h.encoded_bytes(), 0u);
  h.Record(Pods(), EventType::kModified, v2, v1, 2);
  EXPECT_GT(h.encoded_bytes(), 0u);

  std::vector<Seen> seen = Replay(h, 0, /*need_prev=*/true);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_NE(seen[0].object.get(), v1.get());  // decoded again
  EXPECT_EQ(api::EncodeJson(*seen[0].object), api::EncodeJson(*v1));
  EXPECT_EQ(seen[1].object.get(), v2.get());  // still current: the very object
  ASSERT_TRUE(seen[1].prev);
  EXPECT_EQ(api::EncodeJson(*seen[1].prev), api::EncodeJson(*v1));
  // Without selectors the state before is not decoded: the object stands in for it (a
  // watcher still tells MODIFIED from ADDED by whether there is one).
  std::vector<Seen> cheap = Replay(h, 0, /*need_prev=*/false);
  EXPECT_FALSE(cheap[0].prev);
  EXPECT_EQ(cheap[1].prev.get(), v2.get());
  EXPECT_EQ(Replay(h, 1, false).size(), 1u);
}

// A pod with a probe is a subtree protobuf cannot carry: it is kept as JSON, and still reads
// back whole.
TEST(HistoryTest, WhatProtobufCannotCarryIsKeptAsJson) {
  History h(100);
  ObjectPtr v1 = Pod("a");
  auto probed = testing::ObjectFromJson(R"({"apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"a","namespace":"default","uid":"u","resourceVersion":"1"},
    "spec":{"containers":[{"name":"c","image":"i",
      "livenessProbe":{"httpGet":{"path":"/healthz","port":8080}}}]}})");
  ObjectPtr p1(std::move(probed));
  h.Record(Pods(), EventType::kAdded, p1, nullptr, 1);
  h.Record(Pods(), EventType::kModified, Relabel(*p1, "x", 2), p1, 2);
  std::vector<Seen> seen = Replay(h, 0, true);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(testing::JsonAt(*seen[0].object, "/spec/containers/0/livenessProbe/httpGet/path"),
            "\"/healthz\"");
  EXPECT_EQ(api::EncodeJson(*seen[0].object), api::EncodeJson(*p1));
}

// A deleted object's last state is held encoded; an exact list undoes events back to any
// covered revision.
TEST(HistoryTest, DeletesAndUndo) {
  History h(100);
  ObjectPtr a1 = Pod("a");
  ObjectPtr b1 = Pod("b");
  ObjectPtr a2 = Relabel(*a1, "two", 3);
  h.Record(Pods(), EventType::kAdded, a1, nullptr, 1);
  h.Record(Pods(), EventType::kAdded, b1, nullptr, 2);
  h.Record(Pods(), EventType::kModified, a2, a1, 3);
  h.Record(Pods(), EventType::kDeleted, b1, b1, 4);

  std::vector<Seen> seen = Replay(h, 3, false);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].type, EventType::kDeleted);
  EXPECT_NE(seen[0].object.get(), b1.get());
  EXPECT_EQ(seen[0].object->metadata.name, "b");

  std::map<std::string, ObjectPtr> table{{"default/a", a2}};  // the index now
  ASSERT_TRUE(h.UndoAfter(2, Pods(), table).ok());
  ASSERT_EQ(table.size(), 2u);
  EXPECT_EQ(table["default/a"]->metadata.labels.count("v"), 0u);
  EXPECT_EQ(table["default/b"]->metadata.name, "b");
  ASSERT_TRUE(h.UndoAfter(0, Pods(), table).ok());
  EXPECT_TRUE(table.empty());
}

// Eviction keeps `capacity` events and frees the encodings no event names any more.
TEST(HistoryTest, EvictionBoundsEventsAndFreesEncodings) {
  History h(3);
  ObjectPtr cur = Pod("a");
  h.Record(Pods(), EventType::kAdded, cur, nullptr, 1);
  for (uint64_t rv = 2; rv <= 50; ++rv) {
    ObjectPtr next = Relabel(*cur, std::to_string(rv), rv);
    h.Record(Pods(), EventType::kModified, next, cur, rv);
    cur = next;
  }
  EXPECT_EQ(h.size(), 3u);
  EXPECT_EQ(h.evicted_rv(), 47u);
  // Events 48..50 name versions 47..50: three encoded, the current one live.
  size_t three = h.encoded_bytes();
  EXPECT_GT(three, 0u);
  EXPECT_LT(three, 3 * 200u);  // a small pod's message is far below 200 bytes
  std::vector<Seen> seen = Replay(h, 0, true);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].prev->metadata.labels.at("v"), "47");
  EXPECT_EQ(seen[2].object.get(), cur.get());

  h.Clear(50);
  EXPECT_EQ(h.size(), 0u);
  EXPECT_EQ(h.encoded_bytes(), 0u);
  EXPECT_EQ(h.evicted_rv(), 50u);
}

// An object evicted while current leaves the history's live set, so its next change finds no
// stale version: the event before it is encoded from the object the index held.
TEST(HistoryTest, AVersionEvictedWhileCurrentIsEncodedFromTheIndexObject) {
  History h(1);
  ObjectPtr a1 = Pod("a");
  ObjectPtr b1 = Pod("b");
  h.Record(Pods(), EventType::kAdded, a1, nullptr, 1);
  h.Record(Pods(), EventType::kAdded, b1, nullptr, 2);  // evicts a's event
  ObjectPtr a2 = Relabel(*a1, "two", 3);
  h.Record(Pods(), EventType::kModified, a2, a1, 3);
  std::vector<Seen> seen = Replay(h, 0, true);
  ASSERT_EQ(seen.size(), 1u);
  ASSERT_TRUE(seen[0].prev);
  EXPECT_EQ(api::EncodeJson(*seen[0].prev), api::EncodeJson(*a1));
}

}  // namespace
}  // namespace allot::store
