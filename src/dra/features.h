// DRA feature gates, by their Kubernetes names. One allocator implements every behaviour; a
// Features value says which ones are on (kube-scheduler's structured.Features).
#pragma once

#include <string_view>

#include "common/status.h"

namespace allot::dra {

struct Features {
  bool prioritized_list = true;              // DRAPrioritizedList: requests[].firstAvailable
  bool admin_access = true;                  // DRAAdminAccess: requests[].exactly.adminAccess
  bool device_taints = true;                 // DRADeviceTaints: device taints, request tolerations
  bool partitionable_devices = true;         // DRAPartitionableDevices: sharedCounters
  bool consumable_capacity = true;           // DRAConsumableCapacity: shared devices, capacity
  bool binding_conditions = true;            // DRADeviceBindingConditions (KEP-5007)
  bool resource_claim_device_status = true;  // DRAResourceClaimDeviceStatus: status.devices
  bool control_plane_controller = true;      // DRAControlPlaneController (KEP-3063, Allot)
};

// Applies a --feature-gates value ("DRADeviceTaints=false,DRAAdminAccess=true") to `base`.
// Errors (kBadRequest): "unrecognized feature gate: X", "invalid value of X=maybe, err:
// strconv.ParseBool: parsing \"maybe\": invalid syntax", "missing bool value for X"
// (Kubernetes' messages). Gates that are Kubernetes' but not DRA's (a list of the ones a
// scheduler is likely to get, see features.cc) are accepted and ignored. AllAlpha / AllBeta set
// the DRA gates that are alpha / beta in Kubernetes 1.34 (DRADeviceTaints,
// DRAPartitionableDevices, DRAConsumableCapacity, DRADeviceBindingConditions are alpha;
// DRAPrioritizedList, DRAAdminAccess, DRAResourceClaimDeviceStatus beta); explicitly named gates
// win over them.
Result<Features> ParseFeatureGates(std::string_view spec, Features base = {});

}  // namespace allot::dra
