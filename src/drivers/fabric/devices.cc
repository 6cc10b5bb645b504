#include "drivers/fabric/devices.h"

#include <algorithm>

#include "api/machinery/names.h"

namespace allot::drivers {

std::string FabricPoolName(std::string_view model) { return "fabric-" + std::string(model); }

std::string FabricSliceName(std::string_view model, std::string_view driver) {
  // At most 7 + 59 + 1 + 63 bytes: always a valid object name, no shortening needed.
  std::string suffix(driver);
  std::replace(suffix.begin(), suffix.end(), '.', '-');
  return FabricPoolName(model) + "-" + suffix;
}

std::string FabricDeviceName(std::string_view model, int64_t index) {
  return std::string(model) + "-" + std::to_string(index);
}

api::DeviceTaint FabricAttachFailedTaint(std::string_view node, Time failed_at) {
  return {.key = std::string(kFabricAttachFailedTaint),
          .value = api::IsLabelValue(node) ? std::string(node) : std::string(),
          .effect = "NoSchedule",
          .timeAdded = failed_at.TruncatedToSeconds()};
}

std::optional<api::NodeSelector> FabricNodeSelector(const FabricConfig& config) {
  if (config.node_selector.empty()) return std::nullopt;
  api::NodeSelectorTerm term;
  for (const auto& [label, value] : config.node_selector) {
    term.matchExpressions.push_back({.key = label, .operator_ = "In", .values = {value}});
  }
  api::NodeSelector selector;
  selector.nodeSelectorTerms.push_back(std::move(term));
  return selector;
}

api::Device FabricDevice(const FabricConfig& config, const FabricPoolConfig& pool, int64_t index,
                         const FabricDeviceShape& shape) {
  api::Device d;
  d.name = FabricDeviceName(pool.model, index);
  d.attributes = pool.attributes;
  d.attributes[std::string(kFabricModelAttribute)] = {.stringValue = pool.model};
  for (const auto& [name, q] : pool.capacity) d.capacity[name].value = q;
  if (!shape.attached_to.empty()) {
    d.nodeName = shape.attached_to;
  } else {
    d.nodeSelector = FabricNodeSelector(config);
    if (!d.nodeSelector) d.allNodes = true;
    d.bindsToNode = true;
    d.bindingConditions = config.binding_conditions;
    d.bindingFailureConditions = config.binding_failure_conditions;
  }
  if (shape.taint) d.taints.push_back(*shape.taint);
  return d;
}

api::ResourceSlice FabricSlice(const FabricConfig& config, const FabricPoolConfig& pool,
                               std::vector<api::Device> devices, int64_t generation) {
  api::ResourceSlice slice;
  slice.metadata.name = FabricSliceName(pool.model, config.driver);
  slice.spec.driver = config.driver;
  slice.spec.pool = {
      .name = FabricPoolName(pool.model), .generation = generation, .resourceSliceCount = 1};
  slice.spec.perDeviceNodeSelection = true;
  slice.spec.devices = std::move(devices);
  return slice;
}

}  // namespace allot::drivers
