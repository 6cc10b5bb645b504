#include "api/resource/pod_claims.h"

namespace allot::api {

std::vector<PodClaimUse> PodClaims(const Pod& pod) {
  std::vector<PodClaimUse> out;
  for (const PodResourceClaim& entry : pod.spec.resourceClaims) {
    if (entry.resourceClaimName) {
      out.push_back({.entry = entry.name, .claim_name = *entry.resourceClaimName});
      continue;
    }
    if (!entry.resourceClaimTemplateName) continue;  // invalid pod; nothing to check
    const PodResourceClaimStatus* status = nullptr;
    for (const PodResourceClaimStatus& s : pod.status.resourceClaimStatuses) {
      if (s.name == entry.name) status = &s;
    }
    if (status == nullptr) {
      out.push_back({.entry = entry.name, .generated = true, .not_ready = true});
    } else if (status->resourceClaimName) {
      out.push_back(
          {.entry = entry.name, .claim_name = *status->resourceClaimName, .generated = true});
    }
  }
  if (pod.status.rare->extendedResourceClaimStatus) {
    // Created by the scheduler for the pod (owner: the pod).
    out.push_back({.claim_name = pod.status.rare->extendedResourceClaimStatus->resourceClaimName,
                   .generated = true});
  }
  return out;
}

}  // namespace allot::api
