// Running a scenario: the system's own components — the store (memory), the garbage collector,
// the controllers, the scheduler, simulated nodes with their devices, the fabric driver and a
// control-plane (KEP-3063) driver —
// assembled as `allot serve` assembles them but without HTTP, on a SimClock (sim/clock.h).
//
//   ALLOT_ASSIGN_OR_RETURN(auto scenarios, ParseScenario(text, "s.yaml"));
//   ALLOT_ASSIGN_OR_RETURN(VariantResult r, RunScenario(scenarios[0], {}));
//
// The driver (this thread) owns time. Its loop:
//   1. wait until nothing is in flight (every hand-off between components counted);
//   2. run one scheduling cycle if a pod is ready (the scheduler has no loop thread of its own
//      here, so each cycle sees everything that happened before it: the run repeats exactly);
//   3. else wake the next component whose deadline has come (attach done, pod finished, backoff
//      over), one at a time;
//   4. else do what the scenario says happens now (pods arrive, reservations are made, samples
//      and heat maps are taken);
//   5. else jump to the earliest next deadline.
#pragma once

#include <chrono>
#include <functional>
#include <string_view>

#include "common/status.h"
#include "sim/results.h"
#include "sim/scenario.h"

namespace allot::sim {

struct RunOptions {
  // A component that holds work it never finishes stops the run after this much wall time.
  std::chrono::milliseconds stall_timeout{std::chrono::seconds(60)};
  // Progress lines ("train: 200 pods created"); null: silent.
  std::function<void(std::string_view)> log;
};

// Runs `scenario` from start to its duration. Errors: a component failed to start (named), an
// object of the scenario was rejected, or the run stalled.
Result<VariantResult> RunScenario(const Scenario& scenario, const RunOptions& options);

}  // namespace allot::sim
