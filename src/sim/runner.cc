#include "sim/runner.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <memory>
#include <random>
#include <set>
#include <tuple>

#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/koordinator/reservation.h"
#include "api/machinery/resources.h"
#include "api/resource/types.h"
#include "api/scheduling/priority_class.h"
#include "client/informer_factory.h"
#include "client/inprocess/inprocess_client.h"
#include "cluster/components.h"
#include "common/log.h"
#include "drivers/acceleratorpool/pool.h"
#include "drivers/fabric/driver.h"
#include "drivers/fabric/node_plugin.h"
#include "drivers/nodelocal/simulated_devices.h"
#include "node/simulator.h"
#include "registry/garbage_collector.h"
#include "scheduler/scheduler.h"
#include "sim/clock.h"
#include "sim/recorder.h"
#include "store/store.h"
#include "workloads/objects.h"

namespace allot::sim {

namespace {

using std::chrono::duration_cast;

// Where simulated time starts: a fixed instant, so object timestamps repeat from run to run.
constexpr int64_t kStartUnixSeconds = 1767225600;  // 2026-01-01T00:00:00Z
constexpr char kNamespace[] = "default";
// How often the scheduler's housekeeping runs (binding-condition timeouts, the unschedulable
// pods' five-minute flush); backoff expiries are deadlines of their own.
constexpr Micros kHousekeepingPeriod = std::chrono::seconds(1);
// How often pods bound to lost nodes are looked for, as the pod garbage collector's period.
constexpr Micros kPodGcPeriod = std::chrono::seconds(20);

std::string PriorityClassName(int32_t value) {
  return "sim-priority-" + std::string(value < 0 ? "minus-" : "") + std::to_string(std::abs(value));
}

// "<n>us": the node simulator's allot.dev/run-duration annotation takes Go durations.
std::string GoMicros(Micros d) { return std::to_string(std::max<int64_t>(d.count(), 0)) + "us"; }

// One pod arriving: when, which workload, which of its pods.
struct ArrivalEvent {
  Micros at;
  size_t workload;
  int64_t index;
  Micros run_time;  // < 0: runs until the end
  bool operator<(const ArrivalEvent& o) const {
    return std::tie(at, workload, index) < std::tie(o.at, o.workload, o.index);
  }
};

// Each workload draws from its own stream, so a variant that adds a workload leaves the others'
// arrivals and run times as they were.
std::vector<ArrivalEvent> PlanArrivals(const Scenario& s) {
  std::vector<ArrivalEvent> out;
  for (size_t w = 0; w < s.workloads.size(); ++w) {
    const Workload& wl = s.workloads[w];
    std::seed_seq seq{s.seed, static_cast<uint64_t>(std::hash<std::string>{}(wl.name))};
    std::mt19937_64 rng(seq);
    Micros t = wl.arrival.start;
    for (int64_t i = 0; i < wl.count; ++i) {
      switch (wl.arrival.kind) {
        case Arrival::Kind::kAt:
          t = wl.arrival.start;
          break;
        case Arrival::Kind::kEvery:
          t = wl.arrival.start + wl.arrival.every * i;
          break;
        case Arrival::Kind::kPoisson:
          t += Micros(static_cast<int64_t>(
              std::exponential_distribution<double>(wl.arrival.per_second)(rng) * 1e6));
          break;
      }
      if (t > s.duration) break;
      Micros run = wl.run_time ? wl.run_time->Sample(rng) : Micros(-1);
      out.push_back({t, w, i, run});
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<api::Node> NodeTemplate(const NodePool& pool) {
  YAML::Emitter y;
  y << YAML::BeginMap << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "labels" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "sim.allot.dev/pool" << YAML::Value << pool.name;
  for (const auto& [k, v] : pool.labels) y << YAML::Key << k << YAML::Value << v;
  y << YAML::EndMap << YAML::EndMap;
  if (!pool.taints_yaml.empty()) {
    y << YAML::Key << "spec" << YAML::Value << YAML::BeginMap << YAML::Key << "taints"
      << YAML::Value << YAML::Load(pool.taints_yaml) << YAML::EndMap;
  }
  // What the pool leaves out is the built-in template's (cpu 32, memory 256Gi, pods 110).
  std::map<std::string, std::string> capacity = {
      {"cpu", "32"}, {"memory", "256Gi"}, {"pods", "110"}};
  for (const auto& [k, v] : pool.capacity) capacity[k] = v;
  y << YAML::Key << "status" << YAML::Value << YAML::BeginMap << YAML::Key << "capacity"
    << YAML::Value << YAML::BeginMap;
  for (const auto& [k, v] : capacity) y << YAML::Key << k << YAML::Value << v;
  y << YAML::EndMap << YAML::EndMap;
  y << YAML::EndMap;
  auto parsed = node::ParseNodeTemplate(y.c_str());
  if (!parsed.ok()) {
    return Status(parsed.status().code(),
                  "nodePools " + pool.name + ": " + parsed.status().message());
  }
  return parsed;
}

DeviceLayout Layout(const Scenario& s) {
  DeviceLayout layout;
  std::map<std::string, int64_t> by_driver;
  for (const NodePool& pool : s.node_pools) {
    for (int64_t i = 0; i < pool.count; ++i) {
      DeviceLayout::Row row;
      row.name = pool.name + "-" + std::to_string(i);
      if (pool.devices) {
        row.driver = pool.devices->driver;
        row.pool = row.name;
        for (int64_t d = 0; d < pool.devices->count; ++d) {
          row.devices.push_back(drivers::DeviceName(*pool.devices, d));
        }
        by_driver[row.driver] += pool.devices->count;
      }
      layout.rows.push_back(std::move(row));
    }
  }
  if (s.fabric) {
    for (const drivers::FabricPoolConfig& p : s.fabric->pools) {
      DeviceLayout::Row row;
      row.name = "fabric/" + p.model;
      row.driver = s.fabric->driver;
      row.pool = "fabric-" + p.model;
      for (int64_t d = 0; d < p.count; ++d)
        row.devices.push_back(p.model + "-" + std::to_string(d));
      by_driver[row.driver] += p.count;
      layout.rows.push_back(std::move(row));
    }
  }
  if (s.controller) {
    for (const auto& [rack, count] : s.controller->racks) {
      DeviceLayout::Row row;
      row.name = "rack/" + rack;
      row.driver = s.controller->driver;
      row.pool = rack;  // the driver's allocation results: pool = rack, device acc-<slot>
      for (int64_t d = 0; d < count; ++d) row.devices.push_back("acc-" + std::to_string(d));
      by_driver[row.driver] += count;
      layout.rows.push_back(std::move(row));
    }
  }
  for (const DeviceClassSpec& c : s.device_classes) {
    layout.class_devices[c.name] = by_driver[c.driver];
    layout.class_driver[c.name] = c.driver;
  }
  return layout;
}

// The cluster of one run, started in dependency order and stopped in reverse.
class Assembly {
 public:
  explicit Assembly(const Scenario& s)
      : scenario_(s), clock_(Time::FromUnixSeconds(kStartUnixSeconds)) {}
  ~Assembly() { Stop(); }

  SimClock& clock() { return clock_; }
  client::Client& client() { return *client_; }
  scheduler::Scheduler& scheduler() { return *scheduler_; }
  Recorder& recorder() { return *recorder_; }

  Status Start();
  void Stop();

  // Faults (sim/scenario.h). Node loss is what the node lifecycle controller and the pod
  // garbage collector make of a machine that vanished: the Node objects are deleted (their
  // ResourceSlices go with them, owned by the Node) and so are the pods bound to them, at
  // once. A workload pod that had not finished is replaced by a new one that starts over, as
  // a Job's controller would replace it. The lost nodes never come back: the simulator's
  // heartbeats, which would re-register them, are set beyond the run's end.
  Status LoseNodes(const Fault& f);
  // What the pod garbage collector does every 20 s: pods bound to a lost node since (a pod
  // whose binding was already under way when its node went) are deleted and replaced too.
  Status ReapPodsOfLostNodes();
  // An outage stops everything of the driver: the fabric's controller (no attaches or
  // detaches; pods wait in PreBind until the binding timeout) and the kubelet plugins of that
  // name (bound pods cannot start). Restoring starts a new controller, which rebuilds its
  // state from the claims, and registers the plugins again.
  Status StopDriver(const std::string& driver);
  Status RestoreDriver(const std::string& driver);

 private:
  Status StartNodes();
  Status StartFabric();
  Status StartController();
  // The spec of a claim template for `c`: handed to the control-plane driver's controller
  // (spec.controllerName) when the class is of its driver.
  api::ResourceClaimSpec TemplateSpec(const ClaimRequest& c) const;
  Status CreateObjects();

  const Scenario& scenario_;
  SimClock clock_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<registry::GarbageCollector> gc_;
  std::unique_ptr<client::InProcessClient> client_;
  std::unique_ptr<client::InformerFactory> observed_;
  std::unique_ptr<Recorder> recorder_;
  std::unique_ptr<cluster::Controllers> controllers_;
  std::unique_ptr<scheduler::Scheduler> scheduler_;
  // The kubelet side of the fabric; before devices_, whose kubelets call it.
  std::unique_ptr<drivers::FabricNodePlugin> fabric_node_;
  // The control-plane driver (its controller and kubelet plugin); before devices_ too.
  std::unique_ptr<drivers::AcceleratorPool> controller_;
  std::vector<std::unique_ptr<node::NodeSimulator>> nodes_;
  std::vector<std::unique_ptr<drivers::SimulatedDevices>> devices_;
  std::unique_ptr<drivers::FabricDriver> fabric_;
  int64_t replacements_ = 0;          // pods replaced after a node loss, for their names
  std::set<std::string> lost_nodes_;  // every node lost so far
  bool stopped_ = false;
};

Status Named(Status st, std::string_view what) {
  if (st.ok()) return st;
  return Status(st.code(), std::string(what) + ": " + st.message());
}

Status Assembly::Start() {
  store::StoreOptions store_opts = cluster::DefaultStoreOptions();
  store_opts.seed = scenario_.seed;
  store_ = std::make_unique<store::Store>(store::NewMemoryBackend(), clock_, store_opts);
  ALLOT_RETURN_IF_ERROR(Named(store_->Open(), "store"));
  gc_ = std::make_unique<registry::GarbageCollector>(*store_);
  ALLOT_RETURN_IF_ERROR(Named(gc_->Start(), "garbage collector"));
  client_ = std::make_unique<client::InProcessClient>(*store_, clock_);
  ALLOT_RETURN_IF_ERROR(CreateObjects());

  observed_ = std::make_unique<client::InformerFactory>(*client_);
  recorder_ = std::make_unique<Recorder>(clock_, *observed_, Layout(scenario_));
  ALLOT_RETURN_IF_ERROR(Named(observed_->StartAll(), "recorder"));

  ALLOT_ASSIGN_OR_RETURN(controllers_,
                         cluster::StartControllers(*client_, nullptr, dra::Features{}, &clock_,
                                                   /*one_worker_each=*/true));
  scheduler::SchedulerOptions sched;
  if (!scenario_.scheduler_config_yaml.empty()) {
    auto cfg = scheduler::ParseConfiguration(scenario_.scheduler_config_yaml);
    if (!cfg.ok()) return Named(cfg.status(), "schedulerConfig");
    sched.config = std::move(cfg).value();
  }
  // One filter worker: which feasible nodes are found first must not depend on thread timing.
  sched.config.parallelism = 1;
  sched.clock = &clock_;
  sched.seed = scenario_.seed;
  sched.binding_workers = 1;
  sched.run_loops = false;
  ALLOT_ASSIGN_OR_RETURN(scheduler_, scheduler::Scheduler::Create(*client_, std::move(sched)));
  ALLOT_RETURN_IF_ERROR(Named(scheduler_->Start(), "scheduler"));

  if (scenario_.fabric)
    fabric_node_ = std::make_unique<drivers::FabricNodePlugin>(*scenario_.fabric);
  ALLOT_RETURN_IF_ERROR(StartNodes());
  if (scenario_.fabric) ALLOT_RETURN_IF_ERROR(StartFabric());
  if (scenario_.controller) ALLOT_RETURN_IF_ERROR(StartController());
  return Status::Ok();
}

Status Assembly::StartController() {
  drivers::AcceleratorPoolConfig config = *scenario_.controller;
  config.seed = scenario_.seed;
  config.workers = 1;  // claims and contexts in one order, run after run
  controller_ = std::make_unique<drivers::AcceleratorPool>(
      *client_, std::move(config),
      drivers::AcceleratorPoolOptions{.clock = &clock_, .resync = std::chrono::hours(24 * 365)});
  ALLOT_RETURN_IF_ERROR(Named(controller_->Start(), "controller"));
  for (auto& d : devices_) {
    ALLOT_RETURN_IF_ERROR(
        Named(d->kubelet().plugins().Register(controller_->node_plugin()), "controller"));
  }
  return Status::Ok();
}

api::ResourceClaimSpec Assembly::TemplateSpec(const ClaimRequest& c) const {
  api::ResourceClaimSpec spec = workloads::ClaimSpec(c.device_class, c.count, c.selector);
  for (const DeviceClassSpec& dc : scenario_.device_classes) {
    if (dc.name == c.device_class && scenario_.controller &&
        dc.driver == scenario_.controller->driver) {
      spec.controllerName = dc.driver;
    }
  }
  return spec;
}

Status Assembly::StartFabric() {
  drivers::FabricConfig config = *scenario_.fabric;
  config.seed = scenario_.seed;
  drivers::FabricDriverOptions fo;
  fo.max_idle = std::chrono::hours(24 * 365);
  fo.log = [this](std::string_view line) {
    if (log::V(4, "sim")) {
      log::Detail(4, "sim",
                  "t=" + std::to_string(clock_.Now().unix_micros / 1e6 - kStartUnixSeconds) +
                      " fabric: " + std::string(line));
    }
  };
  auto fabric = drivers::StartFabricDriver(*client_, clock_, std::move(config), fo);
  if (!fabric.ok()) return Named(fabric.status(), "fabric driver");
  fabric_ = std::move(fabric).value();
  return Status::Ok();
}

Status Assembly::LoseNodes(const Fault& f) {
  const NodePool* pool = nullptr;
  for (const NodePool& p : scenario_.node_pools) {
    if (p.name == f.pool) pool = &p;
  }
  if (!pool) return Status(StatusCode::kBadRequest, "no node pool " + f.pool);
  // The highest-numbered nodes of the pool that are still there.
  int64_t taken = 0;
  for (int64_t i = pool->count - 1; i >= 0 && taken < f.count; --i) {
    const std::string name = pool->name + "-" + std::to_string(i);
    if (!lost_nodes_.insert(name).second) continue;
    ++taken;
    auto deleted = client_->Delete(api::ResourceFor<api::Node>(), "", name);
    if (!deleted.ok() && deleted.status().code() != StatusCode::kNotFound) {
      return Status(deleted.status().code(),
                    "deleting node " + name + ": " + deleted.status().message());
    }
  }
  return ReapPodsOfLostNodes();
}

Status Assembly::ReapPodsOfLostNodes() {
  if (lost_nodes_.empty()) return Status::Ok();
  const api::ResourceInfo& pods = api::ResourceFor<api::Pod>();
  api::ListOptions all;
  all.namespace_ = kNamespace;
  ALLOT_ASSIGN_OR_RETURN(api::ListResult listed, client_->List(pods, all));
  for (const api::ObjectPtr& obj : listed.items) {
    const api::Pod& pod = *api::As<api::Pod>(*obj);
    if (!lost_nodes_.contains(pod.spec.nodeName)) continue;
    api::DeleteOptions now;
    now.grace_period_seconds = 0;
    auto deleted = client_->Delete(pods, kNamespace, pod.metadata.name, now);
    if (!deleted.ok() && deleted.status().code() != StatusCode::kNotFound) {
      return Status(deleted.status().code(), "deleting pod " + pod.metadata.name +
                                                 " of a lost node: " + deleted.status().message());
    }
    const bool finished = pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
    if (finished || !pod.metadata.labels.contains(kWorkloadLabel)) continue;
    auto replacement = std::make_unique<api::Pod>();
    replacement->metadata.name = pod.metadata.name + "-r" + std::to_string(++replacements_);
    replacement->metadata.namespace_ = kNamespace;
    replacement->metadata.labels = pod.metadata.labels;
    replacement->metadata.annotations = pod.metadata.annotations;
    replacement->spec = pod.spec;
    replacement->spec.nodeName.clear();
    auto created = client_->Create(pods, std::move(replacement));
    if (!created.ok()) {
      return Status(created.status().code(),
                    "replacing pod " + pod.metadata.name + ": " + created.status().message());
    }
  }
  return Status::Ok();
}

Status Assembly::StopDriver(const std::string& driver) {
  for (auto& d : devices_) d->kubelet().plugins().Unregister(driver);
  if (fabric_ && fabric_->config().driver == driver) {
    fabric_->Stop();
    fabric_.reset();
  }
  if (controller_ && scenario_.controller->driver == driver) {
    controller_->Stop();
    controller_.reset();
  }
  return Status::Ok();
}

Status Assembly::RestoreDriver(const std::string& driver) {
  for (auto& d : devices_) {
    if (d->driver().driver_name() == driver) {
      ALLOT_RETURN_IF_ERROR(d->kubelet().plugins().Register(d->driver()));
    }
  }
  if (scenario_.fabric && scenario_.fabric->driver == driver) {
    if (!fabric_) ALLOT_RETURN_IF_ERROR(StartFabric());
    for (auto& d : devices_)
      drivers::RegisterFabricNodePlugin(d->kubelet().plugins(), *fabric_node_);
  }
  if (scenario_.controller && scenario_.controller->driver == driver && !controller_) {
    ALLOT_RETURN_IF_ERROR(StartController());
  }
  return Status::Ok();
}

Status Assembly::StartNodes() {
  for (const NodePool& pool : scenario_.node_pools) {
    node::NodeSimulatorOptions opts;
    opts.name_prefix = pool.name;
    opts.node_count = pool.count;
    ALLOT_ASSIGN_OR_RETURN(opts.shape.node_template, NodeTemplate(pool));
    // Nothing watches heartbeats here: keep them out of the timeline.
    const auto quiet =
        duration_cast<std::chrono::seconds>(scenario_.duration) + std::chrono::hours(1);
    opts.lease_renew_interval = quiet;
    opts.node_status_interval = quiet;
    opts.lease_duration_seconds = static_cast<int32_t>(std::min<int64_t>(quiet.count(), 1 << 30));
    opts.max_idle = std::chrono::hours(24 * 365);
    auto sim = std::make_unique<node::NodeSimulator>(*client_, clock_, std::move(opts));
    std::unique_ptr<drivers::SimulatedDevices> devices;
    if (pool.devices) {
      drivers::SimulatedDevicesOptions dopts;
      dopts.profile = *pool.devices;
      dopts.resync_period = std::chrono::milliseconds(0);
      devices = std::make_unique<drivers::SimulatedDevices>(*client_, std::move(dopts));
      devices->Install(*sim);
      if (fabric_node_)
        drivers::RegisterFabricNodePlugin(devices->kubelet().plugins(), *fabric_node_);
    }
    ALLOT_RETURN_IF_ERROR(Named(sim->Run(), "nodePools " + pool.name));
    if (devices)
      ALLOT_RETURN_IF_ERROR(Named(devices->Start(*sim), "nodePools " + pool.name + " devices"));
    nodes_.push_back(std::move(sim));
    if (devices) devices_.push_back(std::move(devices));
  }
  return Status::Ok();
}

Status Assembly::CreateObjects() {
  auto create = [&](const api::ResourceInfo& r, std::unique_ptr<api::Object> obj,
                    const std::string& what) -> Status {
    auto created = client_->Create(r, std::move(obj));
    if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
      return Status(created.status().code(), what + ": " + created.status().message());
    }
    return Status::Ok();
  };
  for (const DeviceClassSpec& c : scenario_.device_classes) {
    auto dc = workloads::MakeDriverClass(c.name, c.driver);
    if (!c.selector.empty()) {
      api::DeviceSelector sel;
      sel.cel = api::CELDeviceSelector{c.selector};
      dc->spec.selectors.push_back(std::move(sel));
    }
    ALLOT_RETURN_IF_ERROR(
        create(api::ResourceFor<api::DeviceClass>(), std::move(dc), "deviceClasses " + c.name));
  }
  std::set<int32_t> priorities;
  for (const Workload& w : scenario_.workloads) {
    if (w.priority) priorities.insert(*w.priority);
    for (size_t i = 0; i < w.claims.size(); ++i) {
      const ClaimRequest& c = w.claims[i];
      auto t = workloads::MakeClaimTemplate(kNamespace, w.name + "-" + std::to_string(i),
                                            TemplateSpec(c));
      ALLOT_RETURN_IF_ERROR(create(api::ResourceFor<api::ResourceClaimTemplate>(), std::move(t),
                                   "workloads " + w.name + " claims[" + std::to_string(i) + "]"));
    }
  }
  for (const ReservationSpec& r : scenario_.reservations) {
    for (size_t i = 0; i < r.claims.size(); ++i) {
      const ClaimRequest& c = r.claims[i];
      auto t = workloads::MakeClaimTemplate(
          kNamespace, "reservation-" + r.name + "-" + std::to_string(i), TemplateSpec(c));
      ALLOT_RETURN_IF_ERROR(
          create(api::ResourceFor<api::ResourceClaimTemplate>(), std::move(t),
                 "reservations " + r.name + " claims[" + std::to_string(i) + "]"));
    }
  }
  for (int32_t p : priorities) {
    auto pc = std::make_unique<api::PriorityClass>();
    pc->metadata.name = PriorityClassName(p);
    pc->value = p;
    ALLOT_RETURN_IF_ERROR(create(api::ResourceFor<api::PriorityClass>(), std::move(pc),
                                 "priority class " + PriorityClassName(p)));
  }
  return Status::Ok();
}

void Assembly::Stop() {
  if (stopped_) return;
  stopped_ = true;
  if (fabric_) fabric_->Stop();
  if (controller_) controller_->Stop();
  for (auto& d : devices_) d->Stop();
  for (auto& n : nodes_) n->Stop();
  if (scheduler_) scheduler_->Stop(std::chrono::milliseconds(0));
  if (controllers_) controllers_->Stop();
  if (observed_) observed_->StopAll();
  if (gc_) gc_->Stop();
  if (store_) store_->Close();
}

std::unique_ptr<api::Pod> MakeWorkloadPod(const Workload& w, int64_t index, Micros run_time) {
  auto cpu = w.requests.count("cpu") ? w.requests.at("cpu") : "100m";
  auto memory = w.requests.count("memory") ? w.requests.at("memory") : "500Mi";
  auto pod = workloads::MakePod(kNamespace, w.name + "-" + std::to_string(index), cpu, memory);
  pod->metadata.labels = api::StringMap(w.labels.begin(), w.labels.end());
  pod->metadata.labels[kWorkloadLabel] = w.name;
  if (run_time >= Micros(0))
    pod->metadata.annotations["allot.dev/run-duration"] = GoMicros(run_time);
  for (const auto& [k, v] : w.node_selector) pod->spec.nodeSelector[k] = v;
  if (w.priority) pod->spec.priorityClassName = PriorityClassName(*w.priority);
  for (size_t i = 0; i < w.claims.size(); ++i) {
    workloads::AddTemplateClaim(*pod, "claim-" + std::to_string(i),
                                w.name + "-" + std::to_string(i));
  }
  return pod;
}

std::unique_ptr<api::Reservation> MakeReservation(const ReservationSpec& r) {
  auto cpu = r.requests.count("cpu") ? r.requests.at("cpu") : "100m";
  auto memory = r.requests.count("memory") ? r.requests.at("memory") : "500Mi";
  auto pod = workloads::MakePod(kNamespace, r.name, cpu, memory);
  for (size_t i = 0; i < r.claims.size(); ++i) {
    workloads::AddTemplateClaim(*pod, "claim-" + std::to_string(i),
                                "reservation-" + r.name + "-" + std::to_string(i));
  }
  auto res = std::make_unique<api::Reservation>();
  res->metadata.name = r.name;
  api::ReservationPodTemplate tmpl;
  tmpl.metadata.namespace_ = kNamespace;
  tmpl.spec = std::move(pod->spec);
  res->spec.template_ = std::move(tmpl);
  api::ReservationOwner owner;
  api::LabelSelector selector;
  selector.matchLabels = api::StringMap(r.owners.begin(), r.owners.end());
  owner.labelSelector = std::move(selector);
  res->spec.owners.push_back(std::move(owner));
  if (r.ttl) res->spec.ttl = api::Duration{r.ttl->count() * 1000}.ToString();
  res->spec.allocateOnce = r.allocate_once;
  return res;
}

double Seconds(Micros d) { return static_cast<double>(d.count()) / 1e6; }

// What a scenario schedules, in time order: pod arrivals, reservations (indexes into
// s.reservations), heatmap times (the end when none is asked for), and faults as events — a
// start for each, and an end for outages; at one instant an outage's end comes before another's
// start (the parser refuses overlapping outages of one driver).
struct FaultEvent {
  Micros at;
  bool end;
  const Fault* fault;
};
struct Timeline {
  std::vector<ArrivalEvent> arrivals;
  std::vector<size_t> reservations;
  std::vector<Micros> heatmaps;
  std::vector<FaultEvent> faults;

  static Timeline Of(const Scenario& s) {
    Timeline t;
    t.arrivals = PlanArrivals(s);
    t.reservations.resize(s.reservations.size());
    for (size_t i = 0; i < t.reservations.size(); ++i) t.reservations[i] = i;
    std::stable_sort(t.reservations.begin(), t.reservations.end(), [&](size_t a, size_t b) {
      return s.reservations[a].at < s.reservations[b].at;
    });
    t.heatmaps = s.heatmap_at;
    if (t.heatmaps.empty()) t.heatmaps.push_back(s.duration);
    std::sort(t.heatmaps.begin(), t.heatmaps.end());
    for (const Fault& f : s.faults) {
      t.faults.push_back({f.at, false, &f});
      if (f.kind == Fault::Kind::kDriverOutage) t.faults.push_back({f.at + f.lasts, true, &f});
    }
    std::stable_sort(t.faults.begin(), t.faults.end(),
                     [](const FaultEvent& a, const FaultEvent& b) {
                       return a.at != b.at ? a.at < b.at : a.end && !b.end;
                     });
    return t;
  }
};

// Creates the pods of every arrival due by `now`, from `next` on; returns the next one left.
Result<size_t> CreateArrivals(Assembly& cluster, const Scenario& s,
                              const std::vector<ArrivalEvent>& arrivals, size_t next, Micros now) {
  for (; next < arrivals.size() && arrivals[next].at <= now; ++next) {
    const ArrivalEvent& a = arrivals[next];
    auto created =
        cluster.client().Create(api::ResourceFor<api::Pod>(),
                                MakeWorkloadPod(s.workloads[a.workload], a.index, a.run_time));
    if (!created.ok()) {
      return Status(created.status().code(), "workloads " + s.workloads[a.workload].name + ": " +
                                                 created.status().message());
    }
  }
  return next;
}

}  // namespace

Result<VariantResult> RunScenario(const Scenario& s, const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  auto log = [&](const std::string& line) {
    if (options.log) options.log(line);
  };
  Assembly cluster(s);
  ALLOT_RETURN_IF_ERROR(cluster.Start());
  SimClock& clock = cluster.clock();
  scheduler::Scheduler& sched = cluster.scheduler();
  const Clock::SteadyPoint t0 = clock.Steady();
  auto at = [&](Micros d) { return t0 + d; };
  auto since = [&](Clock::SteadyPoint t) { return duration_cast<Micros>(t - t0); };

  const Timeline plan = Timeline::Of(s);
  const std::vector<ArrivalEvent>& arrivals = plan.arrivals;
  const std::vector<size_t>& reservations = plan.reservations;
  const std::vector<Micros>& heatmaps = plan.heatmaps;
  const std::vector<FaultEvent>& faults = plan.faults;

  VariantResult result;
  result.name = s.variant;
  size_t next_arrival = 0, next_reservation = 0, next_heatmap = 0, next_fault = 0;
  constexpr Micros kNever = Micros::max();
  Micros next_sample{0}, next_housekeeping{0}, next_progress = s.duration / 10;
  Micros next_reap = kNever;  // the pod garbage collector's pass, once a node is lost

  for (;;) {
    if (!clock.WaitQuiet(options.stall_timeout)) {
      return Status(StatusCode::kInternalError, "the simulation stalled at " +
                                                    std::to_string(Seconds(since(clock.Steady()))) +
                                                    " s: " + std::to_string(clock.InFlight()) +
                                                    " pieces of work never finished");
    }
    if (log::V(4, "sim")) {
      log::Detail(4, "sim", "t=" + std::to_string(Seconds(since(clock.Steady()))) + " quiet");
    }
    if (sched.ScheduleOne(std::chrono::milliseconds(0))) continue;
    if (clock.FireNextDue()) continue;
    const Micros now = since(clock.Steady());
    if (next_arrival < arrivals.size() && arrivals[next_arrival].at <= now) {
      ALLOT_ASSIGN_OR_RETURN(next_arrival, CreateArrivals(cluster, s, arrivals, next_arrival, now));
      continue;
    }
    if (next_reservation < reservations.size() &&
        s.reservations[reservations[next_reservation]].at <= now) {
      const ReservationSpec& r = s.reservations[reservations[next_reservation++]];
      auto created =
          cluster.client().Create(api::ResourceFor<api::Reservation>(), MakeReservation(r));
      if (!created.ok()) {
        return Status(created.status().code(),
                      "reservations " + r.name + ": " + created.status().message());
      }
      continue;
    }
    if (next_fault < faults.size() && faults[next_fault].at <= now) {
      const FaultEvent& e = faults[next_fault++];
      const Fault& f = *e.fault;
      Status st = f.kind == Fault::Kind::kNodeLoss ? cluster.LoseNodes(f)
                  : e.end                          ? cluster.RestoreDriver(f.driver)
                                                   : cluster.StopDriver(f.driver);
      if (!st.ok()) return Named(st, "faults " + f.name);
      if (f.kind == Fault::Kind::kNodeLoss) next_reap = now + kPodGcPeriod;
      continue;
    }
    if (next_reap <= now) {
      ALLOT_RETURN_IF_ERROR(Named(cluster.ReapPodsOfLostNodes(), "faults"));
      next_reap = now + kPodGcPeriod;
      continue;
    }
    if (next_housekeeping <= now) {
      sched.Housekeeping();
      next_housekeeping = now + kHousekeepingPeriod;
      continue;
    }
    if (next_sample <= now && next_sample <= s.duration) {
      result.samples.push_back(cluster.recorder().TakeSample(Seconds(next_sample)));
      next_sample += s.sample_interval;
      if (next_sample > s.duration && result.samples.back().t < Seconds(s.duration)) {
        next_sample = s.duration;
      }
      continue;
    }
    if (next_heatmap < heatmaps.size() && heatmaps[next_heatmap] <= now) {
      result.heatmaps.push_back(cluster.recorder().TakeHeatmap(Seconds(heatmaps[next_heatmap++])));
      continue;
    }
    if (now >= next_progress && options.log) {
      log((s.variant.empty() ? "" : s.variant + ": ") + "simulated " +
          std::to_string(static_cast<int64_t>(Seconds(now))) + " s of " +
          std::to_string(static_cast<int64_t>(Seconds(s.duration))) + " s");
      next_progress += s.duration / 10;
    }
    if (now >= s.duration) break;

    // Nothing to do now: jump to the earliest thing due.
    Micros next = s.duration;
    auto consider = [&](Micros t) { next = std::min(next, t); };
    if (auto d = clock.NextDeadline()) consider(since(*d));
    if (auto b = sched.NextBackoffExpiry()) consider(since(*b));
    if (next_arrival < arrivals.size()) consider(arrivals[next_arrival].at);
    if (next_reservation < reservations.size()) {
      consider(s.reservations[reservations[next_reservation]].at);
    }
    if (next_fault < faults.size()) consider(faults[next_fault].at);
    consider(next_reap);
    consider(next_sample <= s.duration ? next_sample : kNever);
    consider(next_heatmap < heatmaps.size() ? heatmaps[next_heatmap] : kNever);
    consider(next_housekeeping);
    clock.AdvanceTo(at(std::max(next, now + Micros(1))));
  }
  cluster.recorder().Finish(Seconds(s.duration), result);
  result.summary.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  cluster.Stop();
  return result;
}

}  // namespace allot::sim
