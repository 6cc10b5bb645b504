// AcceleratorPoolConfig: the example control-plane DRA driver (KEP-3063, docs/controller.md) — a
// pool of network-attached accelerators that racks of nodes reach over the network. How many a
// rack has left and how many a node already uses is known to the driver alone, which is why it
// allocates through its controller rather than through published ResourceSlices.
//
// The YAML (or JSON) form; only `racks` is required:
//   driver: controller.example.com       # DRA driver and DeviceClass name (DNS subdomain)
//   nodeSelector:                        # labels of the nodes that reach the pool;
//     accelerators.example.com/fabric: "true"  #   absent or {}: every node
//   rackLabel: topology.example.com/rack # the node label naming the node's rack, or
//   nodeRacks:                           # the driver's own inventory of where nodes sit
//     allot-node-0: rack-a               #   (takes precedence over rackLabel)
//   racks:                               # accelerators per rack (1..1000 each)
//     rack-a: 8
//     rack-b: 4
//   perNodeLimit: 2                      # accelerators one node may use at once (>= 1)
//   answerLatency: 0s                    # Go durations (>= 0): how long the driver takes to
//   allocateLatency: 0s                  #   answer a PodSchedulingContext / to allocate
//   failureRate: 0                       # probability (0..1) that an allocation fails
//   seed: 1                              # seeds the failure draws
//   workers: 8                           # claims and contexts handled at once (1..64); a
//                                        #   worker waits on each API write it makes
//
// Unknown fields and bad values are errors naming the field path.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "common/status.h"

namespace allot::drivers {

struct AcceleratorPoolConfig {
  std::string driver = "controller.example.com";
  std::map<std::string, std::string> node_selector;  // empty: all nodes
  std::string rack_label = "topology.example.com/rack";
  std::map<std::string, std::string> node_racks;  // node -> rack
  std::map<std::string, int64_t> racks;  // rack -> accelerators
  int64_t per_node_limit = 4;
  std::chrono::microseconds answer_latency{0};
  std::chrono::microseconds allocate_latency{0};
  double failure_rate = 0;
  uint64_t seed = 1;
  int64_t workers = 8;

  bool operator==(const AcceleratorPoolConfig&) const = default;
};

// Parses and validates the form above; 400 listing every problem.
Result<AcceleratorPoolConfig> ParseAcceleratorPoolConfig(std::string_view yaml);
// The checks after decoding: driver name, node selector labels, rack label, nodeRacks (known
// racks), racks (names are
// label values, capacities 1..1000), perNodeLimit >= 1, durations >= 0, failureRate in [0, 1],
// workers 1..64.
Status ValidateAcceleratorPoolConfig(const AcceleratorPoolConfig& config);

}  // namespace allot::drivers
