// Scenario: what `allot sim` runs — the cluster (node pools with devices, a fabric, device
// classes), the workload (pods arriving over time, with claims and run times), reservations,
// and the variants to compare. docs/simulator.md documents the file; in short:
//
//   name: nightly-with-reservation
//   duration: 2h                    # simulated time (Go durations everywhere)
//   sampleInterval: 30s             # the time series' resolution
//   seed: 1                         # arrivals, run times, attach failures; --seed overrides
//   deviceClasses:
//   - {name: gpu, driver: gpu.example.com}
//   nodePools:
//   - name: gpu                     # nodes gpu-0 .. gpu-<count-1>
//     count: 8
//     labels: {tier: gpu}
//     capacity: {cpu: "64", memory: 512Gi}
//     devices: {driver: gpu.example.com, count: 8}    # a device profile (device_profile.h)
//   fabric: {driver: fabric.example.com, pools: [{model: a100, count: 16}], attachLatency: 20s}
//   controller: {driver: controller.example.com, racks: {rack-a: 8}, rackLabel: rack}  # KEP-3063
//   workloads:
//   - name: train
//     count: 200                    # pods in all
//     arrival: {poisson: 2/m}       # or {at: 10m} (all at once), {every: 30s}; start: 0s
//     requests: {cpu: "8", memory: 32Gi}
//     claims: [{deviceClass: gpu, count: 2}]
//     runTime: {exponential: 20m}   # or 20m, {uniform: [10m, 30m]}, {lognormal: {median, p99}}
//     priority: 100
//   reservations:
//   - {name: nightly, at: 0s, requests: {...}, claims: [...], owners: {job: nightly}}
//   faults:
//   - {name: rack, at: 40m, nodeLoss: {pool: gpu, count: 2}}          # gpu-6, gpu-7 vanish
//   - {name: fabric-down, at: 20m, driverOutage: {driver: fabric.example.com, for: 10m}}
//   heatmapAt: [30m, 1h]            # node x device snapshots (default: the end)
//   variants:                       # each is merged over the scenario (maps merge; lists of
//   - name: baseline                #   named items merge by name; other values replace)
//   - name: slow-attach
//     fabric: {attachLatency: 2m}
//
// Errors name the file, line and field of every problem at once:
//   "scenario.yaml:14:12: workloads[0].count: must be a positive integer".
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "drivers/acceleratorpool/config.h"
#include "drivers/fabric/config.h"
#include "drivers/nodelocal/device_profile.h"

namespace allot::sim {

using Micros = std::chrono::microseconds;

// A distribution of durations.
struct DurationDist {
  enum class Kind { kFixed, kUniform, kExponential, kLogNormal };
  Kind kind = Kind::kFixed;
  Micros a{0};  // fixed: the value; uniform: low; exponential: mean; lognormal: median
  Micros b{0};  // uniform: high; lognormal: 99th percentile
  Micros Sample(std::mt19937_64& rng) const;
};

struct ClaimRequest {
  std::string device_class;
  int64_t count = 1;
  std::string selector;  // CEL, "" for none
};

struct NodePool {
  std::string name;
  int64_t count = 0;
  std::map<std::string, std::string> labels;
  std::string taints_yaml;                      // the pool's taints as a YAML list, "" for none
  std::map<std::string, std::string> capacity;  // cpu, memory, pods (quantities)
  std::optional<drivers::DeviceProfile> devices;
};

struct DeviceClassSpec {
  std::string name;
  std::string driver;
  std::string selector;  // CEL, "" for none
};

struct Arrival {
  enum class Kind { kAt, kEvery, kPoisson };
  Kind kind = Kind::kAt;
  Micros start{0};        // kAt: the instant; others: the first possible arrival
  Micros every{0};        // kEvery
  double per_second = 0;  // kPoisson
};

struct Workload {
  std::string name;
  int64_t count = 0;
  Arrival arrival;
  std::map<std::string, std::string> requests;  // cpu, memory
  std::vector<ClaimRequest> claims;
  std::optional<DurationDist> run_time;  // none: the pods run until the end
  std::optional<int32_t> priority;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> node_selector;
};

struct ReservationSpec {
  std::string name;
  Micros at{0};
  std::map<std::string, std::string> requests;
  std::vector<ClaimRequest> claims;
  std::map<std::string, std::string> owners;  // label selector of the pods that may use it
  std::optional<Micros> ttl;
  bool allocate_once = true;
};

// Something that goes wrong at an instant of the run.
struct Fault {
  enum class Kind { kNodeLoss, kDriverOutage };
  std::string name;
  Kind kind = Kind::kNodeLoss;
  Micros at{0};
  // kNodeLoss: the last `count` nodes of `pool` are gone for the rest of the run.
  std::string pool;
  int64_t count = 0;
  // kDriverOutage: `driver` (the fabric's or a node pool's devices') is down for `lasts`.
  std::string driver;
  Micros lasts{0};
};

// One variant after merging: a whole scenario of its own.
struct Scenario {
  std::string name;
  std::string variant;  // the variant's name ("" when the file has none)
  Micros duration{std::chrono::hours(1)};
  Micros sample_interval{std::chrono::seconds(10)};
  uint64_t seed = 1;
  std::vector<DeviceClassSpec> device_classes;
  std::vector<NodePool> node_pools;
  std::optional<drivers::FabricConfig> fabric;
  // A control-plane driver (KEP-3063): claims of its device classes are allocated by its
  // controller, negotiated through PodSchedulingContexts.
  std::optional<drivers::AcceleratorPoolConfig> controller;
  std::string scheduler_config_yaml;  // a scheduler configuration (scheduler/config), "" default
  std::vector<Workload> workloads;
  std::vector<ReservationSpec> reservations;
  std::vector<Fault> faults;
  std::vector<Micros> heatmap_at;  // empty: at the end
};

// Parses and validates a scenario file: one Scenario per variant (one when it has none), in the
// file's order. `file` names the file in errors. 400 listing every problem.
Result<std::vector<Scenario>> ParseScenario(std::string_view yaml, std::string_view file);
// ReadFile(path) then ParseScenario: 400 when the file cannot be read or is invalid.
Result<std::vector<Scenario>> ReadScenarioFile(const std::string& path);

}  // namespace allot::sim
