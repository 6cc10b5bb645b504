// Reading and writing a ResourceClaim's per-device status (status.devices[], written by drivers)
// and the node its allocation pins: shared by the fabric driver, which reports attachment as
// device conditions (drivers/fabric/driver.h), and the node-local driver, which checks them before it
// prepares a hot-plugged device (drivers/nodelocal/driver.h). Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource/types.h"

namespace allot::drivers {

// The node an allocation is pinned to: its nodeSelector has one term with a matchFields
// requirement `metadata.name In [<node>]` (one value), the shape the scheduler writes for
// node-local and bindsToNode devices (dra/allocator_result.cc). "" when it pins no node.
std::string PinnedNode(const api::AllocationResult& allocation);

// The status.devices entry for a device (matched by driver, pool, device and shareID), or null.
const api::AllocatedDeviceStatus* FindDeviceStatus(const api::ResourceClaimStatus& status,
                                                   const api::DeviceRequestAllocationResult& r);

// Whether the entry has condition `type` with status "True".
bool ConditionIsTrue(const api::AllocatedDeviceStatus& entry, std::string_view type);
// Whether every one of `types` is True (true for an empty list).
bool AllConditionsTrue(const api::AllocatedDeviceStatus& entry,
                       const std::vector<std::string>& types);
// Whether any one of `types` is True.
bool AnyConditionTrue(const api::AllocatedDeviceStatus& entry,
                      const std::vector<std::string>& types);

// Whether the device's driver reported it ready on its node: the claim's status.devices entry
// for it exists, none of the result's bindingFailureConditions is True, and every one of the
// result's bindingConditions is True. A result without bindingConditions (a fabric device that
// was already attached when it was allocated) needs an entry with at least one condition, all
// of them True.
bool ReportedReady(const api::ResourceClaimStatus& status,
                   const api::DeviceRequestAllocationResult& r);

// Puts `conditions` into the status.devices entry of device `r` (created when missing; other
// entries, other condition types, data and networkData are kept). A condition whose status
// does not change keeps its lastTransitionTime. Returns whether anything changed.
bool SetDeviceConditions(api::ResourceClaimStatus& status,
                         const api::DeviceRequestAllocationResult& r,
                         const std::vector<api::Condition>& conditions);

}  // namespace allot::drivers
