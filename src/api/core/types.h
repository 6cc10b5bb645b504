// core/v1 kinds: Namespace, Node, Pod, Binding, Event, Lease (coordination.k8s.io/v1).
//
// Field names and JSON shapes are Kubernetes' own (k8s.io/api, Kubernetes 1.34). Parts we do
// not interpret (probes, security contexts, volume sources, ...) are kept verbatim as RawJson so
// nothing a client sends is lost. Pod and Binding live in api/core/pod.h, Node in
// api/core/node.h; this header includes both. Defaulting, validation and tables for these kinds
// are in api/core/strategy.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/machinery/boxed.h"
#include "api/machinery/meta.h"
#include "api/machinery/object.h"

namespace allot::api {

// --- Namespace --------------------------------------------------------------------------------

struct NamespaceSpec {
  std::vector<std::string> finalizers;
  template <class V> void Visit(V& v) { v("finalizers", finalizers, {.set = true}); }
  bool operator==(const NamespaceSpec&) const = default;
};

struct NamespaceCondition {
  std::string type;
  std::string status;
  std::optional<Time> lastTransitionTime;
  std::string reason;
  std::string message;
  template <class V> void Visit(V& v) {
    v("type", type);
    v("status", status);
    v("lastTransitionTime", lastTransitionTime);
    v("reason", reason);
    v("message", message);
  }
  bool operator==(const NamespaceCondition&) const = default;
};

struct NamespaceStatus {
  std::string phase;  // Active | Terminating
  std::vector<NamespaceCondition> conditions;
  template <class V> void Visit(V& v) {
    v("phase", phase);
    v("conditions", conditions, {.merge_key = "type"});
  }
  bool operator==(const NamespaceStatus&) const = default;
};

struct Namespace : TypedObject<Namespace> {
  static const TypeInfo& Type();
  NamespaceSpec spec;
  NamespaceStatus status;
  template <class V> void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec);
    v("status", status);
  }
  bool operator==(const Namespace& o) const {
    return metadata == o.metadata && spec == o.spec && status == o.status;
  }
};

// --- Event (core/v1) ---------------------------------------------------------------------------

struct EventSource {
  std::string component;
  std::string host;
  template <class V> void Visit(V& v) {
    v("component", component);
    v("host", host);
  }
  bool operator==(const EventSource&) const = default;
};

struct EventSeries {
  int32_t count = 0;
  std::optional<MicroTime> lastObservedTime;  // written as null when unset, as Go does
  template <class V> void Visit(V& v) {
    v("count", count);
    v("lastObservedTime", lastObservedTime, {.always = true});
  }
  bool operator==(const EventSeries&) const = default;
};

// A core/v1 Event. Old-style events (no eventTime) count repeats in count/lastTimestamp; new-style
// ones (events.k8s.io clients) set eventTime, series, action and reportingComponent/Instance.
struct Event : TypedObject<Event> {
  static const TypeInfo& Type();
  ObjectReference involvedObject;
  std::string reason;
  std::string message;
  EventSource source;
  std::optional<Time> firstTimestamp;  // written as null when unset, as Go does
  std::optional<Time> lastTimestamp;   // written as null when unset, as Go does
  int32_t count = 0;
  std::string type;  // Normal | Warning
  std::optional<MicroTime> eventTime;  // written as null when unset, as Go does
  Boxed<EventSeries> series;  // rarely set: kept out of line (api/machinery/boxed.h)
  std::string action;
  Boxed<ObjectReference> related;  // rarely set
  std::string reportingComponent;  // events.k8s.io reportingController; always written
  std::string reportingInstance;   // always written
  template <class V> void Visit(V& v) {
    v("metadata", metadata);
    v("involvedObject", involvedObject, {.required = true});
    v("reason", reason);
    v("message", message);
    v("source", source);
    v("firstTimestamp", firstTimestamp, {.always = true});
    v("lastTimestamp", lastTimestamp, {.always = true});
    v("count", count);
    v("type", type);
    v("eventTime", eventTime, {.always = true});
    v("series", series);
    v("action", action);
    v("related", related);
    v("reportingComponent", reportingComponent, {.always = true});
    v("reportingInstance", reportingInstance, {.always = true});
  }
  bool operator==(const Event& o) const {
    return metadata == o.metadata && involvedObject == o.involvedObject && reason == o.reason &&
           message == o.message && source == o.source && firstTimestamp == o.firstTimestamp &&
           lastTimestamp == o.lastTimestamp && count == o.count && type == o.type &&
           eventTime == o.eventTime && series == o.series && action == o.action &&
           related == o.related && reportingComponent == o.reportingComponent &&
           reportingInstance == o.reportingInstance;
  }
};

// --- Lease (coordination.k8s.io/v1) ------------------------------------------------------------

struct LeaseSpec {
  std::optional<std::string> holderIdentity;
  std::optional<int32_t> leaseDurationSeconds;
  std::optional<MicroTime> acquireTime;
  std::optional<MicroTime> renewTime;
  std::optional<int32_t> leaseTransitions;
  std::optional<std::string> strategy;  // OldestEmulationVersion (coordinated leader election)
  std::optional<std::string> preferredHolder;
  template <class V> void Visit(V& v) {
    v("holderIdentity", holderIdentity);
    v("leaseDurationSeconds", leaseDurationSeconds);
    v("acquireTime", acquireTime);
    v("renewTime", renewTime);
    v("leaseTransitions", leaseTransitions);
    v("strategy", strategy);
    v("preferredHolder", preferredHolder);
  }
  bool operator==(const LeaseSpec&) const = default;
};

struct Lease : TypedObject<Lease> {
  static const TypeInfo& Type();
  LeaseSpec spec;
  template <class V> void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec);
  }
  bool operator==(const Lease& o) const { return metadata == o.metadata && spec == o.spec; }
};

}  // namespace allot::api
