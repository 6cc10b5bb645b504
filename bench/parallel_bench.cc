// The scheduling cycle's data-parallel loops (Parallelizer::Until): whether the tuner finds the
// helper count that pays for a loop's work. Run: build/bench/allot_bench --benchmark_filter=Parallel
//
// Each iteration is one loop of 300 items (a Filter over 300 nodes). The counter `helpers`
// is the count the tuner settled on by the end; compare the times with the inline rows.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>

#include "scheduler/framework/parallel.h"

namespace allot::scheduler {
namespace {

// About `ns` nanoseconds of arithmetic that the compiler cannot drop.
void Work(int64_t ns) {
  uint64_t x = 88172645463325252ull;
  for (int64_t i = 0; i < ns; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  benchmark::DoNotOptimize(x);
}

// range(0): the work per item (loop iterations, about 1 ns each); range(1): the parallelism
// bound (1: inline).
void BM_ParallelizerUntil(benchmark::State& state) {
  const int64_t per_item = state.range(0);
  const int parallelism = static_cast<int>(state.range(1));
  Parallelizer par(parallelism);
  for (auto _ : state) {
    par.Until(300, [&](int) { Work(per_item); });
  }
  state.counters["helpers"] = par.helpers();
  state.SetItemsProcessed(state.iterations() * 300);
}
// Light items (about 50 ns, a cheap filter) and heavy ones (about 5 us, a device search), inline
// and with the machine's cores as the bound.
BENCHMARK(BM_ParallelizerUntil)
    ->ArgsProduct({{50, 5000}, {1, static_cast<int64_t>(std::max(2u, std::thread::hardware_concurrency()))}})
    ->MinTime(2.0)
    ->UseRealTime();

}  // namespace
}  // namespace allot::scheduler
