// The request-only kinds kubectl sends in protobuf and Allot does not store: an Eviction with its
// DeleteOptions (`kubectl drain`), the access reviews (`kubectl auth can-i`, `auth whoami`), and
// events.k8s.io/v1 Events (what kube-scheduler's and controllers' event recorders send; stored
// as core/v1 Events, api/core/events_v1.cc).
// Each is the wire shape of the Kubernetes message as a struct with Visit(), and its
// ProtoMessage table holds the message's field numbers (k8s.io/api policy/v1, authorization/v1,
// authentication/v1 and apimachinery meta/v1 generated.proto), the only place they are written.
// apiserver/encoding/protobuf.cc reads these structs from protobuf and writes them as JSON for
// the handlers (the envelope carries apiVersion and kind; the converter writes them back). Fields
// Allot does not read (a review's field and label selectors, a SubjectAccessReview's extra) are
// left out, and protobuf skips them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/core/protobuf_messages_node.h"  // EventSource, EventSeries
#include "api/core/types.h"
#include "api/machinery/meta.h"
#include "api/machinery/protobuf_fields.h"
#include "api/machinery/protobuf_messages.h"  // ObjectReference

namespace allot::apiserver::request_kinds {

// --- meta/v1 DeleteOptions and policy/v1 Eviction ----------------------------------------------

struct Preconditions {
  std::optional<std::string> uid;
  std::optional<std::string> resourceVersion;
  template <class V>
  void Visit(V& v) {
    v("uid", uid);
    v("resourceVersion", resourceVersion);
  }
};

struct DeleteOptions {
  std::optional<int64_t> gracePeriodSeconds;
  std::optional<Preconditions> preconditions;
  std::optional<bool> orphanDependents;
  std::optional<std::string> propagationPolicy;
  std::vector<std::string> dryRun;
  template <class V>
  void Visit(V& v) {
    v("gracePeriodSeconds", gracePeriodSeconds);
    v("preconditions", preconditions);
    v("orphanDependents", orphanDependents);
    v("propagationPolicy", propagationPolicy);
    v("dryRun", dryRun);
  }
};

struct Eviction {
  api::ObjectMeta metadata;
  std::optional<DeleteOptions> deleteOptions;
  template <class V>
  void Visit(V& v) {
    v("metadata", metadata);
    v("deleteOptions", deleteOptions);
  }
};

// --- events.k8s.io/v1 Event ----------------------------------------------------------------------

struct EventsV1Event {
  api::ObjectMeta metadata;
  std::optional<api::MicroTime> eventTime;
  std::optional<api::EventSeries> series;
  std::string reportingController;
  std::string reportingInstance;
  std::string action;
  std::string reason;
  api::ObjectReference regarding;
  std::optional<api::ObjectReference> related;
  std::string note;
  std::string type;
  api::EventSource deprecatedSource;
  std::optional<Time> deprecatedFirstTimestamp;
  std::optional<Time> deprecatedLastTimestamp;
  int32_t deprecatedCount = 0;
  template <class V>
  void Visit(V& v) {
    v("metadata", metadata);
    v("eventTime", eventTime, {.always = true});
    v("series", series);
    v("reportingController", reportingController);
    v("reportingInstance", reportingInstance);
    v("action", action);
    v("reason", reason);
    v("regarding", regarding);
    v("related", related);
    v("note", note);
    v("type", type);
    v("deprecatedSource", deprecatedSource);
    v("deprecatedFirstTimestamp", deprecatedFirstTimestamp);
    v("deprecatedLastTimestamp", deprecatedLastTimestamp);
    v("deprecatedCount", deprecatedCount);
  }
};

// --- authorization/v1 and authentication/v1 reviews ---------------------------------------------

struct ResourceAttributes {
  std::string namespace_, verb, group, version, resource, subresource, name;
  template <class V>
  void Visit(V& v) {
    v("namespace", namespace_);
    v("verb", verb);
    v("group", group);
    v("version", version);
    v("resource", resource);
    v("subresource", subresource);
    v("name", name);
  }
};

struct NonResourceAttributes {
  std::string path, verb;
  template <class V>
  void Visit(V& v) {
    v("path", path);
    v("verb", verb);
  }
};

// SelfSubjectAccessReviewSpec has the first two fields alone; SubjectAccessReviewSpec all.
struct AccessReviewSpec {
  std::optional<ResourceAttributes> resourceAttributes;
  std::optional<NonResourceAttributes> nonResourceAttributes;
  std::string user;
  std::vector<std::string> groups;
  std::string uid;
  template <class V>
  void Visit(V& v) {
    v("resourceAttributes", resourceAttributes);
    v("nonResourceAttributes", nonResourceAttributes);
    v("user", user);
    v("groups", groups);
    v("uid", uid);
  }
};

// SelfSubjectAccessReview and SubjectAccessReview: {metadata = 1, spec = 2, status = 3}.
struct AccessReview {
  api::ObjectMeta metadata;
  AccessReviewSpec spec;
  template <class V>
  void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec);
  }
};

struct RulesReviewSpec {
  std::string namespace_;
  template <class V>
  void Visit(V& v) {
    v("namespace", namespace_);
  }
};

struct SelfSubjectRulesReview {
  api::ObjectMeta metadata;
  RulesReviewSpec spec;
  template <class V>
  void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec);
  }
};

struct SelfSubjectReview {
  api::ObjectMeta metadata;
  template <class V>
  void Visit(V& v) {
    v("metadata", metadata);
  }
};

}  // namespace allot::apiserver::request_kinds

namespace allot::api {

template <>
struct ProtoMessage<apiserver::request_kinds::Preconditions> {
  static constexpr ProtoField kFields[] = {{"uid", 1}, {"resourceVersion", 2}};
};

template <>
struct ProtoMessage<apiserver::request_kinds::DeleteOptions> {
  static constexpr ProtoField kFields[] = {{"gracePeriodSeconds", 1},
                                           {"preconditions", 2},
                                           {"orphanDependents", 3},
                                           {"propagationPolicy", 4},
                                           {"dryRun", 5}};
};

template <>
struct ProtoMessage<apiserver::request_kinds::EventsV1Event> {
  static constexpr ProtoField kFields[] = {
      {"metadata", 1},          {"eventTime", 2},          {"series", 3},
      {"reportingController", 4}, {"reportingInstance", 5}, {"action", 6},
      {"reason", 7},            {"regarding", 8},          {"related", 9},
      {"note", 10},             {"type", 11},              {"deprecatedSource", 12},
      {"deprecatedFirstTimestamp", 13}, {"deprecatedLastTimestamp", 14},
      {"deprecatedCount", 15}};
};

template <>
struct ProtoMessage<apiserver::request_kinds::Eviction> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"deleteOptions", 2}};
};

template <>
struct ProtoMessage<apiserver::request_kinds::ResourceAttributes> {
  static constexpr ProtoField kFields[] = {{"namespace", 1}, {"verb", 2},     {"group", 3},
                                           {"version", 4},   {"resource", 5}, {"subresource", 6},
                                           {"name", 7}};
};

template <>
struct ProtoMessage<apiserver::request_kinds::NonResourceAttributes> {
  static constexpr ProtoField kFields[] = {{"path", 1}, {"verb", 2}};
};

template <>
struct ProtoMessage<apiserver::request_kinds::AccessReviewSpec> {
  static constexpr ProtoField kFields[] = {{"resourceAttributes", 1},
                                           {"nonResourceAttributes", 2},
                                           {"user", 3},
                                           {"groups", 4},
                                           {"uid", 6}};
};

template <>
struct ProtoMessage<apiserver::request_kinds::AccessReview> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}};
};

template <>
struct ProtoMessage<apiserver::request_kinds::RulesReviewSpec> {
  static constexpr ProtoField kFields[] = {{"namespace", 1}};
};

template <>
struct ProtoMessage<apiserver::request_kinds::SelfSubjectRulesReview> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}};
};

template <>
struct ProtoMessage<apiserver::request_kinds::SelfSubjectReview> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}};
};

}  // namespace allot::api
