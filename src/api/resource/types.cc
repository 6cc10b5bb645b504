#include "api/resource/types.h"

#include <type_traits>

#include "api/machinery/reflect.h"

namespace allot::api {

ALLOT_DEFINE_TYPE(DeviceClass, "resource.k8s.io", "v1", "DeviceClass")
ALLOT_DEFINE_TYPE(ResourceClaim, "resource.k8s.io", "v1", "ResourceClaim")
ALLOT_DEFINE_TYPE(ResourceClaimTemplate, "resource.k8s.io", "v1", "ResourceClaimTemplate")
ALLOT_DEFINE_TYPE(ResourceSlice, "resource.k8s.io", "v1", "ResourceSlice")

namespace {

void DefaultTolerations(std::vector<DeviceToleration>& tolerations) {
  for (DeviceToleration& t : tolerations) {
    if (t.operator_.empty()) t.operator_ = "Equal";
  }
}

// SetDefaults_ExactDeviceRequest / SetDefaults_DeviceSubRequest: the mode defaults to
// ExactCount, and an ExactCount request without a count asks for one device.
template <class R>
void DefaultRequest(R& request) {
  if (request.allocationMode.empty()) {
    request.allocationMode = std::string(kAllocationModeExactCount);
  }
  if (request.allocationMode == kAllocationModeExactCount && request.count == 0) request.count = 1;
  if constexpr (std::is_same_v<R, ExactDeviceRequest>) {
    // Out of line (Rare): a request without tolerations must not allocate them.
    if (!request.rare->tolerations.empty()) DefaultTolerations(request.rare.edit().tolerations);
  } else {
    DefaultTolerations(request.tolerations);
  }
}

}  // namespace

void SetResourceClaimSpecDefaults(ResourceClaimSpec& spec) {
  for (DeviceRequest& request : spec.devices.requests) {
    if (request.exactly) DefaultRequest(*request.exactly);
    for (DeviceSubRequest& sub : request.firstAvailable) DefaultRequest(sub);
  }
  if (!spec.controllerName.empty() && spec.allocationMode.empty()) {
    spec.allocationMode = std::string(kClaimAllocationWaitForFirstConsumer);
  }
}

std::string_view EffectiveClaimAllocationMode(const ResourceClaimSpec& spec) {
  if (spec.allocationMode.empty()) return kClaimAllocationWaitForFirstConsumer;
  return spec.allocationMode;
}

std::string ResourceClaimState(const ResourceClaim& claim) {
  // pkg/printers/internalversion resourceClaimState.
  std::vector<std::string_view> states;
  bool deleted = claim.metadata.rare->deletionTimestamp.has_value();
  if (deleted) states.push_back("deleted");
  if (!claim.status.allocation) {
    if (!deleted) states.push_back("pending");
  } else {
    states.push_back("allocated");
    if (!claim.status.reservedFor.empty()) states.push_back("reserved");
  }
  std::string out;
  for (std::string_view s : states) {
    if (!out.empty()) out += ',';
    out += s;
  }
  return out;
}

}  // namespace allot::api
