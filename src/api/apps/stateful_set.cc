// StatefulSet: defaulting, validation (pkg/apis/apps/validation ValidateStatefulSet*) and
// kubectl's columns, Kubernetes 1.37.
#include "api/apps/stateful_set.h"

#include <algorithm>

#include "api/core/strategy.h"
#include "api/machinery/meta_validation.h"
#include "api/machinery/reflect.h"
#include "api/machinery/validation_util.h"
#include "api/machinery/selector.h"
#include "api/machinery/strategy_hooks.h"

namespace allot::api {

ALLOT_DEFINE_TYPE(StatefulSet, "apps", "v1", "StatefulSet")

namespace {

constexpr int32_t kDefaultRevisionHistoryLimit = 10;
const std::vector<std::string_view> kPodManagementPolicies = {"OrderedReady", "Parallel"};
const std::vector<std::string_view> kUpdateStrategies = {"OnDelete", "RollingUpdate"};
const std::vector<std::string_view> kRetentionPolicies = {"Delete", "Retain"};

std::vector<TableCell> StatefulSetRow(const Object& obj, Time now) {
  const auto& sts = static_cast<const StatefulSet&>(obj);
  return {std::to_string(sts.status.readyReplicas) + "/" +
              std::to_string(sts.spec.replicas.value_or(1)),
          AgeCell(obj, now), TemplateContainers(sts.spec.template_),
          TemplateImages(sts.spec.template_)};
}

void ValidateRetention(const StatefulSetPersistentVolumeClaimRetentionPolicy& policy,
                       const Path& p, FieldErrors& errs) {
  if (!validation_util::IsOneOf(policy.whenDeleted, kRetentionPolicies)) {
    errs.NotSupported(p.Child("whenDeleted"), policy.whenDeleted, kRetentionPolicies);
  }
  if (!validation_util::IsOneOf(policy.whenScaled, kRetentionPolicies)) {
    errs.NotSupported(p.Child("whenScaled"), policy.whenScaled, kRetentionPolicies);
  }
}

void ValidateUpdateStrategy(const StatefulSetUpdateStrategy& s, const Path& p,
                            FieldErrors& errs) {
  if (s.type.empty()) {
    errs.Required(p.Child("type"));
  } else if (!validation_util::IsOneOf(s.type, kUpdateStrategies)) {
    errs.NotSupported(p.Child("type"), s.type, kUpdateStrategies);
  } else if (s.type == "OnDelete" && s.rollingUpdate) {
    errs.Invalid(p.Child("rollingUpdate"), "",
                 "only allowed for updateStrategy 'RollingUpdate'");
  }
  if (s.rollingUpdate && s.rollingUpdate->partition) {
    ValidateNonnegative(*s.rollingUpdate->partition, p.Child("rollingUpdate").Child("partition"),
                        errs);
  }
}

}  // namespace

void DefaultStatefulSet(StatefulSet& sts) {
  StatefulSetSpec& s = sts.spec;
  if (!s.replicas) s.replicas = 1;
  if (s.podManagementPolicy.empty()) s.podManagementPolicy = "OrderedReady";
  if (s.updateStrategy.type.empty()) s.updateStrategy.type = "RollingUpdate";
  if (s.updateStrategy.type == "RollingUpdate") {
    if (!s.updateStrategy.rollingUpdate) s.updateStrategy.rollingUpdate.emplace();
    if (!s.updateStrategy.rollingUpdate->partition) s.updateStrategy.rollingUpdate->partition = 0;
  }
  if (!s.revisionHistoryLimit) s.revisionHistoryLimit = kDefaultRevisionHistoryLimit;
  if (!s.persistentVolumeClaimRetentionPolicy) s.persistentVolumeClaimRetentionPolicy.emplace();
  auto& retention = *s.persistentVolumeClaimRetentionPolicy;
  if (retention.whenDeleted.empty()) retention.whenDeleted = "Retain";
  if (retention.whenScaled.empty()) retention.whenScaled = "Retain";
  if (sts.metadata.labels.empty()) sts.metadata.labels = s.template_.metadata.labels;
  DefaultPodTemplateSpec(s.template_);
  for (PersistentVolumeClaim& pvc : s.volumeClaimTemplates) DefaultPersistentVolumeClaim(pvc);
}

void ValidateStatefulSet(const StatefulSet& sts, FieldErrors& errs) {
  ValidateObjectMeta(sts.metadata, true, NameIsDnsLabel, errs);
  const Path spec("spec");
  if (!validation_util::IsOneOf(sts.spec.podManagementPolicy, kPodManagementPolicies)) {
    errs.NotSupported(spec.Child("podManagementPolicy"), sts.spec.podManagementPolicy,
                      kPodManagementPolicies);
  }
  ValidateUpdateStrategy(sts.spec.updateStrategy, spec.Child("updateStrategy"), errs);
  if (sts.spec.persistentVolumeClaimRetentionPolicy) {
    ValidateRetention(*sts.spec.persistentVolumeClaimRetentionPolicy,
                      spec.Child("persistentVolumeClaimRetentionPolicy"), errs);
  }
  if (sts.spec.replicas) ValidateNonnegative(*sts.spec.replicas, spec.Child("replicas"), errs);
  ValidateNonnegative(sts.spec.minReadySeconds, spec.Child("minReadySeconds"), errs);
  if (sts.spec.revisionHistoryLimit) {
    ValidateNonnegative(*sts.spec.revisionHistoryLimit, spec.Child("revisionHistoryLimit"), errs);
  }
  if (sts.spec.ordinals) {
    ValidateNonnegative(sts.spec.ordinals->start, spec.Child("ordinals").Child("start"), errs);
  }
  for (size_t i = 0; i < sts.spec.volumeClaimTemplates.size(); ++i) {
    const PersistentVolumeClaim& pvc = sts.spec.volumeClaimTemplates[i];
    const Path cp = spec.Child("volumeClaimTemplates").Index(i);
    ValidatePersistentVolumeClaimSpec(pvc.spec, cp.Child("spec"), errs);
  }
  if (!sts.spec.selector) {
    errs.Required(spec.Child("selector"));
    return;
  }
  const LabelSelector& sel = *sts.spec.selector;
  ValidateLabelSelector(sel, spec.Child("selector"), errs);
  if (sel.matchLabels.empty() && sel.matchExpressions.empty()) {
    errs.InvalidRendered(spec.Child("selector"), "nil",
                         "empty selector is invalid for statefulset");
  }
  auto expr = LabelSelectorExpr::FromLabelSelector(sel);
  if (!expr.ok()) {
    errs.InvalidRendered(spec.Child("selector"), "nil", "invalid label selector");
    return;
  }
  const bool matches = expr->Empty() || expr->Matches(sts.spec.template_.metadata.labels);
  ValidateWorkloadTemplate(sts.spec.template_, matches, "StatefulSet", spec.Child("template"),
                           errs);
}

void ValidateStatefulSetUpdate(const StatefulSet& sts, const StatefulSet& old,
                               FieldErrors& errs) {
  ValidateObjectMetaUpdate(sts.metadata, old.metadata, errs);
  StatefulSetSpec now = sts.spec, was = old.spec;
  for (StatefulSetSpec* s : {&now, &was}) {
    s->replicas.reset();
    s->ordinals.reset();
    s->template_ = {};
    s->updateStrategy = {};
    s->revisionHistoryLimit.reset();
    s->persistentVolumeClaimRetentionPolicy.reset();
    s->minReadySeconds = 0;
  }
  if (now != was) {
    errs.Forbidden(Path("spec"),
                   "updates to statefulset spec for fields other than 'replicas', 'ordinals', "
                   "'template', 'updateStrategy', 'revisionHistoryLimit', "
                   "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden");
  }
}

void RegisterStatefulSetResources(ResourceRegistry& registry) {
  ResourceInfo r = NewResourceInfo(std::string(kAppsGroup), "v1", "statefulsets", "statefulset",
                                   StatefulSet::Type(), true);
  r.short_names = {"sts"};
  r.counts_generation = true;
  r.categories = {"all"};
  r.status_subresource = true;
  r.default_fn = hooks::Default<StatefulSet, DefaultStatefulSet>;
  r.validate = hooks::Validate<StatefulSet, ValidateStatefulSet>;
  r.validate_update = hooks::ValidateUpdate<StatefulSet, ValidateStatefulSetUpdate>;
  r.columns = {{"Ready", "string", "", "Number of the pod with ready state", 0},
               AgeColumn(),
               {"Containers", "string", "", "Names of each container in the template.", 1},
               {"Images", "string", "", "Images referenced by each container in the template.", 1}};
  r.row = StatefulSetRow;
  registry.Add(std::move(r));
}

}  // namespace allot::api
