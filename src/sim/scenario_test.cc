#include "sim/scenario.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

namespace allot::sim {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kBase[] = R"(name: base
duration: 1h
deviceClasses:
- {name: gpu, driver: gpu.example.com}
nodePools:
- name: gpu
  count: 4
  devices: {driver: gpu.example.com, count: 8}
workloads:
- name: train
  count: 10
  arrival: {poisson: 2/m}
  claims: [{deviceClass: gpu, count: 2}]
  runTime: {exponential: 5m}
)";

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

std::string ErrorOf(const std::string& yaml) {
  auto parsed = ParseScenario(yaml, "s.yaml");
  EXPECT_FALSE(parsed.ok()) << yaml;
  return parsed.ok() ? "" : parsed.status().message();
}

TEST(ScenarioTest, ParsesTheFields) {
  auto parsed = ParseScenario(kBase, "s.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->size(), 1u);
  const Scenario& s = (*parsed)[0];
  EXPECT_EQ(s.name, "base");
  EXPECT_EQ(s.duration, std::chrono::hours(1));
  ASSERT_EQ(s.node_pools.size(), 1u);
  ASSERT_TRUE(s.node_pools[0].devices);
  EXPECT_EQ(s.node_pools[0].devices->count, 8);
  const Workload& w = s.workloads[0];
  EXPECT_EQ(w.arrival.kind, Arrival::Kind::kPoisson);
  EXPECT_DOUBLE_EQ(w.arrival.per_second, 2.0 / 60);
  ASSERT_TRUE(w.run_time);
  EXPECT_EQ(w.run_time->kind, DurationDist::Kind::kExponential);
  EXPECT_EQ(w.run_time->a, minutes(5));
  ASSERT_EQ(w.claims.size(), 1u);
  EXPECT_EQ(w.claims[0].count, 2);
}

TEST(ScenarioTest, ErrorsNameTheFileLineColumnAndField) {
  EXPECT_THAT(ErrorOf(Replace(kBase, "count: 10", "count: -3")),
              HasSubstr("s.yaml:11:10: workloads[0].count: must be between 1 and 1000000"));
  EXPECT_THAT(ErrorOf(Replace(kBase, "arrival: {poisson: 2/m}", "arrival: {poisson: fast}")),
              HasSubstr("s.yaml:12:22: workloads[0].arrival.poisson: must be a rate"));
  EXPECT_THAT(ErrorOf(Replace(kBase, "runTime: {exponential: 5m}", "runTime: {gamma: 5m}")),
              HasSubstr("s.yaml:14:13: workloads[0].runTime.gamma: unknown field"));
  EXPECT_THAT(ErrorOf(Replace(kBase, "deviceClass: gpu,", "deviceClass: tpu,")),
              HasSubstr("workloads[0].claims[0].deviceClass: names no device class of the "
                        "scenario: \"tpu\""));
  EXPECT_THAT(ErrorOf(Replace(kBase, "duration: 1h", "duration: soon")),
              HasSubstr("s.yaml:2:11: duration: must be a duration"));
  EXPECT_THAT(ErrorOf(Replace(kBase, "name: base", "name: base\ncolour: blue")),
              HasSubstr("s.yaml:2:1: colour: unknown field"));
  // The device profile's own parser: its message, where the profile starts.
  EXPECT_THAT(ErrorOf(Replace(kBase, "count: 8}", "count: 0}")),
              HasSubstr("s.yaml:8:12: nodePools[0].devices:"));
  EXPECT_THAT(ErrorOf("name: [unclosed"), HasSubstr("s.yaml:1:"));
}

TEST(ScenarioTest, ParsesFaults) {
  auto parsed = ParseScenario(std::string(kBase) + R"(faults:
- {name: rack, at: 20m, nodeLoss: {pool: gpu, count: 2}}
- {name: down, at: 30m, driverOutage: {driver: gpu.example.com, for: 5m}}
)",
                              "s.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const std::vector<Fault>& f = (*parsed)[0].faults;
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].kind, Fault::Kind::kNodeLoss);
  EXPECT_EQ(f[0].at, minutes(20));
  EXPECT_EQ(f[0].pool, "gpu");
  EXPECT_EQ(f[0].count, 2);
  EXPECT_EQ(f[1].kind, Fault::Kind::kDriverOutage);
  EXPECT_EQ(f[1].driver, "gpu.example.com");
  EXPECT_EQ(f[1].lasts, minutes(5));
}

TEST(ScenarioTest, FaultErrorsNameTheLineAndField) {
  auto with = [](const std::string& fault) {
    return ErrorOf(std::string(kBase) + "faults:\n- " + fault + "\n");
  };
  EXPECT_THAT(with("{name: f, at: 2h, nodeLoss: {pool: gpu}}"),
              HasSubstr("s.yaml:16:17: faults[0].at: is after the scenario's duration"));
  EXPECT_THAT(with("{name: f, at: 1m, nodeLoss: {pool: cpu}}"),
              HasSubstr("s.yaml:16:38: faults[0].nodeLoss.pool: no such node pool"));
  EXPECT_THAT(with("{name: f, at: 1m, nodeLoss: {pool: gpu, count: 5}}"),
              HasSubstr("faults[0].nodeLoss.count: is more than the pool's 4 nodes"));
  EXPECT_THAT(with("{name: f, at: 1m}"),
              HasSubstr("faults[0]: must have exactly one of nodeLoss and driverOutage"));
  EXPECT_THAT(with("{name: f, at: 1m, driverOutage: {driver: nic.example.com, for: 1m}}"),
              HasSubstr("faults[0].driverOutage.driver: is not the fabric's, the controller's "
                        "or a node pool's devices' driver"));
  EXPECT_THAT(with("{name: f, at: 1m, driverOutage: {driver: gpu.example.com}}"),
              HasSubstr("faults[0].driverOutage.for: is required"));
  EXPECT_THAT(ErrorOf(std::string(kBase) + R"(faults:
- {name: a, at: 1m, nodeLoss: {pool: gpu, count: 3}}
- {name: b, at: 2m, nodeLoss: {pool: gpu, count: 2}}
- {name: c, at: 1m, driverOutage: {driver: gpu.example.com, for: 5m}}
- {name: d, at: 6m, driverOutage: {driver: gpu.example.com, for: 5m}}
- {name: e, at: 10m, driverOutage: {driver: gpu.example.com, for: 1m}}
)"),
              AllOf(HasSubstr("faults[1].nodeLoss.count: the faults take more than the pool's 4 "
                              "nodes"),
                    Not(HasSubstr("faults[3].driverOutage")),  // 6m: the one before just ended
                    HasSubstr("faults[4].driverOutage: overlaps faults[3]")));
  EXPECT_THAT(with("{name: f, at: 1m, nodeLoss: {pool: gpu}, colour: red}"),
              HasSubstr("faults[0].colour: unknown field"));
}

TEST(ScenarioTest, AControllersLatenciesAreRefused) {
  const std::string err = ErrorOf(std::string(kBase) + R"(controller:
  driver: controller.example.com
  racks: {rack-a: 4}
  answerLatency: 100ms
)");
  EXPECT_THAT(err, HasSubstr("s.yaml:18:18: controller.answerLatency: must be 0s in a scenario"));
  EXPECT_THAT(ErrorOf(std::string(kBase) + "controller: {racks: {}}\n"), HasSubstr("controller: "));
  EXPECT_THAT(
      ErrorOf(std::string(kBase) + "controller: {driver: gpu.example.com, racks: {r: 1}}\n"),
      HasSubstr("controller.driver: is also node pool gpu's devices' driver"));
}

TEST(ScenarioTest, EveryProblemIsReportedAtOnce) {
  std::string yaml = Replace(Replace(kBase, "count: 4", "count: many"), "count: 10", "count: 0");
  const std::string err = ErrorOf(yaml);
  EXPECT_THAT(err, HasSubstr("nodePools[0].count"));
  EXPECT_THAT(err, HasSubstr("workloads[0].count"));
}

TEST(ScenarioTest, VariantsMergeOverTheScenario) {
  const std::string yaml = std::string(kBase) + R"(variants:
- name: baseline
- name: bigger
  nodePools: [{name: gpu, count: 8}]
  workloads: [{name: burst, count: 5, arrival: {at: 10m}}]
)";
  auto parsed = ParseScenario(yaml, "s.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->size(), 2u);
  EXPECT_EQ((*parsed)[0].variant, "baseline");
  EXPECT_EQ((*parsed)[0].node_pools[0].count, 4);
  const Scenario& bigger = (*parsed)[1];
  EXPECT_EQ(bigger.variant, "bigger");
  EXPECT_EQ(bigger.node_pools[0].count, 8);
  ASSERT_TRUE(bigger.node_pools[0].devices);  // merged by name: the devices stay
  ASSERT_EQ(bigger.workloads.size(), 2u);     // a new name is added
  EXPECT_EQ(bigger.workloads[1].arrival.kind, Arrival::Kind::kAt);
  EXPECT_EQ(bigger.workloads[1].arrival.start, minutes(10));
}

TEST(ScenarioTest, AVariantsProblemNamesTheVariant) {
  const std::string yaml = std::string(kBase) + R"(variants:
- name: broken
  fabric: {pools: [{model: a100, count: -1}]}
)";
  const std::string err = ErrorOf(yaml);
  EXPECT_THAT(err, HasSubstr("fabric:"));
  EXPECT_THAT(err, HasSubstr("(variant broken)"));
}

TEST(ScenarioTest, DistributionsSampleWhatTheySay) {
  std::mt19937_64 rng(1);
  DurationDist fixed{DurationDist::Kind::kFixed, seconds(30), {}};
  EXPECT_EQ(fixed.Sample(rng), seconds(30));
  DurationDist uniform{DurationDist::Kind::kUniform, seconds(10), seconds(20)};
  DurationDist lognormal{DurationDist::Kind::kLogNormal, seconds(60), seconds(600)};
  std::vector<int64_t> logs;
  for (int i = 0; i < 2000; ++i) {
    Micros u = uniform.Sample(rng);
    EXPECT_GE(u, seconds(10));
    EXPECT_LE(u, seconds(20));
    logs.push_back(lognormal.Sample(rng).count());
  }
  std::sort(logs.begin(), logs.end());
  // The median and the 99th percentile come out near what was asked (sampling noise aside).
  EXPECT_NEAR(static_cast<double>(logs[1000]) / 1e6, 60, 8);
  EXPECT_NEAR(static_cast<double>(logs[1980]) / 1e6, 600, 200);
}

// Bad input of every shape gets an error, never a crash or an escaped exception: a seeded
// mutation run over a scenario that uses every section (a small in-test fuzzer; the libFuzzer
// targets do not link the simulator, whose dependencies are the whole system).
TEST(ScenarioTest, MutatedFilesGetErrorsNotCrashes) {
  const std::string full = std::string(kBase) + R"(sampleInterval: 30s
seed: 3
fabric: {driver: fabric.example.com, pools: [{model: a100, count: 4}], attachLatency: 5s}
controller: {driver: controller.example.com, racks: {rack-a: 2}, rackLabel: rack}
reservations:
- {name: r, at: 1m, requests: {cpu: "1"}, claims: [{deviceClass: gpu}], owners: {job: x}, ttl: 1h}
faults:
- {name: a, at: 5m, nodeLoss: {pool: gpu, count: 1}}
- {name: b, at: 6m, driverOutage: {driver: fabric.example.com, for: 1m}}
heatmapAt: [10m]
variants:
- name: v1
  fabric: {attachLatency: 1m}
- name: v2
  workloads: [{name: train, count: 3}]
)";
  ASSERT_TRUE(ParseScenario(full, "s.yaml").ok())
      << ParseScenario(full, "s.yaml").status().message();
  const std::string alphabet = "{}[]:,-#&*!|>'\"% \n\tabc019.";
  std::mt19937_64 rng(20261126);
  int rejected = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text = full;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const size_t at = rng() % text.size();
      switch (rng() % 4) {
        case 0:
          text.erase(at, 1 + rng() % 8);
          break;
        case 1:
          text.insert(at, 1, alphabet[rng() % alphabet.size()]);
          break;
        case 2:
          text.insert(at, text.substr(rng() % text.size(), 1 + rng() % 24));
          break;
        default:
          text[at] = alphabet[rng() % alphabet.size()];
      }
    }
    try {
      auto parsed = ParseScenario(text, "s.yaml");
      if (!parsed.ok()) {
        ++rejected;
        EXPECT_EQ(parsed.status().code(), StatusCode::kBadRequest);
        EXPECT_FALSE(parsed.status().message().empty());
      }
    } catch (const std::exception& ex) {
      ADD_FAILURE() << "exception " << ex.what() << " for:\n" << text;
      break;
    }
  }
  EXPECT_GT(rejected, 100);  // the mutations do break files
}

}  // namespace
}  // namespace allot::sim
