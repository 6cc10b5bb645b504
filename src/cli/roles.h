// The role subcommands (`allot scheduler`, the node-sim device extension) and the simulated
// devices' flags `allot serve` shares. The roles themselves are started by src/cluster/.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/flags.h"
#include "common/status.h"
#include "drivers/nodelocal/device_profile.h"
#include "node/cli.h"

namespace allot::cli {

// `--sim-gpus-per-node K [--sim-device-profile FILE]` (serve and node-sim): K node-local GPUs
// per simulated node (drivers/nodelocal/simulated_devices.h); K = 0, the default: no devices.
struct SimDeviceFlags {
  int64_t gpus_per_node = 0;
  std::string profile_path;

  void Register(Flags& flags);
  // The device profile (the file's, or the default one) with count = K; nullopt when K is 0.
  // 400 when K is negative or above 128, for a profile without K, and for an unreadable or
  // invalid profile file.
  Result<std::optional<drivers::DeviceProfile>> Profile() const;
};

// The node-sim extension behind SimDeviceFlags, for node::RunNodeSim.
std::unique_ptr<node::NodeSimExtension> NewSimDevicesExtension();

// `allot scheduler --server URL [--config FILE]`.
int RunScheduler(int argc, char** argv);

}  // namespace allot::cli
