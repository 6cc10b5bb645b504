#include "api/resource/pod_scheduling_context.h"

#include <algorithm>
#include <set>

#include "api/machinery/meta_validation.h"
#include "api/machinery/names.h"
#include "api/machinery/reflect.h"
#include "api/machinery/validation_util.h"

namespace allot::api {

ALLOT_DEFINE_TYPE(PodSchedulingContext, "resource.k8s.io", "v1alpha3", "PodSchedulingContext")

namespace {

// validateSliceIsASet (v1alpha3): duplicates are reported instead of being re-validated; the
// size limit is checked after the entries.
void ValidateNodeSet(const std::vector<std::string>& nodes, const Path& p, FieldErrors& errs) {
  std::set<std::string> seen;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!seen.insert(nodes[i]).second) {
      errs.Duplicate(p.Index(i), nodes[i]);
    } else {
      validation_util::ValidateNodeName(nodes[i], p.Index(i), errs);
    }
  }
  if (nodes.size() > kPodSchedulingNodeListMaxSize) {
    errs.TooMany(p, static_cast<int64_t>(nodes.size()), kPodSchedulingNodeListMaxSize);
  }
}

// The context is controlled by its pod (Allot's rule; upstream's scheduler always created it so):
// its controller owner reference, when it has one, is the core/v1 Pod of the context's name. A
// context without a controller (one applied from a manifest, which cannot know the pod's uid) is
// accepted; the scheduler creates and adopts contexts with the reference. Two controllers are
// reported by the metadata validation already.
void ValidateControlledByPod(const ObjectMeta& meta, FieldErrors& errs) {
  const Path p = Path("metadata").Child("ownerReferences");
  for (size_t i = 0; i < meta.ownerReferences.size(); ++i) {
    const OwnerReference& ref = meta.ownerReferences[i];
    if (!ref.controller.value_or(false)) continue;
    if (ref.apiVersion != "v1" || ref.kind != "Pod" || ref.name != meta.name) {
      errs.Invalid(p.Index(i), ref.apiVersion + "/" + ref.kind + " " + ref.name,
                   "the controller of a PodSchedulingContext must be the v1 Pod of the same name");
    }
    return;
  }
}

}  // namespace

void ValidatePodSchedulingContext(const PodSchedulingContext& obj, FieldErrors& errs) {
  ValidateObjectMeta(obj.metadata, /*namespaced=*/true, NameIsDnsSubdomain, errs);
  ValidateControlledByPod(obj.metadata, errs);
  Path p("spec");
  // Upstream does not check selectedNode; a bad node name can never be bound, so Allot does.
  if (!obj.spec.selectedNode.empty()) {
    validation_util::ValidateNodeName(obj.spec.selectedNode, p.Child("selectedNode"), errs);
  }
  ValidateNodeSet(obj.spec.potentialNodes, p.Child("potentialNodes"), errs);
}

void ValidatePodSchedulingContextUpdate(const PodSchedulingContext& obj,
                                        const PodSchedulingContext& old, FieldErrors& errs) {
  ValidateObjectMetaUpdate(obj.metadata, old.metadata, errs);
}

void ValidatePodSchedulingContextStatusUpdate(const PodSchedulingContext& obj,
                                              const PodSchedulingContext& old, FieldErrors& errs) {
  ValidateObjectMetaUpdate(obj.metadata, old.metadata, errs);
  // Upstream reports these under "status.claims"; Allot uses the field's real name.
  Path p = Path("status").Child("resourceClaims");
  std::set<std::string> names;
  const auto& claims = obj.status.resourceClaims;
  for (size_t i = 0; i < claims.size(); ++i) {
    ValidateNodeSet(claims[i].unsuitableNodes, p.Index(i).Child("unsuitableNodes"), errs);
    if (!names.insert(claims[i].name).second) errs.Duplicate(p.Index(i), claims[i].name);
  }
}

}  // namespace allot::api
