// resource.k8s.io/v1alpha3 PodSchedulingContext (KEP-3063 control-plane controller; removed
// upstream in 1.32, served by Allot as a seed extension; k8s.io/api resource/v1alpha3@1.31).
//
// Node lists (spec.potentialNodes, each status.resourceClaims[].unsuitableNodes) are sets of at
// most 128 node names, Kubernetes 1.31's PodSchedulingNodeListMaxSize. A context is controlled by
// its pod: its controller owner reference, when set, must be the pod of the same name (so it goes
// with the pod).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/core/types.h"
#include "api/machinery/field.h"
#include "api/machinery/meta.h"
#include "api/machinery/object.h"
#include "api/machinery/validation.h"

namespace allot::api {

inline constexpr size_t kPodSchedulingNodeListMaxSize = 128;

struct PodSchedulingContextSpec {
  // The node for which delayed claims are to be allocated; set by the scheduler.
  std::string selectedNode;
  // Nodes the pod might run on (a set, <= 128); drivers report unsuitable ones in the status.
  std::vector<std::string> potentialNodes;
  template <class V>
  void Visit(V& v) {
    v("selectedNode", selectedNode);
    v("potentialNodes", potentialNodes, {.atomic = true});
  }
  bool operator==(const PodSchedulingContextSpec&) const = default;
};

// One pending claim of the pod; `name` is pod.spec.resourceClaims[].name.
struct ResourceClaimSchedulingStatus {
  std::string name;
  std::vector<std::string> unsuitableNodes;  // a set, <= 128
  template <class V>
  void Visit(V& v) {
    v("name", name);
    v("unsuitableNodes", unsuitableNodes, {.atomic = true});
  }
  bool operator==(const ResourceClaimSchedulingStatus&) const = default;
};

struct PodSchedulingContextStatus {
  std::vector<ResourceClaimSchedulingStatus> resourceClaims;  // keyed by name
  template <class V>
  void Visit(V& v) {
    v("resourceClaims", resourceClaims, {.merge_key = "name"});
  }
  bool operator==(const PodSchedulingContextStatus&) const = default;
};

// Namespaced; named after its pod, which owns it.
struct PodSchedulingContext : TypedObject<PodSchedulingContext> {
  static const TypeInfo& Type();
  PodSchedulingContextSpec spec;
  PodSchedulingContextStatus status;
  template <class V>
  void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec, {.required = true});
    v("status", status);
  }
  bool operator==(const PodSchedulingContext& o) const {
    return metadata == o.metadata && spec == o.spec && status == o.status;
  }
};

// Name (the pod's), namespace, spec.selectedNode and spec.potentialNodes (node names, a set,
// <= 128).
void ValidatePodSchedulingContext(const PodSchedulingContext& obj, FieldErrors& errs);
// The spec is mutable: only the metadata update rules; callers run ValidatePodSchedulingContext
// on the new object too.
void ValidatePodSchedulingContextUpdate(const PodSchedulingContext& obj,
                                        const PodSchedulingContext& old, FieldErrors& errs);
// Metadata update rules and status.resourceClaims (unique names, unsuitableNodes as above).
void ValidatePodSchedulingContextStatusUpdate(const PodSchedulingContext& obj,
                                              const PodSchedulingContext& old, FieldErrors& errs);

}  // namespace allot::api
