#include <gtest/gtest.h>
#include <chrono>
#include "scheduler/scheduler.h"
#include "scheduler/testing_builders.h"
#include "scheduler/testing_fake_client.h"
namespace allot::scheduler {
namespace {
TEST(AdhocPerf, FiveThousandNodesTenThousandPods) {
  testing::FakeClient client;
  SchedulerOptions opts;
  opts.seed = 1;
  if (getenv("PAR")) opts.config.parallelism = atoi(getenv("PAR"));
  struct NullSink : EventSink { void Record(const api::Pod&, std::string_view, std::string_view, std::string_view, std::string) override {} } sink;
  opts.events = &sink;
  auto s = Scheduler::Create(client, std::move(opts));
  ASSERT_TRUE(s.ok());
  auto& sched = **s;
  for (int i = 0; i < 5000; ++i) sched.OnNodeAdd(testing::NodeBuilder("n" + std::to_string(i)).Cap("32", "64Gi", 110).Build());
  for (int i = 0; i < 10000; ++i) sched.OnPodAdd(testing::PodBuilder("p" + std::to_string(i)).Req("100m", "128Mi").Build());
  auto start = std::chrono::steady_clock::now();
  int n = 0;
  while (sched.ScheduleOne(std::chrono::milliseconds(0))) ++n;
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  printf("scheduled %d pods in %.3fs: %.0f pods/s, bindings %zu\n", n, secs, n / secs, client.bindings().size());
}
}
}
