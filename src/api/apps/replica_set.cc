// ReplicaSet and ReplicationController: defaulting, validation (pkg/apis/apps/validation
// ValidateReplicaSet*, pkg/apis/core/validation ValidateReplicationController*) and kubectl's
// columns, Kubernetes 1.37.
#include "api/apps/replica_set.h"

#include "api/core/strategy.h"
#include "api/machinery/meta_validation.h"
#include "api/machinery/reflect.h"
#include "api/machinery/selector.h"
#include "api/machinery/strategy_hooks.h"

namespace allot::api {

ALLOT_DEFINE_TYPE(ReplicaSet, "apps", "v1", "ReplicaSet")
ALLOT_DEFINE_TYPE(ReplicationController, "", "v1", "ReplicationController")

namespace {

// A map[string]string as Kubernetes 1.37 renders an invalid value: JSON, keys sorted,
// {"a":"b","c":"d"}.
std::string JsonStringMap(const StringMap& m) {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : m) {
    if (!first) out += ",";
    first = false;
    out += Quote(k) + ":" + Quote(v);
  }
  return out + "}";
}

std::string SelectorText(const StringMap& m) {
  std::string out;
  for (const auto& [k, v] : m) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out.empty() ? "<none>" : out;
}

std::string LabelSelectorText(const std::optional<LabelSelector>& sel) {
  if (!sel) return "<none>";
  auto expr = LabelSelectorExpr::FromLabelSelector(*sel);
  if (!expr.ok()) return "<error>";
  std::string s = expr->ToString();
  return s.empty() ? "<none>" : s;
}

std::vector<TableCell> ReplicaSetRow(const Object& obj, Time now) {
  const auto& rs = static_cast<const ReplicaSet&>(obj);
  return {int64_t{rs.spec.replicas.value_or(1)},
          int64_t{rs.status.replicas},
          int64_t{rs.status.readyReplicas},
          AgeCell(obj, now),
          TemplateContainers(rs.spec.template_),
          TemplateImages(rs.spec.template_),
          LabelSelectorText(rs.spec.selector)};
}

std::vector<TableCell> ReplicationControllerRow(const Object& obj, Time now) {
  const auto& rc = static_cast<const ReplicationController&>(obj);
  static const PodTemplateSpec kNone;
  const PodTemplateSpec& tmpl = rc.spec.template_ ? *rc.spec.template_ : kNone;
  return {int64_t{rc.spec.replicas.value_or(1)},
          int64_t{rc.status.replicas},
          int64_t{rc.status.readyReplicas},
          AgeCell(obj, now),
          TemplateContainers(tmpl),
          TemplateImages(tmpl),
          SelectorText(rc.spec.selector)};
}

std::optional<std::string> ReplicaSetFieldValue(const Object& obj, std::string_view field) {
  if (field == "status.replicas") {
    return std::to_string(static_cast<const ReplicaSet&>(obj).status.replicas);
  }
  return std::nullopt;
}

std::optional<std::string> ReplicationControllerFieldValue(const Object& obj,
                                                           std::string_view field) {
  if (field == "status.replicas") {
    return std::to_string(static_cast<const ReplicationController&>(obj).status.replicas);
  }
  return std::nullopt;
}

void ValidateCounts(std::optional<int32_t> replicas, int32_t min_ready, const Path& spec,
                    FieldErrors& errs) {
  if (replicas) ValidateNonnegative(*replicas, spec.Child("replicas"), errs);
  ValidateNonnegative(min_ready, spec.Child("minReadySeconds"), errs);
}

}  // namespace

std::string TemplateContainers(const PodTemplateSpec& tmpl) {
  std::string out;
  for (const Container& c : tmpl.spec.containers) {
    out += (out.empty() ? "" : ",") + std::string(c.name);
  }
  return out;
}

std::string TemplateImages(const PodTemplateSpec& tmpl) {
  std::string out;
  for (const Container& c : tmpl.spec.containers) {
    out += (out.empty() ? "" : ",") + std::string(c.image);
  }
  return out;
}

std::vector<TableColumn> ReplicaSetColumns() {
  return {{"Desired", "integer", "", "Number of desired pods", 0},
          {"Current", "integer", "", "Number of actual replicas", 0},
          {"Ready", "integer", "", "Number of ready replicas", 0},
          AgeColumn(),
          {"Containers", "string", "", "Names of each container in the template.", 1},
          {"Images", "string", "", "Images referenced by each container in the template.", 1},
          {"Selector", "string", "", "Label selector for pods", 1}};
}

void DefaultReplicaSet(ReplicaSet& rs) {
  if (!rs.spec.replicas) rs.spec.replicas = 1;
  DefaultPodTemplateSpec(rs.spec.template_);
}

void DefaultReplicationController(ReplicationController& rc) {
  if (!rc.spec.replicas) rc.spec.replicas = 1;
  if (!rc.spec.template_) return;
  const StringMap& labels = rc.spec.template_->metadata.labels;
  if (rc.spec.selector.empty()) rc.spec.selector = labels;
  if (rc.metadata.labels.empty()) rc.metadata.labels = labels;
  DefaultPodTemplateSpec(*rc.spec.template_);
}

void ValidateWorkloadTemplate(const PodTemplateSpec& tmpl, bool selector_matches,
                              std::string_view kind, const Path& p, FieldErrors& errs) {
  if (!selector_matches) {
    errs.InvalidRendered(p.Child("metadata").Child("labels"), JsonStringMap(tmpl.metadata.labels),
                         "`selector` does not match template `labels`");
  }
  ValidatePodTemplateSpec(tmpl, p, errs);
  if (tmpl.spec.restartPolicy != "Always") {
    errs.NotSupported(p.Child("spec").Child("restartPolicy"), tmpl.spec.restartPolicy, {"Always"});
  }
  if (tmpl.spec.rare->activeDeadlineSeconds) {
    errs.Forbidden(p.Child("spec").Child("activeDeadlineSeconds"),
                   "activeDeadlineSeconds in " + std::string(kind) + " is not Supported");
  }
}

void ValidateReplicaSet(const ReplicaSet& rs, FieldErrors& errs) {
  ValidateObjectMeta(rs.metadata, true, NameIsDnsSubdomain, errs);
  const Path spec("spec");
  ValidateCounts(rs.spec.replicas, rs.spec.minReadySeconds, spec, errs);
  if (!rs.spec.selector) {
    errs.Required(spec.Child("selector"));
    return;
  }
  const LabelSelector& sel = *rs.spec.selector;
  ValidateLabelSelector(sel, spec.Child("selector"), errs);
  if (sel.matchLabels.empty() && sel.matchExpressions.empty()) {
    errs.InvalidRendered(spec.Child("selector"), "nil", "empty selector is invalid for deployment");
  }
  auto expr = LabelSelectorExpr::FromLabelSelector(sel);
  if (!expr.ok()) {
    errs.InvalidRendered(spec.Child("selector"), "nil", "invalid label selector");
    return;
  }
  const bool matches = expr->Empty() || expr->Matches(rs.spec.template_.metadata.labels);
  ValidateWorkloadTemplate(rs.spec.template_, matches, "ReplicaSet", spec.Child("template"), errs);
}

void ValidateReplicaSetUpdate(const ReplicaSet& rs, const ReplicaSet& old, FieldErrors& errs) {
  ValidateObjectMetaUpdate(rs.metadata, old.metadata, errs);
  if (rs.spec.selector != old.spec.selector) {
    errs.InvalidRendered(Path("spec").Child("selector"), "v1.LabelSelector{...}",
                         "field is immutable");
  }
}

void ValidateReplicationController(const ReplicationController& rc, FieldErrors& errs) {
  ValidateObjectMeta(rc.metadata, true, NameIsDnsSubdomain, errs);
  const Path spec("spec");
  ValidateCounts(rc.spec.replicas, rc.spec.minReadySeconds, spec, errs);
  if (rc.spec.selector.empty()) errs.Required(spec.Child("selector"));
  ValidateLabels(rc.spec.selector, spec.Child("selector"), errs);
  if (!rc.spec.template_) {
    errs.Required(spec.Child("template"));
    return;
  }
  bool matches = true;
  for (const auto& [k, v] : rc.spec.selector) {
    auto it = rc.spec.template_->metadata.labels.find(k);
    matches = matches && it != rc.spec.template_->metadata.labels.end() && it->second == v;
  }
  ValidateWorkloadTemplate(*rc.spec.template_, matches, "ReplicationController",
                           spec.Child("template"), errs);
}

void ValidateReplicationControllerUpdate(const ReplicationController& rc,
                                         const ReplicationController& old, FieldErrors& errs) {
  ValidateObjectMetaUpdate(rc.metadata, old.metadata, errs);
}

void RegisterReplicaSetResources(ResourceRegistry& registry) {
  ResourceInfo rs = NewResourceInfo(std::string(kAppsGroup), "v1", "replicasets", "replicaset",
                                    ReplicaSet::Type(), true);
  rs.short_names = {"rs"};
  rs.counts_generation = true;
  rs.categories = {"all"};
  rs.status_subresource = true;
  rs.default_fn = hooks::Default<ReplicaSet, DefaultReplicaSet>;
  rs.validate = hooks::Validate<ReplicaSet, ValidateReplicaSet>;
  rs.validate_update = hooks::ValidateUpdate<ReplicaSet, ValidateReplicaSetUpdate>;
  rs.field_labels = {"status.replicas"};
  rs.field_value = ReplicaSetFieldValue;
  rs.columns = ReplicaSetColumns();
  rs.row = ReplicaSetRow;
  registry.Add(std::move(rs));

  ResourceInfo rc = NewResourceInfo("", "v1", "replicationcontrollers", "replicationcontroller",
                                    ReplicationController::Type(), true);
  rc.short_names = {"rc"};
  rc.counts_generation = true;
  rc.categories = {"all"};
  rc.status_subresource = true;
  rc.default_fn = hooks::Default<ReplicationController, DefaultReplicationController>;
  rc.validate = hooks::Validate<ReplicationController, ValidateReplicationController>;
  rc.validate_update =
      hooks::ValidateUpdate<ReplicationController, ValidateReplicationControllerUpdate>;
  rc.field_labels = {"status.replicas"};
  rc.field_value = ReplicationControllerFieldValue;
  rc.columns = ReplicaSetColumns();
  rc.row = ReplicationControllerRow;
  registry.Add(std::move(rc));
}

}  // namespace allot::api
