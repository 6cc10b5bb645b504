// Which ResourceClaims a pod uses (the resourceclaim.Name rules of k8s.io/dynamic-resource-
// allocation): shared by the simulated kubelet, the drivers and the controllers.
//
// A pod's claims are its spec.resourceClaims entries:
//   - resourceClaimName: that claim, in the pod's namespace;
//   - resourceClaimTemplateName: the claim the resourceclaim controller generated, named in
//     pod.status.resourceClaimStatuses[name == entry]. No status entry yet: not ready (the
//     controller has not caught up). A status entry without resourceClaimName: no claim needed.
//     A generated claim must be controlled by the pod (ownerReference with controller=true and
//     the pod's uid), so a leftover claim of an earlier pod of the same name is not used;
// plus pod.status.extendedResourceClaimStatus.resourceClaimName (DRAExtendedResource), if set.
#pragma once

#include <string>
#include <vector>

#include "api/core/pod.h"

namespace allot::api {

// One claim a pod uses.
struct PodClaimUse {
  std::string entry;       // spec.resourceClaims[].name ("" for the extended-resource claim)
  std::string claim_name;  // the ResourceClaim's name; "" when `not_ready`
  bool generated = false;  // from a template: the claim must be controlled by the pod
  bool not_ready = false;  // from a template that has no status entry yet
};

// The claims the pod uses, in spec order (entries that need no claim are left out).
std::vector<PodClaimUse> PodClaims(const Pod& pod);

}  // namespace allot::api
