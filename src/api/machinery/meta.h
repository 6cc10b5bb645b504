// Object metadata and the small types shared by every API group (metav1 and a few core/v1
// structs that resource.k8s.io and Koordinator reuse).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/machinery/field.h"
#include "api/machinery/flat_map.h"
#include "api/machinery/interned_string.h"
#include "api/machinery/quantity.h"
#include "api/machinery/rare.h"
#include "common/time.h"

namespace allot::api {

// Labels, annotations, selectors' matchLabels: sorted, in one block (api/machinery/flat_map.h).
using StringMap = FlatMap<std::string, std::string>;
// core/v1 ResourceList: resource name -> quantity.
using ResourceList = FlatMap<std::string, Quantity>;

// metav1.Time: RFC 3339, whole seconds. Distinct type so the codec knows the format.
struct MicroTime {
  Time time;
  bool operator==(const MicroTime&) const = default;
};

struct OwnerReference {
  InternedString apiVersion;
  InternedString kind;
  std::string name;
  std::string uid;
  std::optional<bool> controller;
  std::optional<bool> blockOwnerDeletion;
  template <class V> void Visit(V& v) {
    v("apiVersion", apiVersion, {.required = true});
    v("kind", kind, {.required = true});
    v("name", name, {.required = true});
    v("uid", uid, {.required = true});
    v("controller", controller);
    v("blockOwnerDeletion", blockOwnerDeletion);
  }
  bool operator==(const OwnerReference&) const = default;
};

struct ManagedFieldsEntry {
  std::string manager;
  std::string operation;
  std::string apiVersion;
  std::optional<Time> time;
  std::string fieldsType;
  RawJson fieldsV1;
  std::string subresource;
  template <class V> void Visit(V& v) {
    v("manager", manager);
    v("operation", operation);
    v("apiVersion", apiVersion);
    v("time", time);
    v("fieldsType", fieldsType);
    v("fieldsV1", fieldsV1);
    v("subresource", subresource);
  }
  bool operator==(const ManagedFieldsEntry&) const = default;
};

// The fields of ObjectMeta that the server never sets and clients seldom send, kept out of
// line (api/machinery/rare.h): ObjectMeta::rare.
struct ObjectMetaRare {
  std::string selfLink;                           // deprecated; never set by the server
  std::vector<ManagedFieldsEntry> managedFields;  // api/managed_fields/field_manager.h
  // Set only while an object is being deleted (it waits for finalizers, or a pod for its
  // grace period): rare for as long as most objects live.
  std::optional<Time> deletionTimestamp;
  std::optional<int64_t> deletionGracePeriodSeconds;
  bool operator==(const ObjectMetaRare&) const = default;
};

struct ObjectMeta {
  std::string name;
  std::string generateName;
  InternedString namespace_;
  std::string uid;
  std::string resourceVersion;
  int64_t generation = 0;
  std::optional<Time> creationTimestamp;
  StringMap labels;
  StringMap annotations;
  std::vector<OwnerReference> ownerReferences;
  std::vector<InternedString> finalizers;
  // selfLink, managedFields, deletionTimestamp, deletionGracePeriodSeconds: read them as
  // `meta.rare->deletionTimestamp`, write with `meta.rare.set(&ObjectMetaRare::..., v)`.
  Rare<ObjectMetaRare> rare;

  template <class V> void Visit(V& v) {
    v("name", name);
    v("generateName", generateName);
    v("namespace", namespace_);
    VisitRare(v, "selfLink", rare, &ObjectMetaRare::selfLink);
    v("uid", uid);
    v("resourceVersion", resourceVersion);
    v("generation", generation);
    v("creationTimestamp", creationTimestamp);
    VisitRare(v, "deletionTimestamp", rare, &ObjectMetaRare::deletionTimestamp);
    VisitRare(v, "deletionGracePeriodSeconds", rare, &ObjectMetaRare::deletionGracePeriodSeconds);
    v("labels", labels);
    v("annotations", annotations);
    v("ownerReferences", ownerReferences, {.merge_key = "uid"});
    v("finalizers", finalizers, {.set = true});
    VisitRare(v, "managedFields", rare, &ObjectMetaRare::managedFields, {.atomic = true});
  }
  bool operator==(const ObjectMeta&) const = default;
};

struct ListMeta {
  std::string resourceVersion;
  std::string continue_;
  std::optional<int64_t> remainingItemCount;
  template <class V> void Visit(V& v) {
    v("resourceVersion", resourceVersion);
    v("continue", continue_);
    v("remainingItemCount", remainingItemCount);
  }
};

// metav1.Condition (resource.k8s.io device conditions, and most newer APIs).
struct Condition {
  InternedString type;
  InternedString status;  // True | False | Unknown
  int64_t observedGeneration = 0;
  std::optional<Time> lastTransitionTime;
  InternedString reason;
  std::string message;
  template <class V> void Visit(V& v) {
    v("type", type, {.required = true});
    v("status", status, {.required = true});
    v("observedGeneration", observedGeneration);
    v("lastTransitionTime", lastTransitionTime, {.always = true});
    v("reason", reason, {.always = true});
    v("message", message, {.always = true});
  }
  bool operator==(const Condition&) const = default;
};

struct LabelSelectorRequirement {
  InternedString key;
  InternedString operator_;  // In | NotIn | Exists | DoesNotExist
  std::vector<std::string> values;
  template <class V> void Visit(V& v) {
    v("key", key, {.required = true});
    v("operator", operator_, {.required = true});
    v("values", values, {.atomic = true});
  }
  bool operator==(const LabelSelectorRequirement&) const = default;
};

struct LabelSelector {
  StringMap matchLabels;
  std::vector<LabelSelectorRequirement> matchExpressions;
  template <class V> void Visit(V& v) {
    v("matchLabels", matchLabels);
    v("matchExpressions", matchExpressions, {.atomic = true});
  }
  bool operator==(const LabelSelector&) const = default;
};

// core/v1 NodeSelector family.
struct NodeSelectorRequirement {
  InternedString key;
  InternedString operator_;  // In | NotIn | Exists | DoesNotExist | Gt | Lt
  std::vector<std::string> values;
  template <class V> void Visit(V& v) {
    v("key", key, {.required = true});
    v("operator", operator_, {.required = true});
    v("values", values, {.atomic = true});
  }
  bool operator==(const NodeSelectorRequirement&) const = default;
};

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> matchExpressions;
  std::vector<NodeSelectorRequirement> matchFields;
  template <class V> void Visit(V& v) {
    v("matchExpressions", matchExpressions, {.atomic = true});
    v("matchFields", matchFields, {.atomic = true});
  }
  bool operator==(const NodeSelectorTerm&) const = default;
};

struct NodeSelector {
  std::vector<NodeSelectorTerm> nodeSelectorTerms;
  template <class V> void Visit(V& v) {
    v("nodeSelectorTerms", nodeSelectorTerms, {.atomic = true, .required = true});
  }
  bool operator==(const NodeSelector&) const = default;
};

struct Toleration {
  InternedString key;
  InternedString operator_;  // Exists | Equal (default)
  std::string value;
  InternedString effect;  // NoSchedule | PreferNoSchedule | NoExecute | "" (all)
  std::optional<int64_t> tolerationSeconds;
  template <class V> void Visit(V& v) {
    v("key", key);
    v("operator", operator_);
    v("value", value);
    v("effect", effect);
    v("tolerationSeconds", tolerationSeconds);
  }
  bool operator==(const Toleration&) const = default;
};

struct Taint {
  InternedString key;
  std::string value;
  InternedString effect;  // NoSchedule | PreferNoSchedule | NoExecute
  std::optional<Time> timeAdded;
  template <class V> void Visit(V& v) {
    v("key", key, {.required = true});
    v("value", value);
    v("effect", effect, {.required = true});
    v("timeAdded", timeAdded);
  }
  bool operator==(const Taint&) const = default;
};

struct ObjectReference {
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string apiVersion;
  std::string resourceVersion;
  std::string fieldPath;
  template <class V> void Visit(V& v) {
    v("kind", kind);
    v("namespace", namespace_);
    v("name", name);
    v("uid", uid);
    v("apiVersion", apiVersion);
    v("resourceVersion", resourceVersion);
    v("fieldPath", fieldPath);
  }
  bool operator==(const ObjectReference&) const = default;
};

}  // namespace allot::api
