// The scheduling framework's extension points: one small interface per point (the Kubernetes
// scheduling framework, KEP-624). A plugin derives from the interfaces of the points it
// implements; the framework discovers them once, when the profile is built.
//
//   queue:      PreEnqueue, QueueSort, EnqueueExtensions (events + queueing hints)
//   scheduling: PreFilter (+ PreFilterExtensions), Filter, PostFilter, PreScore, Score
//               (+ NormalizeScore), Reserve/Unreserve, Permit
//   binding:    PreBind, Bind, PostBind
//
// Threading contracts:
//  - Filter and Score are called concurrently for different nodes of the same pod: they are
//    const, read CycleState only, and must not block.
//  - Everything else in the scheduling cycle runs on the scheduling thread, one pod at a time.
//  - The binding cycle of a pod (PreBind, Bind, PostBind, and Unreserve after a failure) runs on
//    a binding worker, concurrently with other pods' binding and with later scheduling cycles.
//    A plugin that keeps state across both must lock it.
//  - Plugin names are static strings (Status keeps a string_view of them).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/events.h"
#include "scheduler/framework/nominator.h"
#include "scheduler/framework/snapshot.h"
#include "scheduler/framework/status.h"
#include "scheduler/framework/types.h"

namespace allot {
class Clock;
}  // namespace allot

namespace allot::client {
class Client;
class EventRecorder;
class InformerFactory;
}  // namespace allot::client

namespace allot::scheduler {

class WaitingPods;
class Nominator;
class Parallelizer;
class SchedulerMetrics;
class ReservationLedger;

// Annotations a plugin wants on the pod when it is bound: the Bind plugin sends them with the
// Binding, so they land in the same write as spec.nodeName (the API server merges a Binding's
// annotations into the pod). The Reservation plugin's reservation-allocated goes this way, so
// a pod is never bound without saying which reservation it draws from.
struct BindingAnnotations {
  std::vector<std::pair<std::string, std::string>> items;
};
inline const StateKey<BindingAnnotations> kBindingAnnotationsKey("BindingAnnotations");

// A pod in the scheduling queue, with its scheduling history.
struct QueuedPodInfo {
  PodInfoPtr pod_info;
  // When the pod was (last) added to the queue: the activeQ tie-breaker.
  std::chrono::steady_clock::time_point timestamp;
  // When the pod was first popped for scheduling (for the attempt latency metric).
  std::optional<std::chrono::steady_clock::time_point> initial_attempt_timestamp;
  int attempts = 0;             // scheduling attempts so far
  int unschedulable_count = 0;  // attempts that ended unschedulable (drives backoff)
  int consecutive_errors = 0;   // attempts that ended in an error (drives backoff too)
  // Plugins that rejected the pod in its last attempt (Unschedulable*), or left it Pending.
  std::vector<std::string> unschedulable_plugins;
  std::vector<std::string> pending_plugins;
  // Rejected by a PreEnqueue plugin: waits among the unschedulable pods, never backed off.
  bool gated = false;
  std::string gating_plugin;

  const api::Pod& pod() const { return *pod_info->pod; }
};

// The result of PreFilter: the nodes worth filtering at all (nullopt: all of them).
struct PreFilterResult {
  std::optional<std::vector<std::string>> node_names;  // sorted, unique
  bool AllNodes() const { return !node_names.has_value(); }
  // Intersection with another plugin's result.
  void Merge(const PreFilterResult& other);
};

// Per-node filter verdicts of one attempt. Nodes never checked (not in a PreFilterResult, or
// past the early stop) are "absent" and share one status.
class NodeToStatus {
 public:
  void Set(const NodeInfo* node, Status status) { explicit_.emplace_back(node, std::move(status)); }
  void set_absent(Status status) { absent_ = std::move(status); }
  const std::vector<std::pair<const NodeInfo*, Status>>& explicit_statuses() const {
    return explicit_;
  }
  const Status& absent() const { return absent_; }
  size_t size() const { return explicit_.size(); }
  void clear() {
    explicit_.clear();
    absent_ = Status();
  }

 private:
  std::vector<std::pair<const NodeInfo*, Status>> explicit_;
  Status absent_;
};

// What plugins get from the framework that runs them.
class Handle {
 public:
  virtual ~Handle() = default;
  virtual std::string_view profile_name() const = 0;
  // The current cycle's snapshot (scheduling thread only; Filter/Score may read it).
  virtual const Snapshot& snapshot() const = 0;
  // The API client; nullptr in unit tests that run without one.
  virtual client::Client* client() const = 0;
  // The process's shared informers (claims, slices, classes ...); nullptr in unit tests that run
  // without a client. Plugins add handlers and indexes when they are built; the scheduler
  // starts the informers and waits for their sync before it schedules.
  virtual client::InformerFactory* informers() const = 0;
  virtual Clock& clock() const = 0;
  virtual WaitingPods& waiting_pods() = 0;
  // Where plugins record Events about pods (BindingConditionsPending); may be null.
  virtual client::EventRecorder* events() const = 0;
  // The scheduler's metrics; may be null (unit tests).
  virtual SchedulerMetrics* metrics() const = 0;
  // Where a plugin records which reservation an assumed pod draws from (the scheduler's cache);
  // nullptr in unit tests that run without one.
  virtual ReservationLedger* reservation_ledger() const = 0;
  // The pods preemption nominated to nodes; nullptr in unit tests that run without one.
  virtual Nominator* nominator() const = 0;
  // This profile's plugins, for dry runs that add or remove pods on a copy of a node
  // (preemption): see the Framework's methods of the same names.
  virtual Status RunFilterPluginsWithNominatedPods(const CycleState& state, const PodInfo& pod,
                                                   const NodeInfo& node,
                                                   const NominatedPods* nominated) const = 0;
  virtual Status RunPreFilterExtensionAddPod(CycleState& state, const PodInfo& pod,
                                             const PodInfo& added, const NodeInfo& node) const = 0;
  virtual Status RunPreFilterExtensionRemovePod(CycleState& state, const PodInfo& pod,
                                                const PodInfo& removed,
                                                const NodeInfo& node) const = 0;
  virtual Parallelizer& parallelizer() const = 0;
  // Moves a pod that waits among the unschedulable pods to the active queue now (kube's
  // Handle.Activate), e.g. when a plugin's own deadline for it passed. False when the pod is not
  // waiting there (in flight, bound, deleted) or there is no queue (unit tests).
  virtual bool Activate(const std::string& pod_uid) = 0;
};

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view Name() const = 0;
};

// Runs when a pod is added to the queue: a rejection keeps it out of the active queue (gated)
// until an update to the pod lets it pass.
class PreEnqueuePlugin : public virtual Plugin {
 public:
  virtual Status PreEnqueue(const api::Pod& pod) const = 0;
};

// Orders the active queue. Exactly one per profile.
class QueueSortPlugin : public virtual Plugin {
 public:
  virtual bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const = 0;
};

// The cluster events that may make pods this plugin rejected schedulable.
class EnqueueExtensions : public virtual Plugin {
 public:
  virtual std::vector<ClusterEventWithHint> EventsToRegister() const = 0;
};

class PreFilterPlugin : public virtual Plugin {
 public:
  // Success, Skip (this plugin's Filter is not needed for this pod), or a rejection of the pod
  // on all nodes. May narrow the candidate nodes through `result`.
  virtual Status PreFilter(CycleState& state, const PodInfo& pod, PreFilterResult& result) = 0;
};

// Incremental updates of PreFilter state when a dry run adds or removes pods (preemption).
class PreFilterExtensions : public virtual Plugin {
 public:
  virtual Status AddPod(CycleState& state, const PodInfo& pod, const PodInfo& added,
                        const NodeInfo& node) const = 0;
  virtual Status RemovePod(CycleState& state, const PodInfo& pod, const PodInfo& removed,
                           const NodeInfo& node) const = 0;
};

class FilterPlugin : public virtual Plugin {
 public:
  virtual Status Filter(const CycleState& state, const PodInfo& pod,
                        const NodeInfo& node) const = 0;
};

struct PostFilterResult {
  // The node the pod is nominated to from now on: nullopt leaves the nomination as it was, ""
  // clears it (Kubernetes' NominatingInfo modes Noop and Override).
  std::optional<std::string> nominated_node;
  // Plugins whose PostFilter answered Pending: they started something outside the scheduler
  // that the pod now waits for (DynamicResources giving a claim back to its driver).
  std::vector<std::string> pending_plugins;
};

// Runs when no node passed Filter (e.g. preemption). Success means the pod may fit after
// `result.nominated_node` frees up; the pod is still requeued. Pending means the plugin started
// something the pod waits for: when that plugin alone rejected the pod, it is requeued without
// backoff by the event that ends the wait.
class PostFilterPlugin : public virtual Plugin {
 public:
  virtual Status PostFilter(CycleState& state, const PodInfo& pod, const NodeToStatus& statuses,
                            PostFilterResult& result) = 0;
};

class PreScorePlugin : public virtual Plugin {
 public:
  // Success, or Skip (this plugin's Score is not needed for this pod).
  virtual Status PreScore(CycleState& state, const PodInfo& pod,
                          std::span<const NodeInfo* const> feasible) = 0;
};

class ScorePlugin : public virtual Plugin {
 public:
  // A score in [0, kMaxNodeScore] after normalization.
  virtual Status Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                       int64_t& score) const = 0;
};

// Optional companion of ScorePlugin: rescales all nodes' scores once they are known.
class NormalizeScorePlugin : public virtual Plugin {
 public:
  virtual Status NormalizeScore(const CycleState& state, const PodInfo& pod,
                                std::span<NodeScore> scores) const = 0;
};

// Reserve claims what the pod will use on the chosen node (in plugin state) before binding;
// Unreserve undoes it when anything later fails. Unreserve must be idempotent and must not
// fail.
class ReservePlugin : public virtual Plugin {
 public:
  virtual Status Reserve(CycleState& state, const PodInfo& pod, const std::string& node) = 0;
  virtual void Unreserve(CycleState& state, const PodInfo& pod, const std::string& node) = 0;
};

// Success, a rejection, or Wait with a timeout: the pod then waits (in its binding cycle) until
// every waiting plugin allows it through WaitingPods, one rejects it, or the timeout passes.
class PermitPlugin : public virtual Plugin {
 public:
  virtual Status Permit(CycleState& state, const PodInfo& pod, const std::string& node,
                        std::chrono::milliseconds& timeout) = 0;
};

class PreBindPlugin : public virtual Plugin {
 public:
  // Runs on a binding worker, where it may block (e.g. to write API objects), or, where
  // PreBindMayBlock says it will not, on the thread that ended Permit.
  virtual Status PreBind(CycleState& state, const PodInfo& pod, const std::string& node) = 0;
  // Kubernetes' PreBindPreFlight (1.34): Skip when PreBind has nothing to do for this pod, so a
  // pod for which every plugin skips is bound at once, without a binding worker. Called on the
  // scheduling side, after Permit; must not block. A plugin that answered Skip may still have
  // its PreBind called (when another plugin has work) and must then return at once.
  virtual Status PreBindPreFlight(const CycleState& /*state*/, const PodInfo& /*pod*/,
                                  const std::string& /*node*/) const {
    return Status::Success();
  }
  // Whether PreBind may block for this pod (a synchronous API call). When no plugin's may, the
  // binding stage runs PreBind on the thread that ended Permit, usually the scheduling thread,
  // rather than waking a binding worker for it: a plugin that only starts asynchronous writes and
  // answers Wait costs the pod no hand-off. Called on the scheduling side after
  // PreBindPreFlight; must not block. The default: it may.
  virtual bool PreBindMayBlock(const CycleState& /*state*/, const PodInfo& /*pod*/,
                               const std::string& /*node*/) const {
    return true;
  }
  // Binding that waits for someone else (KEP-5007 binding conditions): PreBind answers Wait
  // (Code::kWait) and the binding stage then calls AwaitPreBind once, holding no thread while
  // the pod waits. `done` must run exactly once, on any thread, when the wait ends: Success
  // goes on with the next PreBind plugin; anything else fails the binding (Unreserve,
  // requeue). Must not block. The default ends the wait with an error at once.
  virtual void AwaitPreBind(CycleState& state, const PodInfo& pod, const std::string& node,
                            std::function<void(Status)> done);
};

// A plugin that holds pods in waits of its own (DynamicResources' wait for binding
// conditions). The scheduler's housekeeping calls CheckDeadlines every tick (50 ms by default;
// tests with a FakeClock call Scheduler::Housekeeping), so no plugin needs a timer thread;
// Scheduler::Stop calls AbandonWaits, which must end every wait at once (without undoing what
// the next scheduler would resume from). Neither may block for long.
class DeadlinePlugin : public virtual Plugin {
 public:
  virtual void CheckDeadlines() = 0;
  virtual void AbandonWaits() = 0;
};

using BindCallback = std::function<void(Status)>;

// Binds asynchronously: `done` is called exactly once, with Success, an error, or Skip (this
// binder does not handle the pod; the next one is asked).
class BindPlugin : public virtual Plugin {
 public:
  virtual void Bind(CycleState& state, const PodInfo& pod, const std::string& node,
                    BindCallback done) = 0;
};

class PostBindPlugin : public virtual Plugin {
 public:
  virtual void PostBind(CycleState& state, const PodInfo& pod, const std::string& node) = 0;
};

}  // namespace allot::scheduler
