// `allot bench WORKLOAD [--mode inprocess|http|https] [--store sqlite|memory|etcd]
//  [--etcd-members 1|3] [--out FILE.json]`
//
// scheduler_perf-shaped workloads. Nodes have 4 CPU, 32 GiB, 110 pods; pods ask 100m CPU and
// 500 MiB. Measured from the first measured pod created to the last one bound; latency per pod:
// creation request -> binding seen in a watch.
//   SchedulingBasic/<N>Nodes_<M>Pods                 M pods at once, no devices.
//   SchedulingWithResourceClaimTemplate/<P>pods_<N>nodes
//       N nodes with P/N devices each (one ResourceSlice per node, driver bench.example.com);
//       every pod gets a claim from a template (1 device, a CEL selector on capacity). P/2 pods
//       fill the cluster first, the other P/2 are measured.
//   SchedulingWithResourceClaim/<P>pods_<N>nodes
//       10 devices per node; P/5 claims created up front, each shared by 5 pods. P/2 + P/2.
//   SteadyStateClusterResourceClaimTemplate/{empty,half,full}_<N>nodes
//       10 devices per node filled to 0 %, 50 %, or all but 10 devices; then N*5 pods are
//       measured with at most 10 alive: each is deleted once bound and the next created, so in
//       "full" every pod needs the devices a deleted pod's claim releases (resourceclaim
//       controller -> claim deleted -> scheduler requeue).
//   SchedulingWithControlPlaneController/<P>pods_<N>nodes
//       KEP-3063: every pod gets one claim of the example control-plane driver
//       (controller.example.com, drivers/acceleratorpool/), run in-process (inprocess) or as `allot
//       driver controller` (http), answering at once; each node has P/N accelerators only the
//       driver knows about. The scheduler negotiates each pod's node through its
//       PodSchedulingContext. P/2 + P/2.
//   SchedulingWithMixedClaims/<P>pods_<N>nodes
//       as the template workload plus, per pod, one claim of the control-plane driver.
//   SchedulingInfeasibleClaim/<P>pods_<N>nodes
//       like the template workload, plus 100 pods whose claim asks one device more than a node
//       has (with matchAttribute on the model), created before the measured pods; they stay
//       pending and must not slow the others down.
//
//   ReservationScheduling/<R>reservations_<P>pods_<N>nodes[_nonowners]
//       R Koordinator Reservations (100m CPU, 500 MiB each, spread by the scheduler) are created
//       and placed first; then P pods are measured. Pod i owns reservation i (labelSelector
//       bench-reservation=r-<i>; allocateOnce, so the controller marks each Succeeded once
//       used); with _nonowners the pods own none (bench-reservation=none), which measures what
//       R reservations cost everyone else. Compare with SchedulingBasic/<N>Nodes_<P>Pods.
//
//   PreemptionBasic/<N>nodes
//       N nodes filled with 4N pods of priority 0 asking 900m CPU (4 per node, 3.6 of the 4
//       CPU); then 2N pods of PriorityClass bench-high (1000) asking the same are measured: each
//       fits nowhere, preempts one victim (deleted with grace period 0: no kubelet runs), is
//       nominated, and binds once the victim is gone. Throughput is preemptors bound per second.
//   PreemptionDRA/<N>nodes
//       the same with devices: 4 per node, every pod asks 100m CPU and one device through a claim
//       template, so the devices are what is short; a preemptor binds once the resourceclaim
//       controller released its victim's claim.
//
//   --rate R: the measured pods are created at R pods/s (an open loop, as an offered load)
//   instead of all at once; the latency percentiles then say how long a pod waits at that load.
//   The throughput is bounded by R.
//
//   inprocess: store + scheduler + resourceclaim controller + this client in one process.
//   http:      `allot serve --no-scheduler` (API server, controllers) and `allot scheduler
//              --server URL` as child processes; this process creates objects and watches over
//              HTTP.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "api/core/types.h"
#include "api/koordinator/reservation.h"
#include "api/machinery/resources.h"
#include "api/resource/types.h"
#include "api/scheduling/priority_class.h"
#include "cli/bench_support.h"
#include "cli/controllers.h"
#include "cli/roles.h"
#include "client/http_client.h"
#include "client/inprocess/inprocess_client.h"
#include "common/files.h"
#include "common/flags.h"
#include "store/store.h"
#include "workloads/objects.h"

namespace allot::cli {

namespace {

using bench::BenchClaimSpec;
using bench::BenchClass;
using bench::BenchNode;
using bench::BenchTemplate;
using bench::IndexOf;
using bench::kBenchDriver;
using bench::Percentile;

using Steady = std::chrono::steady_clock;

enum class ClaimKind { kNone, kTemplate, kShared, kController, kMixed };

constexpr char kControllerDriver[] = "controller.example.com";

struct Workload {
  std::string name;
  int64_t nodes = 0;
  int64_t pods = 0;  // measured
  int64_t init_pods = 0;
  int64_t devices_per_node = 0;
  ClaimKind claims = ClaimKind::kNone;
  int64_t pods_per_claim = 1;
  int64_t steady_window = 0;  // > 0: measured pods are deleted once bound, this many alive
  int64_t infeasible = 0;
  int64_t reservations = 0;
  bool owners = true;       // measured pods own the reservations
  bool preemption = false;  // measured pods have a higher priority than the fill pods
};

// The fill pods' size in the preemption workloads without devices: 4 fit a 4-CPU node.
constexpr char kPreemptionCpu[] = "900m";
constexpr char kHighPriorityClass[] = "bench-high";

Result<Workload> ParseWorkload(const std::string& name) {
  std::smatch m;
  static const std::regex kBasic(R"(SchedulingBasic/(\d+)Nodes_(\d+)Pods)");
  static const std::regex kDra(
      R"((SchedulingWithResourceClaimTemplate|SchedulingWithResourceClaim|SchedulingInfeasibleClaim|SchedulingWithControlPlaneController|SchedulingWithMixedClaims)/(\d+)pods_(\d+)nodes)");
  static const std::regex kReservation(
      R"(ReservationScheduling/(\d+)reservations_(\d+)pods_(\d+)nodes(_nonowners)?)");
  static const std::regex kPreemption(R"((PreemptionBasic|PreemptionDRA)/(\d+)nodes)");
  static const std::regex kSteady(
      R"(SteadyStateClusterResourceClaimTemplate/(empty|half|full)_(\d+)nodes)");
  Workload w;
  w.name = name;
  if (std::regex_match(name, m, kBasic)) {
    w.nodes = std::stoll(m[1]);
    w.pods = std::stoll(m[2]);
  } else if (std::regex_match(name, m, kDra)) {
    int64_t pods = std::stoll(m[2]);
    w.nodes = std::stoll(m[3]);
    if (w.nodes <= 0 || pods <= 0) return BadRequestError("nodes and pods must be positive");
    w.init_pods = pods / 2;
    w.pods = pods - w.init_pods;
    w.claims = ClaimKind::kTemplate;
    w.devices_per_node = std::max<int64_t>(1, (pods + w.nodes - 1) / w.nodes);
    if (m[1] == "SchedulingWithResourceClaim") {
      w.claims = ClaimKind::kShared;
      w.pods_per_claim = 5;
      w.devices_per_node = 10;
    } else if (m[1] == "SchedulingInfeasibleClaim") {
      w.infeasible = 100;
    } else if (m[1] == "SchedulingWithControlPlaneController") {
      w.claims = ClaimKind::kController;
    } else if (m[1] == "SchedulingWithMixedClaims") {
      w.claims = ClaimKind::kMixed;
    }
  } else if (std::regex_match(name, m, kReservation)) {
    w.reservations = std::stoll(m[1]);
    w.pods = std::stoll(m[2]);
    w.nodes = std::stoll(m[3]);
    w.owners = !m[4].matched;
  } else if (std::regex_match(name, m, kPreemption)) {
    w.nodes = std::stoll(m[2]);
    w.preemption = true;
    w.init_pods = 4 * w.nodes;
    w.pods = 2 * w.nodes;
    if (m[1] == "PreemptionDRA") {
      w.claims = ClaimKind::kTemplate;
      w.devices_per_node = 4;
    }
  } else if (std::regex_match(name, m, kSteady)) {
    w.nodes = std::stoll(m[2]);
    w.devices_per_node = 10;
    w.claims = ClaimKind::kTemplate;
    w.steady_window = 10;
    w.pods = w.nodes * 5;
    int64_t total = w.nodes * w.devices_per_node;
    w.init_pods = m[1] == "empty" ? 0 : m[1] == "half" ? total / 2 : total - w.steady_window;
  } else {
    return BadRequestError(
        "unknown workload \"" + name +
        "\": want SchedulingBasic/<N>Nodes_<M>Pods, SchedulingWithResourceClaimTemplate/"
        "<P>pods_<N>nodes, SchedulingWithResourceClaim/<P>pods_<N>nodes, "
        "SchedulingWithControlPlaneController/<P>pods_<N>nodes, "
        "SchedulingWithMixedClaims/<P>pods_<N>nodes, "
        "SteadyStateClusterResourceClaimTemplate/{empty,half,full}_<N>nodes, "
        "ReservationScheduling/<R>reservations_<P>pods_<N>nodes[_nonowners], "
        "PreemptionBasic/<N>nodes, PreemptionDRA/<N>nodes, "
        "SchedulingInfeasibleClaim/<P>pods_<N>nodes, BindingConditions/{reaction,1000waiting} "
        "or Simulator/<examples/sim scenario or .yaml path>");
  }
  if (w.nodes <= 0 || w.pods <= 0) return BadRequestError("nodes and pods must be positive");
  return w;
}

// One node-local slice per node, as a vendor's kubelet plugin publishes it.
std::unique_ptr<api::ResourceSlice> BenchSlice(int64_t node, int64_t devices) {
  const std::string n = "bench-node-" + std::to_string(node);
  return workloads::MakeNodeLocalSlice(n + "-bench", kBenchDriver, n, devices,
                                       {.model = "BENCH-GPU"});
}

std::unique_ptr<api::ResourceClaim> BenchSharedClaim(int64_t i) {
  return workloads::MakeClaim("default", "bench-shared-" + std::to_string(i), BenchClaimSpec(1));
}

// A pod named `name`; with claims it references the template `tmpl` or shared claim
// `claim_index / pods_per_claim`. In the preemption workloads a `measured` pod has the high
// priority class.
std::unique_ptr<api::Pod> BenchPod(const Workload& w, const std::string& name, int64_t claim_index,
                                   const std::string& tmpl, bool measured = false) {
  const bool cpu_bound = w.preemption && w.claims == ClaimKind::kNone;
  auto p = cpu_bound ? workloads::MakePod("default", name, kPreemptionCpu, "500Mi")
                     : workloads::MakePod("default", name);
  if (w.preemption && measured) p->spec.priorityClassName = kHighPriorityClass;
  if (w.reservations > 0) {
    p->metadata.labels["bench-reservation"] =
        w.owners ? "r-" + std::to_string(claim_index) : "none";
  }
  if (w.claims == ClaimKind::kController || w.claims == ClaimKind::kMixed) {
    workloads::AddTemplateClaim(*p, "acc", "bench-controller-claim");
  }
  if (w.claims == ClaimKind::kTemplate || w.claims == ClaimKind::kMixed) {
    workloads::AddTemplateClaim(*p, "gpu", tmpl);
  } else if (w.claims == ClaimKind::kShared) {
    workloads::AddExistingClaim(*p, "gpu",
                                "bench-shared-" + std::to_string(claim_index / w.pods_per_claim));
  }
  return p;
}

// The control-plane driver's configuration: P/N accelerators per node (a "rack" per node).
std::string ControllerConfig(const Workload& w) {
  const int64_t per_node = std::max<int64_t>(1, (w.init_pods + w.pods + w.nodes - 1) / w.nodes);
  std::string yaml =
      std::string("driver: ") + kControllerDriver +
      "\nrackLabel: kubernetes.io/hostname\nperNodeLimit: " + std::to_string(per_node) +
      "\nracks:\n";
  for (int64_t i = 0; i < w.nodes; ++i) {
    yaml += "  bench-node-" + std::to_string(i) + ": " + std::to_string(per_node) + "\n";
  }
  return yaml;
}

std::unique_ptr<api::ResourceClaimTemplate> ControllerTemplate() {
  api::ResourceClaimSpec spec = workloads::ClaimSpec(kControllerDriver, 1);
  spec.controllerName = kControllerDriver;
  return workloads::MakeClaimTemplate("default", "bench-controller-claim", std::move(spec));
}

// Reservation `i`: what a bench pod asks for, for the pods labelled bench-reservation=r-<i>.
std::unique_ptr<api::Object> BenchReservation(int64_t i) {
  auto r = std::make_unique<api::Reservation>();
  r->metadata.name = "bench-reservation-" + std::to_string(i);
  api::ReservationPodTemplate t;
  auto pod = workloads::MakePod("default", "template");
  t.spec = pod->spec;
  r->spec.template_ = std::move(t);
  api::ReservationOwner o;
  o.labelSelector = api::LabelSelector{};
  o.labelSelector->matchLabels["bench-reservation"] = "r-" + std::to_string(i);
  r->spec.owners.push_back(std::move(o));
  return r;
}

// Waits until `count` reservations are Available.
Status WaitReservationsAvailable(client::Client& client, int64_t count) {
  const auto& reservations = api::ResourceFor<api::Reservation>();
  for (int i = 0; i < 6000; ++i) {
    auto list = client.List(reservations, {});
    if (list.ok()) {
      int64_t n = 0;
      for (const api::ObjectPtr& o : list->items) {
        const auto* r = api::As<api::Reservation>(*o);
        n += r && r->status.phase == api::kReservationAvailable;
      }
      if (n >= count) return Status::Ok();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return Status(StatusCode::kTimeout, "reservations were not all placed within 10 minutes");
}

bool HasController(const Workload& w) {
  return w.claims == ClaimKind::kController || w.claims == ClaimKind::kMixed;
}
bool HasStructured(const Workload& w) {
  return w.claims != ClaimKind::kNone && w.claims != ClaimKind::kController;
}

struct Measurement {
  double seconds = 0;
  std::vector<double> latencies_ms;
  int64_t bound = 0;
  bench::Counters before_fill;  // the cluster's nodes, slices and classes created
  bench::Counters before;       // the measured phase
  bench::Counters after;
  int64_t all_pods = 0;  // fill and measured
};

// The cluster's objects through `submitter`: the priority class, device classes, templates and
// shared claims the workload uses, the nodes and their slices, then its reservations once the
// nodes are in (waiting until all are placed). Returns once `client` lists every node.
Status CreateCluster(client::Client& client, const Workload& w, bench::Submitter& submitter) {
  const auto& reg = api::ResourceRegistry::Default();
  const auto& nodes = *reg.Find("", "v1", "nodes");
  const auto& classes = *reg.Find("resource.k8s.io", "v1", "deviceclasses");
  const auto& slices = *reg.Find("resource.k8s.io", "v1", "resourceslices");
  const auto& templates = *reg.Find("resource.k8s.io", "v1", "resourceclaimtemplates");
  const auto& claims = *reg.Find("resource.k8s.io", "v1", "resourceclaims");
  auto submit = [&](const api::ResourceInfo& r, std::unique_ptr<api::Object> obj) {
    submitter.Create(r, std::move(obj));
  };
  const bool dra = HasStructured(w);
  if (w.preemption) {
    auto pc = std::make_unique<api::PriorityClass>();
    pc->metadata.name = kHighPriorityClass;
    pc->value = 1000;
    submit(api::ResourceFor<api::PriorityClass>(), std::move(pc));
  }
  if (HasController(w)) submit(templates, ControllerTemplate());
  if (dra) {
    submit(classes, BenchClass());
    submit(templates, BenchTemplate("bench-claim", 1));
    if (w.infeasible > 0) {
      submit(templates, BenchTemplate("bench-claim-infeasible", w.devices_per_node + 1));
    }
    if (w.claims == ClaimKind::kShared) {
      int64_t n = (w.init_pods + w.pods + w.pods_per_claim - 1) / w.pods_per_claim;
      for (int64_t i = 0; i < n; ++i) submit(claims, BenchSharedClaim(i));
    }
  }
  for (int64_t i = 0; i < w.nodes; ++i) {
    submit(nodes, BenchNode(i));
    if (dra) submit(slices, BenchSlice(i, w.devices_per_node));
  }
  ALLOT_RETURN_IF_ERROR(submitter.Drain());
  if (w.reservations > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // nodes first
    for (int64_t i = 0; i < w.reservations; ++i) {
      submit(api::ResourceFor<api::Reservation>(), BenchReservation(i));
    }
    ALLOT_RETURN_IF_ERROR(submitter.Drain());
    ALLOT_RETURN_IF_ERROR(WaitReservationsAvailable(client, w.reservations));
  }
  // Give the scheduler's informers a moment to see every node before pods arrive.
  for (int i = 0; i < 600; ++i) {
    auto list = client.List(nodes, {});
    if (list.ok() && static_cast<int64_t>(list->items.size()) >= w.nodes) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  return Status::Ok();
}

// Waits on `watcher` (pods) until `count` pods named <prefix><i> are bound or `deadline` has
// passed, calling on_bound(i) for each; returns how many were.
int64_t WaitBound(api::Watcher& watcher, Steady::time_point deadline, const std::string& prefix,
                  int64_t count, const std::function<void(int64_t)>& on_bound) {
  std::vector<bool> seen(static_cast<size_t>(count), false);
  int64_t bound = 0;
  api::WatchEvent ev;
  while (bound < count && Steady::now() < deadline) {
    if (!watcher.WaitNext(ev, std::chrono::milliseconds(500))) continue;
    if (!ev.object || ev.type == api::EventType::kDeleted) continue;
    const auto* pod = api::As<api::Pod>(*ev.object);
    if (!pod || pod->spec.nodeName.empty()) continue;
    int64_t idx = IndexOf(pod->metadata.name, prefix);
    if (idx < 0 || idx >= count || seen[static_cast<size_t>(idx)]) continue;
    seen[static_cast<size_t>(idx)] = true;
    ++bound;
    on_bound(idx);
  }
  return bound;
}

// Creates the cluster and the pods through `client` and waits until every pod is bound.
Result<Measurement> Drive(client::Client& client, const Workload& w, double rate,
                          const std::function<bench::Counters()>& counters) {
  auto read_counters = [&] { return counters ? counters() : bench::Counters{}; };
  Measurement m;
  const auto& pods = api::ResourceFor<api::Pod>();
  bench::Submitter submitter(client);
  auto submit = [&](const api::ResourceInfo& r, std::unique_ptr<api::Object> obj) {
    submitter.Create(r, std::move(obj));
  };
  ALLOT_RETURN_IF_ERROR(CreateCluster(client, w, submitter));

  api::WatchOptions wopts;
  wopts.resource_version = client.List(pods, {})->resource_version;
  ALLOT_ASSIGN_OR_RETURN(auto watcher, client.Watch(pods, wopts));
  const auto deadline = Steady::now() + std::chrono::minutes(5);

  // Fill.
  m.before_fill = read_counters();
  for (int64_t i = 0; i < w.init_pods; ++i) {
    submit(pods, BenchPod(w, "bench-init-" + std::to_string(i), i, "bench-claim"));
  }
  int64_t filled = WaitBound(*watcher, deadline, "bench-init-", w.init_pods, [](int64_t) {});
  ALLOT_RETURN_IF_ERROR(submitter.Drain());
  if (filled < w.init_pods) {
    return Status(StatusCode::kTimeout, "only " + std::to_string(filled) + " of " +
                                            std::to_string(w.init_pods) +
                                            " pods of the fill phase were bound");
  }
  for (int64_t i = 0; i < w.infeasible; ++i) {
    submit(pods, BenchPod(w, "bench-infeasible-" + std::to_string(i), 0, "bench-claim-infeasible"));
  }
  Status infeasible = submitter.Drain();  // checked with the measured phase's writes
  // Measure.
  m.before = read_counters();
  std::vector<Steady::time_point> created(static_cast<size_t>(w.pods));
  const auto start = Steady::now();
  std::atomic<int64_t> next{0};
  auto create_next = [&] {
    int64_t i = next.fetch_add(1);
    if (i >= w.pods) return;
    created[static_cast<size_t>(i)] = Steady::now();
    submit(pods, BenchPod(w, "bench-pod-" + std::to_string(i), w.init_pods + i, "bench-claim",
                          /*measured=*/true));
  };
  std::thread creator([&] {
    int64_t first = w.steady_window > 0 ? std::min(w.steady_window, w.pods) : w.pods;
    for (int64_t i = 0; i < first; ++i) {
      if (rate > 0) {  // open loop: pod i is due at start + i / rate, however the others fare
        std::this_thread::sleep_until(
            start + std::chrono::duration_cast<Steady::duration>(
                        std::chrono::duration<double>(static_cast<double>(i) / rate)));
      }
      create_next();
    }
  });
  Steady::time_point last = start;
  m.bound = WaitBound(*watcher, deadline, "bench-pod-", w.pods, [&](int64_t idx) {
    last = Steady::now();
    m.latencies_ms.push_back(
        std::chrono::duration<double, std::milli>(last - created[static_cast<size_t>(idx)])
            .count());
    if (w.steady_window > 0) {
      client.DeleteAsync(pods, "default", "bench-pod-" + std::to_string(idx), {},
                         [](Result<api::DeleteResult>) {});
      create_next();
    }
  });
  creator.join();
  ALLOT_RETURN_IF_ERROR(infeasible);
  ALLOT_RETURN_IF_ERROR(submitter.Drain());
  m.seconds = std::chrono::duration<double>(last - start).count();
  m.after = read_counters();
  m.all_pods = w.init_pods + w.infeasible + m.bound;
  if (m.bound < w.pods) {
    return Status(StatusCode::kTimeout, "only " + std::to_string(m.bound) + " of " +
                                            std::to_string(w.pods) + " pods were bound");
  }
  return m;
}

bool ValidEnvironment(const std::string& mode, const std::string& store, int64_t etcd_members) {
  if ((mode != "inprocess" && mode != "http" && mode != "https") ||
      (store != "sqlite" && store != "memory" && store != "etcd") ||
      (etcd_members != 1 && etcd_members != 3)) {
    std::fprintf(stderr,
                 "allot bench: --mode inprocess|http|https, --store sqlite|memory|etcd, "
                 "--etcd-members 1|3\n");
    return false;
  }
  return true;
}

}  // namespace

// bench_binding.cc
int RunBindingBench(const std::string& workload, const std::string& mode,
                    const std::string& store_kind, const std::string& out);

// bench_sim.cc
int RunSimBench(const std::string& workload, const std::string& out);

namespace {

// `allot bench`'s flags (AddFlags) and the checks across them (Validate), as Kubernetes
// components keep theirs.
struct BenchOptions {
  std::string mode = "inprocess";
  std::string store = "sqlite";
  std::string out;
  int64_t rate = 0;
  int64_t etcd_members = 1;
  std::string content_type = "application/vnd.kubernetes.protobuf";

  void AddFlags(Flags& flags) {
    flags.String("mode", &mode,
                 "inprocess, http (plain, to a separate server process) or https (TLS, every "
                 "role with its own client certificate and RBAC deciding each request)");
    flags.String("store", &store,
                 "sqlite (durable), memory, or etcd (a fresh local etcd cluster started for the "
                 "run, /usr/bin/etcd)");
    flags.Int("etcd-members", &etcd_members, "--store etcd: members of the local cluster (1 or 3)");
    flags.String("out", &out, "write the result as JSON to this file");
    flags.String("kube-api-content-type", &content_type,
                 "--mode http|https: what the scheduler, the driver and the benchmark's own "
                 "client speak to the server: application/vnd.kubernetes.protobuf or "
                 "application/json");
    flags.Int("rate", &rate,
              "create the measured pods at this many per second (0: all at once); not for "
              "SteadyState or BindingConditions workloads");
  }
  // For the scheduler_perf-shaped workloads (Simulator and BindingConditions ones are checked
  // where they run). Prints why and returns false when the flags do not fit `w`.
  bool Validate(const Workload& w) const {
    if (rate < 0 || (rate > 0 && w.steady_window > 0)) {
      std::fprintf(stderr,
                   "allot bench: --rate must be positive, and SteadyState workloads pace "
                   "themselves\n");
      return false;
    }
    if (!ValidEnvironment(mode, store, etcd_members)) return false;
    if (content_type != "application/vnd.kubernetes.protobuf" &&
        content_type != "application/json") {
      std::fprintf(stderr,
                   "allot bench: --kube-api-content-type is application/"
                   "vnd.kubernetes.protobuf or application/json\n");
      return false;
    }
    return true;
  }
};

// Prints the measurement (sorting its latencies) and writes it to --out; the command's exit code.
int Report(const BenchOptions& o, const Workload& w, Measurement& m) {
  double throughput = static_cast<double>(m.bound) / m.seconds;
  std::string p50 = Percentile(m.latencies_ms, 0.50), p99 = Percentile(m.latencies_ms, 0.99);
  const bench::CostPerPod cost = bench::PerPod(m.before, m.after, m.bound);
  // Memory per pod (with its claim, where the workload has one): what every pod of the run
  // added to the resident memory of the system, from before the first pod to the end.
  double rss_per_pod = -1;
  if (m.before_fill.rss_bytes >= 0 && m.after.rss_bytes >= 0 && m.all_pods > 0) {
    rss_per_pod = static_cast<double>(m.after.rss_bytes - m.before_fill.rss_bytes) /
                  static_cast<double>(m.all_pods);
  }
  std::printf("workload: %s  mode: %s  store: %s", w.name.c_str(), o.mode.c_str(), o.store.c_str());
  if (o.store == "etcd") std::printf(" (%lld members)", static_cast<long long>(o.etcd_members));
  if (o.rate > 0) std::printf("  offered: %lld pods/s", static_cast<long long>(o.rate));
  if (o.mode != "inprocess") std::printf("  wire: %s", o.content_type.c_str());
  std::printf("\n");
  std::printf("throughput: %.0f pods/s\n", throughput);
  std::printf("pods: %lld in %.2f s; scheduling latency p50 %s ms, p99 %s ms\n",
              static_cast<long long>(m.bound), m.seconds, p50.c_str(), p99.c_str());
  bench::PrintCost(cost, m.after.rss_bytes, rss_per_pod);
  if (o.out.empty()) return 0;
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> json(buf);
  json.StartObject();
  json.Key("workload"), json.String(w.name.c_str());
  json.Key("mode"), json.String(o.mode.c_str());
  json.Key("store"), json.String(o.store.c_str());
  if (o.mode != "inprocess") json.Key("kube_api_content_type"), json.String(o.content_type.c_str());
  json.Key("offered_pods_per_s"), json.Int64(o.rate);
  json.Key("pods"), json.Int64(m.bound);
  json.Key("seconds"), json.Double(m.seconds);
  json.Key("throughput_pods_per_s"), json.Double(throughput);
  json.Key("latency_ms");
  json.StartObject();
  json.Key("p50"), json.Double(std::stod(p50));
  json.Key("p99"), json.Double(std::stod(p99));
  json.EndObject();
  bench::WriteCost(json, cost, m.after.rss_bytes, rss_per_pod);
  json.EndObject();
  const std::string text = std::string(buf.GetString(), buf.GetSize()) + "\n";
  if (Status st = WriteFileAtomically(o.out, text, 0644); !st.ok()) {
    std::fprintf(stderr, "allot bench: --out: %s\n", st.message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int RunBench(int argc, char** argv) {
  BenchOptions o;
  Flags flags("allot bench WORKLOAD",
              "Measures scheduling throughput on a scheduler_perf-shaped "
              "workload, e.g. SchedulingBasic/5000Nodes_10000Pods.");
  o.AddFlags(flags);
  if (auto exit_code = flags.ParseOrExit(argc, argv)) return *exit_code;
  if (flags.positional().size() != 1) {
    return flags.UsageError("one WORKLOAD is required");
  }
  const std::string& name = flags.positional()[0];
  if (name.rfind("Simulator/", 0) == 0) {
    if (o.rate != 0 || o.mode != "inprocess" || o.store != "sqlite") {
      std::fprintf(stderr,
                   "allot bench: --rate, --mode and --store do not apply to Simulator workloads "
                   "(the simulator runs in-process on a memory store)\n");
      return 2;
    }
    return RunSimBench(name, o.out);
  }
  if (name.rfind("BindingConditions/", 0) == 0) {
    if (o.rate != 0) {
      std::fprintf(stderr, "allot bench: --rate does not apply to BindingConditions workloads\n");
      return 2;
    }
    if (!ValidEnvironment(o.mode, o.store, o.etcd_members)) return 2;
    return RunBindingBench(name, o.mode, o.store, o.out);
  }
  auto w = ParseWorkload(name);
  if (!w.ok()) {
    std::fprintf(stderr, "allot bench: %s\n", w.status().message().c_str());
    return 2;
  }
  if (!o.Validate(*w)) return 2;
  Result<Measurement> m = InternalError("not run");
  std::function<bench::Counters()> counters;
  bench::Environment env{o.mode, o.store};
  env.etcd_members = static_cast<int>(o.etcd_members);
  env.content_type = o.content_type;
  if (HasController(*w)) env.controller_config = ControllerConfig(*w);
  env.counters = &counters;
  Status env_status = bench::RunInEnvironment(env, "", [&](client::Client& c) {
    m = Drive(c, *w, static_cast<double>(o.rate), counters);
    return Status();
  });
  if (!env_status.ok()) m = env_status;
  if (!m.ok()) {
    std::fprintf(stderr, "allot bench: %s\n", m.status().message().c_str());
    return 1;
  }
  return Report(o, *w, *m);
}

}  // namespace allot::cli
