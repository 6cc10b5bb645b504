// HTTP create throughput: 8 concurrent keep-alive clients POSTing pods to an in-process
// ApiServer. Run: build/bench/allot_bench --benchmark_filter=Http
#include <benchmark/benchmark.h>

#include <atomic>
#include <thread>
#include <vector>

#include "apiserver/server.h"
#include "store/store.h"
#include "testing/builders.h"
#include "testing/http_client.h"

namespace allot {
namespace {

std::string PodBody(const std::string& name) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"default","labels":{"app":"web"}},"spec":{"containers":[{"name":"web",)"
         R"("image":"nginx:1.27","resources":{"requests":{"cpu":"250m","memory":"256Mi"}}}]}})";
}

void HttpCreates(benchmark::State& state, bool durable) {
  testing::TempDir dir;
  std::unique_ptr<store::Backend> backend =
      durable ? std::move(store::NewSqliteBackend(dir.path() + "/bench.db")).value()
              : store::NewMemoryBackend();
  store::Store s(std::move(backend), RealClock::Instance());
  if (!s.Open().ok()) state.SkipWithError("open");
  apiserver::ApiServerOptions opts;
  opts.threads = 2;
  apiserver::ApiServer server(s, RealClock::Instance(), opts);
  if (!server.Start().ok()) state.SkipWithError("start");
  const int clients = static_cast<int>(state.range(0));
  constexpr int kPerClient = 500;
  std::atomic<int64_t> created{0};
  int64_t round = 0;
  for (auto _ : state) {
    std::vector<std::thread> threads;
    for (int c = 0; c < clients; ++c) {
      threads.emplace_back([&, c] {
        testing::HttpClient client("127.0.0.1", server.port());
        for (int i = 0; i < kPerClient; ++i) {
          auto r = client.Post("/api/v1/namespaces/default/pods",
                               PodBody("p-" + std::to_string(round) + "-" + std::to_string(c) +
                                       "-" + std::to_string(i)));
          if (r.ok() && r->status == 201) ++created;
        }
      });
    }
    for (auto& t : threads) t.join();
    ++round;
  }
  state.SetItemsProcessed(created.load());
  server.Stop();
}

void BM_HttpCreatePodMemory(benchmark::State& state) { HttpCreates(state, false); }
void BM_HttpCreatePodSqlite(benchmark::State& state) { HttpCreates(state, true); }
BENCHMARK(BM_HttpCreatePodMemory)->Arg(8)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_HttpCreatePodSqlite)->Arg(8)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace allot
