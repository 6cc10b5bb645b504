// Store micro-benchmarks: codec speed, durable write throughput with group commit, and watch
// fan-out latency. Run: build/bench/allot_bench --benchmark_filter=Store
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "api/codec/codec.h"
#include "api/core/types.h"
#include "api/machinery/resources.h"
#include "etcd/local_cluster.h"
#include "store/backend.h"
#include "store/history.h"
#include "store/store.h"
#include "testing/builders.h"
#include "testing/objects.h"

namespace allot {
namespace {

constexpr char kPodJson[] =
    R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-7d9f8b6c5d-x2k4p","namespace":"default","labels":{"app":"web","pod-template-hash":"7d9f8b6c5d"},"annotations":{"kubectl.kubernetes.io/restartedAt":"2024-05-01T12:00:00Z"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d9f8b6c5d","uid":"6b3c1d2e-1111-4222-8333-944455556666","controller":true,"blockOwnerDeletion":true}]},"spec":{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80,"protocol":"TCP"}],"env":[{"name":"MODE","value":"prod"}],"resources":{"requests":{"cpu":"250m","memory":"256Mi"},"limits":{"cpu":"1","memory":"512Mi"},"claims":[{"name":"gpu"}]}}],"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"one-gpu"}],"nodeSelector":{"kubernetes.io/os":"linux"},"tolerations":[{"key":"example.com/gpu","operator":"Exists","effect":"NoSchedule"}],"schedulerName":"default-scheduler"}})";

constexpr char kClaimJson[] =
    R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"web-gpu-abcde","namespace":"default"},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com","selectors":[{"cel":{"expression":"device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL'"}}],"allocationMode":"ExactCount","count":1}}]}},"status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"gpu.example.com","pool":"node-a","device":"gpu-3","bindingConditions":["example.com/is-attached"],"bindingFailureConditions":["example.com/attach-failed"]}]},"nodeSelector":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["node-a"]}]}]},"allocationTimestamp":"2024-05-01T12:00:00Z"},"reservedFor":[{"resource":"pods","name":"web","uid":"6b3c1d2e-1111-4222-8333-944455556666"}]}})";

void BM_DecodePod(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(api::DecodeJson(kPodJson, {}));
  state.SetBytesProcessed(state.iterations() * (sizeof kPodJson - 1));
}
BENCHMARK(BM_DecodePod);

void BM_EncodePod(benchmark::State& state) {
  auto pod = testing::ObjectFromJson(kPodJson);
  for (auto _ : state) benchmark::DoNotOptimize(api::EncodeJson(*pod));
}
BENCHMARK(BM_EncodePod);

void BM_DecodeResourceClaim(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(api::DecodeJson(kClaimJson, {}));
}
BENCHMARK(BM_DecodeResourceClaim);

void BM_EncodeResourceClaim(benchmark::State& state) {
  auto claim = testing::ObjectFromJson(kClaimJson);
  for (auto _ : state) benchmark::DoNotOptimize(api::EncodeJson(*claim));
}
BENCHMARK(BM_EncodeResourceClaim);

// What a write's defaulting costs (ResourceInfo::Default: the kind's own, then the defaults inside
// the parts kept as JSON text). Arg 0: the pod above, nothing kept as JSON but an empty
// securityContext; arg 1: with three probes and a secret volume, defaulted already (what every
// update after the create pays: the texts are parsed, nothing is added). Second arg 1: the
// defaults inside the JSON text alone.
void BM_DefaultPodOnWrite(benchmark::State& state) {
  auto pod = testing::ObjectFromJson(kPodJson);
  auto& p = static_cast<api::Pod&>(*pod);
  if (state.range(0) == 1) {
    auto& c = p.spec.containers.at(0).rare.edit();
    c.livenessProbe.json = R"({"httpGet":{"path":"/healthz","port":80}})";
    c.readinessProbe.json = R"({"tcpSocket":{"port":80},"periodSeconds":5})";
    c.startupProbe.json = R"({"exec":{"command":["true"]}})";
    api::Volume v;
    v.name = "creds";
    v.secret.json = R"({"secretName":"creds"})";
    p.spec.volumes.push_back(v);
  }
  const api::ResourceInfo& pods = *api::ResourceRegistry::Default().FindByType(api::Pod::Type());
  pods.Default(*pod);
  const bool json_only = state.range(1) == 1;
  for (auto _ : state) {
    if (json_only) {
      pods.default_json_messages(*pod);
    } else {
      pods.Default(*pod);
    }
    benchmark::DoNotOptimize(pod.get());
  }
}
BENCHMARK(BM_DefaultPodOnWrite)->Args({0, 0})->Args({0, 1})->Args({1, 0})->Args({1, 1});

// Creates with `inflight` writes outstanding at any time (as many concurrent clients would):
// this is what group commit batches (SQLite) and what goes to etcd together. Reports writes/s.
void StoreCreates(benchmark::State& state, std::unique_ptr<store::Backend> backend,
                  int64_t inflight) {
  store::Store s(std::move(backend), RealClock::Instance());
  if (!s.Open().ok()) {
    state.SkipWithError("open");
    return;
  }
  const auto& pods = testing::Resource("", "pods");
  auto proto = testing::ObjectFromJson(kPodJson);
  int64_t n = 0;
  for (auto _ : state) {
    std::mutex mu;
    std::condition_variable cv;
    int64_t pending = 0;
    constexpr int kPerIteration = 2000;
    for (int i = 0; i < kPerIteration; ++i) {
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return pending < inflight; });
        ++pending;
      }
      auto obj = proto->Clone();
      obj->metadata.name = "p" + std::to_string(n++);
      obj->metadata.ownerReferences.clear();
      s.CreateAsync(pods, std::move(obj), {}, [&](Result<api::ObjectPtr> r) {
        if (!r.ok()) std::abort();
        std::lock_guard<std::mutex> lock(mu);
        --pending;
        cv.notify_all();
      });
    }
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return pending == 0; });
  }
  state.SetItemsProcessed(n);
  auto stats = s.GetStats();
  state.counters["writes_per_batch"] =
      stats.batches ? static_cast<double>(stats.writes) / static_cast<double>(stats.batches) : 0;
}

void BM_StoreCreateMemory(benchmark::State& state) {
  StoreCreates(state, store::NewMemoryBackend(), state.range(0));
}
void BM_StoreCreateSqlite(benchmark::State& state) {
  testing::TempDir dir;
  StoreCreates(state, std::move(store::NewSqliteBackend(dir.path() + "/bench.db")).value(),
               state.range(0));
}
BENCHMARK(BM_StoreCreateMemory)->Arg(1)->Arg(64)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_StoreCreateSqlite)
    ->Arg(1)
    ->Arg(64)
    ->Arg(512)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// On a fresh local etcd cluster of range(0) members (etcd/local_cluster.h), range(1) in flight.
// Compare with BM_EtcdCheckPerf on the same number of members: etcd's own write throughput.
void BM_StoreCreateEtcd(benchmark::State& state) {
  auto cluster = etcd::LocalCluster::Start(static_cast<int>(state.range(0)));
  if (!cluster.ok()) {
    state.SkipWithError(cluster.status().ToString().c_str());
    return;
  }
  store::EtcdBackendOptions o;
  o.endpoints = (*cluster)->endpoints();
  auto backend = store::NewEtcdBackend(o);
  if (!backend.ok()) {
    state.SkipWithError(backend.status().ToString().c_str());
    return;
  }
  StoreCreates(state, std::move(backend).value(), state.range(1));
}
BENCHMARK(BM_StoreCreateEtcd)
    ->ArgNames({"members", "inflight"})
    ->Args({1, 1})
    ->Args({1, 64})
    ->Args({1, 512})
    ->Args({3, 64})
    ->Args({3, 512})
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// etcd's own figure: `etcdctl check perf --load=l` (8,000 writes/s offered by 500 clients over
// 60 s, keys of 256 bytes) on a fresh cluster of range(0) members. Reports the throughput it
// prints as writes_per_s. About a minute per member count.
void BM_EtcdCheckPerf(benchmark::State& state) {
  auto cluster = etcd::LocalCluster::Start(static_cast<int>(state.range(0)));
  if (!cluster.ok()) {
    state.SkipWithError(cluster.status().ToString().c_str());
    return;
  }
  std::string endpoints;
  for (const std::string& e : (*cluster)->endpoints()) {
    endpoints += (endpoints.empty() ? "" : ",") + e;
  }
  double throughput = 0;
  for (auto _ : state) {
    const std::string cmd =
        "ETCDCTL_API=3 /usr/bin/etcdctl --endpoints=" + endpoints + " check perf --load=l 2>&1";
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) {
      state.SkipWithError("cannot run etcdctl");
      return;
    }
    char line[512];
    while (std::fgets(line, sizeof line, p)) {
      // "PASS: Throughput is 8003 writes/s" or "FAIL: Throughput too low: 5012 writes/s"
      if (const char* t = std::strstr(line, "Throughput")) {
        while (*t && (*t < '0' || *t > '9')) ++t;
        throughput = std::atof(t);
      }
    }
    ::pclose(p);
  }
  state.counters["writes_per_s"] = throughput;
}
BENCHMARK(BM_EtcdCheckPerf)
    ->ArgName("members")
    ->Arg(1)
    ->Arg(3)
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();

// One writer at ~1,000 events/s, 100 watchers; latency from commit to each watcher seeing the
// event. Reports p50/p99 in microseconds.
void BM_StoreWatchFanout(benchmark::State& state) {
  store::Store s(store::NewMemoryBackend(), RealClock::Instance());
  if (!s.Open().ok()) state.SkipWithError("open");
  const auto& pods = testing::Resource("", "pods");
  const int watchers = static_cast<int>(state.range(0));
  std::vector<std::unique_ptr<api::Watcher>> ws;
  for (int i = 0; i < watchers; ++i) {
    api::WatchOptions o;
    o.resource_version = s.CurrentResourceVersion();
    ws.push_back(std::move(s.Watch(&pods, o)).value());
  }
  std::vector<int64_t> latencies_us;
  std::mutex lat_mu;
  std::atomic<bool> stop{false};
  // Each watcher drains on its own thread and timestamps arrival against the writer's clock
  // stamped into an annotation.
  std::vector<std::thread> readers;
  for (auto& w : ws) {
    readers.emplace_back([&, wp = w.get()] {
      api::WatchEvent ev;
      while (!stop) {
        if (!wp->WaitNext(ev, std::chrono::milliseconds(50))) continue;
        auto it = ev.object->metadata.annotations.find("sent-ns");
        if (it == ev.object->metadata.annotations.end()) continue;
        int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
        std::lock_guard<std::mutex> lock(lat_mu);
        latencies_us.push_back((now - std::stoll(it->second)) / 1000);
      }
    });
  }
  auto proto = testing::ObjectFromJson(kPodJson);
  int64_t n = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 1000; ++i) {
      auto obj = proto->Clone();
      obj->metadata.name = "w" + std::to_string(n++);
      obj->metadata.ownerReferences.clear();
      int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count();
      obj->metadata.annotations["sent-ns"] = std::to_string(now);
      s.CreateAsync(pods, std::move(obj), {}, [](Result<api::ObjectPtr>) {});
      std::this_thread::sleep_until(start + std::chrono::microseconds(1000 * (i + 1)));
    }
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  stop = true;
  for (auto& t : readers) t.join();
  std::sort(latencies_us.begin(), latencies_us.end());
  if (!latencies_us.empty()) {
    state.counters["p50_us"] = static_cast<double>(latencies_us[latencies_us.size() / 2]);
    state.counters["p99_us"] = static_cast<double>(latencies_us[latencies_us.size() * 99 / 100]);
    state.counters["deliveries"] = static_cast<double>(latencies_us.size());
  }
}
BENCHMARK(BM_StoreWatchFanout)
    ->Arg(100)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The watch history (store/history.h): recording a change (which encodes the replaced version)
// and replaying events for a resumed watch (which decodes them). A pod changed 10 times, for
// 10,000 pods: 100,000 events, the default history. Reports per event.
struct PodVersions {
  struct Change {
    api::ObjectPtr object, before;
    uint64_t rv;
  };
  explicit PodVersions(size_t events) {
    auto base = testing::ObjectFromJson(kPodJson);
    std::vector<api::ObjectPtr> current(10000);
    for (size_t i = 0; i < events; ++i) {
      size_t k = i % current.size();
      auto next = base->Clone();
      next->metadata.name = "pod-" + std::to_string(k);
      next->metadata.labels["round"] = std::to_string(i / current.size());
      next->metadata.resourceVersion = std::to_string(i + 1);
      api::ObjectPtr obj(std::move(next));
      changes.push_back({obj, current[k], i + 1});
      current[k] = obj;
    }
  }
  void RecordInto(store::History& h) const {
    const auto& pods = testing::Resource("", "pods");
    for (const Change& c : changes) {
      h.Record(pods, c.before ? api::EventType::kModified : api::EventType::kAdded, c.object,
               c.before, c.rv);
    }
  }
  std::vector<Change> changes;
};

// Recording only: the versions are made beforehand (as the committer has them).
void BM_HistoryRecord(benchmark::State& state) {
  const size_t events = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    state.PauseTiming();
    auto versions = std::make_unique<PodVersions>(events);
    auto h = std::make_unique<store::History>(events);
    state.ResumeTiming();
    versions->RecordInto(*h);
    state.PauseTiming();
    state.counters["encoded_bytes_per_event"] =
        static_cast<double>(h->encoded_bytes()) / static_cast<double>(h->size());
    h.reset();
    versions.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_HistoryRecord)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_HistoryReplay(benchmark::State& state) {
  store::History history(100000);
  PodVersions(100000).RecordInto(history);
  const bool need_prev = state.range(0) != 0;
  size_t n = 0;
  for (auto _ : state) {
    Status st =
        history.ReplayAfter(0, &testing::Resource("", "pods"), need_prev,
                            [&](const api::ResourceInfo&, api::EventType, const api::ObjectPtr&,
                                const api::ObjectPtr&, uint64_t) { ++n; });
    benchmark::DoNotOptimize(st);
  }
  state.SetItemsProcessed(static_cast<int64_t>(n));
}
BENCHMARK(BM_HistoryReplay)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// What a resumed watch does under the store's lock: takes the events (no decoding).
void BM_HistoryTake(benchmark::State& state) {
  store::History history(100000);
  PodVersions(100000).RecordInto(history);
  size_t n = 0;
  for (auto _ : state) n += history.EventsAfter(0, &testing::Resource("", "pods")).size();
  state.SetItemsProcessed(static_cast<int64_t>(n));
}
BENCHMARK(BM_HistoryTake)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace allot
