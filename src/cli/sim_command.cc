// `allot sim SCENARIO.yaml --report out.html [--json out.json] [--seed N] [--variant NAME]`:
// runs each variant of a scenario on a virtual clock (sim/runner.h) and writes the report.
#include <cstdio>

#include "common/files.h"
#include "common/flags.h"
#include "sim/report.h"
#include "sim/runner.h"
#include "sim/scenario.h"

namespace allot::cli {

int RunSim(int argc, char** argv) {
  std::string report, json, variant;
  int64_t seed = -1;
  bool quiet = false;
  Flags flags("allot sim SCENARIO.yaml",
              "Runs a scenario's variants on the real scheduler, controllers, drivers and "
              "simulated nodes on a virtual clock, and writes an HTML report with plots "
              "(docs/simulator.md).");
  flags.String("report", &report, "the HTML report to write");
  flags.String("json", &json, "the same numbers as JSON, for scripts");
  flags.Int("seed", &seed, "overrides the scenario's seed (arrivals, run times, failures)");
  flags.String("variant", &variant, "run only this variant");
  flags.Bool("quiet", &quiet, "no progress lines on stderr");
  if (auto exit_code = flags.ParseOrExit(argc, argv)) return *exit_code;
  if (flags.positional().size() != 1) {
    return flags.UsageError("want one scenario file");
  }
  if (report.empty() && json.empty()) {
    return flags.UsageError("--report or --json is required");
  }
  const std::string& path = flags.positional()[0];
  auto scenarios = sim::ReadScenarioFile(path);
  if (!scenarios.ok()) {
    std::fprintf(stderr, "allot sim: %s\n", scenarios.status().message().c_str());
    return 1;
  }
  sim::SimResult result;
  for (sim::Scenario& s : *scenarios) {
    if (seed >= 0) s.seed = static_cast<uint64_t>(seed);
    if (!variant.empty() && s.variant != variant) continue;
    result.scenario = s.name.empty() ? path : s.name;
    result.seed = s.seed;
    result.duration = std::chrono::duration<double>(s.duration).count();
    sim::RunOptions opts;
    if (!quiet) {
      opts.log = [](std::string_view line) {
        std::fprintf(stderr, "allot sim: %.*s\n", static_cast<int>(line.size()), line.data());
      };
    }
    auto run = sim::RunScenario(s, opts);
    if (!run.ok()) {
      std::fprintf(stderr, "allot sim: %s%s\n", s.variant.empty() ? "" : (s.variant + ": ").c_str(),
                   run.status().message().c_str());
      return 1;
    }
    const sim::Summary& sum = run->summary;
    std::fprintf(stderr,
                 "allot sim: %s%lld pods, %lld scheduled, %lld unschedulable; wait p50 %.1f s "
                 "p99 %.1f s; %.0f simulated s in %.2f wall s\n",
                 s.variant.empty() ? "" : (s.variant + ": ").c_str(),
                 static_cast<long long>(sum.pods), static_cast<long long>(sum.scheduled),
                 static_cast<long long>(sum.unschedulable), sum.wait_p50, sum.wait_p99,
                 sum.simulated_seconds, sum.wall_seconds);
    result.variants.push_back(std::move(run).value());
  }
  if (result.variants.empty()) {
    std::fprintf(stderr, "allot sim: the scenario has no variant \"%s\"\n", variant.c_str());
    return 1;
  }
  if (!report.empty()) {
    if (Status st = WriteFileAtomically(report, sim::ResultHtml(result), 0644); !st.ok()) {
      std::fprintf(stderr, "allot sim: %s\n", st.message().c_str());
      return 1;
    }
  }
  if (!json.empty()) {
    if (Status st = WriteFileAtomically(json, sim::ResultJson(result), 0644); !st.ok()) {
      std::fprintf(stderr, "allot sim: %s\n", st.message().c_str());
      return 1;
    }
  }
  return 0;
}

}  // namespace allot::cli
