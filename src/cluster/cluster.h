// Cluster: the whole system in one process — the store, the garbage collector, Event expiry, the
// API server, the controllers, the scheduler, simulated nodes with their devices and the fabric
// driver — assembled in one place. `allot serve` is parse flags → Cluster::Start → wait → Stop;
// `allot bench` and the integration tests build the same pieces from components.h.
//
//   ClusterOptions opts;
//   opts.store = "memory";
//   opts.listen = "127.0.0.1:0";
//   opts.sim_nodes = 3;
//   ALLOT_ASSIGN_OR_RETURN(auto cluster, Cluster::Start(std::move(opts)));
//   cluster->client().Create(...);          // in-process, no HTTP
//   ... cluster->port() ...                 // or over HTTP
//   cluster->Stop();                        // or let it go out of scope
//
// Components start in dependency order (store, garbage collector, Event expiry, API server,
// controllers, scheduler, simulated nodes and devices, fabric driver) and stop in the reverse
// order.
//
// Thread safety: Start and Stop from one thread; the accessors are safe once Start returned.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "apiserver/server.h"
#include "client/inprocess/inprocess_client.h"
#include "cluster/components.h"
#include "cluster/elected_role.h"
#include "common/metrics.h"
#include "common/status.h"
#include "common/time.h"
#include "dra/features.h"
#include "drivers/acceleratorpool/config.h"
#include "drivers/acceleratorpool/pool.h"
#include "drivers/fabric/config.h"
#include "drivers/fabric/driver.h"
#include "drivers/fabric/node_plugin.h"
#include "drivers/nodelocal/device_profile.h"
#include "drivers/nodelocal/simulated_devices.h"
#include "node/simulator.h"
#include "registry/event_expiry.h"
#include "registry/garbage_collector.h"
#include "scheduler/scheduler.h"
#include "store/store.h"

namespace allot::cluster {

struct ClusterOptions {
  std::string store = "sqlite";           // sqlite (durable, in data_dir) | etcd | memory
  std::vector<std::string> etcd_servers;  // --store etcd: the members' client URLs
  // --store etcd over https: the CA that signed the members' certificates, and this server's
  // client certificate and key when the members ask for one (PEM; --etcd-cafile and friends).
  std::string etcd_ca_pem, etcd_cert_pem, etcd_key_pem;
  // --store etcd: how often etcd's history is compacted (etcd/compactor.h); zero: never.
  std::chrono::milliseconds etcd_compaction_interval = std::chrono::minutes(5);
  // Events are deleted this long after their last write (registry/event_expiry.h; kube-apiserver's
  // --event-ttl); zero: kept until deleted.
  std::chrono::microseconds event_ttl = registry::EventExpiry::kDefaultTtl;
  // Events of the watch history kept (store/history.h): watches and lists at older
  // resourceVersions, and continue tokens of older lists, get 410 Gone. 0: the store's default.
  size_t watch_history = 0;
  std::string data_dir = "./data";
  Clock* clock = nullptr;  // null: RealClock
  // The API server's address ("127.0.0.1:6443"; port 0 picks a free port); nullopt: no server.
  std::optional<std::string> listen;
  int threads = 2;  // HTTP worker threads
  // In-flight limits of the API server (429 beyond them; apiserver/server.h); 0: none.
  int max_requests_inflight = 0;
  int max_mutating_requests_inflight = 0;
  // The API server's TLS and authentication (apiserver/server.h); absent / null: plain HTTP,
  // nobody asked.
  std::optional<apiserver::ApiServerTls> tls;
  std::shared_ptr<const apiserver::authn::Authenticator> authenticator;
  // RBAC or AlwaysAllow, and the audit log (apiserver/server.h).
  apiserver::Authorization authorization = apiserver::Authorization::kAlwaysAllow;
  std::shared_ptr<apiserver::audit::AuditLog> audit_log;
  bool scheduler = true;
  std::string scheduler_config;  // a KubeSchedulerConfiguration-like file; "" = default
  bool controllers = true;
  // The scheduler and controllers act only while this process holds their Leases
  // (cluster/elected_role.h): for several replicas on one etcd. `identity` names the holder
  // ("" : hostname_random).
  bool leader_elect = false;
  std::string identity;
  dra::Features features;
  int64_t sim_nodes = 0;          // simulated kubelets allot-node-<i>
  std::string sim_node_template;  // their Node manifest; "" = the built-in template
  // Node-local devices on every simulated node (needs sim_nodes > 0).
  std::optional<drivers::DeviceProfile> sim_devices;
  // The fabric driver, in-process.
  std::optional<drivers::FabricConfig> fabric;
  // The example control-plane driver (KEP-3063, docs/controller.md), in-process.
  std::optional<drivers::AcceleratorPoolConfig> accelerator_pool;
  // One line per notable event of a component ("fabric: attached ..."); null: dropped.
  std::function<void(std::string_view)> log;
};

class Cluster {
 public:
  // Starts every component the options ask for. An error names the component that failed;
  // what had started is stopped again.
  static Result<std::unique_ptr<Cluster>> Start(ClusterOptions options);
  ~Cluster();  // Stop()s
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  // Stops every component in the reverse order of Start. Idempotent.
  void Stop();

  store::Store& store() { return *store_; }
  client::Client& client() { return *client_; }  // in-process
  metrics::Registry& metrics() { return metrics_; }
  // The API server's port (0 without a server).
  uint16_t port() const;
  scheduler::Scheduler* scheduler() { return scheduler_.get(); }

 private:
  explicit Cluster(ClusterOptions options);
  Status StartAll();
  // The scheduler and controllers as candidates for their Leases (options_.leader_elect).
  void StartElected();

  const ClusterOptions options_;
  Clock& clock_;
  metrics::Registry metrics_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<registry::GarbageCollector> gc_;
  std::unique_ptr<registry::EventExpiry> event_expiry_;
  std::unique_ptr<apiserver::ApiServer> server_;
  std::unique_ptr<client::InProcessClient> client_;
  // Shared by the scheduler and the controllers without leader election; declared before
  // them, so it outlives them.
  std::unique_ptr<client::InformerFactory> informers_;
  std::unique_ptr<Controllers> controllers_;
  std::unique_ptr<scheduler::Scheduler> scheduler_;
  std::unique_ptr<ElectedRole> elected_controllers_, elected_scheduler_;  // with leader_elect
  // The fabric's kubelet side when no node-local driver serves its name; outlives devices_,
  // whose kubelets call it.
  std::unique_ptr<drivers::FabricNodePlugin> fabric_node_;
  std::unique_ptr<node::NodeSimulator> sim_;
  std::unique_ptr<drivers::SimulatedDevices> devices_;  // after sim_: destroyed first
  std::unique_ptr<drivers::FabricDriver> fabric_;
  std::unique_ptr<drivers::AcceleratorPool> accelerator_pool_;
  bool stopped_ = false;
};

// The embedded store's database in a data directory: "<data_dir>/allot.db".
std::string SqliteDatabasePath(const std::string& data_dir);

// The store backend the options name: a sqlite database "allot.db" in `data_dir` (created if
// missing), etcd at `etcd_servers` (compacted every `etcd_compaction_interval`), or memory. 400
// for another kind, etcd without servers, or a data directory that cannot be created.
Result<std::unique_ptr<store::Backend>> OpenBackend(const ClusterOptions& options);

}  // namespace allot::cluster
