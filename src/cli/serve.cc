// `allot serve`: the embedded control plane — store, garbage collector and API server in one
// process.
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "apiserver/server.h"
#include "cli/commands.h"
#include "cli/control_plane.h"
#include "cli/roles.h"
#include "client/inprocess_client.h"
#include "common/flags.h"
#include "common/time.h"
#include "drivers/fabric.h"
#include "drivers/fabric_config.h"
#include "node/node_objects.h"
#include "node/simulator.h"
#include "scheduler/scheduler.h"
#include "store/garbage_collector.h"
#include "store/store.h"

namespace allot::cli {

namespace {

volatile std::sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

Result<std::unique_ptr<store::Backend>> OpenBackend(const std::string& kind,
                                                    const std::string& data_dir) {
  if (kind == "memory") return store::NewMemoryBackend();
  if (kind != "sqlite") {
    return BadRequestError("unknown --store \"" + kind + "\": want sqlite or memory");
  }
  std::error_code ec;
  std::filesystem::create_directories(data_dir, ec);
  if (ec) return BadRequestError("cannot create --data-dir " + data_dir + ": " + ec.message());
  return store::NewSqliteBackend((std::filesystem::path(data_dir) / "allot.db").string());
}

// `--demo`'s fabric (docs/demo.md tells its story): three A100s on a switch that reaches every
// node, attached in 3 s. With failureRate 0.25 and seed 23 the first attach fails and the next
// four succeed, so the demo shows one failure and its rescheduling, reproducibly.
constexpr char kDemoFabric[] = R"(driver: gpu.example.com
pools:
- model: a100-80gb
  count: 3
  attributes:
    productName: NVIDIA A100-SXM4-80GB
    cudaComputeCapability: {version: 8.0.0}
  capacity:
    memory: 80Gi
attachLatency: 3s
detachLatency: 1s
failureRate: 0.25
failureCooldown: 60s
refreshInterval: 10s
seed: 23
)";

}  // namespace

int Serve(int argc, char** argv) {
  std::string listen = "127.0.0.1:6443";
  std::string data_dir = "./data";
  std::string store_kind = "sqlite";
  int64_t threads = 2;
  int64_t sim_nodes = 0;
  std::string sim_node_template;
  bool no_scheduler = false;
  std::string scheduler_config;
  SimDeviceFlags sim_devices;
  bool no_controllers = false;
  std::string feature_gates;
  bool demo = false;
  std::string fabric_config;
  Flags flags("allot serve",
              "Runs the embedded control plane: API server, store, garbage "
              "collector.");
  flags.String("listen", &listen, "address:port to listen on; port 0 picks a free port");
  flags.String("data-dir", &data_dir, "directory for the sqlite database");
  flags.String("store", &store_kind, "storage backend: sqlite (durable) or memory");
  flags.Int("threads", &threads, "HTTP worker threads");
  flags.Int("sim-nodes", &sim_nodes, "simulated nodes (kubelets) to run in-process");
  flags.String("sim-node-template", &sim_node_template,
               "Node manifest for the simulated nodes (capacity, labels, taints)");
  flags.Bool("no-scheduler", &no_scheduler, "do not run the scheduler in-process");
  flags.String("scheduler-config", &scheduler_config,
               "scheduler configuration file (KubeSchedulerConfiguration-like YAML)");
  sim_devices.Register(flags);
  flags.Bool("no-controllers", &no_controllers,
             "do not run the controllers (resourceclaim) in-process");
  flags.String("feature-gates", &feature_gates,
               "comma-separated Name=true|false for the DRA features, e.g. "
               "DRADeviceTaints=false (all of Allot's DRA features are on by default)");
  flags.Bool("demo", &demo,
             "the demo cluster (docs/demo.md): 3 simulated nodes with one node-local GPU each "
             "(unless --sim-nodes / --sim-gpus-per-node say otherwise) and the fabric driver "
             "with three fabric GPUs (or --fabric-config)");
  flags.String("fabric-config", &fabric_config,
               "run the fabric driver in-process with this configuration (docs/fabric.md)");
  if (Status s = flags.Parse(argc, argv); !s.ok() || flags.help_requested()) {
    std::fprintf(stderr, "%s\n", s.ok() ? flags.Usage().c_str() : s.message().c_str());
    return s.ok() ? 0 : 2;
  }
  auto features = dra::ParseFeatureGates(feature_gates);
  if (!features.ok()) {
    std::fprintf(stderr, "allot serve: --feature-gates: %s\n", features.status().message().c_str());
    return 2;
  }
  if (demo) {
    if (sim_nodes == 0) sim_nodes = 3;
    if (sim_devices.gpus_per_node == 0) sim_devices.gpus_per_node = 1;
  }
  std::optional<drivers::FabricConfig> fabric;
  if (demo || !fabric_config.empty()) {
    Result<drivers::FabricConfig> c = InternalError("unset");
    if (fabric_config.empty()) {
      c = drivers::ParseFabricConfig(kDemoFabric);
    } else if (auto text = ReadFile(fabric_config); text.ok()) {
      c = drivers::ParseFabricConfig(*text);
    } else {
      c = text.status();
    }
    if (!c.ok()) {
      std::fprintf(stderr, "allot serve: --fabric-config: %s\n", c.status().message().c_str());
      return 2;
    }
    fabric = std::move(c).value();
  }
  auto device_profile = sim_devices.Profile();
  if (!device_profile.ok() || (*device_profile && sim_nodes <= 0)) {
    std::fprintf(stderr, "allot serve: %s\n",
                 device_profile.ok() ? "--sim-gpus-per-node needs --sim-nodes > 0"
                                     : device_profile.status().message().c_str());
    return 2;
  }

  auto backend = OpenBackend(store_kind, data_dir);
  if (!backend.ok()) {
    std::fprintf(stderr, "allot serve: %s\n", backend.status().message().c_str());
    return 1;
  }
  Clock& clock = RealClock::Instance();
  store::Store store(std::move(backend).value(), clock);
  if (Status s = store.Open(); !s.ok()) {
    std::fprintf(stderr, "allot serve: opening the store: %s\n", s.message().c_str());
    return 1;
  }
  store::GarbageCollector gc(store);
  if (Status s = gc.Start(); !s.ok()) {
    std::fprintf(stderr, "allot serve: garbage collector: %s\n", s.message().c_str());
    return 1;
  }
  metrics::Registry metrics_registry;
  apiserver::ApiServerOptions opts;
  opts.metrics = &metrics_registry;
  opts.listen_address = listen;
  opts.threads = static_cast<int>(threads);
  apiserver::ApiServer server(store, clock, opts);
  if (Status s = server.Start(); !s.ok()) {
    std::fprintf(stderr, "allot serve: %s\n", s.message().c_str());
    return 1;
  }
  client::InProcessClient in_process(store, clock);
  std::unique_ptr<Controllers> controllers;
  if (!no_controllers) {
    auto c = StartControllers(in_process, &metrics_registry, *features);
    if (!c.ok()) {
      std::fprintf(stderr, "allot serve: controllers: %s\n", c.status().message().c_str());
      return 1;
    }
    controllers = std::move(c).value();
  }
  std::unique_ptr<scheduler::Scheduler> sched;
  if (!no_scheduler) {
    auto s = StartScheduler(in_process, scheduler_config, &metrics_registry, *features);
    if (!s.ok()) {
      std::fprintf(stderr, "allot serve: scheduler: %s\n", s.status().message().c_str());
      return 1;
    }
    sched = std::move(s).value();
  }
  std::unique_ptr<node::NodeSimulator> sim;
  std::unique_ptr<drivers::SimulatedDevices> devices;  // after `sim`: destroyed (stopped) first
  if (*device_profile) {
    devices = std::make_unique<drivers::SimulatedDevices>(
        in_process, drivers::SimulatedDevicesOptions{
                        .profile = **device_profile, .log = [](std::string_view line) {
                          std::fprintf(stderr, "allot serve: simulated devices: %.*s\n",
                                       static_cast<int>(line.size()), line.data());
                        }});
  }
  if (sim_nodes > 0) {
    auto s = StartNodeSimulator(in_process, clock, sim_nodes, sim_node_template, devices.get());
    if (!s.ok()) {
      std::fprintf(stderr, "allot serve: simulated nodes: %s\n", s.status().message().c_str());
      return 1;
    }
    sim = std::move(s).value();
  }
  std::unique_ptr<drivers::FabricDriver> fabric_driver;
  if (fabric) {
    auto f =
        drivers::StartFabricDriver(in_process, clock, *fabric,
                                   {.metrics = &metrics_registry, .log = [](std::string_view line) {
                                      std::fprintf(stderr, "allot serve: fabric: %.*s\n",
                                                   static_cast<int>(line.size()), line.data());
                                    }});
    if (!f.ok()) {
      std::fprintf(stderr, "allot serve: fabric driver: %s\n", f.status().message().c_str());
      return 1;
    }
    fabric_driver = std::move(f).value();
  }
  std::string host = listen.substr(0, listen.rfind(':'));
  std::printf("allot: serving on http://%s:%u (store: %s%s)\n", host.c_str(), server.port(),
              store_kind.c_str(), store_kind == "sqlite" ? (", " + data_dir).c_str() : "");
  std::printf(
      "allot: point kubectl at it with:\n"
      "  kubectl --server http://%s:%u get namespaces\n"
      "or: kubectl config set-cluster allot --server=http://%s:%u && "
      "kubectl config set-context allot --cluster=allot && kubectl config use-context allot\n",
      host.c_str(), server.port(), host.c_str(), server.port());
  std::fflush(stdout);

  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  while (!g_stop) {
    struct timespec ts {
      0, 100 * 1000 * 1000
    };
    nanosleep(&ts, nullptr);
  }
  std::printf("allot: shutting down\n");
  if (fabric_driver) fabric_driver->Stop();
  if (sim) sim->Stop();
  if (devices) devices->Stop();
  if (sched) sched->Stop();
  if (controllers) controllers->Stop();
  server.Stop();
  gc.Stop();
  store.Close();
  return 0;
}

}  // namespace allot::cli
