// Strategic merge patch and (simplified) server-side apply through ApplyPatch.
//
// MergeItem mirrors the struct apimachinery's strategicpatch tests use, and several cases below
// restate those tests' inputs and expected results (ordering, directives, errors). PodLike
// carries the patch tags of the real core/v1 Pod fields it models.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "api/machinery/meta.h"
#include "api/machinery/reflect.h"
#include "api/patch/patch.h"

namespace allot::api {
namespace {

// --- schemas ----------------------------------------------------------------------------------

struct Leaf {
  std::string name, value, other;
  template <class V>
  void Visit(V& v) {
    v("name", name);
    v("value", value);
    v("other", other);
  }
};

struct ListItem {
  std::string name, value, other;
  std::vector<Leaf> mergingList;
  std::vector<Leaf> nonMergingList;
  std::vector<int64_t> mergingIntList;
  template <class V>
  void Visit(V& v) {
    v("name", name);
    v("value", value);
    v("other", other);
    v("mergingList", mergingList, {.merge_key = "name"});
    v("nonMergingList", nonMergingList);
    v("mergingIntList", mergingIntList, {.set = true});
  }
};

struct RetainKeysItem {
  std::string name, value, other;
  StringMap simpleMap;
  std::vector<int64_t> mergingIntList;
  std::vector<Leaf> mergingList;
  std::vector<Leaf> nonMergingList;
  template <class V>
  void Visit(V& v) {
    v("name", name);
    v("value", value);
    v("other", other);
    v("simpleMap", simpleMap);
    v("mergingIntList", mergingIntList, {.set = true});
    v("mergingList", mergingList, {.merge_key = "name"});
    v("nonMergingList", nonMergingList);
  }
};

struct MergeItem {
  std::string name, value, other;
  std::vector<ListItem> mergingList;
  std::vector<ListItem> nonMergingList;
  std::vector<int64_t> mergingIntList;
  std::vector<int64_t> nonMergingIntList;
  StringMap simpleMap;
  RawJson replacingItem;
  RetainKeysItem retainKeysMap;
  std::vector<ListItem> retainKeysMergingList;
  template <class V>
  void Visit(V& v) {
    v("name", name);
    v("value", value);
    v("other", other);
    v("mergingList", mergingList, {.merge_key = "name"});
    v("nonMergingList", nonMergingList);
    v("mergingIntList", mergingIntList, {.set = true});
    v("nonMergingIntList", nonMergingIntList);
    v("simpleMap", simpleMap);
    v("replacingItem", replacingItem, {.atomic = true});
    v("retainKeysMap", retainKeysMap);
    v("retainKeysMergingList", retainKeysMergingList, {.merge_key = "name"});
  }
};

// core/v1 Pod fields with their Kubernetes patch tags.
struct PodPort {
  int32_t containerPort = 0;
  std::string name, protocol;
  template <class V>
  void Visit(V& v) {
    v("containerPort", containerPort);
    v("name", name);
    v("protocol", protocol);
  }
};
struct PodEnv {
  std::string name, value;
  template <class V>
  void Visit(V& v) {
    v("name", name);
    v("value", value);
  }
};
struct PodContainer {
  std::string name, image;
  std::vector<std::string> args;  // no patch strategy: replaced
  std::vector<PodPort> ports;     // patchMergeKey containerPort
  std::vector<PodEnv> env;        // patchMergeKey name
  template <class V>
  void Visit(V& v) {
    v("name", name);
    v("image", image);
    v("args", args, {.atomic = true});
    v("ports", ports, {.merge_key = "containerPort"});
    v("env", env, {.merge_key = "name"});
  }
};
struct PodVolume {  // patchStrategy merge,retainKeys; the volume source kept raw
  std::string name;
  RawJson configMap, emptyDir, hostPath;
  template <class V>
  void Visit(V& v) {
    v("name", name);
    v("configMap", configMap);
    v("emptyDir", emptyDir);
    v("hostPath", hostPath);
  }
};
struct PodSpecLike {
  std::vector<PodContainer> containers;  // patchMergeKey name
  std::vector<Toleration> tolerations;   // no patch strategy: replaced
  StringMap nodeSelector;
  std::vector<PodVolume> volumes;  // patchMergeKey name
  std::string nodeName;
  template <class V>
  void Visit(V& v) {
    v("containers", containers, {.merge_key = "name"});
    v("tolerations", tolerations);
    v("nodeSelector", nodeSelector);
    v("volumes", volumes, {.merge_key = "name"});
    v("nodeName", nodeName);
  }
};
struct PodConditionLike {
  std::string type, status, reason, message;
  template <class V>
  void Visit(V& v) {
    v("type", type);
    v("status", status);
    v("reason", reason);
    v("message", message);
  }
};
struct PodStatusLike {
  std::string phase;
  std::vector<PodConditionLike> conditions;  // patchMergeKey type
  template <class V>
  void Visit(V& v) {
    v("phase", phase);
    v("conditions", conditions, {.merge_key = "type"});
  }
};
struct PodLike {
  ObjectMeta metadata;  // finalizers: set; ownerReferences: merge by uid
  PodSpecLike spec;
  PodStatusLike status;
  template <class V>
  void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec);
    v("status", status);
  }
};

// --- helpers ----------------------------------------------------------------------------------

::testing::AssertionResult JsonEq(const std::string& actual, const std::string& expected) {
  rapidjson::Document a, e;
  a.Parse(actual.c_str());
  e.Parse(expected.c_str());
  if (a.HasParseError()) return ::testing::AssertionFailure() << "unparsable: " << actual;
  if (e.HasParseError()) return ::testing::AssertionFailure() << "bad expectation: " << expected;
  if (a == e) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "\n  actual:   " << actual << "\n  expected: " << expected;
}

Result<std::string> Smp(const std::string& original, const std::string& patch) {
  return ApplyPatchDetailed(PatchType::kStrategicMergePatch, original, patch,
                            reflect::SchemaOf<MergeItem>());
}

Result<std::string> PodSmp(const std::string& original, const std::string& patch) {
  return ApplyPatch(PatchType::kStrategicMergePatch, original, patch, reflect::SchemaOf<PodLike>());
}

#define EXPECT_SMP(original, patch, expected)       \
  do {                                              \
    Result<std::string> _r = Smp(original, patch);  \
    ASSERT_TRUE(_r.ok()) << _r.status().ToString(); \
    EXPECT_TRUE(JsonEq(*_r, expected));             \
  } while (0)

// --- apimachinery's cases on MergeItem --------------------------------------------------------

TEST(StrategicMergeTest, MapsMergeAndNullDeletes) {
  EXPECT_SMP(R"({"name":1})", R"({"value":1})", R"({"name":1,"value":1})");
  EXPECT_SMP(R"({"name":1,"other":"a"})", R"({"name":null,"value":1})",
             R"({"value":1,"other":"a"})");
  EXPECT_SMP(R"({"simpleMap":{"key1":1,"key2":1,"other":"a"}})", R"({"simpleMap":{"key2":null}})",
             R"({"simpleMap":{"key1":1,"other":"a"}})");
  // A null for a missing key is dropped, not stored.
  EXPECT_SMP(R"({"name":"a","other":"a"})", R"({"name":1,"value":1,"other":null})",
             R"({"name":1,"value":1})");
}

TEST(StrategicMergeTest, MapDirectives) {
  EXPECT_SMP(R"({"simpleMap":{"key1":1,"key2":1}})", R"({"simpleMap":{"$patch":"delete"}})",
             R"({"simpleMap":{}})");
  EXPECT_SMP(R"({"name":1,"value":1})", R"({"$patch":"replace"})", R"({})");
  EXPECT_SMP(R"({"name":1,"value":1})", R"({"other":"a","$patch":"replace"})", R"({"other":"a"})");
}

TEST(StrategicMergeTest, NonMergingListsAreReplaced) {
  EXPECT_SMP(R"({"nonMergingIntList":[1,4]})", R"({"nonMergingIntList":[2,3]})",
             R"({"nonMergingIntList":[2,3]})");
  EXPECT_SMP(R"({"nonMergingList":[{"name":1},{"name":2}]})", R"({"nonMergingList":[{"name":3}]})",
             R"({"nonMergingList":[{"name":3}]})");
}

TEST(StrategicMergeTest, ScalarSetListsMergeUniquely) {
  EXPECT_SMP(R"({"mergingIntList":[1,2]})", R"({"mergingIntList":[2,3]})",
             R"({"mergingIntList":[1,2,3]})");
  // Without $setElementOrder, apimachinery's mergeSortedSlice puts items that are only in the
  // patch before the server-only ones.
  EXPECT_SMP(R"({"mergingIntList":[1,2,4]})", R"({"mergingIntList":[3]})",
             R"({"mergingIntList":[3,1,2,4]})");
}

TEST(StrategicMergeTest, PatchOrderIsPreserved) {
  EXPECT_SMP(R"({"mergingList":[{"name":1},{"name":2,"value":"b"},{"name":3}]})",
             R"({"mergingList":[{"name":3,"value":"c"},{"name":1,"value":"a"},
                                {"name":2,"other":"x"}]})",
             R"({"mergingList":[{"name":3,"value":"c"},{"name":1,"value":"a"},
                                {"name":2,"value":"b","other":"x"}]})");
  EXPECT_SMP(R"({"mergingList":[{"name":1},{"name":2,"value":"b"},{"name":3}]})",
             R"({"mergingList":[{"name":3,"value":"c"},{"name":1,"value":"a"}]})",
             R"({"mergingList":[{"name":2,"value":"b"},{"name":3,"value":"c"},
                                {"name":1,"value":"a"}]})");
  EXPECT_SMP(R"({"mergingIntList":[1,2,3]})", R"({"mergingIntList":[3,1,2]})",
             R"({"mergingIntList":[3,1,2]})");
  EXPECT_SMP(R"({"mergingIntList":[1,2,3]})", R"({"mergingIntList":[3,1]})",
             R"({"mergingIntList":[2,3,1]})");
}

TEST(StrategicMergeTest, ListElementDirectives) {
  EXPECT_SMP(R"({"mergingList":[{"name":1},{"name":2,"other":"b"}]})",
             R"({"mergingList":[{"name":1,"$patch":"delete"}]})",
             R"({"mergingList":[{"name":2,"other":"b"}]})");
  // Deleting a missing element is not an error.
  EXPECT_SMP(R"({"mergingList":[{"name":2}]})", R"({"mergingList":[{"name":1,"$patch":"delete"}]})",
             R"({"mergingList":[{"name":2}]})");
  // One delete removes every element with that key.
  EXPECT_SMP(
      R"({"mergingList":[{"name":1},{"name":1},{"name":2,"value":"a"},{"name":3},{"name":3}]})",
      R"({"mergingList":[{"name":1,"$patch":"delete"},{"name":3,"$patch":"delete"}]})",
      R"({"mergingList":[{"name":2,"value":"a"}]})");
  EXPECT_SMP(R"({"mergingList":[{"name":1},{"name":2}]})",
             R"({"mergingList":[{"$patch":"replace"}]})", R"({"mergingList":[]})");
  EXPECT_SMP(R"({"mergingList":[{"name":1},{"name":2}]})",
             R"({"mergingList":[{"name":3},{"$patch":"replace"}]})",
             R"({"mergingList":[{"name":3}]})");
}

TEST(StrategicMergeTest, SetElementOrder) {
  // "merge lists of maps", applied to the current object.
  EXPECT_SMP(R"({"mergingList":[{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"}]})",
             R"({"$setElementOrder/mergingList":[{"name":4},{"name":1},{"name":2},{"name":3}],
                 "mergingList":[{"name":4,"value":4},{"name":3,"value":3}]})",
             R"({"mergingList":[{"name":4,"value":4},{"name":1,"other":"a"},
                                {"name":2,"value":2,"other":"b"},{"name":3,"value":3}]})");
  // "$setElementOrder contains item that is not present in the list to be merged".
  EXPECT_SMP(R"({"mergingList":[{"name":1},{"name":3}]})",
             R"({"$setElementOrder/mergingList":[{"name":3},{"name":2},{"name":1}],
                 "mergingList":[{"name":3,"value":3},{"name":1,"value":1}]})",
             R"({"mergingList":[{"name":3,"value":3},{"name":1,"value":1}]})");
  EXPECT_SMP(R"({"mergingIntList":[1,3]})", R"({"$setElementOrder/mergingIntList":[3,2,1]})",
             R"({"mergingIntList":[3,1]})");
}

TEST(StrategicMergeTest, SetElementOrderMustMatchThePatchList) {
  Result<std::string> r = Smp(R"({"mergingList":[{"name":1},{"name":3},{"name":2}]})",
                              R"({"$setElementOrder/mergingList":[{"name":1},{"name":2},{"name":3}],
                                  "mergingList":[{"name":3,"value":3},{"name":1,"value":1}]})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternalError);
  EXPECT_NE(r.status().message().find("doesn't match $setElementOrder list"), std::string::npos)
      << r.status().message();
}

TEST(StrategicMergeTest, DeleteFromPrimitiveList) {
  // "delete items in lists of scalars" and "add and delete items", on the current object.
  EXPECT_SMP(
      R"({"mergingIntList":[1,2,3,4]})",
      R"({"$setElementOrder/mergingIntList":[1,2],"$deleteFromPrimitiveList/mergingIntList":[3]})",
      R"({"mergingIntList":[1,2,4]})");
  EXPECT_SMP(
      R"({"mergingIntList":[1,2,3,3,4]})",
      R"({"$setElementOrder/mergingIntList":[1,2],"$deleteFromPrimitiveList/mergingIntList":[3]})",
      R"({"mergingIntList":[1,2,4]})");
  EXPECT_SMP(R"({"mergingIntList":[1,2,3]})",
             R"({"$setElementOrder/mergingIntList":[1,2,4],
                 "$deleteFromPrimitiveList/mergingIntList":[3],"mergingIntList":[4]})",
             R"({"mergingIntList":[1,2,4]})");
  // Deleting from a missing list leaves it missing.
  EXPECT_SMP(R"({"name":"x"})", R"({"$deleteFromPrimitiveList/mergingIntList":[3]})",
             R"({"name":"x"})");
}

TEST(StrategicMergeTest, RetainKeys) {
  EXPECT_SMP(R"({"retainKeysMap":{"name":"foo","value":"a","other":"b"}})",
             R"({"retainKeysMap":{"$retainKeys":["name","other"],"other":"c"}})",
             R"({"retainKeysMap":{"name":"foo","other":"c"}})");
  // Without the directive such a map merges normally.
  EXPECT_SMP(R"({"retainKeysMap":{"name":"foo","value":"a"}})",
             R"({"retainKeysMap":{"value":"b"}})",
             R"({"retainKeysMap":{"name":"foo","value":"b"}})");
  // Every field the patch sets must be retained.
  Result<std::string> r = Smp(R"({"retainKeysMap":{"name":"foo"}})",
                              R"({"retainKeysMap":{"$retainKeys":["name"],"value":"b"}})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(r.status().message(), "invalid patch format of retainKeys");
}

TEST(StrategicMergeTest, AtomicMapIsReplaced) {
  EXPECT_SMP(R"({"replacingItem":{"a":1,"b":{"c":2}}})", R"({"replacingItem":{"b":{"d":3}}})",
             R"({"replacingItem":{"b":{"d":3}}})");
}

TEST(StrategicMergeTest, NewValuesLoseNullsAndDirectives) {
  EXPECT_SMP(R"({})", R"({"simpleMap":{"a":"1","b":null}})", R"({"simpleMap":{"a":"1"}})");
  EXPECT_SMP(
      R"({})",
      R"({"mergingList":[{"name":1,"mergingList":[{"name":2,"$patch":"delete"},{"name":3}]}]})",
      R"({"mergingList":[{"name":1,"mergingList":[{"name":3}]}]})");
}

TEST(StrategicMergeTest, UnknownFieldsMergeLikeMergePatch) {
  EXPECT_SMP(R"({"extra":{"a":1,"l":[1,2]}})", R"({"extra":{"b":2,"l":[3],"a":null}})",
             R"({"extra":{"b":2,"l":[3]}})");
}

TEST(StrategicMergeTest, Errors) {
  struct Case {
    const char* original;
    const char* patch;
    StatusCode code;
    const char* message;
  };
  for (const Case& c : {
           Case{R"({"mergingList":[{"name":1,"value":"a"}]})", R"({"mergingList":[{"value":"b"}]})",
                StatusCode::kInternalError,
                "map: map[value:b] does not contain declared merge key: name"},
           Case{R"({"mergingList":[{"name":1}]})",
                R"({"mergingList":[{"name":1,"$patch":"frob"}]})", StatusCode::kInternalError,
                "unknown patch type: frob in map: map[$patch:frob name:1]"},
           Case{R"({"mergingList":[{"name":1}]})",
                R"({"mergingList":[{"name":1,"$patch":"merge"}]})", StatusCode::kInternalError,
                "merging lists cannot yet be specified in the patch"},
           Case{R"({"mergingList":[[1]]})", R"({"mergingList":[[2]]})", StatusCode::kInvalid,
                "lists of lists are not supported"},
           Case{R"({"mergingList":[{"name":1}]})", R"({"mergingList":[[1]]})",
                StatusCode::kInternalError,
                "list element types are not identical: [[map[name:1]] [[1]]]"},
           Case{R"({"mergingIntList":[1]})", R"({"mergingIntList":["a"]})",
                StatusCode::kInternalError, "list element types are not identical: [[1] [a]]"},
           Case{R"({"mergingIntList":[1]})", R"({"$setElementOrderX/mergingIntList":[1]})",
                StatusCode::kBadRequest, "invalid patch format of setElementOrder list"},
           Case{R"({"mergingIntList":[1]})", R"({"$deleteFromPrimitiveListmergingIntList":[1]})",
                StatusCode::kBadRequest, "invalid patch format of primitive list"},
           Case{R"({"mergingIntList":[1]})", R"({"$setElementOrder/mergingIntList":"x"})",
                StatusCode::kInternalError, "expected a []interface {}, but received a string"},
           Case{R"({"name":"a"})", R"({"$patch":"remove"})", StatusCode::kInternalError,
                "unknown patch type: remove in map: map[$patch:remove]"},
       }) {
    Result<std::string> r = Smp(c.original, c.patch);
    ASSERT_FALSE(r.ok()) << c.patch << " -> " << *r;
    EXPECT_EQ(r.status().code(), c.code) << c.patch << ": " << r.status().ToString();
    EXPECT_EQ(r.status().message(), c.message) << c.patch;
  }
}

TEST(StrategicMergeTest, BodyErrors) {
  Result<std::string> r = Smp("{}", "[1]");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(r.status().message(),
            "json: cannot unmarshal array into Go value of type map[string]interface {}");
  r = Smp("{}", "{\"a\":\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_NE(r.status().message().find("invalid JSON at line 2"), std::string::npos);
  EXPECT_TRUE(JsonEq(*Smp(R"({"name":"a"})", "null"), R"({"name":"a"})"));
}

TEST(StrategicMergeTest, ListOfListsIsTheGeneric422WithoutDetail) {
  Result<std::string> r = ApplyPatch(PatchType::kStrategicMergePatch, R"({"mergingList":[[1]]})",
                                     R"({"mergingList":[[2]]})", reflect::SchemaOf<MergeItem>());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(r.status().message(), "the server rejected our request due to an error in our request");
}

// --- real Pod shapes --------------------------------------------------------------------------

const char* kPod = R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web", "tier": "fe"},
               "finalizers": ["example.com/a", "example.com/b"],
               "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs",
                                    "uid": "u1", "controller": true}]},
  "spec": {
    "containers": [
      {"name": "app", "image": "nginx:1.25", "args": ["-a"],
       "ports": [{"containerPort": 80, "name": "http"}, {"containerPort": 443, "name": "https"}],
       "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]},
      {"name": "sidecar", "image": "envoy:1"}
    ],
    "tolerations": [{"key": "a", "operator": "Exists"}, {"key": "b", "operator": "Exists"}],
    "nodeSelector": {"zone": "z1", "disk": "ssd"},
    "volumes": [{"name": "cfg", "configMap": {"name": "cm"}}]
  },
  "status": {
    "phase": "Pending",
    "conditions": [
      {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/3"},
      {"type": "Ready", "status": "False"}
    ]
  }
})";

TEST(StrategicMergePodTest, ContainersMergeByName) {
  Result<std::string> r = PodSmp(kPod, R"({"spec":{"containers":[
      {"name":"sidecar","image":"envoy:2"},
      {"name":"app","env":[{"name":"B","value":"3"},{"name":"C","value":"4"}],
       "ports":[{"containerPort":443,"$patch":"delete"}]}]}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  rapidjson::Document d;
  d.Parse(r->c_str());
  const auto& containers = d["spec"]["containers"];
  ASSERT_EQ(containers.Size(), 2u);
  // Both containers are in the patch, so the patch's order wins.
  EXPECT_STREQ(containers[0]["name"].GetString(), "sidecar");
  EXPECT_STREQ(containers[0]["image"].GetString(), "envoy:2");
  const auto& app = containers[1];
  EXPECT_STREQ(app["image"].GetString(), "nginx:1.25");
  EXPECT_TRUE(JsonEq(*r, R"({"apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"web","namespace":"default","labels":{"app":"web","tier":"fe"},
      "finalizers":["example.com/a","example.com/b"],
      "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u1",
                          "controller":true}]},
    "spec":{"containers":[{"name":"sidecar","image":"envoy:2"},
        {"name":"app","image":"nginx:1.25","args":["-a"],
         "ports":[{"containerPort":80,"name":"http"}],
         "env":[{"name":"A","value":"1"},{"name":"B","value":"3"},{"name":"C","value":"4"}]}],
      "tolerations":[{"key":"a","operator":"Exists"},{"key":"b","operator":"Exists"}],
      "nodeSelector":{"zone":"z1","disk":"ssd"},
      "volumes":[{"name":"cfg","configMap":{"name":"cm"}}]},
    "status":{"phase":"Pending","conditions":[
      {"type":"PodScheduled","status":"False","reason":"Unschedulable","message":"0/3"},
      {"type":"Ready","status":"False"}]}})"));
}

TEST(StrategicMergePodTest, DeleteContainerAndKeepOrderWithSetElementOrder) {
  // What kubectl apply sends after a container was removed from and another added to the
  // manifest.
  Result<std::string> r = PodSmp(kPod, R"({"spec":{
      "$setElementOrder/containers":[{"name":"init"},{"name":"app"}],
      "containers":[{"name":"init","image":"busybox"},{"name":"sidecar","$patch":"delete"}]}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  rapidjson::Document d;
  d.Parse(r->c_str());
  const auto& containers = d["spec"]["containers"];
  ASSERT_EQ(containers.Size(), 2u);
  EXPECT_STREQ(containers[0]["name"].GetString(), "init");
  EXPECT_STREQ(containers[1]["name"].GetString(), "app");
  EXPECT_STREQ(containers[1]["image"].GetString(), "nginx:1.25");
}

TEST(StrategicMergePodTest, ConditionsMergeByType) {
  // The scheduler's status patch for an unschedulable pod.
  Result<std::string> r = PodSmp(kPod, R"({"status":{"conditions":[
      {"type":"PodScheduled","status":"False","reason":"Unschedulable","message":"0/5"}]}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  rapidjson::Document d;
  d.Parse(r->c_str());
  const auto& conditions = d["status"]["conditions"];
  ASSERT_EQ(conditions.Size(), 2u);
  EXPECT_STREQ(conditions[0]["type"].GetString(), "PodScheduled");
  EXPECT_STREQ(conditions[0]["message"].GetString(), "0/5");
  EXPECT_STREQ(conditions[1]["type"].GetString(), "Ready");

  r = PodSmp(kPod, R"({"status":{"conditions":[{"type":"Initialized","status":"True"}]}})");
  ASSERT_TRUE(r.ok());
  d.Parse(r->c_str());
  ASSERT_EQ(d["status"]["conditions"].Size(), 3u);
  EXPECT_STREQ(d["status"]["conditions"][0]["type"].GetString(), "Initialized");
}

TEST(StrategicMergePodTest, FinalizersMergeAsASet) {
  EXPECT_TRUE(
      JsonEq(*PodSmp(R"({"metadata":{"finalizers":["example.com/a","example.com/b"]}})",
                     R"({"metadata":{"finalizers":["example.com/b","example.com/c"]}})"),
             R"({"metadata":{"finalizers":["example.com/a","example.com/b","example.com/c"]}})"));
  // What kubectl sends to drop one.
  EXPECT_TRUE(JsonEq(*PodSmp(R"({"metadata":{"finalizers":["example.com/a","example.com/b"]}})",
                             R"({"metadata":{"$setElementOrder/finalizers":["example.com/a"],
                              "$deleteFromPrimitiveList/finalizers":["example.com/b"]}})"),
                     R"({"metadata":{"finalizers":["example.com/a"]}})"));
}

TEST(StrategicMergePodTest, TolerationsAndArgsAreReplaced) {
  Result<std::string> r = PodSmp(kPod, R"({"spec":{"tolerations":[{"key":"c","operator":"Exists"}],
      "containers":[{"name":"app","args":["-b"]}]}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  rapidjson::Document d;
  d.Parse(r->c_str());
  ASSERT_EQ(d["spec"]["tolerations"].Size(), 1u);
  EXPECT_STREQ(d["spec"]["tolerations"][0]["key"].GetString(), "c");
  const auto& app = d["spec"]["containers"][0];
  ASSERT_STREQ(app["name"].GetString(), "app");
  ASSERT_EQ(app["args"].Size(), 1u);
  EXPECT_STREQ(app["args"][0].GetString(), "-b");
}

TEST(StrategicMergePodTest, LabelsAndNodeSelector) {
  Result<std::string> r = PodSmp(kPod, R"({"metadata":{"labels":{"tier":null,"v":"2"}},
      "spec":{"nodeSelector":{"$patch":"replace","zone":"z2"}}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  rapidjson::Document d;
  d.Parse(r->c_str());
  EXPECT_FALSE(d["metadata"]["labels"].HasMember("tier"));
  EXPECT_STREQ(d["metadata"]["labels"]["v"].GetString(), "2");
  EXPECT_EQ(d["spec"]["nodeSelector"].MemberCount(), 1u);
  EXPECT_STREQ(d["spec"]["nodeSelector"]["zone"].GetString(), "z2");
}

TEST(StrategicMergePodTest, PortsMergeByIntegerKey) {
  Result<std::string> r = PodSmp(kPod, R"({"spec":{"containers":[{"name":"app",
      "ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":8080}]}]}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  rapidjson::Document d;
  d.Parse(r->c_str());
  const auto& ports = d["spec"]["containers"][0]["ports"];
  ASSERT_EQ(ports.Size(), 3u);
  EXPECT_EQ(ports[0]["containerPort"].GetInt(), 80);
  EXPECT_STREQ(ports[0]["protocol"].GetString(), "TCP");
  EXPECT_STREQ(ports[0]["name"].GetString(), "http");
  EXPECT_EQ(ports[1]["containerPort"].GetInt(), 8080);
  EXPECT_EQ(ports[2]["containerPort"].GetInt(), 443);
}

TEST(StrategicMergePodTest, RetainKeysSwitchesAVolumeSource) {
  Result<std::string> r = PodSmp(kPod, R"({"spec":{"volumes":[
      {"name":"cfg","$retainKeys":["emptyDir","name"],"emptyDir":{}}]}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  rapidjson::Document d;
  d.Parse(r->c_str());
  const auto& volumes = d["spec"]["volumes"];
  ASSERT_EQ(volumes.Size(), 1u);
  EXPECT_EQ(volumes[0].MemberCount(), 2u);
  EXPECT_STREQ(volumes[0]["name"].GetString(), "cfg");
  EXPECT_TRUE(volumes[0]["emptyDir"].IsObject());
}

TEST(StrategicMergePodTest, OwnerReferencesMergeByUid) {
  Result<std::string> r = PodSmp(kPod, R"({"metadata":{"ownerReferences":[
      {"apiVersion":"v1","kind":"Node","name":"n","uid":"u2"},
      {"uid":"u1","blockOwnerDeletion":true}]}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  rapidjson::Document d;
  d.Parse(r->c_str());
  const auto& refs = d["metadata"]["ownerReferences"];
  ASSERT_EQ(refs.Size(), 2u);
  EXPECT_STREQ(refs[0]["uid"].GetString(), "u2");
  EXPECT_STREQ(refs[1]["uid"].GetString(), "u1");
  EXPECT_STREQ(refs[1]["kind"].GetString(), "ReplicaSet");
  EXPECT_TRUE(refs[1]["blockOwnerDeletion"].GetBool());
}

// --- server-side apply (simplified) -----------------------------------------------------------

Result<std::string> Apply(const std::string& original, const std::string& body) {
  return ApplyPatch(PatchType::kApplyPatch, original, body, reflect::SchemaOf<PodLike>());
}

TEST(ApplyPatchTest, YamlMergesIntoTheCurrentObject) {
  Result<std::string> r = Apply(kPod, R"(apiVersion: v1
kind: Pod
metadata:
  name: web
  labels:
    v: "2"
spec:
  containers:
  - name: app
    image: nginx:1.26
)");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  rapidjson::Document d;
  d.Parse(r->c_str());
  EXPECT_STREQ(d["metadata"]["labels"]["app"].GetString(), "web");
  EXPECT_STREQ(d["metadata"]["labels"]["v"].GetString(), "2");
  const auto& containers = d["spec"]["containers"];
  ASSERT_EQ(containers.Size(), 2u);
  EXPECT_STREQ(containers[0]["image"].GetString(), "nginx:1.26");
  EXPECT_EQ(containers[0]["ports"].Size(), 2u);
  EXPECT_STREQ(containers[1]["name"].GetString(), "sidecar");
}

TEST(ApplyPatchTest, JsonBodyAndEmptyCurrentObject) {
  Result<std::string> r =
      Apply("{}", R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(JsonEq(*r, R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"}})"));
}

TEST(ApplyPatchTest, YamlErrors) {
  Result<std::string> r = Apply(kPod, "metadata:\n  name: a: b\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(r.status().message(),
            "error decoding YAML: error converting YAML to JSON: yaml: line 2: mapping values are "
            "not allowed in this context");
  r = Apply(kPod, "- a\n- b\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(r.status().message(),
            "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot "
            "unmarshal array into Go value of type map[string]interface {}");
}

}  // namespace
}  // namespace allot::api
