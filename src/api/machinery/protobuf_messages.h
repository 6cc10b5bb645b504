// Protobuf field numbers of the shared metadata types (k8s.io/apimachinery
// pkg/apis/meta/v1/generated.proto) and the core/v1 structs declared beside them (k8s.io/api
// core/v1/generated.proto). See api/machinery/protobuf_fields.h.
#pragma once

#include "api/machinery/protobuf_fields.h"
#include "api/machinery/meta.h"

namespace allot::api {

// --- meta/v1 ---------------------------------------------------------------------------------

template <>
struct ProtoMessage<OwnerReference> {
  static constexpr ProtoField kFields[] = {
      {"apiVersion", 5}, {"kind", 1},       {"name", 3},
      {"uid", 4},        {"controller", 6}, {"blockOwnerDeletion", 7}};
};

template <>
struct ProtoMessage<ManagedFieldsEntry> {
  static constexpr ProtoField kFields[] = {
      {"manager", 1},
      {"operation", 2},
      {"apiVersion", 3},
      {"time", 4},
      {"fieldsType", 6},
      // meta.v1.FieldsV1 {bytes Raw = 1} holding JSON: the same wire shape as a RawExtension.
      {"fieldsV1", 7, ProtoAs::kRawExtension},
      {"subresource", 8}};
};

template <>
struct ProtoMessage<ObjectMeta> {
  static constexpr ProtoField kFields[] = {
      {"name", 1},
      {"generateName", 2},
      {"namespace", 3},
      {"selfLink", 4},
      {"uid", 5},
      {"resourceVersion", 6},
      {"generation", 7},
      {"creationTimestamp", 8},
      {"deletionTimestamp", 9},
      {"deletionGracePeriodSeconds", 10},
      {"labels", 11},
      {"annotations", 12},
      {"ownerReferences", 13},
      {"finalizers", 14},
      {"managedFields", 17}};
};

template <>
struct ProtoMessage<ListMeta> {
  static constexpr ProtoField kFields[] = {
      {"resourceVersion", 2}, {"continue", 3}, {"remainingItemCount", 4}};
};

template <>
struct ProtoMessage<Condition> {
  static constexpr ProtoField kFields[] = {
      {"type", 1},   {"status", 2}, {"observedGeneration", 3}, {"lastTransitionTime", 4},
      {"reason", 5}, {"message", 6}};
};

template <>
struct ProtoMessage<LabelSelectorRequirement> {
  static constexpr ProtoField kFields[] = {{"key", 1}, {"operator", 2}, {"values", 3}};
};

template <>
struct ProtoMessage<LabelSelector> {
  static constexpr ProtoField kFields[] = {{"matchLabels", 1}, {"matchExpressions", 2}};
};

// --- core/v1 ---------------------------------------------------------------------------------

template <>
struct ProtoMessage<NodeSelectorRequirement> {
  static constexpr ProtoField kFields[] = {{"key", 1}, {"operator", 2}, {"values", 3}};
};

template <>
struct ProtoMessage<NodeSelectorTerm> {
  static constexpr ProtoField kFields[] = {{"matchExpressions", 1}, {"matchFields", 2}};
};

template <>
struct ProtoMessage<NodeSelector> {
  static constexpr ProtoField kFields[] = {{"nodeSelectorTerms", 1}};
};

template <>
struct ProtoMessage<Toleration> {
  static constexpr ProtoField kFields[] = {
      {"key", 1}, {"operator", 2}, {"value", 3}, {"effect", 4}, {"tolerationSeconds", 5}};
};

template <>
struct ProtoMessage<Taint> {
  static constexpr ProtoField kFields[] = {
      {"key", 1}, {"value", 2}, {"effect", 3}, {"timeAdded", 4}};
};

template <>
struct ProtoMessage<ObjectReference> {
  static constexpr ProtoField kFields[] = {
      {"kind", 1},       {"namespace", 2},       {"name", 3},     {"uid", 4},
      {"apiVersion", 5}, {"resourceVersion", 6}, {"fieldPath", 7}};
};

}  // namespace allot::api
