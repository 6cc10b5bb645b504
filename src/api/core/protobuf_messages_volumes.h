// Protobuf field numbers of PersistentVolume and PersistentVolumeClaim (k8s.io/api
// core/v1/generated.proto). See api/machinery/protobuf_fields.h.
#pragma once

#include "api/core/volumes.h"
#include "api/machinery/protobuf_fields.h"
#include "api/machinery/protobuf_messages.h"

namespace allot::api {

template <>
struct ProtoMessage<VolumeNodeAffinity> {
  static constexpr ProtoField kFields[] = {{"required", 1}};
};

// Go inlines PersistentVolumeSource (field 2) into the spec; each source is kept as JSON text,
// carried as its message (api/codec/opaque_messages.h).
template <>
struct ProtoMessage<PersistentVolumeSpec> {
  static constexpr ProtoField kFields[] = {
      {"capacity", 1},
      {"gcePersistentDisk", 2, ProtoAs::kEmbedded, 1,
       "k8s.io.api.core.v1.GCEPersistentDiskVolumeSource"},
      {"awsElasticBlockStore", 2, ProtoAs::kEmbedded, 2,
       "k8s.io.api.core.v1.AWSElasticBlockStoreVolumeSource"},
      {"hostPath", 2, ProtoAs::kEmbedded, 3, "k8s.io.api.core.v1.HostPathVolumeSource"},
      {"glusterfs", 2, ProtoAs::kEmbedded, 4, "k8s.io.api.core.v1.GlusterfsPersistentVolumeSource"},
      {"nfs", 2, ProtoAs::kEmbedded, 5, "k8s.io.api.core.v1.NFSVolumeSource"},
      {"rbd", 2, ProtoAs::kEmbedded, 6, "k8s.io.api.core.v1.RBDPersistentVolumeSource"},
      {"iscsi", 2, ProtoAs::kEmbedded, 7, "k8s.io.api.core.v1.ISCSIPersistentVolumeSource"},
      {"cinder", 2, ProtoAs::kEmbedded, 8, "k8s.io.api.core.v1.CinderPersistentVolumeSource"},
      {"cephfs", 2, ProtoAs::kEmbedded, 9, "k8s.io.api.core.v1.CephFSPersistentVolumeSource"},
      {"fc", 2, ProtoAs::kEmbedded, 10, "k8s.io.api.core.v1.FCVolumeSource"},
      {"flocker", 2, ProtoAs::kEmbedded, 11, "k8s.io.api.core.v1.FlockerVolumeSource"},
      {"flexVolume", 2, ProtoAs::kEmbedded, 12, "k8s.io.api.core.v1.FlexPersistentVolumeSource"},
      {"azureFile", 2, ProtoAs::kEmbedded, 13,
       "k8s.io.api.core.v1.AzureFilePersistentVolumeSource"},
      {"vsphereVolume", 2, ProtoAs::kEmbedded, 14,
       "k8s.io.api.core.v1.VsphereVirtualDiskVolumeSource"},
      {"quobyte", 2, ProtoAs::kEmbedded, 15, "k8s.io.api.core.v1.QuobyteVolumeSource"},
      {"azureDisk", 2, ProtoAs::kEmbedded, 16, "k8s.io.api.core.v1.AzureDiskVolumeSource"},
      {"photonPersistentDisk", 2, ProtoAs::kEmbedded, 17,
       "k8s.io.api.core.v1.PhotonPersistentDiskVolumeSource"},
      {"portworxVolume", 2, ProtoAs::kEmbedded, 18, "k8s.io.api.core.v1.PortworxVolumeSource"},
      {"scaleIO", 2, ProtoAs::kEmbedded, 19, "k8s.io.api.core.v1.ScaleIOPersistentVolumeSource"},
      {"local", 2, ProtoAs::kEmbedded, 20, "k8s.io.api.core.v1.LocalVolumeSource"},
      {"storageos", 2, ProtoAs::kEmbedded, 21,
       "k8s.io.api.core.v1.StorageOSPersistentVolumeSource"},
      {"csi", 2, ProtoAs::kEmbedded, 22, "k8s.io.api.core.v1.CSIPersistentVolumeSource"},
      {"accessModes", 3},
      {"claimRef", 4},
      {"persistentVolumeReclaimPolicy", 5},
      {"storageClassName", 6},
      {"mountOptions", 7},
      {"volumeMode", 8},
      {"nodeAffinity", 9},
      {"volumeAttributesClassName", 10}};
};

template <>
struct ProtoMessage<PersistentVolumeStatus> {
  static constexpr ProtoField kFields[] = {
      {"phase", 1}, {"message", 2}, {"reason", 3}, {"lastPhaseTransitionTime", 4}};
};

template <>
struct ProtoMessage<PersistentVolume> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}, {"status", 3}};
};

template <>
struct ProtoMessage<VolumeResourceRequirements> {
  static constexpr ProtoField kFields[] = {{"limits", 1}, {"requests", 2}};
};

template <>
struct ProtoMessage<TypedLocalObjectReference> {
  static constexpr ProtoField kFields[] = {{"apiGroup", 1}, {"kind", 2}, {"name", 3}};
};

template <>
struct ProtoMessage<TypedObjectReference> {
  static constexpr ProtoField kFields[] = {
      {"apiGroup", 1}, {"kind", 2}, {"name", 3}, {"namespace", 4}};
};

template <>
struct ProtoMessage<PersistentVolumeClaimSpec> {
  static constexpr ProtoField kFields[] = {
      {"accessModes", 1},      {"selector", 4},   {"resources", 2},
      {"volumeName", 3},       {"storageClassName", 5}, {"volumeMode", 6},
      {"dataSource", 7},       {"dataSourceRef", 8},    {"volumeAttributesClassName", 9}};
};

template <>
struct ProtoMessage<PersistentVolumeClaimCondition> {
  static constexpr ProtoField kFields[] = {{"type", 1},   {"status", 2}, {"lastProbeTime", 3},
                                           {"lastTransitionTime", 4}, {"reason", 5},
                                           {"message", 6}};
};

template <>
struct ProtoMessage<ModifyVolumeStatus> {
  static constexpr ProtoField kFields[] = {{"targetVolumeAttributesClassName", 1},
                                           {"status", 2}};
};

template <>
struct ProtoMessage<PersistentVolumeClaimStatus> {
  static constexpr ProtoField kFields[] = {{"phase", 1},
                                           {"accessModes", 2},
                                           {"capacity", 3},
                                           {"conditions", 4},
                                           {"allocatedResources", 5},
                                           {"allocatedResourceStatuses", 7},
                                           {"currentVolumeAttributesClassName", 8},
                                           {"modifyVolumeStatus", 9},
                                           {"healthStatus", 10, ProtoAs::kOpaque, 0,
                                            "k8s.io.api.core.v1.VolumeHealthStatus"}};
};

template <>
struct ProtoMessage<PersistentVolumeClaim> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}, {"status", 3}};
};

}  // namespace allot::api
