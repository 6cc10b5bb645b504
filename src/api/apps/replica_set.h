// apps/v1 ReplicaSet and its predecessor core/v1 ReplicationController (k8s.io/api, Kubernetes
// 1.37): a count of identical pods from a template. They live in one room because they are one
// concept — the legacy kind's selector is a plain label map where the new one's is a
// LabelSelector. Allot stores, defaults and validates them; kube-scheduler reads them to spread a
// set's pods. (The controller that keeps the count comes with Deployments.)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/core/pod.h"
#include "api/machinery/meta.h"
#include "api/machinery/object.h"
#include "api/machinery/resources.h"
#include "api/machinery/validation.h"

namespace allot::api {

inline constexpr std::string_view kAppsGroup = "apps";

// ReplicaSetCondition, ReplicationControllerCondition, StatefulSetCondition: one shape.
struct WorkloadCondition {
  std::string type;
  std::string status;
  std::optional<Time> lastTransitionTime;
  std::string reason;
  std::string message;
  template <class V> void Visit(V& v) {
    v("type", type, {.required = true});
    v("status", status, {.required = true});
    v("lastTransitionTime", lastTransitionTime);
    v("reason", reason);
    v("message", message);
  }
  bool operator==(const WorkloadCondition&) const = default;
};

struct ReplicaSetSpec {
  std::optional<int32_t> replicas;  // default 1
  int32_t minReadySeconds = 0;
  std::optional<LabelSelector> selector;
  PodTemplateSpec template_;
  template <class V> void Visit(V& v) {
    v("replicas", replicas);
    v("minReadySeconds", minReadySeconds);
    v("selector", selector, {.required = true});
    v("template", template_);
  }
  bool operator==(const ReplicaSetSpec&) const = default;
};

struct ReplicaSetStatus {
  int32_t replicas = 0;
  int32_t fullyLabeledReplicas = 0;
  int32_t readyReplicas = 0;
  int32_t availableReplicas = 0;
  std::optional<int32_t> terminatingReplicas;
  int64_t observedGeneration = 0;
  std::vector<WorkloadCondition> conditions;
  template <class V> void Visit(V& v) {
    v("replicas", replicas, {.always = true, .required = true});
    v("fullyLabeledReplicas", fullyLabeledReplicas);
    v("readyReplicas", readyReplicas);
    v("availableReplicas", availableReplicas);
    v("terminatingReplicas", terminatingReplicas);
    v("observedGeneration", observedGeneration);
    v("conditions", conditions, {.merge_key = "type"});
  }
  bool operator==(const ReplicaSetStatus&) const = default;
};

struct ReplicaSet : TypedObject<ReplicaSet> {
  static const TypeInfo& Type();
  ReplicaSetSpec spec;
  ReplicaSetStatus status;
  template <class V> void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec);
    v("status", status);
  }
  bool operator==(const ReplicaSet& o) const {
    return metadata == o.metadata && spec == o.spec && status == o.status;
  }
};

struct ReplicationControllerSpec {
  std::optional<int32_t> replicas;  // default 1
  int32_t minReadySeconds = 0;
  StringMap selector;  // defaults to the template's labels
  std::optional<PodTemplateSpec> template_;
  template <class V> void Visit(V& v) {
    v("replicas", replicas);
    v("minReadySeconds", minReadySeconds);
    v("selector", selector);
    v("template", template_);
  }
  bool operator==(const ReplicationControllerSpec&) const = default;
};

struct ReplicationControllerStatus {
  int32_t replicas = 0;
  int32_t fullyLabeledReplicas = 0;
  int32_t readyReplicas = 0;
  int32_t availableReplicas = 0;
  int64_t observedGeneration = 0;
  std::vector<WorkloadCondition> conditions;
  template <class V> void Visit(V& v) {
    v("replicas", replicas, {.always = true, .required = true});
    v("fullyLabeledReplicas", fullyLabeledReplicas);
    v("readyReplicas", readyReplicas);
    v("availableReplicas", availableReplicas);
    v("observedGeneration", observedGeneration);
    v("conditions", conditions, {.merge_key = "type"});
  }
  bool operator==(const ReplicationControllerStatus&) const = default;
};

struct ReplicationController : TypedObject<ReplicationController> {
  static const TypeInfo& Type();
  ReplicationControllerSpec spec;
  ReplicationControllerStatus status;
  template <class V> void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec);
    v("status", status);
  }
  bool operator==(const ReplicationController& o) const {
    return metadata == o.metadata && spec == o.spec && status == o.status;
  }
};

// Defaulting: replicas 1, the template's pod spec as a pod's; a ReplicationController's
// selector (and its own labels) default to the template's labels.
void DefaultReplicaSet(ReplicaSet& rs);
void DefaultReplicationController(ReplicationController& rc);

// appsvalidation.ValidateReplicaSet / corevalidation.ValidateReplicationController:
// replicas and minReadySeconds non-negative; a non-empty selector that matches the template's
// labels; the template valid as a pod's, with restartPolicy Always and no
// activeDeadlineSeconds. On update a ReplicaSet's selector is immutable.
void ValidateReplicaSet(const ReplicaSet& rs, FieldErrors& errs);
void ValidateReplicaSetUpdate(const ReplicaSet& rs, const ReplicaSet& old, FieldErrors& errs);
void ValidateReplicationController(const ReplicationController& rc, FieldErrors& errs);
void ValidateReplicationControllerUpdate(const ReplicationController& rc,
                                         const ReplicationController& old, FieldErrors& errs);

// What every workload template must satisfy (ValidatePodTemplateSpecForReplicaSet and its
// StatefulSet twin): the selector selects the template's labels, the template is a valid pod
// template, its restartPolicy is Always and it sets no activeDeadlineSeconds.
// `selector_matches` is whether the selector selects the template's labels.
void ValidateWorkloadTemplate(const PodTemplateSpec& tmpl, bool selector_matches,
                              std::string_view kind, const Path& p, FieldErrors& errs);

// kubectl's DESIRED / CURRENT / READY / AGE and the wide CONTAINERS / IMAGES / SELECTOR.
std::vector<TableColumn> ReplicaSetColumns();

// replicasets ("rs") and replicationcontrollers ("rc"), with status subresources and kubectl's
// columns. (The scale subresource comes with their controllers.)
void RegisterReplicaSetResources(ResourceRegistry& registry);

// The CONTAINERS and IMAGES cells of a template: names and images joined by ",".
std::string TemplateContainers(const PodTemplateSpec& tmpl);
std::string TemplateImages(const PodTemplateSpec& tmpl);

}  // namespace allot::api
