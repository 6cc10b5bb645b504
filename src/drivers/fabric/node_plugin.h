// FabricNodePlugin: the kubelet side of a fabric driver (drivers/fabric/driver.h) for clusters
// where no node-local driver serves the fabric's driver name. A pod holding a fabric device may
// start on a node once the device is hot-plugged there: the claim's allocation is pinned to the
// node and its status.devices entry for the device shows it ready (every binding condition
// True, drivers/device_status.h ReportedReady). PrepareResources checks exactly that and records
// the claim as prepared on the node; UnprepareResources forgets it. There is nothing else to do:
// the attach itself is the controller's job, done before the scheduler binds the pod.
//
// When the fabric shares its driver name with a node-local driver (the default,
// gpu.example.com), that driver's kubelet plugin accepts hot-plugged devices itself
// (drivers/nodelocal/driver.h) and this plugin is not registered: RegisterFabricNodePlugin
// registers it only where the driver name is free.
//
// Thread safety: thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "drivers/fabric/config.h"
#include "node/dra/plugin.h"

namespace allot::drivers {

class FabricNodePlugin final : public node::DraKubeletPlugin {
 public:
  explicit FabricNodePlugin(const FabricConfig& config);

  std::string_view driver_name() const override { return driver_; }
  // Errors: 400 when the claim is not allocated, or names a device of our driver outside the
  // fabric's pools; 409 when the allocation is pinned to another node (or to none); 503 while
  // a device is not yet shown ready on the node (the kubelet retries).
  Status PrepareResources(const api::ResourceClaim& claim, std::string_view node) override;
  Status UnprepareResources(const node::ClaimRef& claim, std::string_view node) override;

  // "<pool>/<device>" held by claims prepared on `node`, sorted.
  std::vector<std::string> PreparedDevices(std::string_view node) const;

 private:
  const std::string driver_;
  const std::set<std::string, std::less<>> pools_;  // FabricPoolName of every configured model

  mutable std::mutex mu_;
  // node -> claim uid -> devices.
  std::map<std::string, std::map<std::string, std::vector<std::string>>, std::less<>>
      prepared_;  // guarded by mu_
};

// Registers `plugin` in `registry` unless a plugin already serves its driver name (the
// node-local driver of the same name, which accepts hot-plugged devices itself). Returns
// whether it was registered.
bool RegisterFabricNodePlugin(node::DraPluginRegistry& registry, FabricNodePlugin& plugin);

}  // namespace allot::drivers
