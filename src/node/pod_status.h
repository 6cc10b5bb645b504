// The pod statuses a simulated kubelet writes: Running (all containers up and ready) and
// finished (every container terminated with exit code 0, phase Succeeded). Pure functions;
// thread-safe.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "api/core/types.h"
#include "common/status.h"
#include "common/time.h"

namespace allot::node {

// The pod annotation holding how long the pod runs before it succeeds (a Go duration).
inline constexpr char kRunDurationAnnotation[] = "allot.dev/run-duration";
// Kubernetes' default terminationGracePeriodSeconds.
inline constexpr int64_t kDefaultGracePeriodSeconds = 30;

// A copy of `pod` (resourceVersion kept) with status: phase Running, startTime, hostIP(s),
// podIP(s), conditions PodReadyToStartContainers / Initialized / ContainersReady / Ready True
// (Ready False with reason ReadinessGatesNotReady while a readiness gate is not True) and
// PodScheduled True, init containers terminated (Completed; sidecars running), containers running
// and ready since `now`. Conditions other than those are kept.
std::unique_ptr<api::Pod> RunningPod(const api::Pod& pod, const std::string& host_ip,
                                     const std::string& pod_ip, Time now);

// A copy of `pod` with phase Succeeded: every container (and sidecar) terminated, exit code 0,
// reason Completed, finishedAt `now`; Ready and ContainersReady False with reason PodCompleted.
std::unique_ptr<api::Pod> SucceededPod(const api::Pod& pod, Time now);

// The run-duration annotation: nullopt when absent; an error when it is not a valid,
// non-negative Go duration.
Result<std::optional<std::chrono::microseconds>> RunDuration(const api::Pod& pod);

// How long the pod may take to stop: metadata.deletionGracePeriodSeconds, else
// spec.terminationGracePeriodSeconds, else 30 s; never negative.
std::chrono::seconds GracePeriod(const api::Pod& pod);

}  // namespace allot::node
