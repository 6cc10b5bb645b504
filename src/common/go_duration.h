// Go's time.ParseDuration, for durations written in annotations the way Kubernetes users write
// them ("30s", "1m30s", "1.5h", "250ms").
#pragma once

#include <chrono>
#include <string_view>

#include "common/status.h"

namespace allot {

// A sequence of decimal numbers, each with an optional fraction and a unit suffix: "ns", "us"
// (or "µs", "μs"), "ms", "s", "m", "h"; an optional leading sign; "0" alone is allowed.
// Returns microseconds (sub-microsecond parts are truncated). Errors (kBadRequest) carry Go's
// message: `time: invalid duration "abc"`, `time: missing unit in duration "30"`,
// `time: unknown unit "d" in duration "1d"`.
Result<std::chrono::microseconds> ParseGoDuration(std::string_view text);

}  // namespace allot
