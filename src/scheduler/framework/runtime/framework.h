// Framework: one profile's plugins, built once from the registry and the profile's
// configuration, and the code that runs them extension point by extension point.
//
// The runner never hides what runs: each Run* method calls the point's plugins in the
// configured order and returns the first failure, tagged with the plugin that produced it.
// What the scheduling cycle does between the points (node iteration, selection) lives in
// schedule_algorithm.h; the queue and the binding stage live in the Scheduler.
//
// Plugin order at a point: plugins enabled at that point (in their order), then the profile's
// multiPoint plugins that implement the point (in their order), minus those disabled at the
// point ("*" disables every multiPoint plugin there). A plugin enabled at several points is one
// instance.
//
// Thread safety: the Framework is immutable after Create. RunFilterPlugins and
// RunScorePlugins' inner calls run concurrently over nodes; the binding-cycle methods run on
// binding workers concurrently with scheduling cycles. Plugins obey the contracts in
// scheduler/framework/interface.h.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "common/time.h"
#include "scheduler/config/config.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/nominator.h"
#include "scheduler/framework/parallel.h"
#include "scheduler/framework/registry.h"
#include "scheduler/framework/waiting_pods.h"
#include "scheduler/metrics/metrics.h"

namespace allot::scheduler {

// The longest a Permit plugin may hold a pod (kube-scheduler's maxTimeout).
inline constexpr std::chrono::milliseconds kMaxPermitTimeout{15 * 60 * 1000};

struct FrameworkOptions {
  client::Client* client = nullptr;                 // may be null (unit tests)
  client::InformerFactory* informers = nullptr;     // may be null (unit tests)
  Clock* clock = nullptr;                           // required
  Parallelizer* parallelizer = nullptr;             // required
  const Snapshot* snapshot = nullptr;               // required; the scheduler's, updated per cycle
  SchedulerMetrics* metrics = nullptr;              // optional
  client::EventRecorder* events = nullptr;          // optional
  ReservationLedger* reservation_ledger = nullptr;  // optional (the scheduler's cache)
  // The pods preemption nominated (optional: without it, Filter sees no nominated pods).
  Nominator* nominator = nullptr;
  // Handle::Activate: the scheduler's queue (optional; unset, Activate answers false).
  std::function<bool(const std::string& pod_uid)> activate;
};

class Framework final : public Handle {
 public:
  static Result<std::unique_ptr<Framework>> Create(const Registry& registry,
                                                   const ProfileConfig& profile,
                                                   FrameworkOptions options);
  ~Framework() override;

  // Handle.
  std::string_view profile_name() const override { return profile_.scheduler_name; }
  const Snapshot& snapshot() const override { return *options_.snapshot; }
  client::Client* client() const override { return options_.client; }
  client::InformerFactory* informers() const override { return options_.informers; }
  Clock& clock() const override { return *options_.clock; }
  WaitingPods& waiting_pods() override { return waiting_pods_; }
  client::EventRecorder* events() const override { return options_.events; }
  SchedulerMetrics* metrics() const override { return options_.metrics; }
  ReservationLedger* reservation_ledger() const override { return options_.reservation_ledger; }
  Nominator* nominator() const override { return options_.nominator; }
  bool Activate(const std::string& pod_uid) override {
    return options_.activate && options_.activate(pod_uid);
  }

  const ProfileConfig& profile() const { return profile_; }
  Parallelizer& parallelizer() const override { return *options_.parallelizer; }
  ExtensionPointMetrics& extension_metrics() const { return *ext_metrics_; }
  // The percentageOfNodesToScore the profile overrides, if any.
  std::optional<int32_t> percentage_of_nodes_to_score() const {
    return profile_.percentage_of_nodes_to_score;
  }

  // --- queue ---
  // Success, or the first rejection (tagged with its plugin): the pod is gated.
  Status RunPreEnqueuePlugins(const api::Pod& pod) const;
  // The activeQ order (priority, then age with the default PrioritySort).
  bool QueueSortLess(const QueuedPodInfo& a, const QueuedPodInfo& b) const;
  // Each enqueue-aware plugin's registered events. Plugins that implement PreFilter, Filter,
  // Reserve, Permit or PreEnqueue but not EnqueueExtensions register every event (so a pod
  // they reject is never stranded).
  std::vector<std::pair<std::string, std::vector<ClusterEventWithHint>>> EventsToRegister() const;

  // --- scheduling cycle ---
  // Initializes the state's skip lists, runs PreFilter. On a rejection, `plugins` gets the
  // rejecting plugin; when PreFilterResults leave no node it gets the plugins that narrowed.
  Status RunPreFilterPlugins(CycleState& state, const PodInfo& pod, PreFilterResult& result,
                             std::vector<std::string>& plugins);
  Status RunFilterPlugins(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const;
  bool HasFilterPlugins() const { return !filter_.empty(); }
  // Filter as if the pods nominated to the node with a priority at least the pod's (other than
  // the pod itself, and not already on the node) ran there: on a copy of the node and a clone
  // of the state, each added through the PreFilterExtensions (Kubernetes'
  // RunFilterPluginsWithNominatedPods; its second pass without them matters only to plugins a
  // pod's presence can help, inter-pod affinity, which Allot does not have). Since no Allot
  // plugin is helped by another pod's presence, a node that rejects the pod alone is rejected
  // without adding the nominated pods (the costly part, for devices). `nominated` may be null
  // (none).
  Status RunFilterPluginsWithNominatedPods(const CycleState& state, const PodInfo& pod,
                                           const NodeInfo& node,
                                           const NominatedPods* nominated) const override;
  // The PreFilterExtensions of the plugins whose PreFilter ran (did not Skip), for dry runs
  // that add or remove pods on `node` (preemption, nominated pods).
  Status RunPreFilterExtensionAddPod(CycleState& state, const PodInfo& pod, const PodInfo& added,
                                     const NodeInfo& node) const override;
  Status RunPreFilterExtensionRemovePod(CycleState& state, const PodInfo& pod,
                                        const PodInfo& removed,
                                        const NodeInfo& node) const override;
  bool HasPostFilterPlugins() const { return !post_filter_.empty(); }
  bool HasScorePlugins() const { return !score_.empty(); }
  Status RunPostFilterPlugins(CycleState& state, const PodInfo& pod, const NodeToStatus& statuses,
                              PostFilterResult& result);
  Status RunPreScorePlugins(CycleState& state, const PodInfo& pod,
                            std::span<const NodeInfo* const> nodes);
  // Weighted sum of the normalized scores per node (totals[i] for nodes[i]).
  Status RunScorePlugins(const CycleState& state, const PodInfo& pod,
                         std::span<const NodeInfo* const> nodes, std::vector<int64_t>& totals);
  Status RunReservePluginsReserve(CycleState& state, const PodInfo& pod, const std::string& node);
  // Every Reserve plugin's Unreserve, in reverse order.
  void RunReservePluginsUnreserve(CycleState& state, const PodInfo& pod, const std::string& node);
  // Success, a rejection, or Wait (the pod is then registered in waiting_pods()).
  Status RunPermitPlugins(CycleState& state, const PodInfoPtr& pod, const std::string& node);

  // --- binding cycle ---
  // Calls `done` with the Permit outcome: at once if the pod is not waiting.
  void WaitOnPermit(const PodInfo& pod, std::function<void(Status)> done);
  // Runs the PreBind plugins from position `first` on, stopping at the first that does not
  // succeed. When one answers Wait, returns Wait and sets `*waiting` to its position: the
  // caller then calls AwaitPreBind(*waiting, ...) and, on Success, RunPreBindPlugins again
  // from *waiting + 1. (With `waiting` null, Wait is an error.)
  Status RunPreBindPlugins(CycleState& state, const PodInfo& pod, const std::string& node,
                           size_t first = 0, size_t* waiting = nullptr);
  // The PreBind plugin at `position` waits; `done` gets the outcome (tagged with the plugin).
  void AwaitPreBind(size_t position, CycleState& state, const PodInfo& pod, const std::string& node,
                    std::function<void(Status)> done);
  // Permit timeouts and every DeadlinePlugin's deadlines (the scheduler's housekeeping).
  void CheckDeadlines();
  // Every DeadlinePlugin abandons its waits (the scheduler is stopping).
  void AbandonWaits();
  // Whether a PreBind plugin comes after the one at `position`.
  bool HasPreBindPluginsAfter(size_t position) const { return position + 1 < pre_bind_.size(); }
  // What PreBind needs for this pod: nothing (every PreBindPreFlight answered Skip), any thread
  // (no plugin with work may block: PreBindPlugin::PreBindMayBlock), or a binding worker.
  enum class PreBindNeed { kNothing, kAnyThread, kWorker };
  PreBindNeed NeedsPreBind(const CycleState& state, const PodInfo& pod,
                           const std::string& node) const;
  // Asks each Bind plugin in turn until one does not Skip; `done` gets its outcome (Error if
  // all skipped). state, pod and node must stay alive until `done` runs.
  void RunBindPlugins(CycleState& state, const PodInfo& pod, const std::string& node,
                      BindCallback done);
  void RunPostBindPlugins(CycleState& state, const PodInfo& pod, const std::string& node);

  // Plugins by name (for tests and debugging); nullptr when not in this profile.
  Plugin* FindPlugin(std::string_view name) const;

 private:
  struct ScoreEntry {
    ScorePlugin* plugin = nullptr;
    const NormalizeScorePlugin* normalize = nullptr;
    int32_t weight = 1;
  };

  Framework(ProfileConfig profile, FrameworkOptions options);
  allot::Status Build(const Registry& registry);
  Result<Plugin*> Instantiate(const Registry& registry, const std::string& name);
  void BindFrom(size_t i, CycleState& state, const PodInfo& pod, const std::string& node,
                BindCallback done);
  void Observe(ExtensionPoint point, const Status& status,
               std::chrono::steady_clock::time_point start) const;

  const ProfileConfig profile_;
  const FrameworkOptions options_;
  std::unique_ptr<ExtensionPointMetrics> ext_metrics_;
  WaitingPods waiting_pods_;

  std::vector<std::pair<std::string, std::unique_ptr<Plugin>>> instances_;
  std::vector<PreEnqueuePlugin*> pre_enqueue_;
  QueueSortPlugin* queue_sort_ = nullptr;
  std::vector<PreFilterPlugin*> pre_filter_;
  std::vector<int> pre_filter_to_filter_;  // index into filter_, or -1
  // PreFilter plugins with PreFilterExtensions, with their index into filter_ (or -1).
  std::vector<std::pair<const PreFilterExtensions*, int>> pre_filter_ext_;
  std::vector<FilterPlugin*> filter_;
  std::vector<PostFilterPlugin*> post_filter_;
  std::vector<PreScorePlugin*> pre_score_;
  std::vector<int> pre_score_to_score_;  // index into score_, or -1
  std::vector<ScoreEntry> score_;
  std::vector<ReservePlugin*> reserve_;
  std::vector<PermitPlugin*> permit_;
  std::vector<PreBindPlugin*> pre_bind_;
  std::vector<DeadlinePlugin*> deadline_plugins_;
  std::vector<BindPlugin*> bind_;
  std::vector<PostBindPlugin*> post_bind_;
};

}  // namespace allot::scheduler
