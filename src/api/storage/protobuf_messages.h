// Protobuf field numbers of the storage.k8s.io/v1 kinds (k8s.io/api storage/v1/generated.proto;
// TopologySelectorTerm from core/v1). See api/machinery/protobuf_fields.h.
#pragma once

#include "api/core/protobuf_messages_volumes.h"
#include "api/machinery/protobuf_fields.h"
#include "api/machinery/protobuf_messages.h"
#include "api/storage/csi.h"
#include "api/storage/storage_class.h"
#include "api/storage/volume_attachment.h"

namespace allot::api {

template <>
struct ProtoMessage<TopologySelectorLabelRequirement> {
  static constexpr ProtoField kFields[] = {{"key", 1}, {"values", 2}};
};

template <>
struct ProtoMessage<TopologySelectorTerm> {
  static constexpr ProtoField kFields[] = {{"matchLabelExpressions", 1}};
};

template <>
struct ProtoMessage<StorageClass> {
  static constexpr ProtoField kFields[] = {
      {"metadata", 1},     {"provisioner", 2},          {"parameters", 3},
      {"reclaimPolicy", 4}, {"mountOptions", 5},        {"allowVolumeExpansion", 6},
      {"volumeBindingMode", 7}, {"allowedTopologies", 8}};
};

template <>
struct ProtoMessage<TokenRequest> {
  static constexpr ProtoField kFields[] = {{"audience", 1}, {"expirationSeconds", 2}};
};

template <>
struct ProtoMessage<CSIDriverSpec> {
  static constexpr ProtoField kFields[] = {{"attachRequired", 1},
                                           {"podInfoOnMount", 2},
                                           {"volumeLifecycleModes", 3},
                                           {"storageCapacity", 4},
                                           {"fsGroupPolicy", 5},
                                           {"tokenRequests", 6},
                                           {"requiresRepublish", 7},
                                           {"seLinuxMount", 8},
                                           {"nodeAllocatableUpdatePeriodSeconds", 9},
                                           {"serviceAccountTokenInSecrets", 10},
                                           {"preventPodSchedulingIfMissing", 11}};
};

template <>
struct ProtoMessage<CSIDriver> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}};
};

template <>
struct ProtoMessage<VolumeNodeResources> {
  static constexpr ProtoField kFields[] = {{"count", 1}};
};

template <>
struct ProtoMessage<CSINodeDriver> {
  static constexpr ProtoField kFields[] = {
      {"name", 1}, {"nodeID", 2}, {"topologyKeys", 3}, {"allocatable", 4}};
};

template <>
struct ProtoMessage<CSINodeSpec> {
  static constexpr ProtoField kFields[] = {{"drivers", 1}};
};

template <>
struct ProtoMessage<StorageHealthCondition> {
  static constexpr ProtoField kFields[] = {{"status", 1},     {"reason", 2},
                                           {"message", 3},    {"accessMode", 4},
                                           {"volumeMode", 5}, {"lastTransitionTime", 6}};
};

template <>
struct ProtoMessage<StorageHealth> {
  static constexpr ProtoField kFields[] = {{"name", 1}, {"healthConditions", 2}};
};

template <>
struct ProtoMessage<CSINodeStatus> {
  static constexpr ProtoField kFields[] = {{"storageHealth", 1}};
};

template <>
struct ProtoMessage<CSINode> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}, {"status", 3}};
};

template <>
struct ProtoMessage<CSIStorageCapacity> {
  static constexpr ProtoField kFields[] = {{"metadata", 1},
                                           {"nodeTopology", 2},
                                           {"storageClassName", 3},
                                           {"capacity", 4},
                                           {"maximumVolumeSize", 5}};
};

template <>
struct ProtoMessage<VolumeAttachmentSource> {
  static constexpr ProtoField kFields[] = {{"persistentVolumeName", 1}, {"inlineVolumeSpec", 2}};
};

template <>
struct ProtoMessage<VolumeAttachmentSpec> {
  static constexpr ProtoField kFields[] = {{"attacher", 1}, {"source", 2}, {"nodeName", 3}};
};

template <>
struct ProtoMessage<VolumeError> {
  static constexpr ProtoField kFields[] = {{"time", 1}, {"message", 2}, {"errorCode", 3}};
};

template <>
struct ProtoMessage<VolumeAttachmentStatus> {
  static constexpr ProtoField kFields[] = {
      {"attached", 1}, {"attachmentMetadata", 2}, {"attachError", 3}, {"detachError", 4}};
};

template <>
struct ProtoMessage<VolumeAttachment> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}, {"status", 3}};
};

}  // namespace allot::api
