#include "drivers/acceleratorpool/node_plugin.h"

#include "api/resource/node_pinning.h"

namespace allot::drivers {

Status AcceleratorPoolNodePlugin::PrepareResources(const api::ResourceClaim& claim,
                                                   std::string_view node) {
  const auto& alloc = claim.status.allocation;
  if (!alloc || alloc->controllerName != driver_) {
    return BadRequestError("claim " + claim.metadata.namespace_ + "/" + claim.metadata.name +
                           " has no allocation of " + driver_);
  }
  // Pinned allocations name their node; rack-wide ones (Immediate) were checked by the
  // scheduler against the node's labels.
  const std::string pinned = alloc->nodeSelector ? api::PinnedNode(*alloc->nodeSelector) : "";
  if (!pinned.empty() && pinned != node) {
    return ConflictError("resourceclaims", claim.metadata.name,
                         "allocated for node " + pinned + ", not " + std::string(node));
  }
  return Status::Ok();
}

}  // namespace allot::drivers
