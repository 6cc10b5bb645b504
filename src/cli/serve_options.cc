#include "cli/serve_options.h"

#include <chrono>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>

#include "common/files.h"
#include "common/go_duration.h"
#include "common/log.h"
#include "dra/features.h"
#include "drivers/acceleratorpool/config.h"
#include "drivers/fabric/config.h"

namespace allot::cli {

namespace {

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

// A driver's configuration: the file `path`, or `demo` when no file is given. Errors (400)
// name the flag: a file that cannot be read, a configuration that is invalid.
template <class Config, class Parse>
Status LoadConfig(const char* flag, const std::string& path, std::string_view demo, Parse parse,
                  std::optional<Config>& out) {
  Result<Config> c = InternalError("unset");
  if (path.empty()) {
    c = parse(demo);
  } else if (auto text = ReadFile(path); text.ok()) {
    c = parse(*text);
  } else {
    c = text.status();
  }
  if (!c.ok()) return BadRequestError(std::string(flag) + ": " + c.status().message());
  out = std::move(c).value();
  return Status::Ok();
}

// A Go duration flag that must not be negative.
Result<std::chrono::microseconds> NonNegativeDuration(std::string_view flag,
                                                      const std::string& value) {
  auto d = ParseGoDuration(value);
  if (!d.ok()) return BadRequestError(std::string(flag) + ": " + d.status().message());
  if (d->count() < 0) return BadRequestError(std::string(flag) + ": must not be negative");
  return *d;
}

}  // namespace

void ServeOptions::AddFlags(Flags& flags) {
  flags.String("listen", &listen, "address:port to listen on; port 0 picks a free port");
  flags.String("data-dir", &data_dir, "directory for the sqlite database");
  flags.String("store", &store,
               "storage backend: sqlite (durable, in --data-dir), etcd (--etcd-servers) or memory");
  flags.String("etcd-servers", &etcd_servers,
               "etcd members' client URLs, comma-separated (http://127.0.0.1:2379,...)");
  flags.String("etcd-cafile", &etcd_cafile,
               "--store etcd over https: the CA bundle that signed the members' certificates");
  flags.String("etcd-certfile", &etcd_certfile,
               "--store etcd: this server's client certificate for etcd (PEM)");
  flags.String("etcd-keyfile", &etcd_keyfile, "--store etcd: its private key (PEM)");
  flags.String("etcd-compaction-interval", &etcd_compaction_interval,
               "--store etcd: how often etcd's history is compacted, as kube-apiserver does "
               "(one replica per interval, keeping one interval of history); 0: never");
  flags.String("event-ttl", &event_ttl,
               "how long an Event is kept after its last write, as kube-apiserver's --event-ttl "
               "(e.g. 1h, 30m); 0: until something deletes it");
  flags.Int("watch-history", &watch_history,
            "changes kept for watches, lists and continue tokens at older resourceVersions "
            "(older ones get 410 Gone, as after etcd compacts kube-apiserver's history)");
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
             "do not run the controllers (resourceclaim, reservation, disruption, "
             "clusterrole-aggregation) in-process");
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
  flags.String("controller-config", &controller_config,
               "run the example control-plane driver in-process with this configuration "
               "(docs/controller.md; --demo runs it with two racks of accelerators)");
  security.Register(flags);
  flags.Int("max-requests-inflight", &max_requests_inflight,
            "read requests in flight beyond which the server answers 429 with Retry-After "
            "(watches do not count); 0: no limit");
  flags.Int("max-mutating-requests-inflight", &max_mutating_requests_inflight,
            "the same for writes; 0: no limit");
}

Status ServeOptions::Validate() const {
  if (auto features = dra::ParseFeatureGates(feature_gates); !features.ok()) {
    return BadRequestError("--feature-gates: " + features.status().message());
  }
  if (etcd_certfile.empty() != etcd_keyfile.empty()) {
    return BadRequestError("--etcd-certfile and --etcd-keyfile go together");
  }
  ALLOT_RETURN_IF_ERROR(
      NonNegativeDuration("--etcd-compaction-interval", etcd_compaction_interval).status());
  ALLOT_RETURN_IF_ERROR(NonNegativeDuration("--event-ttl", event_ttl).status());
  if (max_requests_inflight < 0 || max_mutating_requests_inflight < 0) {
    return BadRequestError("in-flight limits must not be negative");
  }
  return Status::Ok();
}

Result<ServeOptions::Completed> ServeOptions::Complete() const {
  Completed out;
  cluster::ClusterOptions& options = out.cluster;
  options.sim_nodes = sim_nodes;
  SimDeviceFlags devices = sim_devices;
  if (demo) {
    if (options.sim_nodes == 0) options.sim_nodes = 3;
    if (devices.gpus_per_node == 0) devices.gpus_per_node = 1;
  }
  if (demo || !fabric_config.empty()) {
    ALLOT_RETURN_IF_ERROR(LoadConfig("--fabric-config", fabric_config, kDemoFabric,
                                     drivers::ParseFabricConfig, options.fabric));
  }
  if (demo || !controller_config.empty()) {
    ALLOT_RETURN_IF_ERROR(LoadConfig("--controller-config", controller_config, kDemoAcceleratorPool,
                                     drivers::ParseAcceleratorPoolConfig,
                                     options.accelerator_pool));
  }
  ALLOT_ASSIGN_OR_RETURN(options.sim_devices, devices.Profile());
  if (options.sim_devices && options.sim_nodes <= 0) {
    return BadRequestError("--sim-gpus-per-node needs --sim-nodes > 0");
  }
  ALLOT_ASSIGN_OR_RETURN(out.security, security.Prepare(listen, data_dir));
  options.tls = out.security.tls;
  options.authenticator = out.security.authenticator;
  options.authorization = out.security.authorization;
  options.audit_log = out.security.audit_log;

  options.store = store;
  options.etcd_servers = SplitCommaList(etcd_servers);
  for (auto [flag, path, pem] :
       {std::tuple{"--etcd-cafile", &etcd_cafile, &options.etcd_ca_pem},
        std::tuple{"--etcd-certfile", &etcd_certfile, &options.etcd_cert_pem},
        std::tuple{"--etcd-keyfile", &etcd_keyfile, &options.etcd_key_pem}}) {
    if (path->empty()) continue;
    auto text = ReadFile(*path);
    if (!text.ok()) return BadRequestError(std::string(flag) + ": " + text.status().message());
    *pem = std::move(text).value();
  }
  ALLOT_ASSIGN_OR_RETURN(
      auto compaction, NonNegativeDuration("--etcd-compaction-interval", etcd_compaction_interval));
  options.etcd_compaction_interval =
      std::chrono::duration_cast<std::chrono::milliseconds>(compaction);
  ALLOT_ASSIGN_OR_RETURN(options.event_ttl, NonNegativeDuration("--event-ttl", event_ttl));
  if (watch_history < 1) return BadRequestError("--watch-history: must be at least 1");
  options.watch_history = static_cast<size_t>(watch_history);
  options.data_dir = data_dir;
  options.listen = listen;
  options.threads = static_cast<int>(threads);
  options.max_requests_inflight = static_cast<int>(max_requests_inflight);
  options.max_mutating_requests_inflight = static_cast<int>(max_mutating_requests_inflight);
  options.scheduler = !no_scheduler;
  options.scheduler_config = scheduler_config;
  options.controllers = !no_controllers;
  // Replicas on one etcd: one embedded scheduler and one set of controllers act among them.
  options.leader_elect = store == "etcd";
  ALLOT_ASSIGN_OR_RETURN(options.features, dra::ParseFeatureGates(feature_gates));
  options.sim_node_template = sim_node_template;
  options.log = [](std::string_view line) { log::Info("serve", line); };
  return out;
}

}  // namespace allot::cli
