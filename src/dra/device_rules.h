// Per-device rules that depend only on a request and a device, not on what else is allocated:
// taint tolerations (DRADeviceTaints) and the capacity a request consumes on a device
// (DRAConsumableCapacity). Private to src/dra; the allocator evaluates them once per pod.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "api/resource/types.h"

namespace allot::dra {

// resourceclaim.ToleratesTaint: effect "" matches every effect; key "" matches every key;
// operator Exists matches any value, Equal (or "") needs the same value.
bool ToleratesTaint(const api::DeviceToleration& toleration, const api::DeviceTaint& taint);

// Whether a NoSchedule or NoExecute taint of the device is not tolerated (other effects are
// ignored, as Kubernetes does).
bool TaintPreventsAllocation(const api::Device& device,
                             const std::vector<api::DeviceToleration>& tolerations);

// The capacity one allocation of `request` consumes on `device`, one entry per device capacity
// in the order of device.capacity (so a zero is listed too):
//   * a capacity the request names: the requested amount, rounded up by the requestPolicy
//     (validRange: to min, then to the next min + k*step; validValues: to the next listed value);
//   * a capacity the request does not name: the policy's default, else the whole capacity.
// Request names resolve as Kubernetes does: the exact key, or the same id with / without the
// driver's domain. nullopt when the device cannot serve the request: it lacks a requested
// capacity, or a rounded amount violates the policy (above validRange.max, not a listed value,
// off the step grid). Amounts are not compared with the capacity here.
std::optional<std::vector<api::Quantity>> ConsumedCapacity(const api::CapacityRequirements* request,
                                                           const api::Device& device,
                                                           std::string_view driver);

// Whether every amount is at most the corresponding capacity value (aligned as above).
bool FitsCapacity(const std::vector<api::Quantity>& amounts, const api::Device& device);

}  // namespace allot::dra
