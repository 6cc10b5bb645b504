// The pod status patches the scheduler and its plugins send (strategic merge, status
// subresource): one condition, merged by type (PodScheduled after a failed attempt,
// DisruptionTarget on a preemption victim), and nominatedNodeName. The one place their JSON is
// written.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace allot::scheduler {

struct PodConditionChange {
  std::string_view type;
  std::string_view status;  // True | False
  std::string_view reason;
  std::string_view message;
  std::string_view last_transition_time;  // RFC 3339
};

// {"status":{"conditions":[<condition, lastProbeTime null>],"nominatedNodeName":<node>}}: the
// condition when given, nominatedNodeName when `nominated` is set ("" clears it).
std::string PodStatusPatch(const PodConditionChange* condition,
                           const std::optional<std::string>& nominated);

}  // namespace allot::scheduler
