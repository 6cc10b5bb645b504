#include "cli/roles.h"

#include <csignal>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>

#include "api/resource/validation.h"
#include "cli/leader_election_flags.h"
#include "client/connection_flags.h"
#include "client/http_client.h"
#include "cluster/components.h"
#include "cluster/server_features.h"
#include "common/files.h"
#include "common/flags.h"
#include "common/log.h"
#include "drivers/nodelocal/simulated_devices.h"
#include "scheduler/scheduler.h"

namespace allot::cli {

namespace {
volatile std::sig_atomic_t g_stop_role = 0;
void OnRoleSignal(int) { g_stop_role = 1; }
}  // namespace

// --- simulated devices ----------------------------------------------------------------------

void SimDeviceFlags::Register(Flags& flags) {
  flags.Int("sim-gpus-per-node", &gpus_per_node,
            "node-local GPUs (driver gpu.example.com) per simulated node: publishes a "
            "ResourceSlice per node and the DeviceClass, and starts a pod only once its "
            "ResourceClaims are allocated and reserved for it; 0: no devices");
  flags.String("sim-device-profile", &profile_path,
               "YAML device profile for --sim-gpus-per-node (driver, model, memory, extra "
               "attributes; see drivers/nodelocal/device_profile.h); its count is replaced by K");
}

Result<std::optional<drivers::DeviceProfile>> SimDeviceFlags::Profile() const {
  if (gpus_per_node < 0 || gpus_per_node > static_cast<int64_t>(api::kResourceSliceMaxDevices)) {
    return BadRequestError("--sim-gpus-per-node must be between 0 and " +
                           std::to_string(api::kResourceSliceMaxDevices) + ", got " +
                           std::to_string(gpus_per_node));
  }
  if (gpus_per_node == 0) {
    if (!profile_path.empty()) {
      return BadRequestError("--sim-device-profile needs --sim-gpus-per-node > 0");
    }
    return std::optional<drivers::DeviceProfile>();
  }
  drivers::DeviceProfile profile;
  if (!profile_path.empty()) {
    ALLOT_ASSIGN_OR_RETURN(std::string text, ReadFile(profile_path));
    Result<drivers::DeviceProfile> parsed = drivers::ParseDeviceProfile(text);
    if (!parsed.ok()) return BadRequestError(profile_path + ": " + parsed.status().message());
    profile = std::move(parsed).value();
  }
  profile.count = gpus_per_node;
  ALLOT_RETURN_IF_ERROR(drivers::ValidateDeviceProfile(profile));
  return std::optional<drivers::DeviceProfile>(std::move(profile));
}

namespace {

void LogDevices(std::string_view line) { log::Info("simulated devices", line); }

class SimDevicesExtension final : public node::NodeSimExtension {
 public:
  void AddFlags(Flags& flags) override { flags_.Register(flags); }
  Status Configure(client::Client& client, node::NodeSimulator& sim) override {
    ALLOT_ASSIGN_OR_RETURN(std::optional<drivers::DeviceProfile> profile, flags_.Profile());
    if (!profile) return Status::Ok();
    devices_ = std::make_unique<drivers::SimulatedDevices>(
        client,
        drivers::SimulatedDevicesOptions{.profile = std::move(*profile), .log = LogDevices});
    devices_->Install(sim);
    return Status::Ok();
  }
  Status Start(node::NodeSimulator& sim) override {
    return devices_ ? devices_->Start(sim) : Status::Ok();
  }
  void Stop() override {
    if (devices_) devices_->Stop();
  }

 private:
  SimDeviceFlags flags_;
  std::unique_ptr<drivers::SimulatedDevices> devices_;
};

}  // namespace

std::unique_ptr<node::NodeSimExtension> NewSimDevicesExtension() {
  return std::make_unique<SimDevicesExtension>();
}

int RunScheduler(int argc, char** argv) {
  client::ConnectionFlags connection;
  std::string config;
  LeaderElectionFlags election;
  Flags flags("allot scheduler", "Runs the scheduler against a Kubernetes-compatible API server.");
  connection.Register(flags);
  flags.String("config", &config, "scheduler configuration file");
  election.Register(flags, "allot-scheduler");
  std::string gates;
  flags.String("feature-gates", &gates,
               "comma-separated Name=true|false for the DRA features, e.g. DRADeviceTaints=false");
  if (auto exit_code = flags.ParseOrExit(argc, argv)) return *exit_code;
  auto features = dra::ParseFeatureGates(gates);
  if (!features.ok()) {
    std::fprintf(stderr, "allot scheduler: --feature-gates: %s\n",
                 features.status().message().c_str());
    return 2;
  }
  client::RestConfig rest;
  auto client = connection.Connect({}, &rest);
  if (!client.ok()) {
    std::fprintf(stderr, "allot scheduler: %s\n", client.status().message().c_str());
    return 2;
  }
  const std::string server = rest.server;
  *features = cluster::FeaturesTheServerOffers(**client, *features, "allot scheduler");
  std::signal(SIGINT, OnRoleSignal);
  std::signal(SIGTERM, OnRoleSignal);
  std::unique_ptr<scheduler::Scheduler> sched;
  int exit_code = election.Run(
      **client, "allot scheduler", "allot-scheduler",
      [&] {
        auto s = cluster::StartScheduler(**client, config, nullptr, *features);
        if (!s.ok()) {
          std::fprintf(stderr, "allot scheduler: %s\n", s.status().message().c_str());
          return false;
        }
        sched = std::move(s).value();
        std::printf("allot scheduler: scheduling against %s\n", server.c_str());
        std::fflush(stdout);
        return true;
      },
      g_stop_role);
  if (sched) sched->Stop();
  return exit_code;
}

}  // namespace allot::cli
