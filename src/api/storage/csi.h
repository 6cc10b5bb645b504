// storage.k8s.io/v1 CSIDriver, CSINode and CSIStorageCapacity (k8s.io/api storage/v1, Kubernetes
// 1.37): what a CSI driver declares about itself, which drivers each node runs (and how many
// volumes they may attach there), and how much storage a class has left in a topology segment.
// kube-scheduler reads all three (volume limits, storage capacity); Allot stores and validates
// them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/machinery/meta.h"
#include "api/machinery/object.h"
#include "api/machinery/quantity.h"
#include "api/machinery/resources.h"
#include "api/machinery/validation.h"

namespace allot::api {

struct TokenRequest {
  std::string audience;
  std::optional<int64_t> expirationSeconds;
  template <class V> void Visit(V& v) {
    v("audience", audience, {.always = true, .required = true});
    v("expirationSeconds", expirationSeconds);
  }
  bool operator==(const TokenRequest&) const = default;
};

struct CSIDriverSpec {
  std::optional<bool> attachRequired;    // default true
  std::optional<bool> podInfoOnMount;    // default false
  std::vector<std::string> volumeLifecycleModes;  // default [Persistent]
  std::optional<bool> storageCapacity;   // default false
  std::optional<std::string> fsGroupPolicy;  // default ReadWriteOnceWithFSType
  std::vector<TokenRequest> tokenRequests;
  std::optional<bool> requiresRepublish;  // default false
  std::optional<bool> seLinuxMount;       // default false
  std::optional<int64_t> nodeAllocatableUpdatePeriodSeconds;
  std::optional<bool> serviceAccountTokenInSecrets;
  std::optional<bool> preventPodSchedulingIfMissing;
  template <class V> void Visit(V& v) {
    v("attachRequired", attachRequired);
    v("podInfoOnMount", podInfoOnMount);
    v("volumeLifecycleModes", volumeLifecycleModes, {.set = true});
    v("storageCapacity", storageCapacity);
    v("fsGroupPolicy", fsGroupPolicy);
    v("tokenRequests", tokenRequests, {.atomic = true});
    v("requiresRepublish", requiresRepublish);
    v("seLinuxMount", seLinuxMount);
    v("nodeAllocatableUpdatePeriodSeconds", nodeAllocatableUpdatePeriodSeconds);
    v("serviceAccountTokenInSecrets", serviceAccountTokenInSecrets);
    v("preventPodSchedulingIfMissing", preventPodSchedulingIfMissing);
  }
  bool operator==(const CSIDriverSpec&) const = default;
};

struct CSIDriver : TypedObject<CSIDriver> {
  static const TypeInfo& Type();
  CSIDriverSpec spec;
  template <class V> void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec);
  }
  bool operator==(const CSIDriver& o) const { return metadata == o.metadata && spec == o.spec; }
};

struct VolumeNodeResources {
  std::optional<int32_t> count;
  template <class V> void Visit(V& v) { v("count", count); }
  bool operator==(const VolumeNodeResources&) const = default;
};

struct CSINodeDriver {
  std::string name;
  std::string nodeID;
  std::vector<std::string> topologyKeys;
  std::optional<VolumeNodeResources> allocatable;
  template <class V> void Visit(V& v) {
    v("name", name, {.always = true, .required = true});
    v("nodeID", nodeID, {.always = true, .required = true});
    v("topologyKeys", topologyKeys, {.atomic = true, .always = true});
    v("allocatable", allocatable);
  }
  bool operator==(const CSINodeDriver&) const = default;
};

struct CSINodeSpec {
  std::vector<CSINodeDriver> drivers;
  template <class V> void Visit(V& v) {
    v("drivers", drivers, {.merge_key = "name", .always = true, .required = true});
  }
  bool operator==(const CSINodeSpec&) const = default;
};

struct StorageHealthCondition {
  std::string status;
  std::string reason;
  std::string message;
  std::optional<std::string> accessMode;
  std::optional<std::string> volumeMode;
  std::optional<Time> lastTransitionTime;
  template <class V> void Visit(V& v) {
    v("status", status, {.always = true, .required = true});
    v("reason", reason, {.always = true, .required = true});
    v("message", message);
    v("accessMode", accessMode);
    v("volumeMode", volumeMode);
    v("lastTransitionTime", lastTransitionTime, {.always = true});
  }
  bool operator==(const StorageHealthCondition&) const = default;
};

struct StorageHealth {
  std::string name;
  std::vector<StorageHealthCondition> healthConditions;
  template <class V> void Visit(V& v) {
    v("name", name, {.always = true, .required = true});
    v("healthConditions", healthConditions, {.atomic = true});
  }
  bool operator==(const StorageHealth&) const = default;
};

struct CSINodeStatus {
  std::vector<StorageHealth> storageHealth;
  template <class V> void Visit(V& v) { v("storageHealth", storageHealth, {.merge_key = "name"}); }
  bool operator==(const CSINodeStatus&) const = default;
};

struct CSINode : TypedObject<CSINode> {
  static const TypeInfo& Type();
  CSINodeSpec spec;
  CSINodeStatus status;
  template <class V> void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec);
    v("status", status);
  }
  bool operator==(const CSINode& o) const {
    return metadata == o.metadata && spec == o.spec && status == o.status;
  }
};

struct CSIStorageCapacity : TypedObject<CSIStorageCapacity> {
  static const TypeInfo& Type();
  std::optional<LabelSelector> nodeTopology;
  std::string storageClassName;
  std::optional<Quantity> capacity;
  std::optional<Quantity> maximumVolumeSize;
  template <class V> void Visit(V& v) {
    v("metadata", metadata);
    v("nodeTopology", nodeTopology);
    v("storageClassName", storageClassName, {.always = true, .required = true});
    v("capacity", capacity);
    v("maximumVolumeSize", maximumVolumeSize);
  }
  bool operator==(const CSIStorageCapacity& o) const {
    return metadata == o.metadata && nodeTopology == o.nodeTopology &&
           storageClassName == o.storageClassName && capacity == o.capacity &&
           maximumVolumeSize == o.maximumVolumeSize;
  }
};

// SetDefaults_CSIDriver: attachRequired true; podInfoOnMount, storageCapacity,
// requiresRepublish and seLinuxMount false; fsGroupPolicy ReadWriteOnceWithFSType;
// volumeLifecycleModes [Persistent].
void DefaultCSIDriver(CSIDriver& driver);
// storagevalidation.ValidateCSIDriver: the name is a CSI driver name; the defaulted fields set;
// fsGroupPolicy and lifecycle modes supported; token requests with unique audiences and
// 10 min - 2^32 s expirations; serviceAccountTokenInSecrets only with token requests; the update
// period at least 10 s. On update attachRequired and volumeLifecycleModes are immutable.
void ValidateCSIDriver(const CSIDriver& driver, FieldErrors& errs);
void ValidateCSIDriverUpdate(const CSIDriver& driver, const CSIDriver& old, FieldErrors& errs);
// storagevalidation.ValidateCSINode: drivers named as CSI drivers, unique, with a node ID of at
// most 256 bytes, topology keys qualified names, allocatable count non-negative. On update a
// driver's nodeID and topology keys may not change.
void ValidateCSINode(const CSINode& node, FieldErrors& errs);
void ValidateCSINodeUpdate(const CSINode& node, const CSINode& old, FieldErrors& errs);
// storagevalidation.ValidateCSIStorageCapacity: a DNS-subdomain storage class name, the
// topology a valid selector, capacities non-negative; nodeTopology and storageClassName
// immutable.
void ValidateCSIStorageCapacity(const CSIStorageCapacity& c, FieldErrors& errs);
void ValidateCSIStorageCapacityUpdate(const CSIStorageCapacity& c, const CSIStorageCapacity& old,
                                      FieldErrors& errs);

}  // namespace allot::api
