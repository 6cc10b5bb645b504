// Field sets, comparisons and the field manager, on real Pods: the FieldsV1 Kubernetes writes
// for the same writes (structured-merge-diff's rules), conflicts, forcing and pruning.
#include "api/managed_fields/field_manager.h"

#include <gtest/gtest.h>

#include "api/codec/codec.h"
#include "api/core/pod.h"
#include "api/machinery/reflect.h"

namespace allot::api::managed_fields {
namespace {

const SchemaNode& PodSchema() { return reflect::SchemaOf<Pod>(); }

rapidjson::Document Doc(std::string_view json) {
  rapidjson::Document d;
  d.Parse(json.data(), json.size());
  EXPECT_FALSE(d.HasParseError()) << json;
  return d;
}

std::string Str(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return buf.GetString();
}

rapidjson::Document Zero() { return Doc(EncodeJson(Pod{})); }

Writer As(std::string manager, int64_t seconds = 1000) {
  Writer w;
  w.manager = std::move(manager);
  w.api_version = "v1";
  w.endpoint = EndpointFields::kAllButStatus;
  w.now = Time::FromUnixSeconds(seconds);
  return w;
}

const ManagedFieldsEntry* EntryOf(const std::vector<ManagedFieldsEntry>& entries,
                                  std::string_view manager) {
  for (const auto& e : entries) {
    if (e.manager == manager) return &e;
  }
  return nullptr;
}

TEST(FieldSetTest, FieldsV1RoundTripsAndMarksMembersWithChildren) {
  const std::string json =
      R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":)"
      R"({"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{}}}}})";
  auto set = FieldSet::FromFieldsV1(json);
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->size(), 5u);
  EXPECT_TRUE(set->Has({"f:metadata", "f:labels"}));
  EXPECT_FALSE(set->Has({"f:metadata"}));
  EXPECT_TRUE(set->HasAtOrBelow({"f:spec"}));
  EXPECT_EQ(set->ToFieldsV1(), json);
}

TEST(FieldSetTest, MalformedFieldsV1Is400) {
  auto bad = FieldSet::FromFieldsV1(R"({"x:y":{}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kBadRequest);
  EXPECT_FALSE(FieldSet::FromFieldsV1(R"({"f:a":1})").ok());
  EXPECT_FALSE(FieldSet::FromFieldsV1("[").ok());
}

TEST(FieldSetTest, PathStringAsConflictsPrintIt) {
  EXPECT_EQ(PathString({"f:spec", "f:containers", R"(k:{"name":"nginx"})", "f:image"}),
            R"(.spec.containers[name="nginx"].image)");
  EXPECT_EQ(PathString({"f:metadata", "f:finalizers", R"(v:"a")"}), R"(.metadata.finalizers[="a"])");
  EXPECT_EQ(PathString({"f:items", "i:3"}), ".items[3]");
}

TEST(ObjectFieldsTest, AppliedConfigurationOwnsLeavesAndListItems) {
  auto config = Doc(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"x"}},
                       "spec":{"containers":[{"name":"c","image":"busybox","args":["a","b"]}]}})");
  FieldSet fields = FieldsOf(config, PodSchema());
  EXPECT_EQ(fields.ToFieldsV1(),
            R"({"f:apiVersion":{},"f:kind":{},"f:metadata":{"f:labels":{"f:app":{}},"f:name":{}},)"
            R"("f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:args":{},"f:image":{},)"
            R"("f:name":{}}}}})");
}

TEST(ObjectFieldsTest, CompareReportsAddedModifiedRemoved) {
  auto before = Doc(R"({"metadata":{"labels":{"a":"1","b":"2"}},"spec":{"nodeName":"n1"}})");
  auto after = Doc(R"({"metadata":{"labels":{"a":"9"},"finalizers":["f"]},"spec":{"nodeName":"n1"}})");
  Comparison c = Compare(before, after, PodSchema());
  EXPECT_EQ(c.modified.ToFieldsV1(), R"({"f:metadata":{"f:labels":{"f:a":{}}}})");
  EXPECT_EQ(c.removed.ToFieldsV1(), R"({"f:metadata":{"f:labels":{"f:b":{}}}})");
  EXPECT_EQ(c.added.ToFieldsV1(),
            R"({"f:metadata":{"f:finalizers":{".":{},"v:\"f\"":{}}}})");
}

TEST(FieldManagerTest, CreateOwnsWhatItSetAndDefaults) {
  Pod pod;
  pod.metadata.name = "p";
  pod.metadata.labels["app"] = "x";
  pod.spec.containers.emplace_back();
  pod.spec.containers[0].name = "c";
  pod.spec.containers[0].image = "busybox";
  auto zero = Zero();
  auto next = Doc(EncodeJson(pod));
  auto entries = Update(zero, nullptr, next, {}, PodSchema(), As("kubectl-create"));
  ASSERT_EQ(entries.size(), 1u);
  const ManagedFieldsEntry& e = entries[0];
  EXPECT_EQ(e.manager, "kubectl-create");
  EXPECT_EQ(e.operation, "Update");
  EXPECT_EQ(e.apiVersion, "v1");
  EXPECT_EQ(e.fieldsType, "FieldsV1");
  ASSERT_TRUE(e.time);
  EXPECT_EQ(e.time->unix_seconds(), 1000);
  // The labels map and the container item are new (".": the path itself; the containers list
  // is not: a required field is always there, if empty); metadata.name is never owned. The
  // container's resources struct is an empty object, owned as a leaf, as upstream shows it.
  EXPECT_EQ(e.fieldsV1.json,
            R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":)"
            R"({"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{},"f:resources":{}}}}})");
}

TEST(FieldManagerTest, UpdatesTakeChangedFieldsFromOthersAndUntrackedObjectsStayUntracked) {
  auto zero = Zero();
  auto v1 = Doc(R"({"metadata":{"name":"p","labels":{"a":"1","b":"1"}}})");
  auto created = Update(zero, nullptr, v1, {}, PodSchema(), As("creator", 10));
  auto v2 = Doc(R"({"metadata":{"name":"p","labels":{"a":"2","b":"1"}}})");
  auto updated = Update(zero, &v1, v2, created, PodSchema(), As("editor", 20));
  ASSERT_EQ(updated.size(), 2u);
  EXPECT_EQ(EntryOf(updated, "creator")->fieldsV1.json,
            R"({"f:metadata":{"f:labels":{".":{},"f:b":{}}}})");
  EXPECT_EQ(EntryOf(updated, "editor")->fieldsV1.json, R"({"f:metadata":{"f:labels":{"f:a":{}}}})");
  // Sorted by time: the creator first.
  EXPECT_EQ(updated[0].manager, "creator");
  // A write that changes nothing leaves the entries (and their times) as they were.
  EXPECT_EQ(Update(zero, &v2, v2, updated, PodSchema(), As("editor", 30)), updated);
  // An existing object without entries is not tracked by updates.
  EXPECT_TRUE(Update(zero, &v1, v2, {}, PodSchema(), As("editor")).empty());
}

TEST(FieldManagerTest, ApplyConflictsWithAnotherManagerUnlessForced) {
  auto zero = Zero();
  auto live = Doc(R"({"metadata":{"name":"p","labels":{"a":"1"}}})");
  auto entries = Update(zero, nullptr, live, {}, PodSchema(), As("kubectl-create", 1764720000));
  auto config = Doc(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"2"}}})");
  auto merged = Doc(R"({"metadata":{"name":"p","labels":{"a":"2"}}})");
  auto conflict = Apply(zero, &live, merged, config, entries, false, PodSchema(), As("kubectl"));
  ASSERT_FALSE(conflict.ok());
  const Status& st = conflict.status();
  EXPECT_EQ(st.code(), StatusCode::kConflict);
  EXPECT_EQ(st.message(),
            "Apply failed with 1 conflict: conflict with \"kubectl-create\" using v1 at "
            "2025-12-03T00:00:00Z: .metadata.labels.a");
  ASSERT_EQ(st.details().causes.size(), 1u);
  EXPECT_EQ(st.details().causes[0].reason, "FieldManagerConflict");
  EXPECT_EQ(st.details().causes[0].field, ".metadata.labels.a");

  // The same value is no conflict: both own it.
  auto same_config = Doc(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"1"}}})");
  auto same_merged = Doc(R"({"metadata":{"name":"p","labels":{"a":"1"}}})");
  auto shared = Apply(zero, &live, same_merged, same_config, entries, false, PodSchema(), As("kubectl"));
  ASSERT_TRUE(shared.ok()) << shared.status().message();
  EXPECT_EQ(shared->size(), 2u);

  auto forced = Apply(zero, &live, merged, config, entries, true, PodSchema(), As("kubectl"));
  ASSERT_TRUE(forced.ok()) << forced.status().message();
  ASSERT_EQ(forced->size(), 2u);
  EXPECT_EQ((*forced)[0].operation, "Apply");  // Apply entries come first
  EXPECT_EQ(EntryOf(*forced, "kubectl")->fieldsV1.json, R"({"f:metadata":{"f:labels":{"f:a":{}}}})");
  EXPECT_EQ(EntryOf(*forced, "kubectl-create")->fieldsV1.json,
            R"({"f:metadata":{"f:labels":{}}})");
}

TEST(FieldManagerTest, ApplyRemovesWhatItNoLongerAppliesUnlessOthersOwnIt) {
  auto zero = Zero();
  auto config1 = Doc(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"1","b":"1"}}})");
  rapidjson::Document created;
  created.CopyFrom(config1, created.GetAllocator());
  auto e1 = Apply(zero, nullptr, created, config1, {}, false, PodSchema(), As("applier"));
  ASSERT_TRUE(e1.ok()) << e1.status().message();
  // Someone else adds c.
  auto live = Doc(R"({"metadata":{"name":"p","labels":{"a":"1","b":"1","c":"1"}}})");
  auto e2 = Update(zero, &created, live, *e1, PodSchema(), As("other"));
  // The applier now applies d alone: a and b go (it alone owned them), c stays (other's).
  auto config2 = Doc(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"d":"1"}}})");
  auto merged = Doc(R"({"metadata":{"name":"p","labels":{"a":"1","b":"1","c":"1","d":"1"}}})");
  auto e3 = Apply(zero, &live, merged, config2, e2, false, PodSchema(), As("applier"));
  ASSERT_TRUE(e3.ok()) << e3.status().message();
  EXPECT_EQ(Str(merged["metadata"]["labels"]), R"({"c":"1","d":"1"})");
  EXPECT_EQ(EntryOf(*e3, "applier")->fieldsV1.json, R"({"f:metadata":{"f:labels":{"f:d":{}}}})");
}

TEST(FieldManagerTest, FirstApplyToAnUntrackedObjectConflictsWithBeforeFirstApply) {
  auto zero = Zero();
  auto live = Doc(R"({"metadata":{"name":"p","labels":{"a":"1"}}})");
  auto config = Doc(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"2"}}})");
  auto merged = Doc(R"({"metadata":{"name":"p","labels":{"a":"2"}}})");
  auto r = Apply(zero, &live, merged, config, {}, false, PodSchema(), As("kubectl"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("\"before-first-apply\""), std::string::npos)
      << r.status().message();
}

TEST(FieldManagerTest, StatusIsNotOwnedThroughTheMainResource) {
  auto zero = Zero();
  auto next = Doc(R"({"metadata":{"name":"p"},"status":{"phase":"Running"}})");
  EXPECT_TRUE(Update(zero, nullptr, next, {}, PodSchema(), As("x")).empty());
  Writer status = As("kubelet");
  status.subresource = "status";
  status.endpoint = EndpointFields::kStatusOnly;
  auto entries = Update(zero, nullptr, next, {}, PodSchema(), status);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].subresource, "status");
  EXPECT_EQ(entries[0].fieldsV1.json, R"({"f:status":{"f:phase":{}}})");
}

TEST(FieldManagerTest, ConfigWithManagedFieldsIs400) {
  auto zero = Zero();
  auto config = Doc(R"({"metadata":{"name":"p","managedFields":[]}})");
  auto merged = Doc(R"({"metadata":{"name":"p"}})");
  auto r = Apply(zero, nullptr, merged, config, {}, false, PodSchema(), As("kubectl"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(r.status().message(), "metadata.managedFields must be nil");
}

TEST(FieldManagerTest, ManagerFromUserAgent) {
  EXPECT_EQ(ManagerFromUserAgent("kube-scheduler/v1.37.2 (linux/amd64) kubernetes/abc"),
            "kube-scheduler");
  EXPECT_EQ(ManagerFromUserAgent(""), "unknown");
  EXPECT_EQ(ManagerFromUserAgent(std::string(200, 'a')).size(), 128u);
}

}  // namespace
}  // namespace allot::api::managed_fields
