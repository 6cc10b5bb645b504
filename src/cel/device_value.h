// The `device` variable of DRA selectors as views over an api::Device (no maps are built).
//
//   device.driver                    the driver passed to Matches
//   device.attributes[domain][id]    api::Device::attributes["id"] when domain is the driver,
//                                    else attributes["domain/id"]; int/bool/string as such,
//                                    version as a Semver
//   device.capacity[domain][id]      api::Device::capacity[...].value as a Quantity
//   device.allowMultipleAllocations  false when unset
//
// An unknown domain is an empty map, an unknown id inside a domain is absent ("no such key").
// Qualified names split at the first '/', as Kubernetes' parseQualifiedName does.
//
// Thread safety: pure functions over immutable inputs. FindAttribute uses a thread-local scratch
// buffer for the qualified key.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "cel/value.h"
#include "common/status.h"

namespace allot::cel {

// The declared fields of `device`, in declaration order.
inline constexpr std::string_view kDeviceFields[] = {"driver", "attributes", "capacity",
                                                     "allowMultipleAllocations"};

// The field of `device`; nullopt for an undeclared field.
std::optional<Value> DeviceField(const DeviceRef& device, std::string_view field);

size_t DeviceMapSize(const DeviceMapRef& m);
// nullopt when absent; an error for an attribute whose value cannot be represented.
Result<std::optional<Value>> DeviceMapFind(const DeviceMapRef& m, const StringRef& key);
// Domains (outer maps) or ids (domain maps), each once.
std::vector<Value> DeviceMapKeys(const DeviceMapRef& m);

}  // namespace allot::cel
