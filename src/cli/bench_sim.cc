// `allot bench Simulator/SCENARIO`: how fast `allot sim` runs, in simulated seconds per wall
// second. SCENARIO is a scenario file, or the name of one in examples/sim/ (looked up from the
// working directory: `Simulator/ten-thousand-pods`). Each variant runs `kRuns` times; the
// median and the spread are reported, with pods per wall second. Single-threaded by design
// (the runner drives one scheduling cycle at a time so that runs repeat), so the figure is
// bounded by the per-pod work of the components and the hand-offs between their threads.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "common/files.h"
#include "sim/runner.h"
#include "sim/scenario.h"

namespace allot::cli {

namespace {

constexpr int kRuns = 3;

std::string ScenarioPath(const std::string& name) {
  if (name.ends_with(".yaml") || name.ends_with(".yml")) return name;
  return "examples/sim/" + name + ".yaml";
}

}  // namespace

int RunSimBench(const std::string& workload, const std::string& out) {
  const std::string path = ScenarioPath(workload.substr(workload.find('/') + 1));
  auto scenarios = sim::ReadScenarioFile(path);
  if (!scenarios.ok()) {
    std::fprintf(stderr,
                 "allot bench: %s (Simulator/NAME runs examples/sim/NAME.yaml from the "
                 "repository's root, or give a .yaml path)\n",
                 scenarios.status().message().c_str());
    return 2;
  }
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> json(buf);
  json.StartObject();
  json.Key("workload");
  json.String(workload.c_str());
  json.Key("variants");
  json.StartArray();
  std::printf("workload: %s  (%d runs per variant)\n", workload.c_str(), kRuns);
  for (const sim::Scenario& s : *scenarios) {
    std::vector<double> walls;
    int64_t pods = 0;
    const double simulated = std::chrono::duration<double>(s.duration).count();
    for (int i = 0; i < kRuns; ++i) {
      auto run = sim::RunScenario(s, {});
      if (!run.ok()) {
        std::fprintf(stderr, "allot bench: %s\n", run.status().message().c_str());
        return 1;
      }
      walls.push_back(run->summary.wall_seconds);
      pods = run->summary.pods;
    }
    std::sort(walls.begin(), walls.end());
    const double median = walls[walls.size() / 2];
    const std::string name = s.variant.empty() ? s.name : s.variant;
    std::printf(
        "%-24s %6.0f simulated s in %6.2f wall s (median; %.2f-%.2f): %7.0f simulated s per "
        "wall s, %6.0f pods per wall s (%lld pods)\n",
        name.c_str(), simulated, median, walls.front(), walls.back(), simulated / median,
        static_cast<double>(pods) / median, static_cast<long long>(pods));
    json.StartObject();
    json.Key("name"), json.String(name.c_str());
    json.Key("simulated_seconds"), json.Double(simulated);
    json.Key("wall_seconds_median"), json.Double(median);
    json.Key("wall_seconds_min"), json.Double(walls.front());
    json.Key("wall_seconds_max"), json.Double(walls.back());
    json.Key("simulated_per_wall_second"), json.Double(simulated / median);
    json.Key("pods"), json.Int64(pods);
    json.Key("pods_per_wall_second"), json.Double(static_cast<double>(pods) / median);
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  if (!out.empty()) {
    const std::string text = std::string(buf.GetString(), buf.GetSize()) + "\n";
    if (Status st = WriteFileAtomically(out, text, 0644); !st.ok()) {
      std::fprintf(stderr, "allot bench: --out: %s\n", st.message().c_str());
      return 1;
    }
  }
  return 0;
}

}  // namespace allot::cli
