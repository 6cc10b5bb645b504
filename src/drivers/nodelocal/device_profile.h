// DeviceProfile: what a node-local driver's devices look like, the same on every node it serves
// (modelled on kubernetes-sigs/dra-example-driver's mock GPUs: driver gpu.example.com, devices
// gpu-0..gpu-N-1 with attributes index/uuid/model/driverVersion and capacity memory).
//
// Every device of a node gets, besides the profile's extra attributes and capacities:
//   index          int      0..count-1
//   uuid           string   "gpu-" + a UUID derived from (node, index): stable across restarts
//   model          string   profile.model
//   driverVersion  version  profile.driver_version
//   numa           int      index * numa_nodes / count (the devices split evenly over NUMA nodes)
//   productName    string   profile.product_name (left out when empty)
//   memory         capacity profile.memory
//
// The YAML (or JSON) form, every field optional:
//   driver: gpu.example.com
//   devicePrefix: gpu-
//   count: 8
//   model: LATEST-GPU-MODEL
//   driverVersion: 1.0.0
//   productName: Allot Simulated GPU
//   numaNodes: 2
//   memory: 80Gi
//   attributes:                  # extra attributes, as in a ResourceSlice or plain scalars
//     vendor: example            #   string
//     generation: {version: 2.1.0}
//     hasNVLink: true            #   bool (an integer is an int)
//   capacity:                    # extra capacities
//     cores: "132"
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/quantity.h"
#include "api/resource/types.h"
#include "common/status.h"

namespace allot::drivers {

struct DeviceProfile {
  std::string driver = "gpu.example.com";
  std::string device_prefix = "gpu-";
  int64_t count = 8;  // devices per node, 1..128 (one ResourceSlice holds at most 128)
  std::string model = "LATEST-GPU-MODEL";
  std::string driver_version = "1.0.0";  // semver
  std::string product_name = "Allot Simulated GPU";
  int64_t numa_nodes = 2;
  api::Quantity memory = api::Quantity::Parse("80Gi").value();
  std::map<std::string, api::DeviceAttribute> attributes;  // extra, the same on every device
  std::map<std::string, api::Quantity> capacity;           // extra, the same on every device

  bool operator==(const DeviceProfile&) const = default;
};

// Parses the YAML/JSON form above; fields not given keep their defaults. Errors (400) name the
// field: `device profile: count: must be an integer`, `device profile: unknown field "colour"`,
// and everything Validate reports.
Result<DeviceProfile> ParseDeviceProfile(std::string_view yaml);

// Checks that the profile yields valid ResourceSlices (driver name, device names, attribute
// names and values, at most 32 attributes and capacities per device, 1..128 devices) and that
// extra attributes and capacities do not redefine the built-in ones. 400 with every problem.
Status ValidateDeviceProfile(const DeviceProfile& profile);

// "gpu-" + a UUID (8-4-4-4-12 hex digits, RFC 9562 version 8) hashed from node and index.
std::string DeviceUuid(std::string_view node, int64_t index);
// The name of device `index`: device_prefix + index ("gpu-3").
std::string DeviceName(const DeviceProfile& profile, int64_t index);
// Devices gpu-0 .. gpu-<count-1> of `node`, with the attributes and capacities above.
std::vector<api::Device> DevicesForNode(const DeviceProfile& profile, std::string_view node);

}  // namespace allot::drivers
