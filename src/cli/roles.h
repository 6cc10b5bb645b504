// Building the control-plane roles for `allot serve` and the role subcommands.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "client/client.h"
#include "common/flags.h"
#include "common/status.h"
#include "common/time.h"
#include "drivers/device_profile.h"
#include "drivers/simulated_devices.h"
#include "node/cli.h"
#include "node/simulator.h"
#include "scheduler/scheduler.h"

namespace allot::cli {

// A started scheduler over `client`; `config_path` empty means the default configuration.
// `metrics` (optional) is shared with the API server so /metrics shows both.
Result<std::unique_ptr<scheduler::Scheduler>> StartScheduler(client::Client& client,
                                                             const std::string& config_path,
                                                             metrics::Registry* metrics = nullptr,
                                                             const dra::Features& features = {});

// `count` simulated nodes named allot-node-<i> from `template_path` (empty: the built-in
// template), registered and running. With `devices`, the nodes get its devices: its DRA hooks
// are installed before the nodes run, and it is started once they are registered (it must then
// be stopped before the simulator is destroyed).
Result<std::unique_ptr<node::NodeSimulator>> StartNodeSimulator(
    client::Client& client, Clock& clock, int64_t count, const std::string& template_path,
    drivers::SimulatedDevices* devices = nullptr);

// `--sim-gpus-per-node K [--sim-device-profile FILE]` (serve and node-sim): K node-local GPUs
// per simulated node (drivers/simulated_devices.h); K = 0, the default: no devices.
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

// Reads a whole file.
Result<std::string> ReadFile(const std::string& path);

}  // namespace allot::cli
