// Validation of the resource.k8s.io/v1 kinds, with Kubernetes 1.34's limits and messages
// (k8s.io/kubernetes pkg/apis/resource/validation/validation.go).
//
// Each function appends to `errs`; an empty FieldErrors means valid. Paths are the JSON paths
// kubectl shows ("spec.devices.requests[0].exactly.count"). The *Update functions check only
// the rules specific to updates (ValidateObjectMetaUpdate, immutable fields); callers also run
// the create-time validation on the new object, as the ResourceInfo hooks do. Status updates are
// validated on their own (metadata update rules included).
//
// Differences from upstream, all deliberate:
//   * CEL selectors are checked for being non-empty (`Required value`; upstream reports the
//     compiler's syntax error) and at most 10 KiB here; compiling them and the cost limit need
//     the CEL library, which depends on this one, so it is passed in as
//     Validators::device_selector (api/machinery/validation.h; cel::SelectorValidators(), which
//     whoever builds the store puts in StoreOptions). Without a checker, expressions are not
//     compiled.
//   * Go prints some bad values unquoted (booleans, structs, device IDs); FieldErrors has no
//     raw-value entry point yet, so those values are quoted (see validation_util::InvalidRaw). Structs
//     are shown as JSON rather than Go syntax.
//   * Where 1.34 and 1.35 differ only in how an error is reported, the 1.35 form is used
//     (duplicates are reported at the list index, a valueless attribute is
//     `Invalid value: "": exactly one value must be specified`). Limits are 1.34's: 128 devices
//     per slice, 4 taints per device, effects NoSchedule|NoExecute, 32 shared counters per slice,
//     32 consumed counters per device and 1024 per slice.
//   * A constraint with both matchAttribute and distinctAttribute is rejected (upstream 1.34
//     silently ignores distinctAttribute); attribute names with two slashes are rejected, as on
//     Kubernetes master; tolerations are limited to 16 here rather than by declarative
//     validation.
//   * The KEP-3063 extension fields (see api/resource/types.h) are validated whenever they are set, as
//     v1alpha3 validated them with the DRAControlPlaneController gate on: controllerName is a
//     driver name, allocationMode Immediate | WaitForFirstConsumer (Immediate only with a
//     controllerName), and deallocationRequested needs an allocation, cannot be requested while
//     reservedFor is set, and cannot be cleared while the allocation stays.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "api/machinery/validation.h"
#include "api/resource/types.h"

namespace allot::api {

// Limits (resource/v1, 1.34).
inline constexpr size_t kDeviceRequestsMaxSize = 32;
inline constexpr size_t kDeviceConstraintsMaxSize = 32;
inline constexpr size_t kDeviceConfigMaxSize = 32;
inline constexpr size_t kDeviceSelectorsMaxSize = 32;
inline constexpr size_t kFirstAvailableDeviceRequestMaxSize = 8;
inline constexpr size_t kDeviceTolerationsMaxLength = 16;
inline constexpr size_t kCELSelectorExpressionMaxLength = 10 * 1024;
inline constexpr int64_t kCELSelectorExpressionMaxCost = 1'000'000;
inline constexpr size_t kOpaqueParametersMaxLength = 10 * 1024;
inline constexpr size_t kAllocationResultsMaxSize = 32;
inline constexpr size_t kResourceClaimReservedForMaxSize = 256;
inline constexpr size_t kAllocatedDeviceStatusMaxConditions = 8;
inline constexpr size_t kAllocatedDeviceStatusDataMaxLength = 10 * 1024;
inline constexpr size_t kNetworkDeviceDataMaxIPs = 16;
inline constexpr size_t kNetworkDeviceDataInterfaceNameMaxLength = 256;
inline constexpr size_t kNetworkDeviceDataHardwareAddressMaxLength = 128;
inline constexpr size_t kResourceSliceMaxDevices = 128;
inline constexpr size_t kResourceSliceMaxAttributesAndCapacitiesPerDevice = 32;
inline constexpr size_t kDeviceMaxDomainLength = 63;
inline constexpr size_t kDeviceMaxIDLength = 32;
inline constexpr size_t kDeviceAttributeMaxValueLength = 64;
inline constexpr size_t kDriverNameMaxLength = 63;
inline constexpr size_t kPoolNameMaxLength = 253;
inline constexpr size_t kDeviceTaintsMaxLength = 4;
inline constexpr size_t kBindingConditionsMaxSize = 4;
inline constexpr size_t kBindingFailureConditionsMaxSize = 4;
inline constexpr size_t kResourceSliceMaxSharedCounters = 32;
inline constexpr size_t kResourceSliceMaxCountersPerDevice = 32;
inline constexpr size_t kResourceSliceMaxDeviceCountersPerSlice = 1024;
inline constexpr size_t kCapacityRequestPolicyDiscreteMaxOptions = 10;

void ValidateDeviceClass(const DeviceClass& obj, FieldErrors& errs,
                         const Validators& validators = {});
// Spec changes are allowed: only the metadata update rules.
void ValidateDeviceClassUpdate(const DeviceClass& obj, const DeviceClass& old, FieldErrors& errs);

void ValidateResourceClaim(const ResourceClaim& obj, FieldErrors& errs,
                           const Validators& validators = {});
// The spec is immutable: "spec: Invalid value: ...: field is immutable".
void ValidateResourceClaimUpdate(const ResourceClaim& obj, const ResourceClaim& old,
                                 FieldErrors& errs);
// reservedFor, allocation (set once, then only cleared), devices[] and deallocationRequested.
void ValidateResourceClaimStatusUpdate(const ResourceClaim& obj, const ResourceClaim& old,
                                       FieldErrors& errs);

void ValidateResourceClaimTemplate(const ResourceClaimTemplate& obj, FieldErrors& errs,
                                   const Validators& validators = {});
void ValidateResourceClaimTemplateUpdate(const ResourceClaimTemplate& obj,
                                         const ResourceClaimTemplate& old, FieldErrors& errs);

void ValidateResourceSlice(const ResourceSlice& obj, FieldErrors& errs);
// driver, pool.name and nodeName are immutable.
void ValidateResourceSliceUpdate(const ResourceSlice& obj, const ResourceSlice& old,
                                 FieldErrors& errs);

// validateDeviceTaint (1.37): a qualified-name key, a label value, effect NoSchedule, NoExecute
// or None.
void ValidateDeviceTaint(const DeviceTaint& t, const Path& p, FieldErrors& errs);

// Pieces shared by the files that implement the above (dra_validation*.cc); not for callers.
namespace dra_internal {
void ValidateResourceClaimSpec(const ResourceClaimSpec& spec, const Path& p,
                               const Validators& validators, FieldErrors& errs);
void ValidateDeviceTolerations(const std::vector<DeviceToleration>& tolerations, const Path& p,
                               FieldErrors& errs);
void ValidateBindingConditions(const std::vector<std::string>& conditions,
                               const std::vector<std::string>& failure_conditions, const Path& p,
                               FieldErrors& errs);
void ValidatePoolName(std::string_view name, const Path& p, FieldErrors& errs);
void ValidateQualifiedName(std::string_view name, const Path& p, FieldErrors& errs);
void ValidateOpaqueConfig(const std::optional<OpaqueDeviceConfiguration>& opaque, const Path& p,
                          FieldErrors& errs);
void ValidateAllocationResult(const AllocationResult& allocation, const ResourceClaimSpec& spec,
                              const Path& p, FieldErrors& errs);
}  // namespace dra_internal

}  // namespace allot::api
