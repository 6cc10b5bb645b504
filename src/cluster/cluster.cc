#include "cluster/cluster.h"

#include <filesystem>

#include "store/backend.h"

namespace allot::cluster {

namespace {

// A component's log lines prefixed with its name.
std::function<void(std::string_view)> Prefixed(const std::function<void(std::string_view)>& log,
                                               std::string prefix) {
  if (!log) return nullptr;
  return
      [log, prefix = std::move(prefix)](std::string_view line) { log(prefix + std::string(line)); };
}

Status Named(const Status& s, std::string_view component) {
  if (s.ok()) return s;
  return Status(s.code(), std::string(component) + ": " + s.message());
}

}  // namespace

std::string SqliteDatabasePath(const std::string& data_dir) {
  return (std::filesystem::path(data_dir) / "allot.db").string();
}

Result<std::unique_ptr<store::Backend>> OpenBackend(const ClusterOptions& options) {
  const std::string& kind = options.store;
  if (kind == "memory") return store::NewMemoryBackend();
  if (kind == "etcd") {
    if (options.etcd_servers.empty()) return BadRequestError("--store etcd needs --etcd-servers");
    store::EtcdBackendOptions o;
    o.endpoints = options.etcd_servers;
    o.compaction_interval = options.etcd_compaction_interval;
    o.ca_pem = options.etcd_ca_pem;
    o.cert_pem = options.etcd_cert_pem;
    o.key_pem = options.etcd_key_pem;
    return store::NewEtcdBackend(o);
  }
  if (kind != "sqlite") {
    return BadRequestError("unknown --store \"" + kind + "\": want sqlite, etcd or memory");
  }
  std::error_code ec;
  std::filesystem::create_directories(options.data_dir, ec);
  if (ec) {
    return BadRequestError("cannot create --data-dir " + options.data_dir + ": " + ec.message());
  }
  return store::NewSqliteBackend(SqliteDatabasePath(options.data_dir));
}

Cluster::Cluster(ClusterOptions options)
    : options_(std::move(options)),
      clock_(options_.clock ? *options_.clock : RealClock::Instance()) {}

Cluster::~Cluster() { Stop(); }

Result<std::unique_ptr<Cluster>> Cluster::Start(ClusterOptions options) {
  if (options.sim_devices && options.sim_nodes <= 0) {
    return BadRequestError("--sim-gpus-per-node needs --sim-nodes > 0");
  }
  std::unique_ptr<Cluster> c(new Cluster(std::move(options)));
  if (Status s = c->StartAll(); !s.ok()) {
    c->Stop();
    return s;
  }
  return c;
}

Status Cluster::StartAll() {
  ALLOT_ASSIGN_OR_RETURN(auto backend, OpenBackend(options_));
  store::StoreOptions store_options = DefaultStoreOptions();
  if (options_.watch_history > 0) store_options.history_size = options_.watch_history;
  store_ = std::make_unique<store::Store>(std::move(backend), clock_, std::move(store_options));
  ALLOT_RETURN_IF_ERROR(Named(store_->Open(), "opening the store"));
  gc_ = std::make_unique<registry::GarbageCollector>(*store_);
  ALLOT_RETURN_IF_ERROR(Named(gc_->Start(), "garbage collector"));
  if (options_.event_ttl.count() > 0) {
    event_expiry_ = std::make_unique<registry::EventExpiry>(*store_, clock_, options_.event_ttl);
    ALLOT_RETURN_IF_ERROR(Named(event_expiry_->Start(), "event expiry"));
  }
  if (options_.listen) {
    apiserver::ApiServerOptions opts;
    opts.metrics = &metrics_;
    opts.listen_address = *options_.listen;
    opts.threads = options_.threads;
    opts.tls = options_.tls;
    opts.max_requests_inflight = options_.max_requests_inflight;
    opts.max_mutating_requests_inflight = options_.max_mutating_requests_inflight;
    opts.authenticator = options_.authenticator;
    opts.authorization = options_.authorization;
    opts.audit_log = options_.audit_log;
    server_ = std::make_unique<apiserver::ApiServer>(*store_, clock_, opts);
    ALLOT_RETURN_IF_ERROR(server_->Start());
  }
  client_ = std::make_unique<client::InProcessClient>(*store_, clock_);
  if (options_.leader_elect) {
    StartElected();
  } else {
    // The scheduler and the controllers share one informer per resource (components.h).
    informers_ = std::make_unique<client::InformerFactory>(*client_);
    if (options_.controllers) {
      auto c = StartControllers(*client_, &metrics_, options_.features, /*clock=*/nullptr,
                                /*one_worker_each=*/false, informers_.get());
      if (!c.ok()) return Named(c.status(), "controllers");
      controllers_ = std::move(c).value();
    }
    if (options_.scheduler) {
      auto s = StartScheduler(*client_, options_.scheduler_config, &metrics_, options_.features,
                              informers_.get());
      if (!s.ok()) return Named(s.status(), "scheduler");
      scheduler_ = std::move(s).value();
    }
  }
  if (options_.sim_devices) {
    devices_ = std::make_unique<drivers::SimulatedDevices>(
        *client_,
        drivers::SimulatedDevicesOptions{.profile = *options_.sim_devices,
                                         .log = Prefixed(options_.log, "simulated devices: ")});
  }
  if (options_.sim_nodes > 0) {
    auto s = StartNodeSimulator(*client_, clock_, options_.sim_nodes, options_.sim_node_template,
                                devices_.get());
    if (!s.ok()) return Named(s.status(), "simulated nodes");
    sim_ = std::move(s).value();
  }
  if (options_.fabric) {
    auto f = drivers::StartFabricDriver(
        *client_, clock_, *options_.fabric,
        {.metrics = &metrics_, .log = Prefixed(options_.log, "fabric: ")});
    if (!f.ok()) return Named(f.status(), "fabric driver");
    fabric_ = std::move(f).value();
    if (devices_) {
      fabric_node_ = std::make_unique<drivers::FabricNodePlugin>(*options_.fabric);
      drivers::RegisterFabricNodePlugin(devices_->kubelet().plugins(), *fabric_node_);
    }
  }
  if (options_.accelerator_pool) {
    accelerator_pool_ =
        std::make_unique<drivers::AcceleratorPool>(*client_, *options_.accelerator_pool);
    if (Status st = accelerator_pool_->Start(); !st.ok()) {
      return Named(st, "accelerator pool driver");
    }
    if (devices_) (void)devices_->kubelet().plugins().Register(accelerator_pool_->node_plugin());
  }
  return Status::Ok();
}

void Cluster::StartElected() {
  client::LeaderElectionConfig le;
  le.identity = options_.identity.empty() ? client::DefaultIdentity() : options_.identity;
  if (options_.controllers) {
    le.lock_name = "allot-controller-manager";
    elected_controllers_ = std::make_unique<ElectedRole>(
        *client_, clock_, le,
        [this]() -> Result<std::function<void()>> {
          ALLOT_ASSIGN_OR_RETURN(std::shared_ptr<Controllers> c,
                                 StartControllers(*client_, &metrics_, options_.features));
          return std::function<void()>([c] { c->Stop(); });
        },
        Prefixed(options_.log, "controllers: "));
  }
  if (options_.scheduler) {
    le.lock_name = "allot-scheduler";
    elected_scheduler_ = std::make_unique<ElectedRole>(
        *client_, clock_, le,
        [this]() -> Result<std::function<void()>> {
          ALLOT_ASSIGN_OR_RETURN(
              std::shared_ptr<scheduler::Scheduler> s,
              StartScheduler(*client_, options_.scheduler_config, &metrics_, options_.features));
          return std::function<void()>([s] { s->Stop(); });
        },
        Prefixed(options_.log, "scheduler: "));
  }
}

uint16_t Cluster::port() const { return server_ ? server_->port() : 0; }

void Cluster::Stop() {
  if (stopped_) return;
  stopped_ = true;
  if (accelerator_pool_) {
    if (devices_) devices_->kubelet().plugins().Unregister(options_.accelerator_pool->driver);
    accelerator_pool_->Stop();
  }
  if (fabric_) fabric_->Stop();
  if (sim_) sim_->Stop();
  if (devices_) devices_->Stop();
  if (elected_scheduler_) elected_scheduler_->Stop();
  if (elected_controllers_) elected_controllers_->Stop();
  if (scheduler_) scheduler_->Stop();
  if (controllers_) controllers_->Stop();
  if (informers_) informers_->StopAll();  // after both components, before they are destroyed
  if (server_) server_->Stop();
  if (event_expiry_) event_expiry_->Stop();
  if (gc_) gc_->Stop();
  if (store_) store_->Close();
}

}  // namespace allot::cluster
