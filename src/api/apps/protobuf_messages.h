// Protobuf field numbers of ReplicaSet and StatefulSet (k8s.io/api apps/v1/generated.proto) and
// ReplicationController (core/v1/generated.proto). See api/machinery/protobuf_fields.h.
#pragma once

#include "api/apps/replica_set.h"
#include "api/apps/stateful_set.h"
#include "api/core/protobuf_messages_pod.h"
#include "api/core/protobuf_messages_volumes.h"
#include "api/machinery/protobuf_fields.h"
#include "api/machinery/protobuf_messages.h"

namespace allot::api {

template <>
struct ProtoMessage<WorkloadCondition> {
  static constexpr ProtoField kFields[] = {{"type", 1},
                                           {"status", 2},
                                           {"lastTransitionTime", 3},
                                           {"reason", 4},
                                           {"message", 5}};
};

template <>
struct ProtoMessage<ReplicaSetSpec> {
  static constexpr ProtoField kFields[] = {
      {"replicas", 1}, {"minReadySeconds", 4}, {"selector", 2}, {"template", 3}};
};

template <>
struct ProtoMessage<ReplicaSetStatus> {
  static constexpr ProtoField kFields[] = {
      {"replicas", 1},           {"fullyLabeledReplicas", 2}, {"readyReplicas", 4},
      {"availableReplicas", 5},  {"terminatingReplicas", 7},  {"observedGeneration", 3},
      {"conditions", 6}};
};

template <>
struct ProtoMessage<ReplicaSet> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}, {"status", 3}};
};

template <>
struct ProtoMessage<ReplicationControllerSpec> {
  static constexpr ProtoField kFields[] = {
      {"replicas", 1}, {"minReadySeconds", 4}, {"selector", 2}, {"template", 3}};
};

template <>
struct ProtoMessage<ReplicationControllerStatus> {
  static constexpr ProtoField kFields[] = {
      {"replicas", 1},          {"fullyLabeledReplicas", 2}, {"readyReplicas", 4},
      {"availableReplicas", 5}, {"observedGeneration", 3},   {"conditions", 6}};
};

template <>
struct ProtoMessage<ReplicationController> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}, {"status", 3}};
};

template <>
struct ProtoMessage<RollingUpdateStatefulSetStrategy> {
  static constexpr ProtoField kFields[] = {{"partition", 1}, {"maxUnavailable", 2}};
};

template <>
struct ProtoMessage<StatefulSetUpdateStrategy> {
  static constexpr ProtoField kFields[] = {{"type", 1}, {"rollingUpdate", 2}};
};

template <>
struct ProtoMessage<StatefulSetPersistentVolumeClaimRetentionPolicy> {
  static constexpr ProtoField kFields[] = {{"whenDeleted", 1}, {"whenScaled", 2}};
};

template <>
struct ProtoMessage<StatefulSetOrdinals> {
  static constexpr ProtoField kFields[] = {{"start", 1}};
};

template <>
struct ProtoMessage<StatefulSetSpec> {
  static constexpr ProtoField kFields[] = {{"replicas", 1},
                                           {"selector", 2},
                                           {"template", 3},
                                           {"volumeClaimTemplates", 4},
                                           {"serviceName", 5},
                                           {"podManagementPolicy", 6},
                                           {"updateStrategy", 7},
                                           {"revisionHistoryLimit", 8},
                                           {"minReadySeconds", 9},
                                           {"persistentVolumeClaimRetentionPolicy", 10},
                                           {"ordinals", 11}};
};

template <>
struct ProtoMessage<StatefulSetStatus> {
  static constexpr ProtoField kFields[] = {
      {"observedGeneration", 1}, {"replicas", 2},       {"readyReplicas", 3},
      {"currentReplicas", 4},    {"updatedReplicas", 5}, {"currentRevision", 6},
      {"updateRevision", 7},     {"collisionCount", 9},  {"conditions", 10},
      {"availableReplicas", 11}};
};

template <>
struct ProtoMessage<StatefulSet> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}, {"status", 3}};
};

}  // namespace allot::api
