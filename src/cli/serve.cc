// `allot serve`: the embedded control plane in one process — flags are parsed into a
// cluster::ClusterOptions, the cluster started (src/cluster/), and stopped on SIGINT / SIGTERM.
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <tuple>

#include "cli/commands.h"
#include "cli/roles.h"
#include "cli/serving_security.h"
#include "cluster/cluster.h"
#include "common/files.h"
#include "common/flags.h"
#include "common/go_duration.h"
#include "common/log.h"
#include "common/time.h"
#include "drivers/acceleratorpool/config.h"
#include "drivers/fabric/config.h"

namespace allot::cli {

namespace {

volatile std::sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

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

// `--demo`'s control-plane driver (docs/controller.md): network-attached accelerators in two
// racks, the three demo nodes placed by the driver's own inventory, one accelerator per node at
// a time; answers take 300 ms and allocations 1 s, so the negotiation can be watched.
constexpr char kDemoAcceleratorPool[] = R"(driver: controller.example.com
nodeRacks: {allot-node-0: rack-a, allot-node-1: rack-a, allot-node-2: rack-b}
racks: {rack-a: 1, rack-b: 1}
perNodeLimit: 1
answerLatency: 300ms
allocateLatency: 1s
)";

// A driver's configuration: the file `path`, or `demo` when no file is given. False (after
// saying why) when it cannot be read or is invalid.
template <class Config, class Parse>
bool LoadConfig(const char* flag, const std::string& path, std::string_view demo, Parse parse,
                std::optional<Config>& out) {
  Result<Config> c = InternalError("unset");
  if (path.empty()) {
    c = parse(demo);
  } else if (auto text = ReadFile(path); text.ok()) {
    c = parse(*text);
  } else {
    c = text.status();
  }
  if (!c.ok()) {
    std::fprintf(stderr, "allot serve: %s: %s\n", flag, c.status().message().c_str());
    return false;
  }
  out = std::move(c).value();
  return true;
}

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
  flags.String("store", &store_kind,
               "storage backend: sqlite (durable, in --data-dir), etcd (--etcd-servers) or memory");
  std::string etcd_servers;
  flags.String("etcd-servers", &etcd_servers,
               "etcd members' client URLs, comma-separated (http://127.0.0.1:2379,...)");
  std::string etcd_cafile, etcd_certfile, etcd_keyfile;
  flags.String("etcd-cafile", &etcd_cafile,
               "--store etcd over https: the CA bundle that signed the members' certificates");
  flags.String("etcd-certfile", &etcd_certfile,
               "--store etcd: this server's client certificate for etcd (PEM)");
  flags.String("etcd-keyfile", &etcd_keyfile, "--store etcd: its private key (PEM)");
  std::string etcd_compaction_interval = "5m";
  flags.String("etcd-compaction-interval", &etcd_compaction_interval,
               "--store etcd: how often etcd's history is compacted, as kube-apiserver does "
               "(one replica per interval, keeping one interval of history); 0: never");
  std::string event_ttl = "1h0m0s";
  flags.String("event-ttl", &event_ttl,
               "how long an Event is kept after its last write, as kube-apiserver's --event-ttl "
               "(e.g. 1h, 30m); 0: until something deletes it");
  flags.Int("threads", &threads, "HTTP worker threads");
  flags.Int("sim-nodes", &sim_nodes, "simulated nodes (kubelets) to run in-process");
  flags.String("sim-node-template", &sim_node_template,
               "Node manifest for the simulated nodes (capacity, labels, taints)");
  flags.Bool("no-scheduler", &no_scheduler,
             "do not run the scheduler in-process (with --store etcd it runs only while this "
             "replica holds the kube-system/allot-scheduler Lease)");
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
             "with three fabric GPUs (or --fabric-config), and the example control-plane driver "
             "(or --controller-config)");
  flags.String("fabric-config", &fabric_config,
               "run the fabric driver in-process with this configuration (docs/fabric.md)");
  std::string controller_config;
  flags.String("controller-config", &controller_config,
               "run the example control-plane driver in-process with this configuration "
               "(docs/controller.md; --demo runs it with two racks of accelerators)");
  ServingSecurityFlags security;
  security.Register(flags);
  int64_t max_inflight = 400, max_mutating_inflight = 200;
  flags.Int("max-requests-inflight", &max_inflight,
            "read requests in flight beyond which the server answers 429 with Retry-After "
            "(watches do not count); 0: no limit");
  flags.Int("max-mutating-requests-inflight", &max_mutating_inflight,
            "the same for writes; 0: no limit");
  if (auto exit_code = flags.ParseOrExit(argc, argv)) return *exit_code;
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
    if (!LoadConfig("--fabric-config", fabric_config, kDemoFabric, drivers::ParseFabricConfig,
                    fabric)) {
      return 2;
    }
  }
  std::optional<drivers::AcceleratorPoolConfig> accelerator_pool;
  if (demo || !controller_config.empty()) {
    if (!LoadConfig("--controller-config", controller_config, kDemoAcceleratorPool,
                    drivers::ParseAcceleratorPoolConfig, accelerator_pool)) {
      return 2;
    }
  }
  auto device_profile = sim_devices.Profile();
  if (!device_profile.ok()) {
    std::fprintf(stderr, "allot serve: %s\n", device_profile.status().message().c_str());
    return 2;
  }
  if (*device_profile && sim_nodes <= 0) {
    std::fprintf(stderr, "allot serve: --sim-gpus-per-node needs --sim-nodes > 0\n");
    return 2;
  }

  auto secured = security.Prepare(listen, data_dir);
  if (!secured.ok()) {
    std::fprintf(stderr, "allot serve: %s\n", secured.status().message().c_str());
    return 2;
  }

  cluster::ClusterOptions options;
  options.tls = secured->tls;
  options.authenticator = secured->authenticator;
  options.authorization = secured->authorization;
  options.audit_log = secured->audit_log;
  options.store = store_kind;
  options.etcd_servers = SplitCommaList(etcd_servers);
  if (etcd_certfile.empty() != etcd_keyfile.empty()) {
    std::fprintf(stderr, "allot serve: --etcd-certfile and --etcd-keyfile go together\n");
    return 2;
  }
  for (auto [flag, path, out] :
       {std::tuple{"--etcd-cafile", &etcd_cafile, &options.etcd_ca_pem},
        std::tuple{"--etcd-certfile", &etcd_certfile, &options.etcd_cert_pem},
        std::tuple{"--etcd-keyfile", &etcd_keyfile, &options.etcd_key_pem}}) {
    if (path->empty()) continue;
    auto pem = ReadFile(*path);
    if (!pem.ok()) {
      std::fprintf(stderr, "allot serve: %s: %s\n", flag, pem.status().message().c_str());
      return 2;
    }
    *out = std::move(pem).value();
  }
  auto compaction = ParseGoDuration(etcd_compaction_interval);
  if (!compaction.ok() || compaction->count() < 0) {
    std::fprintf(stderr, "allot serve: --etcd-compaction-interval: %s\n",
                 compaction.ok() ? "must not be negative" : compaction.status().message().c_str());
    return 2;
  }
  options.etcd_compaction_interval =
      std::chrono::duration_cast<std::chrono::milliseconds>(*compaction);
  auto ttl = ParseGoDuration(event_ttl);
  if (!ttl.ok() || ttl->count() < 0) {
    std::fprintf(stderr, "allot serve: --event-ttl: %s\n",
                 ttl.ok() ? "must not be negative" : ttl.status().message().c_str());
    return 2;
  }
  options.event_ttl = *ttl;
  options.data_dir = data_dir;
  options.listen = listen;
  options.threads = static_cast<int>(threads);
  if (max_inflight < 0 || max_mutating_inflight < 0) {
    std::fprintf(stderr, "allot serve: in-flight limits must not be negative\n");
    return 2;
  }
  options.max_requests_inflight = static_cast<int>(max_inflight);
  options.max_mutating_requests_inflight = static_cast<int>(max_mutating_inflight);
  options.scheduler = !no_scheduler;
  options.scheduler_config = scheduler_config;
  options.controllers = !no_controllers;
  // Replicas on one etcd: one embedded scheduler and one set of controllers act among them.
  options.leader_elect = store_kind == "etcd";
  options.features = *features;
  options.sim_nodes = sim_nodes;
  options.sim_node_template = sim_node_template;
  options.sim_devices = *device_profile;
  options.fabric = std::move(fabric);
  options.accelerator_pool = std::move(accelerator_pool);
  options.log = [](std::string_view line) { log::Info("serve", line); };
  auto started = cluster::Cluster::Start(std::move(options));
  if (!started.ok()) {
    std::fprintf(stderr, "allot serve: %s\n", started.status().message().c_str());
    return 1;
  }
  cluster::Cluster& cluster = **started;
  std::string host = listen.substr(0, listen.rfind(':'));
  if (host.empty() || host == "0.0.0.0" || host == "[::]") host = "127.0.0.1";
  const std::string url = std::string(secured->tls ? "https" : "http") + "://" + host + ":" +
                          std::to_string(cluster.port());
  std::printf("allot: serving on %s (store: %s%s)\n", url.c_str(), store_kind.c_str(),
              store_kind == "sqlite" ? (", " + data_dir).c_str() : "");
  auto kubeconfig = secured->WriteAdminKubeconfig(url);
  if (!kubeconfig.ok()) {
    std::fprintf(stderr, "allot serve: %s\n", kubeconfig.status().message().c_str());
    cluster.Stop();
    return 1;
  }
  if (!kubeconfig->empty()) {
    std::printf(
        "allot: the admin kubeconfig (user %s, group system:masters) is %s; point kubectl at "
        "it with:\n"
        "  export KUBECONFIG=%s\n"
        "  kubectl get namespaces\n",
        secured->admin_user.c_str(), kubeconfig->c_str(), kubeconfig->c_str());
  } else {
    std::printf("allot: point kubectl at it with:\n  kubectl --server %s get namespaces\n",
                url.c_str());
  }
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
  cluster.Stop();
  return 0;
}

}  // namespace allot::cli
