// FabricConfig: what a fabric (composable-infrastructure) driver offers and how it behaves; see
// drivers/fabric/driver.h for the driver and docs/fabric.md for the design.
//
// The YAML (or JSON) form; only `pools` is required:
//   driver: gpu.example.com            # DRA driver name (DNS subdomain, <= 63 bytes)
//   nodeSelector:                      # labels of the nodes the fabric reaches;
//     fabric.example.com/switch: sw1   #   absent or {}: every node (devices get allNodes)
//   pools:                             # one pool and one ResourceSlice per device model
//   - model: a100-80gb                 # DNS label: pool fabric-<model>, devices <model>-<i>
//     count: 4                         # 1..128 devices
//     attributes:                      # per device; a plain string / integer / boolean, or
//       productName: NVIDIA A100 80GB  #   {string|int|bool|version: value} as in a slice
//       cudaComputeCapability: {version: 8.0.0}
//     capacity:                        # per device; quantities
//       memory: 80Gi
//   attachLatency: 2s                  # Go durations (>= 0): from seeing an allocation to the
//   detachLatency: 1s                  #   device attached; from deallocation to it free again
//   attachLatencyMax: 10s              # optional (>= attachLatency): each attach then takes a
//                                      #   time drawn uniformly from [attachLatency, this]
//   failureRate: 0                     # probability (0..1) that an attach fails
//   failureCooldown: 60s               # how long a failed device stays tainted / unpublished
//   refreshInterval: 10s               # (> 0) republish the slices, repairing drift
//   seed: 1                            # seeds the failure draws, so runs are reproducible
//   bindingConditions: [kubernetes.io/is-attached]           # 1..4 condition types each,
//   bindingFailureConditions: [kubernetes.io/attach-failed]  #   not overlapping
//   onFailure: Taint                   # Taint (NoSchedule taint on the device) | Remove
//
// Every device gets the attribute `model` (string, the pool's model) besides its pool's
// attributes; attribute names are unqualified (the driver's domain), as in the node-local
// driver. Unknown fields and bad values are errors naming the field path
// (`pools[1].count: Invalid value: -1: must be positive`, `unknown field "pools[0].colour"`).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/quantity.h"
#include "api/resource/types.h"
#include "common/status.h"

namespace allot::drivers {

// What happens to a device whose attach failed, for failureCooldown, so the scheduler does not
// pick it again at once.
enum class FabricFailurePolicy {
  kTaint,   // published with the NoSchedule taint kFabricAttachFailedTaint
  kRemove,  // left out of its slice
};

struct FabricPoolConfig {
  std::string model;
  int64_t count = 0;
  std::map<std::string, api::DeviceAttribute> attributes;
  std::map<std::string, api::Quantity> capacity;

  bool operator==(const FabricPoolConfig&) const = default;
};

struct FabricConfig {
  std::string driver = "gpu.example.com";
  std::map<std::string, std::string> node_selector;  // empty: all nodes
  std::vector<FabricPoolConfig> pools;
  std::chrono::microseconds attach_latency = std::chrono::seconds(2);
  // Zero: every attach takes attach_latency; otherwise drawn from [attach_latency, this].
  std::chrono::microseconds attach_latency_max{0};
  std::chrono::microseconds detach_latency = std::chrono::seconds(1);
  double failure_rate = 0;
  std::chrono::microseconds failure_cooldown = std::chrono::seconds(60);
  std::chrono::microseconds refresh_interval = std::chrono::seconds(10);
  uint64_t seed = 1;
  std::vector<std::string> binding_conditions = {"kubernetes.io/is-attached"};
  std::vector<std::string> binding_failure_conditions = {"kubernetes.io/attach-failed"};
  FabricFailurePolicy on_failure = FabricFailurePolicy::kTaint;

  bool operator==(const FabricConfig&) const = default;
};

// Parses the YAML/JSON form above and validates it. Errors (400) list every problem:
// "invalid fabric config:\n  pools[1].count: Invalid value: -1: must be positive".
Result<FabricConfig> ParseFabricConfig(std::string_view yaml);

// The checks ParseFabricConfig makes after decoding, for configurations built in code: pools
// present with unique valid models and counts, valid node selector labels, durations >= 0 and
// refreshInterval > 0, failureRate in [0, 1], condition lists, and that the slices it yields
// pass the API server's validation (attribute names and values, at most 32 attributes and
// capacities per device). 400 as above.
Status ValidateFabricConfig(const FabricConfig& config);

}  // namespace allot::drivers
