#include "scheduler/metrics/metrics.h"

namespace allot::scheduler {

std::string_view ExtensionPointName(ExtensionPoint point) {
  static constexpr std::array<std::string_view, kNumExtensionPoints> kNames = {
      "PreEnqueue", "PreFilter", "Filter", "PostFilter", "PreScore", "Score",
      "Reserve",    "Unreserve", "Permit", "PreBind",    "Bind",     "PostBind"};
  return kNames[static_cast<size_t>(point)];
}

SchedulerMetrics::SchedulerMetrics(metrics::Registry& r)
    : schedule_attempts(r.AddCounter(
          "scheduler_schedule_attempts_total",
          "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could "
          "not be scheduled, while 'error' means an internal scheduler problem.",
          metrics::Stability::kStable, {"result", "profile"})),
      attempt_duration(
          r.AddHistogram("scheduler_scheduling_attempt_duration_seconds",
                         "Scheduling attempt latency in seconds (scheduling algorithm + binding)",
                         metrics::Stability::kStable, {"result", "profile"},
                         metrics::ExponentialBuckets(0.001, 2, 15))),
      pending_pods(r.AddGauge("scheduler_pending_pods",
                              "Number of pending pods, by the queue type. 'active' means number "
                              "of pods in activeQ; 'backoff' means number of pods in backoffQ; "
                              "'unschedulable' means number of pods in unschedulablePods that "
                              "the scheduler attempted to schedule and failed; 'gated' is the "
                              "number of unschedulable pods that the scheduler never attempted "
                              "to schedule because they are gated.",
                              metrics::Stability::kStable, {"queue"})),
      unschedulable_pods(r.AddGauge(
          "scheduler_unschedulable_pods",
          "The number of unschedulable pods broken down by plugin name. A pod will increment "
          "the gauge for all plugins that caused it to not schedule and so this metric have "
          "meaning only when broken down by plugin.",
          metrics::Stability::kAlpha, {"plugin", "profile"})),
      extension_point_duration(
          r.AddHistogram("scheduler_framework_extension_point_duration_seconds",
                         "Latency for running all plugins of a specific extension point.",
                         metrics::Stability::kStable, {"extension_point", "status", "profile"},
                         metrics::ExponentialBuckets(0.0001, 2, 12))),
      queue_incoming_pods(
          r.AddCounter("scheduler_queue_incoming_pods_total",
                       "Number of pods added to scheduling queues by event and queue type.",
                       metrics::Stability::kStable, {"queue", "event"})),
      dra_bindingconditions_allocations(r.AddCounter(
          "scheduler_dra_bindingconditions_allocations_total",
          "Number of DRA allocations whose devices have binding conditions the scheduler waited "
          "for in PreBind, by outcome: success, failure (a binding failure condition turned "
          "True, or the claim's allocation went away) or timeout.",
          metrics::Stability::kAlpha, {"profile", "driver", "status"})),
      dra_bindingconditions_prebind_duration(r.AddHistogram(
          "scheduler_dra_bindingconditions_prebind_duration_seconds",
          "Duration of the DynamicResources PreBind, from its start to the end of the wait for "
          "binding conditions, by outcome and whether binding conditions were involved.",
          metrics::Stability::kAlpha, {"status", "requires_bindingconditions"},
          metrics::ExponentialBuckets(0.1, 2, 14))),
      dra_bindingconditions_wait_duration(
          r.AddHistogram("scheduler_dra_bindingconditions_wait_duration_seconds",
                         "Time a pod waited in PreBind for the binding conditions of its devices.",
                         metrics::Stability::kAlpha, {"profile", "driver", "status"},
                         metrics::ExponentialBuckets(0.1, 2, 14))),
      dra_controller_negotiation_rounds(r.AddHistogram(
          "scheduler_dra_controller_negotiation_rounds",
          "Scheduling rounds a pod spent waiting for control-plane DRA drivers (KEP-3063) before "
          "all its controller claims were allocated.",
          metrics::Stability::kAlpha, {"profile"}, {0, 1, 2, 3, 4, 6, 8, 12, 16, 32})),
      dra_controller_selected_node_duration(r.AddHistogram(
          "scheduler_dra_controller_selected_node_duration_seconds",
          "Time from a pod's first round waiting for control-plane DRA drivers to the "
          "publication of its PodSchedulingContext's selectedNode.",
          metrics::Stability::kAlpha, {"profile"}, metrics::ExponentialBuckets(0.001, 2, 16))),
      dra_controller_allocation_duration(r.AddHistogram(
          "scheduler_dra_controller_allocation_duration_seconds",
          "Time from the publication of selectedNode to every control-plane claim of the pod "
          "allocated.",
          metrics::Stability::kAlpha, {"profile"}, metrics::ExponentialBuckets(0.001, 2, 16))),
      dra_controller_deallocations(r.AddCounter(
          "scheduler_dra_controller_deallocations_total",
          "ResourceClaims of unschedulable pods that DynamicResources' PostFilter deallocated "
          "(allocated for nodes where the pod cannot run), by kind: controller or structured.",
          metrics::Stability::kAlpha, {"profile", "kind"})),
      dra_controller_answer_timeouts(r.AddCounter(
          "scheduler_dra_controller_answer_timeouts_total",
          "Times a control-plane DRA driver did not answer a pod's PodSchedulingContext (or "
          "allocate for its selectedNode) within its deadline.",
          metrics::Stability::kAlpha, {"profile", "driver"})),
      preemption_attempts(r.AddCounter("scheduler_preemption_attempts_total",
                                       "Total preemption attempts in the cluster till now",
                                       metrics::Stability::kStable, {})),
      preemption_victims(r.AddHistogram(
          "scheduler_preemption_victims",
          "Number of selected preemption victims for preemption initiated by a single pod",
          metrics::Stability::kStable, {}, metrics::ExponentialBuckets(1, 2, 7))),
      reservation_status_phase(r.AddGauge(
          "scheduler_reservation_status_phase",
          "1 for the phase a reservation is in (Pending, Available, Waiting, Succeeded, Failed), 0 "
          "for the others.",
          metrics::Stability::kAlpha, {"name", "phase"})),
      reservation_resource(r.AddGauge(
          "scheduler_reservation_resource",
          "A reservation's resources: type allocatable, allocated or utilization (allocated / "
          "allocatable), in cores, Gi, raw units or a ratio.",
          metrics::Stability::kAlpha, {"type", "name", "resource", "unit"})),
      parallel_helpers(r.AddGauge(
          "allot_scheduler_parallel_helpers",
          "Helper threads the Filter and Score loops of a scheduling cycle wake now, besides the "
          "scheduling thread: as many as measurably pay, at most parallelism - 1.",
          metrics::Stability::kAlpha)) {}

void ExtensionPointMetrics::Observe(ExtensionPoint point, Code code, double seconds) {
  if (!metrics_) return;
  auto& slot = cache_[static_cast<size_t>(point)][static_cast<size_t>(code)];
  metrics::Histogram* h = slot.load(std::memory_order_acquire);
  if (!h) {
    h = &metrics_->extension_point_duration.With(
        {ExtensionPointName(point), CodeName(code), profile_});
    slot.store(h, std::memory_order_release);
  }
  h->Observe(seconds);
}

}  // namespace allot::scheduler
