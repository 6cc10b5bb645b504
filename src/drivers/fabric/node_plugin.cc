#include "drivers/fabric/node_plugin.h"

#include <algorithm>

#include "drivers/device_status.h"
#include "drivers/fabric/devices.h"

namespace allot::drivers {
namespace {

std::set<std::string, std::less<>> PoolNames(const FabricConfig& config) {
  std::set<std::string, std::less<>> out;
  for (const FabricPoolConfig& p : config.pools) out.insert(FabricPoolName(p.model));
  return out;
}

}  // namespace

FabricNodePlugin::FabricNodePlugin(const FabricConfig& config)
    : driver_(config.driver), pools_(PoolNames(config)) {}

Status FabricNodePlugin::PrepareResources(const api::ResourceClaim& claim, std::string_view node) {
  const std::string id = claim.metadata.namespace_ + "/" + claim.metadata.name;
  if (!claim.status.allocation) {
    return Status(StatusCode::kBadRequest, "resourceclaim " + id + " is not allocated");
  }
  const std::string pinned = PinnedNode(*claim.status.allocation);
  std::vector<std::string> devices;
  for (const api::DeviceRequestAllocationResult& r : claim.status.allocation->devices.results) {
    if (r.driver != driver_) continue;
    const std::string device = r.driver + "/" + r.pool + "/" + r.device;
    if (!pools_.contains(r.pool)) {
      return Status(StatusCode::kBadRequest,
                    "resourceclaim " + id + ": device " + device + " is not a fabric device");
    }
    if (pinned != node) {
      return Status(StatusCode::kConflict,
                    "resourceclaim " + id + ": device " + device + " is allocated for " +
                        (pinned.empty() ? std::string("no node") : "node " + pinned) + ", not " +
                        std::string(node));
    }
    if (!ReportedReady(claim.status, r)) {
      return Status(StatusCode::kServiceUnavailable, "resourceclaim " + id + ": device " + device +
                                                         " is not yet attached to node " +
                                                         std::string(node));
    }
    devices.push_back(r.pool + "/" + r.device);
  }
  std::sort(devices.begin(), devices.end());
  std::lock_guard<std::mutex> lock(mu_);
  auto on_node = prepared_.find(node);
  if (on_node == prepared_.end()) on_node = prepared_.try_emplace(std::string(node)).first;
  on_node->second.try_emplace(claim.metadata.uid, std::move(devices));
  return Status::Ok();
}

Status FabricNodePlugin::UnprepareResources(const node::ClaimRef& claim, std::string_view node) {
  std::lock_guard<std::mutex> lock(mu_);
  auto on_node = prepared_.find(node);
  if (on_node == prepared_.end()) return Status::Ok();
  on_node->second.erase(claim.uid);
  if (on_node->second.empty()) prepared_.erase(on_node);
  return Status::Ok();
}

std::vector<std::string> FabricNodePlugin::PreparedDevices(std::string_view node) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  auto on_node = prepared_.find(node);
  if (on_node == prepared_.end()) return out;
  for (const auto& [uid, devices] : on_node->second)
    out.insert(out.end(), devices.begin(), devices.end());
  std::sort(out.begin(), out.end());
  return out;
}

bool RegisterFabricNodePlugin(node::DraPluginRegistry& registry, FabricNodePlugin& plugin) {
  if (registry.Find(plugin.driver_name()) != nullptr) return false;
  return registry.Register(plugin).ok();
}

}  // namespace allot::drivers
