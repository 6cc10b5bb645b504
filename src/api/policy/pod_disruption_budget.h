// policy/v1 PodDisruptionBudget (k8s.io/api/policy/v1): how many of a set of pods must stay up
// while someone disrupts them on purpose. The disruption controller (controllers/disruption/)
// computes its status; the pods/eviction subresource refuses an eviction that would take the
// pods below it (429), and the scheduler's preemption prefers victims it leaves within budget.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/field.h"
#include "api/machinery/meta.h"
#include "api/machinery/object.h"
#include "api/machinery/validation.h"
#include "common/status.h"

namespace allot::api {

inline constexpr std::string_view kPolicyGroup = "policy";

// The condition the controller keeps on the status, and its reasons.
inline constexpr std::string_view kDisruptionAllowedCondition = "DisruptionAllowed";
inline constexpr std::string_view kReasonSufficientPods = "SufficientPods";
inline constexpr std::string_view kReasonInsufficientPods = "InsufficientPods";
inline constexpr std::string_view kReasonSyncFailed = "SyncFailed";

inline constexpr std::string_view kUnhealthyPodEvictionIfHealthyBudget = "IfHealthyBudget";
inline constexpr std::string_view kUnhealthyPodEvictionAlwaysAllow = "AlwaysAllow";

struct PodDisruptionBudgetSpec {
  std::optional<IntOrString> minAvailable;
  std::optional<LabelSelector> selector;  // empty: every pod of the namespace; absent: none
  std::optional<IntOrString> maxUnavailable;
  std::optional<std::string> unhealthyPodEvictionPolicy;  // IfHealthyBudget | AlwaysAllow
  template <class V>
  void Visit(V& v) {
    v("minAvailable", minAvailable);
    v("selector", selector);
    v("maxUnavailable", maxUnavailable);
    v("unhealthyPodEvictionPolicy", unhealthyPodEvictionPolicy);
  }
  bool operator==(const PodDisruptionBudgetSpec&) const = default;
};

struct PodDisruptionBudgetStatus {
  int64_t observedGeneration = 0;
  // Pods evicted (by name) whose deletion the controller has not seen yet, with when: they no
  // longer count as healthy, so two evictions cannot both spend the same disruption.
  std::map<std::string, Time> disruptedPods;
  int32_t disruptionsAllowed = 0;
  int32_t currentHealthy = 0;
  int32_t desiredHealthy = 0;
  int32_t expectedPods = 0;
  std::vector<Condition> conditions;
  template <class V>
  void Visit(V& v) {
    v("observedGeneration", observedGeneration);
    v("disruptedPods", disruptedPods);
    v("disruptionsAllowed", disruptionsAllowed, {.always = true, .required = true});
    v("currentHealthy", currentHealthy, {.always = true, .required = true});
    v("desiredHealthy", desiredHealthy, {.always = true, .required = true});
    v("expectedPods", expectedPods, {.always = true, .required = true});
    v("conditions", conditions, {.merge_key = "type"});
  }
  bool operator==(const PodDisruptionBudgetStatus&) const = default;
};

struct PodDisruptionBudget : TypedObject<PodDisruptionBudget> {
  static const TypeInfo& Type();
  PodDisruptionBudgetSpec spec;
  PodDisruptionBudgetStatus status;
  template <class V>
  void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec);
    v("status", status);
  }
  bool operator==(const PodDisruptionBudget& o) const {
    return metadata == o.metadata && spec == o.spec && status == o.status;
  }
};

// Whether the budget's selector selects pods with these labels, as metav1.LabelSelectorAsSelector
// reads it for policy/v1: an empty selector selects every pod of the namespace, an absent one
// none. A selector that does not parse selects nothing.
bool PodDisruptionBudgetSelects(const PodDisruptionBudget& pdb, const StringMap& pod_labels);

// Sets the DisruptionAllowed condition from status.disruptionsAllowed: True with reason
// SufficientPods when it is positive, else False with InsufficientPods; its observedGeneration
// is status.observedGeneration (pdbhelper.UpdateDisruptionAllowedCondition).
void UpdateDisruptionAllowedCondition(PodDisruptionBudget& pdb, Time now);

// The status has seen the current generation and its DisruptionAllowed condition agrees with
// disruptionsAllowed (pdbhelper.ConditionsAreUpToDate).
bool DisruptionConditionsUpToDate(const PodDisruptionBudget& pdb);

// An int-or-percent resolved against `total`: ints as they are, "N%" as N% of total rounded up
// (intstr.GetScaledValueFromIntOrPercent with roundUp). Errors for a malformed percent.
Result<int32_t> ScaledValue(const IntOrString& v, int32_t total);

// Name and namespace; minAvailable and maxUnavailable not both set, each a non-negative int
// or a percent up to 100%; the selector; unhealthyPodEvictionPolicy.
void ValidatePodDisruptionBudget(const PodDisruptionBudget& pdb, FieldErrors& errs);
void ValidatePodDisruptionBudgetUpdate(const PodDisruptionBudget& pdb,
                                       const PodDisruptionBudget& old, FieldErrors& errs);
// The counts are non-negative; conditions are well-formed.
void ValidatePodDisruptionBudgetStatusUpdate(const PodDisruptionBudget& pdb,
                                             const PodDisruptionBudget& old, FieldErrors& errs);

}  // namespace allot::api
