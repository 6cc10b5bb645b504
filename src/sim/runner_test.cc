#include "sim/runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/report.h"

namespace allot::sim {
namespace {

using ::testing::HasSubstr;

// Node-local GPUs, fabric GPUs that take 20 s to attach, and more demand than devices, so pods
// queue, wait on binding conditions and retry: every path whose timing could vary between runs.
constexpr char kScenario[] = R"(name: small
duration: 30m
sampleInterval: 30s
seed: 7
deviceClasses:
- {name: gpu, driver: gpu.example.com}
- {name: fabric-gpu, driver: fabric.example.com}
nodePools:
- name: gpu
  count: 4
  capacity: {cpu: "32", memory: 256Gi}
  devices: {driver: gpu.example.com, count: 4}
fabric:
  driver: fabric.example.com
  pools: [{model: a100, count: 4}]
  attachLatency: 20s
workloads:
- name: train
  count: 40
  arrival: {poisson: 2/m}
  requests: {cpu: "4", memory: 16Gi}
  claims: [{deviceClass: gpu, count: 2}]
  runTime: {exponential: 5m}
- name: infer
  count: 10
  arrival: {every: 2m, start: 1m}
  claims: [{deviceClass: fabric-gpu}]
  runTime: 4m
heatmapAt: [10m]
)";

Scenario Parse(uint64_t seed) {
  auto parsed = ParseScenario(kScenario, "small.yaml");
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  Scenario s = (*parsed)[0];
  s.seed = seed;
  return s;
}

std::string Json(const Scenario& s) {
  auto run = RunScenario(s, {});
  EXPECT_TRUE(run.ok()) << run.status().message();
  SimResult result;
  result.scenario = s.name;
  result.seed = s.seed;
  result.variants.push_back(std::move(run).value());
  return ResultJson(result);
}

TEST(RunnerTest, RunsTheScenarioOnTheRealComponents) {
  auto run = RunScenario(Parse(7), {});
  ASSERT_TRUE(run.ok()) << run.status().message();
  const Summary& s = run->summary;
  EXPECT_EQ(s.pods, 50);
  EXPECT_GT(s.scheduled, 30);
  EXPECT_GT(s.completed, 20);
  EXPECT_EQ(s.simulated_seconds, 1800);
  // Every fabric pod waited 20 s for its device to attach before it was bound.
  EXPECT_GT(s.attaches, 0);
  EXPECT_DOUBLE_EQ(s.attach_wait_p50, 20);
  EXPECT_GE(s.wait_p99, 20);
  ASSERT_EQ(run->samples.size(), 61u);  // 0, 30 s, ..., 30 min
  EXPECT_GT(s.utilisation.at("gpu"), 0.3);
  ASSERT_EQ(run->heatmaps.size(), 1u);
  EXPECT_EQ(run->heatmaps[0].rows.size(), 5u);  // four nodes, one fabric pool
}

// Fabric pods start once their device is attached (the fabric's kubelet plugin accepts it),
// finish, and free the device: all ten infer pods complete, each after waiting for its attach.
TEST(RunnerTest, FabricPodsRunAndFinish) {
  auto run = RunScenario(Parse(7), {});
  ASSERT_TRUE(run.ok()) << run.status().message();
  const Summary& s = run->summary;
  ASSERT_EQ(s.workloads.size(), 2u);
  const WorkloadSummary& infer = s.workloads.at("infer");
  EXPECT_EQ(infer.pods, 10);
  EXPECT_EQ(infer.completed, 10);
  EXPECT_GE(infer.wait_p50, 20);
  const WorkloadSummary& train = s.workloads.at("train");
  EXPECT_EQ(train.pods, 40);
  EXPECT_EQ(train.scheduled + train.unschedulable, 40);  // none deleted or preempted
}

// Two GPU nodes vanish at 10 min and the fabric driver is down from 12 to 20 min: the pods on
// the lost nodes are replaced and run elsewhere, fabric pods wait out the outage, and the run
// still repeats exactly.
TEST(RunnerTest, FaultsLoseNodesAndStopDrivers) {
  Scenario s = Parse(7);
  s.faults.push_back({.name = "rack",
                      .kind = Fault::Kind::kNodeLoss,
                      .at = std::chrono::minutes(10),
                      .pool = "gpu",
                      .count = 2});
  s.faults.push_back({.name = "fabric-down",
                      .kind = Fault::Kind::kDriverOutage,
                      .at = std::chrono::minutes(12),
                      .driver = "fabric.example.com",
                      .lasts = std::chrono::minutes(8)});
  s.heatmap_at = {std::chrono::minutes(30)};
  auto healthy = RunScenario(Parse(7), {});
  auto run = RunScenario(s, {});
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_TRUE(healthy.ok());
  const Summary& f = run->summary;
  EXPECT_GT(f.lost, 0);
  EXPECT_EQ(healthy->summary.lost, 0);
  EXPECT_EQ(f.pods, 50 + f.lost);  // each lost pod was replaced
  // Nothing is allocated on the lost nodes afterwards (heat map at 10 min is before).
  const Sample& late = run->samples.back();
  EXPECT_LE(late.utilisation.at("gpu"), 0.5 + 1e-9);  // 8 of 16 GPUs remain
  // The fabric pods that arrived during the outage waited for it to end.
  EXPECT_GT(f.workloads.at("infer").wait_max, healthy->summary.workloads.at("infer").wait_max);
  EXPECT_GE(f.workloads.at("infer").wait_max, 4 * 60);
  // Nothing is held on the lost nodes at the end: their pods (even one whose binding was under
  // way when the node went) were deleted and their claims released.
  ASSERT_EQ(run->heatmaps.size(), 1u);
  const Heatmap& end = run->heatmaps[0];
  for (size_t r = 0; r < end.rows.size(); ++r) {
    if (end.rows[r] != "gpu-2" && end.rows[r] != "gpu-3") continue;
    for (int c : end.cells[r]) EXPECT_EQ(c, 0) << end.rows[r];
  }
  EXPECT_EQ(Json(s), Json(s));
}

// A control-plane driver (KEP-3063) in the run: its claims are allocated by its controller
// through PodSchedulingContexts, on the virtual clock, and repeat exactly.
TEST(RunnerTest, AControlPlaneDriverAllocatesThroughItsController) {
  constexpr char kControlled[] = R"(name: controlled
duration: 30m
sampleInterval: 30s
seed: 3
deviceClasses:
- {name: gpu, driver: gpu.example.com}
- {name: accelerator, driver: controller.example.com}
nodePools:
- {name: a, count: 2, labels: {rack: rack-a}, devices: {driver: gpu.example.com, count: 1}}
- {name: b, count: 2, labels: {rack: rack-b}, devices: {driver: gpu.example.com, count: 1}}
controller:
  driver: controller.example.com
  rackLabel: rack
  racks: {rack-a: 3, rack-b: 1}
  perNodeLimit: 2
workloads:
- name: offload
  count: 20
  arrival: {every: 1m}
  claims: [{deviceClass: accelerator}]
  runTime: 3m
heatmapAt: [5m]
)";
  auto parsed = ParseScenario(kControlled, "controlled.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  auto run = RunScenario((*parsed)[0], {});
  ASSERT_TRUE(run.ok()) << run.status().message();
  const WorkloadSummary& w = run->summary.workloads.at("offload");
  EXPECT_EQ(w.pods, 20);
  EXPECT_EQ(w.completed, 20);
  // Three pods run at once on 4 accelerators: the controller frees them as pods finish.
  EXPECT_NEAR(run->summary.utilisation.at("accelerator"), 0.6, 0.15);
  const Heatmap& h = run->heatmaps.at(0);
  ASSERT_EQ(h.rows.size(), 6u);  // four nodes, two racks
  EXPECT_EQ(h.rows[4], "rack/rack-a");
  int held = 0;
  for (size_t r = 4; r < 6; ++r) {
    for (int c : h.cells[r]) held += c == 1;
  }
  EXPECT_EQ(held, 3);
  EXPECT_EQ(Json((*parsed)[0]), Json((*parsed)[0]));
}

TEST(RunnerTest, TheSameSeedGivesTheSameNumbers) {
  const std::string first = Json(Parse(7));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(Json(Parse(7)), first) << "run " << i;
}

TEST(RunnerTest, AnotherSeedGivesOtherNumbers) { EXPECT_NE(Json(Parse(7)), Json(Parse(8))); }

TEST(RunnerTest, TheReportHasEveryPlot) {
  auto run = RunScenario(Parse(7), {});
  ASSERT_TRUE(run.ok()) << run.status().message();
  SimResult result;
  result.scenario = "small";
  result.variants.push_back(std::move(run).value());
  const std::string html = ResultHtml(result);
  for (const char* plot :
       {"pending", "throughput", "wait-cdf", "utilisation-gpu", "utilisation-fabric-gpu", "heatmap",
        "attach-waiting", "attach-failures", "attach-cdf", "reservations", "preemptions"}) {
    EXPECT_THAT(html, HasSubstr(std::string("data-plot=\"") + plot + "\"")) << plot;
  }
  EXPECT_THAT(html, HasSubstr("data-series=\"scenario\""));
  EXPECT_EQ(html.find("http"), std::string::npos);  // nothing from the network
}

}  // namespace
}  // namespace allot::sim
