// Store micro-benchmarks: codec speed, durable write throughput with group commit, and watch
// fan-out latency. Run: build/bench/allot_bench --benchmark_filter=Store
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "api/codec/codec.h"
#include "store/store.h"
#include "testing/builders.h"
#include "testing/objects.h"

namespace allot {
namespace {

constexpr char kPodJson[] = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-7d9f8b6c5d-x2k4p","namespace":"default","labels":{"app":"web","pod-template-hash":"7d9f8b6c5d"},"annotations":{"kubectl.kubernetes.io/restartedAt":"2024-05-01T12:00:00Z"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d9f8b6c5d","uid":"6b3c1d2e-1111-4222-8333-944455556666","controller":true,"blockOwnerDeletion":true}]},"spec":{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80,"protocol":"TCP"}],"env":[{"name":"MODE","value":"prod"}],"resources":{"requests":{"cpu":"250m","memory":"256Mi"},"limits":{"cpu":"1","memory":"512Mi"},"claims":[{"name":"gpu"}]}}],"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"one-gpu"}],"nodeSelector":{"kubernetes.io/os":"linux"},"tolerations":[{"key":"example.com/gpu","operator":"Exists","effect":"NoSchedule"}],"schedulerName":"default-scheduler"}})";

constexpr char kClaimJson[] = R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"web-gpu-abcde","namespace":"default"},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com","selectors":[{"cel":{"expression":"device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL'"}}],"allocationMode":"ExactCount","count":1}}]}},"status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"gpu.example.com","pool":"node-a","device":"gpu-3","bindingConditions":["example.com/is-attached"],"bindingFailureConditions":["example.com/attach-failed"]}]},"nodeSelector":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["node-a"]}]}]},"allocationTimestamp":"2024-05-01T12:00:00Z"},"reservedFor":[{"resource":"pods","name":"web","uid":"6b3c1d2e-1111-4222-8333-944455556666"}]}})";

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

// Creates with `inflight` writes outstanding at any time (as many concurrent clients would):
// this is what group commit batches. Reports writes/s.
void StoreCreates(benchmark::State& state, bool durable) {
  testing::TempDir dir;
  std::unique_ptr<store::Backend> backend;
  if (durable) {
    backend = std::move(store::NewSqliteBackend(dir.path() + "/bench.db")).value();
  } else {
    backend = store::NewMemoryBackend();
  }
  store::Store s(std::move(backend), RealClock::Instance());
  if (!s.Open().ok()) state.SkipWithError("open");
  const auto& pods = testing::Resource("", "pods");
  auto proto = testing::ObjectFromJson(kPodJson);
  const int64_t inflight = state.range(0);
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

void BM_StoreCreateMemory(benchmark::State& state) { StoreCreates(state, false); }
void BM_StoreCreateSqlite(benchmark::State& state) { StoreCreates(state, true); }
BENCHMARK(BM_StoreCreateMemory)->Arg(1)->Arg(64)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_StoreCreateSqlite)->Arg(1)->Arg(64)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();

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
                          std::chrono::steady_clock::now().time_since_epoch()).count();
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
                        std::chrono::steady_clock::now().time_since_epoch()).count();
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
BENCHMARK(BM_StoreWatchFanout)->Arg(100)->Iterations(3)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace allot
