// scheduling.k8s.io/v1 PriorityClass (k8s.io/api/scheduling/v1): a name that pods give in
// spec.priorityClassName, mapped to the integer priority the scheduler orders and preempts by.
// Cluster-scoped. The two system classes always exist (the store creates them at startup) and
// cannot be changed or deleted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/object.h"
#include "api/machinery/validation.h"

namespace allot::api {

inline constexpr std::string_view kSchedulingGroup = "scheduling.k8s.io";

// The highest value a user-defined class may have; the system classes sit above it.
inline constexpr int32_t kHighestUserDefinablePriority = 1000000000;
inline constexpr int32_t kSystemCriticalPriority = 2 * kHighestUserDefinablePriority;
inline constexpr std::string_view kSystemPriorityClassPrefix = "system-";
inline constexpr std::string_view kSystemClusterCritical = "system-cluster-critical";
inline constexpr std::string_view kSystemNodeCritical = "system-node-critical";

inline constexpr std::string_view kPreemptLowerPriority = "PreemptLowerPriority";
inline constexpr std::string_view kPreemptNever = "Never";

struct PriorityClass : TypedObject<PriorityClass> {
  static const TypeInfo& Type();
  int32_t value = 0;
  bool globalDefault = false;
  std::string description;
  std::optional<std::string> preemptionPolicy;  // PreemptLowerPriority (default) | Never
  template <class V>
  void Visit(V& v) {
    v("metadata", metadata);
    v("value", value, {.always = true, .required = true});
    v("globalDefault", globalDefault);
    v("description", description);
    v("preemptionPolicy", preemptionPolicy);
  }
  bool operator==(const PriorityClass& o) const {
    return metadata == o.metadata && value == o.value && globalDefault == o.globalDefault &&
           description == o.description && preemptionPolicy == o.preemptionPolicy;
  }
};

// The system classes, as the API server creates them.
std::vector<PriorityClass> SystemPriorityClasses();
// The system class of this name; nullptr when `name` is not one.
const PriorityClass* FindSystemPriorityClass(std::string_view name);

// preemptionPolicy = PreemptLowerPriority when unset.
void SetPriorityClassDefaults(PriorityClass& pc);
// Name (DNS subdomain); a "system-" name must be a system class with its value and
// globalDefault; other values at most kHighestUserDefinablePriority; preemptionPolicy.
void ValidatePriorityClass(const PriorityClass& pc, FieldErrors& errs);
// value and preemptionPolicy may not change; metadata update rules.
void ValidatePriorityClassUpdate(const PriorityClass& pc, const PriorityClass& old,
                                 FieldErrors& errs);

}  // namespace allot::api
