#include "drivers/cli.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>

#include "client/http_client.h"
#include "common/files.h"
#include "common/flags.h"
#include "common/log.h"
#include "common/time.h"
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
    "  fabric    composable-infrastructure GPUs attached to nodes on demand (--config FILE)\n\n"
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

int RunFabric(int argc, char** argv) {
  std::string server, config_path, token;
  Flags flags("allot driver fabric",
              "A composable-infrastructure DRA driver: publishes fabric GPUs as ResourceSlices "
              "and attaches them to the nodes the scheduler allocates them for.");
  flags.String("server", &server, "API server URL, e.g. http://127.0.0.1:6443 (required)");
  flags.String("config", &config_path,
               "fabric configuration, YAML or JSON (required; see examples/fabric.yaml)");
  flags.String("token", &token, "bearer token for the API server");
  if (auto exit_code = flags.ParseOrExit(argc, argv, /*first=*/3)) return *exit_code;
  if (!flags.positional().empty()) {
    std::fprintf(stderr, "allot driver fabric: unexpected argument \"%s\"\n%s\n",
                 flags.positional()[0].c_str(), flags.Usage().c_str());
    return 2;
  }
  if (server.empty() || config_path.empty()) {
    std::fprintf(stderr, "allot driver fabric: --server and --config are required\n%s\n",
                 flags.Usage().c_str());
    return 2;
  }
  Result<std::string> text = ReadFile(config_path);
  Result<FabricConfig> config =
      text.ok() ? ParseFabricConfig(*text) : Result<FabricConfig>(text.status());
  if (!config.ok()) {
    std::fprintf(stderr, "allot driver fabric: %s: %s\n", config_path.c_str(),
                 config.status().message().c_str());
    return 2;
  }
  client::HttpClientOptions http;
  http.bearer_token = token;
  http.user_agent = "allot-fabric-driver";
  auto client = client::HttpClient::FromUrl(server, http);
  if (!client.ok()) {
    std::fprintf(stderr, "allot driver fabric: %s\n", client.status().message().c_str());
    return 2;
  }
  g_stop = false;
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  auto driver = StartFabricDriver(**client, RealClock::Instance(), std::move(config).value(),
                                  {.log = PrintLine});
  if (!driver.ok()) {
    std::fprintf(stderr, "allot driver fabric: %s\n", driver.status().message().c_str());
    return 1;
  }
  PrintLine("running against " + server);
  auto next_summary = std::chrono::steady_clock::now() + kSummaryEvery;
  while (!g_stop) {
    if (std::chrono::steady_clock::now() >= next_summary) {
      PrintSummary(**driver);
      next_summary += kSummaryEvery;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  PrintLine("stopping");
  (*driver)->Stop();
  PrintSummary(**driver);
  return 0;
}

}  // namespace

int RunDriverCommand(int argc, char** argv) {
  if (argc < 3 || std::strcmp(argv[2], "--help") == 0 || std::strcmp(argv[2], "help") == 0) {
    std::fputs(kUsage, argc < 3 ? stderr : stdout);
    return argc < 3 ? 2 : 0;
  }
  if (std::strcmp(argv[2], "fabric") == 0) return RunFabric(argc, argv);
  std::fprintf(stderr, "allot driver: unknown driver \"%s\"\n\n%s", argv[2], kUsage);
  return 2;
}

}  // namespace allot::drivers
