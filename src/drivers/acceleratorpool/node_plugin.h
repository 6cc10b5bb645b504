// AcceleratorPoolNodePlugin: the node side of the example control-plane driver — what its
// kubelet plugin would do when a pod with one of its accelerators starts: check that the claim's
// allocation is usable on this node (its node selector), and "connect" the accelerators (a
// simulation: nothing to do). Registered with the simulated kubelets (node::DraKubelet) by
// `allot serve` so the demo's pods run.
#pragma once

#include <string>

#include "drivers/acceleratorpool/config.h"
#include "node/dra/plugin.h"

namespace allot::drivers {

class AcceleratorPoolNodePlugin final : public node::DraKubeletPlugin {
 public:
  explicit AcceleratorPoolNodePlugin(std::string driver) : driver_(std::move(driver)) {}
  std::string_view driver_name() const override { return driver_; }
  // 400 when the claim has no allocation of this driver; node-selector mismatches are 409.
  Status PrepareResources(const api::ResourceClaim& claim, std::string_view node) override;
  Status UnprepareResources(const node::ClaimRef&, std::string_view) override {
    return Status::Ok();
  }

 private:
  const std::string driver_;
};

}  // namespace allot::drivers
