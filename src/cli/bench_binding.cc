// `allot bench BindingConditions/...`: binding conditions (KEP-5007) under load.
//
//   BindingConditions/reaction
//       100 nodes, each with a node-local slice of 10 devices that carry binding conditions
//       (bindsToNode, bindingConditions [bench.example.com/ready]). 500 pods, each with a claim
//       from a template, are created at 250 pods/s. This process plays the driver: as soon as it
//       sees a claim allocated, it writes the condition True into status.devices. Reaction = from
//       just before that write is sent to the pod's binding seen in a watch; p50 / p99 over
//       all pods. (Upstream's PreBind polls every 5 s.)
//   BindingConditions/1000waiting
//       1,000 nodes with one such device each; 1,000 pods take them and wait (the condition
//       never comes). Then 10,000 pods without claims are created at once and their
//       throughput measured, and compared with the same run without the waiting pods. Five
//       pairs of runs (none waiting, then 1,000 waiting); the ratio of the medians is reported.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/machinery/resources.h"
#include "api/resource/types.h"
#include "cli/bench_support.h"
#include "common/files.h"
#include "store/store.h"
#include "workloads/objects.h"

namespace allot::cli {

namespace {

using Steady = std::chrono::steady_clock;
using bench::BenchClass;
using bench::BenchNode;
using bench::BenchTemplate;
using bench::IndexOf;
using bench::kBenchDriver;

constexpr char kReady[] = "bench.example.com/ready";
constexpr char kFailed[] = "bench.example.com/failed";

// A node-local slice whose devices must be made ready before use.
std::unique_ptr<api::ResourceSlice> BindingSlice(int64_t node, int64_t devices) {
  const std::string n = "bench-node-" + std::to_string(node);
  return workloads::MakeNodeLocalSlice(n + "-bench", kBenchDriver, n, devices,
                                       {.prefix = "dev-",
                                        .model = "BENCH-FABRIC",
                                        .index_attribute = false,
                                        .binds_to_node = true,
                                        .binding_conditions = {kReady},
                                        .binding_failure_conditions = {kFailed}});
}

std::unique_ptr<api::Pod> Pod(const std::string& name, bool with_claim) {
  auto p = workloads::MakePod("default", name);
  if (with_claim) workloads::AddTemplateClaim(*p, "dev", "bench-claim");
  return p;
}

// Nodes, the class, the template and one binding-condition slice per node.
Status CreateCluster(client::Client& client, int64_t nodes, int64_t devices) {
  bench::Submitter sub(client);
  sub.Create(api::ResourceFor<api::DeviceClass>(), BenchClass());
  sub.Create(api::ResourceFor<api::ResourceClaimTemplate>(), BenchTemplate("bench-claim", 1));
  for (int64_t i = 0; i < nodes; ++i) {
    sub.Create(api::ResourceFor<api::Node>(), BenchNode(i));
    sub.Create(api::ResourceFor<api::ResourceSlice>(), BindingSlice(i, devices));
  }
  ALLOT_RETURN_IF_ERROR(sub.Drain());
  // Let the scheduler's informers see the cluster before pods arrive.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  return Status();
}

uint64_t ResourceVersionNow(client::Client& client, const api::ResourceInfo& r) {
  auto l = client.List(r, {});
  return l.ok() ? l->resource_version : 0;
}

// The pod a generated claim belongs to (its controlling owner).
std::string OwnerPod(const api::ResourceClaim& claim) {
  for (const auto& o : claim.metadata.ownerReferences) {
    if (o.kind == "Pod") return o.name;
  }
  return "";
}

// The claim with every binding condition of its allocation True.
std::unique_ptr<api::ResourceClaim> WithConditionsTrue(const api::ResourceClaim& claim) {
  auto copy = std::make_unique<api::ResourceClaim>(claim);
  for (const auto& r : claim.status.allocation->devices.results) {
    if (r.rare->bindingConditions.empty()) continue;
    api::AllocatedDeviceStatus d;
    d.driver = r.driver;
    d.pool = r.pool;
    d.device = r.device;
    d.shareID = r.rare->shareID;
    for (const std::string& type : r.rare->bindingConditions) {
      api::Condition c;
      c.type = type;
      c.status = "True";
      c.reason = "Ready";
      c.message = "made ready by allot bench";
      c.lastTransitionTime = RealClock::Instance().Now().TruncatedToSeconds();
      d.conditions.push_back(std::move(c));
    }
    copy->status.devices.push_back(std::move(d));
  }
  return copy;
}

struct Reaction {
  std::vector<double> ms;
  double seconds = 0;
};

Result<Reaction> DriveReaction(client::Client& client) {
  constexpr int64_t kNodes = 100, kDevices = 10, kPods = 500, kRate = 250;
  ALLOT_RETURN_IF_ERROR(CreateCluster(client, kNodes, kDevices));
  const auto& claims = api::ResourceFor<api::ResourceClaim>();
  const auto& pods = api::ResourceFor<api::Pod>();
  api::WatchOptions copts, popts;
  copts.resource_version = ResourceVersionNow(client, claims);
  popts.resource_version = ResourceVersionNow(client, pods);
  ALLOT_ASSIGN_OR_RETURN(auto claim_watch, client.Watch(claims, copts));
  ALLOT_ASSIGN_OR_RETURN(auto pod_watch, client.Watch(pods, popts));

  std::mutex mu;
  std::map<int64_t, Steady::time_point> ready_sent;  // pod index -> condition write sent
  std::map<int64_t, Steady::time_point> bound;       // pod index -> binding seen
  std::atomic<bool> stop{false};
  std::atomic<int64_t> write_errors{0};
  std::deque<std::pair<std::string, std::string>> retry;  // (ns, name) after a conflict

  // The driver: conditions True as soon as a claim is allocated.
  std::thread driver([&] {
    api::WatchEvent ev;
    std::map<std::string, bool> done;
    auto make_ready = [&](const api::ResourceClaim& c) {
      if (!c.status.allocation || !c.status.devices.empty() || done[c.metadata.name]) return;
      int64_t idx = IndexOf(OwnerPod(c), "bench-pod-");
      if (idx < 0) return;
      done[c.metadata.name] = true;
      {
        std::lock_guard<std::mutex> lock(mu);
        ready_sent.emplace(idx, Steady::now());
      }
      client.UpdateStatusAsync(
          claims, WithConditionsTrue(c),
          [&, ns = c.metadata.namespace_, name = c.metadata.name](Result<api::ObjectPtr> r) {
            if (r.ok()) return;
            std::lock_guard<std::mutex> lock(mu);
            if (r.status().code() == StatusCode::kConflict) {
              retry.emplace_back(ns, name);
            } else {
              ++write_errors;
            }
          });
    };
    while (!stop) {
      std::vector<std::pair<std::string, std::string>> again;
      {
        std::lock_guard<std::mutex> lock(mu);
        again.assign(retry.begin(), retry.end());
        retry.clear();
      }
      for (const auto& [ns, name] : again) {
        auto cur = client.Get(claims, ns, name);
        if (!cur.ok()) continue;
        if (const auto* c = api::As<api::ResourceClaim>(**cur)) {
          done[name] = false;
          make_ready(*c);
        }
      }
      if (!claim_watch->WaitNext(ev, std::chrono::milliseconds(20)) || !ev.object) continue;
      if (ev.type == api::EventType::kDeleted) continue;
      if (const auto* c = api::As<api::ResourceClaim>(*ev.object)) make_ready(*c);
    }
  });

  bench::Submitter sub(client);
  const auto start = Steady::now();
  // Paced at kRate pods/s (reaction is about the wait's end, not about queueing behind a
  // burst), from another thread: bindings are timed as they arrive.
  Status created;
  std::thread creator([&] {
    for (int64_t i = 0; i < kPods; ++i) {
      std::this_thread::sleep_until(start + std::chrono::microseconds(i * 1000000 / kRate));
      sub.Create(pods, Pod("bench-pod-" + std::to_string(i), true));
    }
    created = sub.Drain();
  });
  const auto deadline = Steady::now() + std::chrono::minutes(3);
  Steady::time_point last = start;
  api::WatchEvent ev;
  while (Steady::now() < deadline) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (static_cast<int64_t>(bound.size()) >= kPods) break;
    }
    if (!pod_watch->WaitNext(ev, std::chrono::milliseconds(200)) || !ev.object) continue;
    const auto* p = api::As<api::Pod>(*ev.object);
    if (!p || p->spec.nodeName.empty()) continue;
    int64_t idx = IndexOf(p->metadata.name, "bench-pod-");
    if (idx < 0) continue;
    std::lock_guard<std::mutex> lock(mu);
    if (bound.emplace(idx, Steady::now()).second) last = Steady::now();
  }
  creator.join();
  stop = true;
  driver.join();
  ALLOT_RETURN_IF_ERROR(created);
  Reaction out;
  std::lock_guard<std::mutex> lock(mu);
  if (static_cast<int64_t>(bound.size()) < kPods) {
    return Status(StatusCode::kTimeout, "only " + std::to_string(bound.size()) + " of " +
                                            std::to_string(kPods) + " pods were bound (" +
                                            std::to_string(write_errors.load()) +
                                            " condition writes failed)");
  }
  for (const auto& [idx, t] : bound) {
    auto it = ready_sent.find(idx);
    if (it == ready_sent.end()) continue;  // bound without waiting: not a reaction
    out.ms.push_back(std::chrono::duration<double, std::milli>(t - it->second).count());
  }
  out.seconds = std::chrono::duration<double>(last - start).count();
  return out;
}

// Throughput of 10,000 pods without claims on 1,000 nodes while `waiting` pods wait for
// binding conditions that never come.
Result<double> DriveWhileWaiting(client::Client& client, int64_t waiting) {
  constexpr int64_t kNodes = 1000, kPods = 10000;
  ALLOT_RETURN_IF_ERROR(CreateCluster(client, kNodes, 1));
  const auto& claims = api::ResourceFor<api::ResourceClaim>();
  const auto& pods = api::ResourceFor<api::Pod>();
  bench::Submitter sub(client);
  if (waiting > 0) {
    api::WatchOptions copts;
    copts.resource_version = ResourceVersionNow(client, claims);
    ALLOT_ASSIGN_OR_RETURN(auto claim_watch, client.Watch(claims, copts));
    for (int64_t i = 0; i < waiting; ++i) {
      sub.Create(pods, Pod("bench-wait-" + std::to_string(i), true));
    }
    ALLOT_RETURN_IF_ERROR(sub.Drain());
    // Until every waiting pod's claim is allocated (and so the pod waits in PreBind).
    std::map<std::string, bool> allocated;
    const auto deadline = Steady::now() + std::chrono::minutes(3);
    api::WatchEvent ev;
    while (static_cast<int64_t>(allocated.size()) < waiting && Steady::now() < deadline) {
      if (!claim_watch->WaitNext(ev, std::chrono::milliseconds(200)) || !ev.object) continue;
      const auto* c = api::As<api::ResourceClaim>(*ev.object);
      if (c && c->status.allocation) allocated[c->metadata.name] = true;
    }
    if (static_cast<int64_t>(allocated.size()) < waiting) {
      return Status(StatusCode::kTimeout, "only " + std::to_string(allocated.size()) + " of " +
                                              std::to_string(waiting) +
                                              " waiting pods got their device");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  api::WatchOptions popts;
  popts.resource_version = ResourceVersionNow(client, pods);
  ALLOT_ASSIGN_OR_RETURN(auto pod_watch, client.Watch(pods, popts));
  const auto start = Steady::now();
  std::thread creator([&] {
    for (int64_t i = 0; i < kPods; ++i) {
      sub.Create(pods, Pod("bench-pod-" + std::to_string(i), false));
    }
  });
  std::vector<bool> seen(kPods, false);
  int64_t n = 0;
  Steady::time_point last = start;
  const auto deadline = Steady::now() + std::chrono::minutes(3);
  api::WatchEvent ev;
  while (n < kPods && Steady::now() < deadline) {
    if (!pod_watch->WaitNext(ev, std::chrono::milliseconds(200)) || !ev.object) continue;
    const auto* p = api::As<api::Pod>(*ev.object);
    if (!p || p->spec.nodeName.empty()) continue;
    int64_t idx = IndexOf(p->metadata.name, "bench-pod-");
    if (idx < 0 || idx >= kPods || seen[static_cast<size_t>(idx)]) continue;
    seen[static_cast<size_t>(idx)] = true;
    ++n;
    last = Steady::now();
  }
  creator.join();
  ALLOT_RETURN_IF_ERROR(sub.Drain());
  if (n < kPods) {
    return Status(StatusCode::kTimeout,
                  "only " + std::to_string(n) + " of " + std::to_string(kPods) + " pods bound");
  }
  return static_cast<double>(kPods) / std::chrono::duration<double>(last - start).count();
}

}  // namespace

int RunBindingBench(const std::string& workload, const std::string& mode,
                    const std::string& store_kind, const std::string& out) {
  bench::Environment env{mode, store_kind};
  std::string json;
  if (workload == "BindingConditions/reaction") {
    Result<Reaction> r = InternalError("not run");
    Status st = bench::RunInEnvironment(env, "", [&](client::Client& c) {
      r = DriveReaction(c);
      return Status();
    });
    if (!st.ok()) r = st;
    if (!r.ok()) {
      std::fprintf(stderr, "allot bench: %s\n", r.status().message().c_str());
      return 1;
    }
    std::string p50 = bench::Percentile(r->ms, 0.50), p99 = bench::Percentile(r->ms, 0.99);
    std::printf("workload: %s  mode: %s  store: %s\n", workload.c_str(), mode.c_str(),
                store_kind.c_str());
    std::printf("reaction (condition True -> pod bound): p50 %s ms, p99 %s ms over %zu pods\n",
                p50.c_str(), p99.c_str(), r->ms.size());
    std::printf("all 500 pods bound in %.2f s\n", r->seconds);
    json = "{\"workload\":\"" + workload + "\",\"mode\":\"" + mode + "\",\"store\":\"" +
           store_kind + "\",\"reaction_ms\":{\"p50\":" + p50 + ",\"p99\":" + p99 + "}}";
  } else if (workload == "BindingConditions/1000waiting") {
    constexpr int kPairs = 5;
    std::vector<double> runs[2];
    for (int pair = 0; pair < kPairs; ++pair) {
      for (int run = 0; run < 2; ++run) {
        const int64_t waiting = run == 0 ? 0 : 1000;
        Result<double> r = InternalError("not run");
        Status st = bench::RunInEnvironment(env, "", [&](client::Client& c) {
          r = DriveWhileWaiting(c, waiting);
          return Status();
        });
        if (!st.ok()) r = st;
        if (!r.ok()) {
          std::fprintf(stderr, "allot bench: %s\n", r.status().message().c_str());
          return 1;
        }
        std::fprintf(stderr, "run %d, %lld waiting: %.0f pods/s\n", pair + 1,
                     static_cast<long long>(waiting), *r);
        runs[run].push_back(*r);
      }
    }
    double rates[2];
    for (int run = 0; run < 2; ++run) {
      std::sort(runs[run].begin(), runs[run].end());
      rates[run] = runs[run][runs[run].size() / 2];
    }
    std::printf("workload: %s  mode: %s  store: %s\n", workload.c_str(), mode.c_str(),
                store_kind.c_str());
    std::printf(
        "throughput (median of 5): %.0f pods/s with 1000 pods waiting, %.0f pods/s with none; "
        "ratio %.2f\n",
        rates[1], rates[0], rates[1] / rates[0]);
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "{\"workload\":\"%s\",\"mode\":\"%s\",\"store\":\"%s\","
                  "\"throughput_waiting\":%.0f,\"throughput_none\":%.0f,\"ratio\":%.3f}",
                  workload.c_str(), mode.c_str(), store_kind.c_str(), rates[1], rates[0],
                  rates[1] / rates[0]);
    json = buf;
  } else {
    std::fprintf(stderr,
                 "allot bench: unknown workload \"%s\": want BindingConditions/reaction or "
                 "BindingConditions/1000waiting\n",
                 workload.c_str());
    return 2;
  }
  if (!out.empty()) {
    if (Status st = WriteFileAtomically(out, json + "\n", 0644); !st.ok()) {
      std::fprintf(stderr, "allot bench: --out: %s\n", st.message().c_str());
      return 1;
    }
  }
  return 0;
}

}  // namespace allot::cli
