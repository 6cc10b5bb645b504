// core/v1 PersistentVolume and PersistentVolumeClaim (k8s.io/api core/v1, Kubernetes 1.37):
// storage a pod may claim. Allot stores, defaults and validates them as kube-apiserver does so
// that kube-scheduler's volume plugins and StatefulSets find them; it runs no volume binder or
// provisioner. A volume's source (hostPath, local, csi, nfs, ...) is kept verbatim as JSON.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/field.h"
#include "api/machinery/meta.h"
#include "api/machinery/object.h"
#include "api/machinery/resources.h"
#include "api/machinery/validation.h"

namespace allot::api {

struct VolumeNodeAffinity {
  std::optional<NodeSelector> required;
  template <class V> void Visit(V& v) { v("required", required); }
  bool operator==(const VolumeNodeAffinity&) const = default;
};

struct PersistentVolumeSpec {
  ResourceList capacity;
  // PersistentVolumeSource, inlined as Go does: exactly one is set.
  RawJson gcePersistentDisk, awsElasticBlockStore, hostPath, glusterfs, nfs, rbd, iscsi, cinder,
      cephfs, fc, flocker, flexVolume, azureFile, vsphereVolume, quobyte, azureDisk,
      photonPersistentDisk, portworxVolume, scaleIO, local, storageos, csi;
  std::vector<std::string> accessModes;
  std::optional<ObjectReference> claimRef;
  std::string persistentVolumeReclaimPolicy;  // Retain (default) | Delete | Recycle
  std::string storageClassName;
  std::vector<std::string> mountOptions;
  std::optional<std::string> volumeMode;  // Filesystem (default) | Block
  std::optional<VolumeNodeAffinity> nodeAffinity;
  std::optional<std::string> volumeAttributesClassName;
  template <class V> void Visit(V& v) {
    v("capacity", capacity);
    v("gcePersistentDisk", gcePersistentDisk);
    v("awsElasticBlockStore", awsElasticBlockStore);
    v("hostPath", hostPath);
    v("glusterfs", glusterfs);
    v("nfs", nfs);
    v("rbd", rbd);
    v("iscsi", iscsi);
    v("cinder", cinder);
    v("cephfs", cephfs);
    v("fc", fc);
    v("flocker", flocker);
    v("flexVolume", flexVolume);
    v("azureFile", azureFile);
    v("vsphereVolume", vsphereVolume);
    v("quobyte", quobyte);
    v("azureDisk", azureDisk);
    v("photonPersistentDisk", photonPersistentDisk);
    v("portworxVolume", portworxVolume);
    v("scaleIO", scaleIO);
    v("local", local);
    v("storageos", storageos);
    v("csi", csi);
    v("accessModes", accessModes, {.atomic = true});
    v("claimRef", claimRef);
    v("persistentVolumeReclaimPolicy", persistentVolumeReclaimPolicy);
    v("storageClassName", storageClassName);
    v("mountOptions", mountOptions, {.atomic = true});
    v("volumeMode", volumeMode);
    v("nodeAffinity", nodeAffinity);
    v("volumeAttributesClassName", volumeAttributesClassName);
  }
  // The names of the sources that are set ("hostPath", ...), in declaration order.
  std::vector<const char*> SetSources() const;
  bool operator==(const PersistentVolumeSpec&) const = default;
};

struct PersistentVolumeStatus {
  std::string phase;  // Pending | Available | Bound | Released | Failed
  std::string message;
  std::string reason;
  std::optional<Time> lastPhaseTransitionTime;
  template <class V> void Visit(V& v) {
    v("phase", phase);
    v("message", message);
    v("reason", reason);
    v("lastPhaseTransitionTime", lastPhaseTransitionTime);
  }
  bool operator==(const PersistentVolumeStatus&) const = default;
};

struct PersistentVolume : TypedObject<PersistentVolume> {
  static const TypeInfo& Type();
  PersistentVolumeSpec spec;
  PersistentVolumeStatus status;
  template <class V> void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec);
    v("status", status);
  }
  bool operator==(const PersistentVolume& o) const {
    return metadata == o.metadata && spec == o.spec && status == o.status;
  }
};

struct VolumeResourceRequirements {
  ResourceList limits;
  ResourceList requests;
  template <class V> void Visit(V& v) {
    v("limits", limits);
    v("requests", requests);
  }
  bool operator==(const VolumeResourceRequirements&) const = default;
};

struct TypedLocalObjectReference {
  std::optional<std::string> apiGroup;
  std::string kind;
  std::string name;
  template <class V> void Visit(V& v) {
    v("apiGroup", apiGroup);
    v("kind", kind, {.always = true, .required = true});
    v("name", name, {.always = true, .required = true});
  }
  bool operator==(const TypedLocalObjectReference&) const = default;
};

struct TypedObjectReference {
  std::optional<std::string> apiGroup;
  std::string kind;
  std::string name;
  std::optional<std::string> namespace_;
  template <class V> void Visit(V& v) {
    v("apiGroup", apiGroup);
    v("kind", kind, {.always = true, .required = true});
    v("name", name, {.always = true, .required = true});
    v("namespace", namespace_);
  }
  bool operator==(const TypedObjectReference&) const = default;
};

struct PersistentVolumeClaimSpec {
  std::vector<std::string> accessModes;
  std::optional<LabelSelector> selector;
  VolumeResourceRequirements resources;
  std::string volumeName;
  std::optional<std::string> storageClassName;
  std::optional<std::string> volumeMode;
  std::optional<TypedLocalObjectReference> dataSource;
  std::optional<TypedObjectReference> dataSourceRef;
  std::optional<std::string> volumeAttributesClassName;
  template <class V> void Visit(V& v) {
    v("accessModes", accessModes, {.atomic = true});
    v("selector", selector);
    v("resources", resources);
    v("volumeName", volumeName);
    v("storageClassName", storageClassName);
    v("volumeMode", volumeMode);
    v("dataSource", dataSource);
    v("dataSourceRef", dataSourceRef);
    v("volumeAttributesClassName", volumeAttributesClassName);
  }
  bool operator==(const PersistentVolumeClaimSpec&) const = default;
};

struct PersistentVolumeClaimCondition {
  std::string type;
  std::string status;
  std::optional<Time> lastProbeTime;
  std::optional<Time> lastTransitionTime;
  std::string reason;
  std::string message;
  template <class V> void Visit(V& v) {
    v("type", type, {.required = true});
    v("status", status, {.required = true});
    v("lastProbeTime", lastProbeTime);
    v("lastTransitionTime", lastTransitionTime);
    v("reason", reason);
    v("message", message);
  }
  bool operator==(const PersistentVolumeClaimCondition&) const = default;
};

struct ModifyVolumeStatus {
  std::string targetVolumeAttributesClassName;
  std::string status;  // Pending | InProgress | Infeasible
  template <class V> void Visit(V& v) {
    v("targetVolumeAttributesClassName", targetVolumeAttributesClassName);
    v("status", status, {.always = true, .required = true});
  }
  bool operator==(const ModifyVolumeStatus&) const = default;
};

struct PersistentVolumeClaimStatus {
  std::string phase;  // Pending | Bound | Lost
  std::vector<std::string> accessModes;
  ResourceList capacity;
  std::vector<PersistentVolumeClaimCondition> conditions;
  ResourceList allocatedResources;
  StringMap allocatedResourceStatuses;
  std::optional<std::string> currentVolumeAttributesClassName;
  std::optional<ModifyVolumeStatus> modifyVolumeStatus;
  RawJson healthStatus;  // VolumeHealthStatus (CSIVolumeHealth, alpha): kept as sent
  template <class V> void Visit(V& v) {
    v("phase", phase);
    v("accessModes", accessModes, {.atomic = true});
    v("capacity", capacity);
    v("conditions", conditions, {.merge_key = "type"});
    v("allocatedResources", allocatedResources);
    v("allocatedResourceStatuses", allocatedResourceStatuses);
    v("currentVolumeAttributesClassName", currentVolumeAttributesClassName);
    v("modifyVolumeStatus", modifyVolumeStatus);
    v("healthStatus", healthStatus);
  }
  bool operator==(const PersistentVolumeClaimStatus&) const = default;
};

struct PersistentVolumeClaim : TypedObject<PersistentVolumeClaim> {
  static const TypeInfo& Type();
  PersistentVolumeClaimSpec spec;
  PersistentVolumeClaimStatus status;
  template <class V> void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec);
    v("status", status);
  }
  bool operator==(const PersistentVolumeClaim& o) const {
    return metadata == o.metadata && spec == o.spec && status == o.status;
  }
};

// Defaulting (SetDefaults_PersistentVolume / ..._PersistentVolumeClaim and the strategies'
// PrepareForCreate): reclaim policy Retain, volumeMode Filesystem, status.phase Pending.
void DefaultPersistentVolume(PersistentVolume& pv);
void DefaultPersistentVolumeClaim(PersistentVolumeClaim& pvc);

// corevalidation.ValidatePersistentVolume: a path-segment name; access modes (at least one,
// supported, ReadWriteOncePod alone); capacity with exactly `storage`, positive; a supported
// reclaim policy and volume mode; exactly one volume source; node affinity well-formed and
// required for a `local` volume; a DNS-subdomain storage class. On update the source is
// immutable and the node affinity may only be set where it was unset.
void ValidatePersistentVolume(const PersistentVolume& pv, FieldErrors& errs);
void ValidatePersistentVolumeUpdate(const PersistentVolume& pv, const PersistentVolume& old,
                                    FieldErrors& errs);
// Claims: access modes, resources.requests[storage] required and positive, the selector, the
// storage class and data sources. On update the spec is immutable except resources.requests
// (growing a bound claim) and volumeAttributesClassName, as Kubernetes words it.
void ValidatePersistentVolumeClaim(const PersistentVolumeClaim& pvc, FieldErrors& errs);
void ValidatePersistentVolumeClaimUpdate(const PersistentVolumeClaim& pvc,
                                         const PersistentVolumeClaim& old, FieldErrors& errs);
// The claim spec alone, for StatefulSets' volumeClaimTemplates too.
void ValidatePersistentVolumeClaimSpec(const PersistentVolumeClaimSpec& spec, const Path& p,
                                       FieldErrors& errs);

// persistentvolumes ("pv", cluster-scoped), persistentvolumeclaims ("pvc"), with status
// subresources and kubectl's columns.
void RegisterVolumeResources(ResourceRegistry& registry);

}  // namespace allot::api
