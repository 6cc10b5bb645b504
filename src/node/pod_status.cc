#include "node/pod_status.h"

#include <algorithm>
#include <utility>

#include "common/go_duration.h"

namespace allot::node {

namespace {

constexpr char kRuntimePrefix[] = "allot-sim://";

// Sets condition `type` to `status`/`reason`, keeping lastTransitionTime when the status did not
// change; appends it when missing.
void SetCondition(std::vector<api::PodCondition>& conds, const std::string& type,
                  const std::string& status, const std::string& reason, Time now) {
  for (api::PodCondition& c : conds) {
    if (c.type != type) continue;
    if (c.status != status || !c.lastTransitionTime) c.lastTransitionTime = now;
    c.status = status;
    c.reason = reason;
    c.message.clear();
    return;
  }
  conds.push_back({.type = type, .status = status, .lastTransitionTime = now, .reason = reason});
}

bool ConditionTrue(const api::Pod& pod, const std::string& type) {
  for (const api::PodCondition& c : pod.status.conditions) {
    if (c.type == type) return c.status == "True";
  }
  return false;
}

std::string ContainerId(const api::Pod& pod, const api::Container& c) {
  return kRuntimePrefix + pod.metadata.uid + "/" + c.name;
}

api::ContainerStatus BaseStatus(const api::Pod& pod, const api::Container& c) {
  api::ContainerStatus s;
  s.name = c.name;
  s.image = c.image;
  s.imageID = kRuntimePrefix + c.image;
  s.containerID = ContainerId(pod, c);
  return s;
}

api::ContainerStatus RunningStatus(const api::Pod& pod, const api::Container& c, Time now) {
  api::ContainerStatus s = BaseStatus(pod, c);
  s.state.running = api::ContainerStateRunning{now};
  s.ready = true;
  s.started = true;
  return s;
}

api::ContainerStatus CompletedStatus(const api::Pod& pod, const api::Container& c,
                                     std::optional<Time> started, Time now) {
  api::ContainerStatus s = BaseStatus(pod, c);
  api::ContainerStateTerminated t;
  t.exitCode = 0;
  t.reason = "Completed";
  t.startedAt = started ? started : std::optional<Time>(now);
  t.finishedAt = now;
  t.containerID = s.containerID;
  s.state.terminated = std::move(t);
  s.ready = false;
  s.started = false;
  return s;
}

// When the container `name` started running, from the previous statuses.
std::optional<Time> StartedAt(const std::vector<api::ContainerStatus>& statuses,
                              const std::string& name) {
  for (const api::ContainerStatus& s : statuses) {
    if (s.name != name) continue;
    if (s.state.running) return s.state.running->startedAt;
    if (s.state.terminated) return s.state.terminated->startedAt;
  }
  return std::nullopt;
}

bool IsSidecar(const api::Container& c) {
  return c.rare->restartPolicy && *c.rare->restartPolicy == "Always";
}

bool ReadinessGatesPass(const api::Pod& pod) {
  return std::all_of(
      pod.spec.rare->readinessGates.begin(), pod.spec.rare->readinessGates.end(),
      [&](const api::PodReadinessGate& g) { return ConditionTrue(pod, g.conditionType); });
}

}  // namespace

std::unique_ptr<api::Pod> RunningPod(const api::Pod& pod, const std::string& host_ip,
                                     const std::string& pod_ip, Time now) {
  auto next = std::make_unique<api::Pod>(pod);
  api::PodStatus& st = next->status;
  now = now.TruncatedToSeconds();
  st.phase = "Running";
  if (!st.startTime) st.startTime = now;
  st.hostIP = host_ip;
  st.hostIPs = {{host_ip}};
  st.podIP = pod.spec.hostNetwork ? host_ip : pod_ip;
  st.podIPs = {{st.podIP}};
  SetCondition(st.conditions, "PodReadyToStartContainers", "True", "", now);
  SetCondition(st.conditions, "Initialized", "True", "", now);
  bool gates = ReadinessGatesPass(pod);
  SetCondition(st.conditions, "Ready", gates ? "True" : "False",
               gates ? "" : "ReadinessGatesNotReady", now);
  SetCondition(st.conditions, "ContainersReady", "True", "", now);
  SetCondition(st.conditions, "PodScheduled", "True", "", now);
  std::vector<api::ContainerStatus> init;
  for (const api::Container& c : pod.spec.initContainers) {
    init.push_back(IsSidecar(c) ? RunningStatus(pod, c, now) : CompletedStatus(pod, c, now, now));
  }
  st.rare.set(&api::PodStatusRare::initContainerStatuses, std::move(init));
  st.containerStatuses.clear();
  for (const api::Container& c : pod.spec.containers) {
    st.containerStatuses.push_back(RunningStatus(pod, c, now));
  }
  return next;
}

std::unique_ptr<api::Pod> SucceededPod(const api::Pod& pod, Time now) {
  auto next = std::make_unique<api::Pod>(pod);
  api::PodStatus& st = next->status;
  now = now.TruncatedToSeconds();
  st.phase = "Succeeded";
  SetCondition(st.conditions, "PodReadyToStartContainers", "False", "", now);
  SetCondition(st.conditions, "Ready", "False", "PodCompleted", now);
  SetCondition(st.conditions, "ContainersReady", "False", "PodCompleted", now);
  std::vector<api::ContainerStatus> init;
  for (const api::Container& c : pod.spec.initContainers) {
    init.push_back(
        CompletedStatus(pod, c, StartedAt(pod.status.rare->initContainerStatuses, c.name), now));
  }
  st.rare.set(&api::PodStatusRare::initContainerStatuses, std::move(init));
  std::vector<api::ContainerStatus> main;
  for (const api::Container& c : pod.spec.containers) {
    main.push_back(CompletedStatus(pod, c, StartedAt(pod.status.containerStatuses, c.name), now));
  }
  st.containerStatuses = std::move(main);
  return next;
}

Result<std::optional<std::chrono::microseconds>> RunDuration(const api::Pod& pod) {
  auto it = pod.metadata.annotations.find(kRunDurationAnnotation);
  if (it == pod.metadata.annotations.end()) return std::optional<std::chrono::microseconds>();
  ALLOT_ASSIGN_OR_RETURN(std::chrono::microseconds d, ParseGoDuration(it->second));
  if (d.count() < 0) {
    return BadRequestError(std::string(kRunDurationAnnotation) + ": negative duration \"" +
                           it->second + "\"");
  }
  return std::optional<std::chrono::microseconds>(d);
}

std::chrono::seconds GracePeriod(const api::Pod& pod) {
  int64_t s = kDefaultGracePeriodSeconds;
  if (pod.metadata.rare->deletionGracePeriodSeconds) {
    s = *pod.metadata.rare->deletionGracePeriodSeconds;
  } else if (pod.spec.terminationGracePeriodSeconds) {
    s = *pod.spec.terminationGracePeriodSeconds;
  }
  return std::chrono::seconds(std::max<int64_t>(s, 0));
}

}  // namespace allot::node
