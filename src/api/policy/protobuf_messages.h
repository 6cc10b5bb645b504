// Protobuf field numbers of PodDisruptionBudget (k8s.io/api policy/v1/generated.proto). See
// api/machinery/protobuf_fields.h.
#pragma once

#include "api/machinery/protobuf_fields.h"
#include "api/machinery/protobuf_messages.h"
#include "api/policy/pod_disruption_budget.h"

namespace allot::api {

template <>
struct ProtoMessage<PodDisruptionBudgetSpec> {
  static constexpr ProtoField kFields[] = {
      {"minAvailable", 1}, {"selector", 2}, {"maxUnavailable", 3},
      {"unhealthyPodEvictionPolicy", 4}};
};

template <>
struct ProtoMessage<PodDisruptionBudgetStatus> {
  static constexpr ProtoField kFields[] = {
      {"observedGeneration", 1}, {"disruptedPods", 2},  {"disruptionsAllowed", 3},
      {"currentHealthy", 4},     {"desiredHealthy", 5}, {"expectedPods", 6},
      {"conditions", 7}};
};

template <>
struct ProtoMessage<PodDisruptionBudget> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}, {"status", 3}};
};

}  // namespace allot::api
