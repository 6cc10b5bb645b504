// apps/v1 StatefulSet (k8s.io/api apps/v1, Kubernetes 1.37): pods with stable identities and
// their own volume claims. Allot stores, defaults and validates StatefulSets; kube-scheduler reads
// them to spread a set's pods. No controller creates their pods yet.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/apps/replica_set.h"
#include "api/core/volumes.h"

namespace allot::api {

struct RollingUpdateStatefulSetStrategy {
  std::optional<int32_t> partition;
  std::optional<IntOrString> maxUnavailable;
  template <class V> void Visit(V& v) {
    v("partition", partition);
    v("maxUnavailable", maxUnavailable);
  }
  bool operator==(const RollingUpdateStatefulSetStrategy&) const = default;
};

struct StatefulSetUpdateStrategy {
  std::string type;  // RollingUpdate (default) | OnDelete
  std::optional<RollingUpdateStatefulSetStrategy> rollingUpdate;
  template <class V> void Visit(V& v) {
    v("type", type);
    v("rollingUpdate", rollingUpdate);
  }
  bool operator==(const StatefulSetUpdateStrategy&) const = default;
};

struct StatefulSetPersistentVolumeClaimRetentionPolicy {
  std::string whenDeleted;  // Retain (default) | Delete
  std::string whenScaled;
  template <class V> void Visit(V& v) {
    v("whenDeleted", whenDeleted);
    v("whenScaled", whenScaled);
  }
  bool operator==(const StatefulSetPersistentVolumeClaimRetentionPolicy&) const = default;
};

struct StatefulSetOrdinals {
  int32_t start = 0;
  template <class V> void Visit(V& v) { v("start", start); }
  bool operator==(const StatefulSetOrdinals&) const = default;
};

struct StatefulSetSpec {
  std::optional<int32_t> replicas;  // default 1
  std::optional<LabelSelector> selector;
  PodTemplateSpec template_;
  std::vector<PersistentVolumeClaim> volumeClaimTemplates;
  std::string serviceName;
  std::string podManagementPolicy;  // OrderedReady (default) | Parallel
  StatefulSetUpdateStrategy updateStrategy;
  std::optional<int32_t> revisionHistoryLimit;  // default 10
  int32_t minReadySeconds = 0;
  std::optional<StatefulSetPersistentVolumeClaimRetentionPolicy>
      persistentVolumeClaimRetentionPolicy;
  std::optional<StatefulSetOrdinals> ordinals;
  template <class V> void Visit(V& v) {
    v("replicas", replicas);
    v("selector", selector, {.required = true});
    v("template", template_);
    v("volumeClaimTemplates", volumeClaimTemplates, {.atomic = true});
    v("serviceName", serviceName);
    v("podManagementPolicy", podManagementPolicy);
    v("updateStrategy", updateStrategy);
    v("revisionHistoryLimit", revisionHistoryLimit);
    v("minReadySeconds", minReadySeconds);
    v("persistentVolumeClaimRetentionPolicy", persistentVolumeClaimRetentionPolicy);
    v("ordinals", ordinals);
  }
  bool operator==(const StatefulSetSpec&) const = default;
};

struct StatefulSetStatus {
  int64_t observedGeneration = 0;
  int32_t replicas = 0;
  int32_t readyReplicas = 0;
  int32_t currentReplicas = 0;
  int32_t updatedReplicas = 0;
  std::string currentRevision;
  std::string updateRevision;
  std::optional<int32_t> collisionCount;
  std::vector<WorkloadCondition> conditions;
  int32_t availableReplicas = 0;
  template <class V> void Visit(V& v) {
    v("observedGeneration", observedGeneration);
    v("replicas", replicas, {.always = true, .required = true});
    v("readyReplicas", readyReplicas);
    v("currentReplicas", currentReplicas);
    v("updatedReplicas", updatedReplicas);
    v("currentRevision", currentRevision);
    v("updateRevision", updateRevision);
    v("collisionCount", collisionCount);
    v("conditions", conditions, {.merge_key = "type"});
    v("availableReplicas", availableReplicas, {.always = true});
  }
  bool operator==(const StatefulSetStatus&) const = default;
};

struct StatefulSet : TypedObject<StatefulSet> {
  static const TypeInfo& Type();
  StatefulSetSpec spec;
  StatefulSetStatus status;
  template <class V> void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec);
    v("status", status);
  }
  bool operator==(const StatefulSet& o) const {
    return metadata == o.metadata && spec == o.spec && status == o.status;
  }
};

// SetDefaults_StatefulSet: replicas 1, podManagementPolicy OrderedReady, updateStrategy
// RollingUpdate with partition 0, revisionHistoryLimit 10, the claim retention policy
// Retain/Retain; the template as a pod's and each claim template as a claim.
void DefaultStatefulSet(StatefulSet& sts);

// appsvalidation.ValidateStatefulSet: replicas, minReadySeconds and revisionHistoryLimit
// non-negative; policies and strategy types supported; a non-empty selector matching the
// template, which must be a valid pod template with restartPolicy Always; claim templates valid.
// On update only replicas, ordinals, template, updateStrategy, revisionHistoryLimit,
// persistentVolumeClaimRetentionPolicy and minReadySeconds may change.
void ValidateStatefulSet(const StatefulSet& sts, FieldErrors& errs);
void ValidateStatefulSetUpdate(const StatefulSet& sts, const StatefulSet& old, FieldErrors& errs);

// statefulsets ("sts", category all), with a status subresource and kubectl's columns.
void RegisterStatefulSetResources(ResourceRegistry& registry);

}  // namespace allot::api
