// The names and shapes of what a FabricDriver (drivers/fabric/driver.h) publishes: pure functions
// of the configuration, shared by the driver, its config validation and tests.
//
//   pool       FabricPoolName(model)            "fabric-<model>"
//   slice      FabricSliceName(model, driver)   "fabric-<model>-<driver with '.' -> '-'>"
//   device     FabricDeviceName(model, i)       "<model>-<i>", i in [0, count)
//
// A device is published in one of two shapes (spec.perDeviceNodeSelection is true):
//   free      on the fabric, attachable to any node it reaches: the fabric's nodeSelector (or
//             allNodes: true), bindsToNode: true, the configured bindingConditions and
//             bindingFailureConditions;
//   attached  hot-plugged into a node: nodeName: <node>, no bindsToNode, no conditions, i.e. it
//             looks like a node-local device of that node.
// Both carry the pool's attributes, the `model` attribute and the pool's capacity; either may
// carry the attach-failed taint.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource/types.h"
#include "common/time.h"
#include "drivers/fabric/config.h"

namespace allot::drivers {

// The NoSchedule taint a device carries for failureCooldown after a failed attach (policy
// Taint). Value: the node the attach failed on (empty when the node name is not a valid label
// value); timeAdded: when it failed.
inline constexpr std::string_view kFabricAttachFailedTaint = "fabric.allot.dev/attach-failed";
// The attribute naming a device's model.
inline constexpr std::string_view kFabricModelAttribute = "model";
// Models are at most this long, so that "<model>-<index>" stays a DNS label.
inline constexpr size_t kFabricModelMaxLength = 59;

std::string FabricPoolName(std::string_view model);
std::string FabricSliceName(std::string_view model, std::string_view driver);
std::string FabricDeviceName(std::string_view model, int64_t index);

// How one device is to be published.
struct FabricDeviceShape {
  std::string attached_to;                // the node it is attached to; empty: free
  std::optional<api::DeviceTaint> taint;  // the attach-failed taint, while it applies
};

api::DeviceTaint FabricAttachFailedTaint(std::string_view node, Time failed_at);

// The fabric's reach: one term with `<label> In [<value>]` per nodeSelector label; nullopt for
// all nodes.
std::optional<api::NodeSelector> FabricNodeSelector(const FabricConfig& config);

// Device `index` of `pool` in the given shape.
api::Device FabricDevice(const FabricConfig& config, const FabricPoolConfig& pool, int64_t index,
                         const FabricDeviceShape& shape);

// The ResourceSlice of `pool` holding `devices`: no owner, spec.driver, spec.pool {name,
// generation, resourceSliceCount: 1}, spec.perDeviceNodeSelection: true.
api::ResourceSlice FabricSlice(const FabricConfig& config, const FabricPoolConfig& pool,
                               std::vector<api::Device> devices, int64_t generation);

}  // namespace allot::drivers
