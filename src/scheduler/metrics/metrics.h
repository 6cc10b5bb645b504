// The scheduler's Prometheus metrics, with kube-scheduler's names, labels and buckets:
//
//   scheduler_schedule_attempts_total{result,profile}              counter, STABLE
//       result: scheduled | unschedulable | error
//   scheduler_scheduling_attempt_duration_seconds{result,profile}  histogram, STABLE
//   scheduler_pending_pods{queue}                                  gauge, STABLE
//       queue: active | backoff | unschedulable | gated
//   scheduler_unschedulable_pods{plugin,profile}                   gauge, ALPHA
//   scheduler_framework_extension_point_duration_seconds{extension_point,status,profile}
//                                                                  histogram, STABLE
//   scheduler_queue_incoming_pods_total{queue,event}               counter, STABLE
//   scheduler_dra_bindingconditions_allocations_total{profile,driver,status}
//                                                                  counter, ALPHA
//       status: success | failure | timeout. KEP-5007 names only `status`; Kubernetes 1.36
//       shipped the wider label set, which is kept (sum by status for the KEP's view).
//   scheduler_dra_bindingconditions_prebind_duration_seconds{status,requires_bindingconditions}
//                                                                  histogram, ALPHA (the KEP's)
//   scheduler_dra_bindingconditions_wait_duration_seconds{profile,driver,status}
//                                                                  histogram, ALPHA (1.36's)
//   scheduler_dra_controller_negotiation_rounds{profile}            histogram, ALPHA (Allot)
//       KEP-3063: scheduling rounds that ended waiting for control-plane drivers, per pod that
//       got its claims allocated (0: the drivers had allocated before the first attempt).
//   scheduler_dra_controller_selected_node_duration_seconds{profile} histogram, ALPHA (Allot)
//       from the first round that waited for drivers to the publication of selectedNode.
//   scheduler_dra_controller_allocation_duration_seconds{profile}   histogram, ALPHA (Allot)
//       from the publication of selectedNode to every controller claim of the pod allocated.
//   scheduler_dra_controller_deallocations_total{profile,kind}      counter, ALPHA (Allot)
//       PostFilter deallocations of a pod's claim; kind: controller | structured.
//   scheduler_dra_controller_answer_timeouts_total{profile,driver}  counter, ALPHA (Allot)
//       a driver did not answer within its deadline (DynamicResources controllerAnswerTimeout).
//
// Families are registered once; hot paths cache the children they use (Child* below) rather
// than looking labels up per event. Thread-safe.
#pragma once

#include <array>
#include <atomic>
#include <string>
#include <string_view>

#include "common/metrics.h"
#include "scheduler/framework/status.h"

namespace allot::scheduler {

enum class ExtensionPoint : uint8_t {
  kPreEnqueue,
  kPreFilter,
  kFilter,
  kPostFilter,
  kPreScore,
  kScore,
  kReserve,
  kUnreserve,
  kPermit,
  kPreBind,
  kBind,
  kPostBind,
};
inline constexpr size_t kNumExtensionPoints = 12;
std::string_view ExtensionPointName(ExtensionPoint point);

class SchedulerMetrics {
 public:
  explicit SchedulerMetrics(metrics::Registry& registry);

  metrics::CounterFamily& schedule_attempts;
  metrics::HistogramFamily& attempt_duration;
  metrics::GaugeFamily& pending_pods;
  metrics::GaugeFamily& unschedulable_pods;
  metrics::HistogramFamily& extension_point_duration;
  metrics::CounterFamily& queue_incoming_pods;
  metrics::CounterFamily& dra_bindingconditions_allocations;
  metrics::HistogramFamily& dra_bindingconditions_prebind_duration;
  metrics::HistogramFamily& dra_bindingconditions_wait_duration;
  metrics::HistogramFamily& dra_controller_negotiation_rounds;
  metrics::HistogramFamily& dra_controller_selected_node_duration;
  metrics::HistogramFamily& dra_controller_allocation_duration;
  metrics::CounterFamily& dra_controller_deallocations;
  metrics::CounterFamily& dra_controller_answer_timeouts;
  // Koordinator's reservation metrics: 1 for a reservation's current phase, 0 for the others;
  // and its allocatable / allocated / utilization per resource (unit core, Gi, raw, ratio).
  metrics::CounterFamily& preemption_attempts;    // scheduler_preemption_attempts_total
  metrics::HistogramFamily& preemption_victims;   // scheduler_preemption_victims
  metrics::GaugeFamily& reservation_status_phase;
  metrics::GaugeFamily& reservation_resource;
  // allot_scheduler_parallel_helpers: the helper threads Filter and Score loops wake now, as
  // ParallelismTuner measured them to pay (housekeeping sets it every tick).
  metrics::GaugeFamily& parallel_helpers;
};

// Per-profile cache of extension point histograms, resolved on first use.
class ExtensionPointMetrics {
 public:
  ExtensionPointMetrics(SchedulerMetrics* metrics, std::string profile)
      : metrics_(metrics), profile_(std::move(profile)) {}
  // No-op without metrics.
  void Observe(ExtensionPoint point, Code code, double seconds);

 private:
  SchedulerMetrics* metrics_;
  std::string profile_;
  std::array<std::array<std::atomic<metrics::Histogram*>, 7>, kNumExtensionPoints> cache_{};
};

}  // namespace allot::scheduler
