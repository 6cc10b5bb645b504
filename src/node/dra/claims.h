// The simulated kubelet's DRA admission rule: which ResourceClaims a pod uses, and whether each
// lets the pod start now (pkg/kubelet/cm/dra/manager.go, prepareResources' validation pass).
//
// A pod's claims are its spec.resourceClaims entries:
//   - resourceClaimName: that claim, in the pod's namespace;
//   - resourceClaimTemplateName: the claim the resourceclaim controller generated, named in
//     pod.status.resourceClaimStatuses[name == entry]. No status entry yet: not ready (the
//     controller has not caught up). A status entry without resourceClaimName: no claim needed.
//     A generated claim must be controlled by the pod (ownerReference with controller=true and
//     the pod's uid), so a leftover claim of an earlier pod of the same name is not used;
// plus pod.status.extendedResourceClaimStatus.resourceClaimName (DRAExtendedResource), if set.
// Each claim must exist, be allocated, and list the pod's uid in status.reservedFor.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource/pod_claims.h"
#include "api/core/types.h"
#include "api/resource/types.h"
#include "node/hooks.h"

namespace allot::client {
class Informer;
}  // namespace allot::client

namespace allot::node {

// Where the DRA hooks read claims from. Thread-safe.
class ClaimSource {
 public:
  virtual ~ClaimSource() = default;
  // The claim as last observed, or null when it does not exist (as far as we know).
  virtual api::ObjectPtr GetClaim(std::string_view ns, std::string_view name) const = 0;
};

// Reads an informer's cache. The informer must outlive this.
class InformerClaimSource final : public ClaimSource {
 public:
  explicit InformerClaimSource(const client::Informer& claims) : claims_(claims) {}
  api::ObjectPtr GetClaim(std::string_view ns, std::string_view name) const override;

 private:
  const client::Informer& claims_;
};

// Which claims a pod uses: api/resource/pod_claims.h.
using api::PodClaims;
using api::PodClaimUse;

// Why `claim` (null: not found) does not let `pod` start; "" when it does. `use` is the pod's
// reference to it, as PodClaims returned it.
std::string WhyClaimBlocksPod(const api::Pod& pod, const PodClaimUse& use,
                              const api::ResourceClaim* claim);

// True when claim.status.reservedFor lists the pod's uid.
bool IsReservedForPod(const api::ResourceClaim& claim, const api::Pod& pod);

// The PodStartRule: refuses a pod while one of its claims is missing, not allocated, or not
// reserved for it. Reasons read "resourceclaim <ns>/<name> is not allocated" and the like (see
// node/dra/claims.cc for the full list). Thread-safe; `claims` must outlive the rule.
class DraStartRule final : public PodStartRule {
 public:
  explicit DraStartRule(const ClaimSource& claims) : claims_(claims) {}
  std::string WhyNotStart(const api::Pod& pod, std::string_view node) override;

 private:
  const ClaimSource& claims_;
};

}  // namespace allot::node
