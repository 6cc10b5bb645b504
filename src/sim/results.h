// What one run of a scenario (one variant) measured: the time series, the per-pod waits, the
// heat maps and the summary. The JSON (--json) and the HTML report are written from this.
// Times are seconds of simulated time since the scenario started.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace allot::sim {

// The cluster at one instant (every sampleInterval, and at the end).
struct Sample {
  double t = 0;
  int64_t pending = 0;          // created, not yet bound to a node
  int64_t running = 0;          // bound, not finished
  int64_t completed = 0;        // finished (Succeeded), cumulative
  int64_t scheduled = 0;        // bound since the start, cumulative
  int64_t preempted = 0;        // evicted by the scheduler to make room, cumulative
  int64_t attach_waiting = 0;   // claims whose devices wait on binding conditions (attach)
  int64_t attach_failures = 0;  // attaches that failed, cumulative
  std::map<std::string, double> utilisation;    // device class -> allocated / the class's devices
  std::map<std::string, int64_t> reservations;  // phase -> count
};

// Which devices are allocated, node by node, at one instant.
struct Heatmap {
  double t = 0;
  std::vector<std::string> rows;     // node names, then fabric pools ("fabric/<pool>")
  std::vector<std::string> columns;  // device names of the widest row
  // cells[row][column]: 0 free, 1 allocated to a pod's claim, 2 held by a reservation,
  // -1 no such device in this row.
  std::vector<std::vector<int>> cells;
};

// The figures of one workload's pods (the scenario's workloads, by name).
struct WorkloadSummary {
  int64_t pods = 0, scheduled = 0, unschedulable = 0, completed = 0, preempted = 0, lost = 0;
  double wait_p50 = 0, wait_p90 = 0, wait_p99 = 0, wait_max = 0;  // created -> bound
};

struct Summary {
  int64_t pods = 0;           // created
  int64_t scheduled = 0;      // bound at least once
  int64_t unschedulable = 0;  // still pending at the end
  int64_t completed = 0;
  int64_t preempted = 0;
  int64_t lost = 0;                // deleted with their node (faults) before they finished
  std::optional<double> makespan;  // when the last pod finished, if all did
  double wait_p50 = 0, wait_p90 = 0, wait_p99 = 0, wait_max = 0;  // created -> bound, bound pods
  std::map<std::string, double> utilisation;  // device class -> time-averaged utilisation
  int64_t attaches = 0, attach_failures = 0;
  double attach_wait_p50 = 0, attach_wait_p99 = 0;  // allocated -> devices ready
  double wall_seconds = 0;                          // how long the run took
  double simulated_seconds = 0;
  std::map<std::string, WorkloadSummary> workloads;  // by workload name
};

struct VariantResult {
  std::string name;  // the variant ("" when the scenario has none)
  Summary summary;
  std::vector<Sample> samples;
  std::vector<double> waits;         // created -> bound of every bound pod, sorted
  std::vector<double> attach_waits;  // allocated -> ready of every attached claim, sorted
  std::vector<Heatmap> heatmaps;
  std::vector<std::string> device_classes;  // the series of Sample::utilisation, in order
};

struct SimResult {
  std::string scenario;
  uint64_t seed = 0;
  double duration = 0;  // simulated seconds
  std::vector<VariantResult> variants;
};

}  // namespace allot::sim
