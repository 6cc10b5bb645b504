// core/v1 kinds: Namespace, Node, Pod, Binding, Event, Lease (coordination.k8s.io/v1).
//
// Field names and JSON shapes are Kubernetes' own. Parts of the Pod we do not interpret
// (volumes, probes, security contexts, ...) are kept verbatim as RawJson so nothing a client
// sends is lost.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/object.h"

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

}  // namespace allot::api
