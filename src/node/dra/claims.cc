#include "node/dra/claims.h"

#include "api/machinery/owners.h"
#include "client/informer.h"

namespace allot::node {

namespace {

std::string ClaimId(const api::Pod& pod, std::string_view name) {
  return "resourceclaim " + pod.metadata.namespace_ + "/" + std::string(name);
}

}  // namespace

api::ObjectPtr InformerClaimSource::GetClaim(std::string_view ns, std::string_view name) const {
  return claims_.Get(ns, name);
}


bool IsReservedForPod(const api::ResourceClaim& claim, const api::Pod& pod) {
  for (const api::ResourceClaimConsumerReference& ref : claim.status.reservedFor) {
    if (ref.uid == pod.metadata.uid) return true;
  }
  return false;
}

std::string WhyClaimBlocksPod(const api::Pod& pod, const PodClaimUse& use,
                              const api::ResourceClaim* claim) {
  if (use.not_ready) {
    return "resourceclaim for pod claim \"" + use.entry + "\" has not been created yet";
  }
  if (claim == nullptr) return ClaimId(pod, use.claim_name) + " not found";
  if (use.generated && !api::IsControlledBy(claim->metadata, pod.metadata.uid)) {
    return ClaimId(pod, use.claim_name) + " was not created for the pod";
  }
  if (!claim->status.allocation) return ClaimId(pod, use.claim_name) + " is not allocated";
  if (!IsReservedForPod(*claim, pod)) {
    return ClaimId(pod, use.claim_name) + " is not reserved for the pod";
  }
  return {};
}

std::string DraStartRule::WhyNotStart(const api::Pod& pod, std::string_view /*node*/) {
  for (const PodClaimUse& use : PodClaims(pod)) {
    api::ObjectPtr obj =
        use.not_ready ? nullptr : claims_.GetClaim(pod.metadata.namespace_, use.claim_name);
    const api::ResourceClaim* claim = obj ? api::As<api::ResourceClaim>(*obj) : nullptr;
    std::string why = WhyClaimBlocksPod(pod, use, claim);
    if (!why.empty()) return why;
  }
  return {};
}

}  // namespace allot::node
