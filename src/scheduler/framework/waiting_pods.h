// Pods held at Permit: a Permit plugin answered Wait, so the pod keeps its reservation and its
// binding cycle does not start until every waiting plugin allows it (WaitingPod::Allow), one
// rejects it, or a plugin's timeout passes.
//
// Nothing blocks while a pod waits: the binding stage registers a continuation with OnDone,
// which runs (once) on the thread that ends the wait: the one calling Allow / Reject, or the
// scheduler's housekeeping calling CheckTimeouts.
//
// Thread safety: all methods are thread-safe. Continuations run without locks held.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/framework/status.h"
#include "scheduler/framework/types.h"

namespace allot::scheduler {

// Go's time.Duration.String() for whole milliseconds: "500ms", "10s", "1.5s", "2m0s", "1h0m0s".
std::string GoDurationString(std::chrono::milliseconds d);

class WaitingPod {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  // `timeouts`: the plugins that answered Wait (static names) and how long each may hold the
  // pod, counted from `now`.
  WaitingPod(PodInfoPtr pod, std::string node,
             std::vector<std::pair<std::string_view, std::chrono::milliseconds>> timeouts,
             TimePoint now);

  const PodInfo& pod() const { return *pod_; }
  const std::string& node() const { return node_; }
  std::vector<std::string> pending_plugins() const;

  // The plugin no longer holds the pod; with no plugin left the wait ends with Success.
  void Allow(std::string_view plugin);
  // Ends the wait with Unschedulable(message) from `plugin`.
  void Reject(std::string_view plugin, std::string message);
  // Rejects on behalf of the first plugin whose deadline passed ("rejected due to timeout after
  // waiting 10s at plugin P"). True if that ended the wait.
  bool CheckTimeout(TimePoint now);

  // `done` runs once with the outcome; immediately (on this thread) if the wait already ended.
  void OnDone(std::function<void(Status)> done);

 private:
  void Finish(std::unique_lock<std::mutex>& lock, Status status);

  const PodInfoPtr pod_;
  const std::string node_;
  const TimePoint started_;
  mutable std::mutex mu_;
  std::map<std::string_view, std::chrono::milliseconds> pending_;  // guarded by mu_
  std::optional<Status> result_;                                   // guarded by mu_
  std::function<void(Status)> done_;                               // guarded by mu_
};

// The waiting pods of one framework, by pod uid.
class WaitingPods {
 public:
  void Add(std::shared_ptr<WaitingPod> pod);
  void Remove(const std::string& uid);
  std::shared_ptr<WaitingPod> Get(const std::string& uid) const;
  std::vector<std::shared_ptr<WaitingPod>> List() const;
  // Expires timed-out waits (see WaitingPod::CheckTimeout).
  void CheckTimeouts(WaitingPod::TimePoint now);
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<WaitingPod>> pods_;  // guarded by mu_
};

}  // namespace allot::scheduler
