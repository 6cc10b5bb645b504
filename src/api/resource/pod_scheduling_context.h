// resource.k8s.io/v1alpha3 PodSchedulingContext (KEP-3063 control-plane controller; removed
// upstream in 1.32, served by Allot as a seed extension; k8s.io/api resource/v1alpha3@1.31).
//
// Node-list limit: Kubernetes 1.31 capped PodSchedulingContext node lists at 128
// (PodSchedulingNodeListMaxSize) while the KEP text says 256. Allot uses 256, so a scheduler that
// filters in batches can offer twice as many candidates; a client that writes at most 128 is
// unaffected. Oversized lists are reported as `Too many: 257: must have at most 256 items`
// (1.31 used the byte-oriented TooLong message).
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

inline constexpr size_t kPodSchedulingNodeListMaxSize = 256;

struct PodSchedulingContextSpec {
  // The node for which delayed claims are to be allocated; set by the scheduler.
  std::string selectedNode;
  // Nodes the pod might run on (a set, <= 256); drivers report unsuitable ones in the status.
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
  std::vector<std::string> unsuitableNodes;  // a set, <= 256
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
// <= 256).
void ValidatePodSchedulingContext(const PodSchedulingContext& obj, FieldErrors& errs);
// The spec is mutable: only the metadata update rules; callers run ValidatePodSchedulingContext
// on the new object too.
void ValidatePodSchedulingContextUpdate(const PodSchedulingContext& obj,
                                        const PodSchedulingContext& old, FieldErrors& errs);
// Metadata update rules and status.resourceClaims (unique names, unsuitableNodes as above).
void ValidatePodSchedulingContextStatusUpdate(const PodSchedulingContext& obj,
                                              const PodSchedulingContext& old, FieldErrors& errs);

}  // namespace allot::api
