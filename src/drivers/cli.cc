#include "drivers/cli.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "client/connection_flags.h"
#include "client/http_client.h"
#include "common/files.h"
#include "common/flags.h"
#include "common/log.h"
#include "common/time.h"
#include "drivers/acceleratorpool/pool.h"
#include "drivers/fabric/driver.h"

namespace allot::drivers {

namespace {

std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free);
void OnSignal(int) { g_stop = true; }

constexpr std::chrono::seconds kSummaryEvery{10};

constexpr char kUsage[] =
    "usage: allot driver <name> [flags]\n\n"
    "drivers:\n"
    "  fabric      composable-infrastructure GPUs attached to nodes on demand (--config FILE)\n"
    "  controller  network-attached accelerators allocated by a control-plane controller\n"
    "              (KEP-3063; --config FILE)\n\n"
    "Run `allot driver <name> --help` for a driver's flags.\n";

void PrintLine(std::string_view line) { log::Info("fabric", line); }

void PrintSummary(const FabricDriver& driver) {
  using Phase = FabricDriver::DevicePhase;
  std::map<Phase, int> phases;
  for (const FabricDriver::DeviceInfo& d : driver.Devices()) ++phases[d.phase];
  FabricDriver::Stats s = driver.GetStats();
  std::printf(
      "allot driver fabric: devices free %d attaching %d attached %d detaching %d failed %d; "
      "attaches %llu failures %llu cancelled %llu detaches %llu; status writes %llu (errors "
      "%llu), slice writes %llu (publish errors %llu)\n",
      phases[Phase::kFree], phases[Phase::kAttaching], phases[Phase::kAttached],
      phases[Phase::kDetaching], phases[Phase::kFailed],
      static_cast<unsigned long long>(s.attaches), static_cast<unsigned long long>(s.failures),
      static_cast<unsigned long long>(s.cancelled), static_cast<unsigned long long>(s.detaches),
      static_cast<unsigned long long>(s.status_writes),
      static_cast<unsigned long long>(s.status_errors),
      static_cast<unsigned long long>(s.slice_writes),
      static_cast<unsigned long long>(s.publish_errors));
  std::fflush(stdout);
}

// The flags every driver command takes, its configuration file and its API client. Returns an
// exit code when the command must end now (bad flags, an unreadable or invalid file).
template <class Config>
struct DriverSetup {
  std::string server;
  Config config;
  std::unique_ptr<client::HttpClient> client;
};
template <class Config, class Parse>
std::optional<int> SetUp(const char* command, const char* user_agent, const char* about,
                         const char* example, int argc, char** argv, Parse parse,
                         DriverSetup<Config>& out) {
  std::string config_path;
  client::ConnectionFlags connection;
  Flags flags(command, about);
  connection.Register(flags);
  flags.String("config", &config_path,
               std::string("configuration, YAML or JSON (required; see ") + example + ")");
  if (auto exit_code = flags.ParseOrExit(argc, argv, /*first=*/3)) return *exit_code;
  if (!flags.positional().empty()) {
    return flags.UsageError("unexpected argument \"" + flags.positional()[0] + "\"");
  }
  if (config_path.empty()) {
    return flags.UsageError("--config is required");
  }
  Result<std::string> text = ReadFile(config_path);
  Result<Config> config = text.ok() ? parse(*text) : Result<Config>(text.status());
  if (!config.ok()) {
    std::fprintf(stderr, "%s: %s: %s\n", command, config_path.c_str(),
                 config.status().message().c_str());
    return 2;
  }
  out.config = std::move(config).value();
  client::HttpClientOptions http;
  http.user_agent = user_agent;
  client::RestConfig rest;
  auto client = connection.Connect(http, &rest);
  if (!client.ok()) {
    std::fprintf(stderr, "%s: %s\n", command, client.status().message().c_str());
    return 2;
  }
  out.server = rest.server;
  out.client = std::move(client).value();
  g_stop = false;
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  return std::nullopt;
}

// Calls `summary` every kSummaryEvery until SIGINT or SIGTERM.
void RunUntilSignal(const std::function<void()>& summary) {
  auto next_summary = std::chrono::steady_clock::now() + kSummaryEvery;
  while (!g_stop) {
    if (std::chrono::steady_clock::now() >= next_summary) {
      summary();
      next_summary += kSummaryEvery;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

int RunFabric(int argc, char** argv) {
  DriverSetup<FabricConfig> setup;
  if (auto exit_code = SetUp(
          "allot driver fabric", "allot-fabric-driver",
          "A composable-infrastructure DRA driver: publishes fabric GPUs as ResourceSlices and "
          "attaches them to the nodes the scheduler allocates them for.",
          "examples/fabric.yaml", argc, argv, ParseFabricConfig, setup)) {
    return *exit_code;
  }
  auto driver = StartFabricDriver(*setup.client, RealClock::Instance(), std::move(setup.config),
                                  {.log = PrintLine});
  if (!driver.ok()) {
    std::fprintf(stderr, "allot driver fabric: %s\n", driver.status().message().c_str());
    return 1;
  }
  PrintLine("running against " + setup.server);
  RunUntilSignal([&] { PrintSummary(**driver); });
  PrintLine("stopping");
  (*driver)->Stop();
  PrintSummary(**driver);
  return 0;
}

void PrintPoolSummary(AcceleratorPool& pool) {
  const AcceleratorPoolDriver::Usage u = pool.driver().usage();
  const controlplane::Controller::Stats s = pool.stats();
  std::string racks;
  for (const auto& [rack, cap] : pool.driver().config().racks) {
    auto it = u.by_rack.find(rack);
    racks += " " + rack + " " + std::to_string(it == u.by_rack.end() ? 0 : it->second) + "/" +
             std::to_string(cap);
  }
  std::printf(
      "allot driver controller: in use%s; allocated %llu deallocated %llu answers %llu "
      "failures %llu\n",
      racks.c_str(), static_cast<unsigned long long>(s.allocated),
      static_cast<unsigned long long>(s.deallocated),
      static_cast<unsigned long long>(s.unsuitable_written),
      static_cast<unsigned long long>(s.failures));
  std::fflush(stdout);
}

int RunController(int argc, char** argv) {
  DriverSetup<AcceleratorPoolConfig> setup;
  if (auto exit_code = SetUp(
          "allot driver controller", "allot-controller-driver",
          "An example control-plane DRA driver (KEP-3063): network-attached accelerators whose "
          "per-rack and per-node capacity only it knows, allocated through its controller in "
          "negotiation with the scheduler (PodSchedulingContext).",
          "examples/controller/pool.yaml", argc, argv, ParseAcceleratorPoolConfig, setup)) {
    return *exit_code;
  }
  AcceleratorPool pool(*setup.client, std::move(setup.config));
  if (Status st = pool.Start(); !st.ok()) {
    std::fprintf(stderr, "allot driver controller: %s\n", st.message().c_str());
    return 1;
  }
  log::Info("controller", "running against " + setup.server);
  RunUntilSignal([&] { PrintPoolSummary(pool); });
  log::Info("controller", "stopping");
  pool.Stop();
  PrintPoolSummary(pool);
  return 0;
}

}  // namespace

int RunDriverCommand(int argc, char** argv) {
  if (argc < 3 || std::strcmp(argv[2], "--help") == 0 || std::strcmp(argv[2], "help") == 0) {
    std::fputs(kUsage, argc < 3 ? stderr : stdout);
    return argc < 3 ? 2 : 0;
  }
  if (std::strcmp(argv[2], "fabric") == 0) return RunFabric(argc, argv);
  if (std::strcmp(argv[2], "controller") == 0) return RunController(argc, argv);
  std::fprintf(stderr, "allot driver: unknown driver \"%s\"\n\n%s", argv[2], kUsage);
  return 2;
}

}  // namespace allot::drivers
