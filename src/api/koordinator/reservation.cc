#include "api/koordinator/reservation.h"

#include <algorithm>
#include <set>

#include "api/core/strategy.h"
#include "api/machinery/meta_validation.h"
#include "api/machinery/names.h"
#include "api/machinery/reflect.h"
#include "api/machinery/validation_util.h"

namespace allot::api {

ALLOT_DEFINE_TYPE(Reservation, "scheduling.koordinator.sh", "v1alpha1", "Reservation")

void SetReservationDefaults(Reservation& obj) {
  ReservationSpec& spec = obj.spec;
  if (!spec.ttl) spec.ttl = std::string(kReservationDefaultTTL);
  if (!spec.allocateOnce) spec.allocateOnce = true;
}

std::optional<int64_t> ReservationTTLNanos(const ReservationSpec& spec) {
  if (!spec.ttl) return kReservationDefaultTTLNanos;
  Duration d;
  if (!Duration::Parse(*spec.ttl, d)) return std::nullopt;
  return d.nanos;
}

const ReservationCondition* FindReservationCondition(const ReservationStatus& s,
                                                     std::string_view type) {
  for (const ReservationCondition& c : s.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

void SetReservationCondition(ReservationStatus& s, std::string_view type, std::string_view status,
                             std::string_view reason, std::string message, Time now) {
  auto it = std::find_if(s.conditions.begin(), s.conditions.end(),
                         [&](const ReservationCondition& c) { return c.type == type; });
  if (it == s.conditions.end()) {
    s.conditions.push_back({.type = std::string(type)});
    it = s.conditions.end() - 1;
  }
  if (it->status != status || !it->lastTransitionTime) it->lastTransitionTime = now;
  it->status = std::string(status);
  it->reason = std::string(reason);
  it->message = std::move(message);
  it->lastProbeTime = now;
}

bool ReservationAllocateOnce(const ReservationSpec& spec) {
  return spec.allocateOnce.value_or(true);
}

namespace {

void ValidateControllerReference(const ReservationControllerReference& c, const Path& p,
                                 FieldErrors& errs) {
  if (c.apiVersion.empty()) errs.Required(p.Child("apiVersion"));
  if (c.kind.empty()) errs.Required(p.Child("kind"));
  if (c.name.empty()) errs.Required(p.Child("name"));
  if (c.uid.empty()) errs.Required(p.Child("uid"));
  if (!c.namespace_.empty()) ValidateDnsLabel(c.namespace_, p.Child("namespace"), errs);
}

void ValidateOwners(const std::vector<ReservationOwner>& owners, const Path& p, FieldErrors& errs) {
  if (owners.empty()) {
    errs.Required(p);
    return;
  }
  for (size_t i = 0; i < owners.size(); ++i) {
    const ReservationOwner& o = owners[i];
    Path op = p.Index(i);
    if (!o.object && !o.controller && !o.labelSelector) {
      errs.Required(op, "at least one of `object`, `controller` or `labelSelector` is required");
    }
    if (o.controller) ValidateControllerReference(*o.controller, op.Child("controller"), errs);
    if (o.labelSelector) ValidateLabelSelector(*o.labelSelector, op.Child("labelSelector"), errs);
  }
}

}  // namespace

void ValidateReservation(const Reservation& obj, FieldErrors& errs) {
  ValidateObjectMeta(obj.metadata, /*namespaced=*/false, NameIsDnsSubdomain, errs);
  Path p("spec");
  const ReservationSpec& spec = obj.spec;
  if (!spec.template_) {
    errs.Required(p.Child("template"));
  } else {
    const Path tp = p.Child("template").Child("spec");
    if (!spec.template_->spec.nodeName.empty()) {
      validation_util::ValidateNodeName(spec.template_->spec.nodeName, tp.Child("nodeName"), errs);
    }
    ValidatePodResourceClaims(spec.template_->spec.resourceClaims, obj.metadata.name,
                              tp.Child("resourceClaims"), errs);
  }
  ValidateOwners(spec.owners, p.Child("owners"), errs);
  if (spec.ttl) {
    std::optional<int64_t> ttl = ReservationTTLNanos(spec);
    if (!ttl) {
      errs.Invalid(p.Child("ttl"), *spec.ttl, "must be a duration such as 24h, 90m or 0s");
    } else if (*ttl < 0) {
      errs.Invalid(p.Child("ttl"), *spec.ttl, "must be greater than or equal to 0");
    }
  }
  if (!spec.allocatePolicy.empty() && spec.allocatePolicy != kReservationAllocatePolicyAligned &&
      spec.allocatePolicy != kReservationAllocatePolicyRestricted) {
    errs.NotSupported(p.Child("allocatePolicy"), spec.allocatePolicy,
                      {kReservationAllocatePolicyAligned, kReservationAllocatePolicyRestricted});
  }
  ValidateTaints(spec.taints, p.Child("taints"), errs);
}

void ValidateReservationUpdate(const Reservation& obj, const Reservation& old, FieldErrors& errs) {
  ValidateObjectMetaUpdate(obj.metadata, old.metadata, errs);
}

void ValidateReservationStatusUpdate(const Reservation& obj, const Reservation& old,
                                     FieldErrors& errs) {
  ValidateObjectMetaUpdate(obj.metadata, old.metadata, errs);
  Path p("status");
  const ReservationStatus& status = obj.status;
  static const std::vector<std::string_view> kPhases = {kReservationPending, kReservationAvailable,
                                                        kReservationSucceeded, kReservationWaiting,
                                                        kReservationFailed};
  if (!status.phase.empty() &&
      std::find(kPhases.begin(), kPhases.end(), status.phase) == kPhases.end()) {
    errs.NotSupported(p.Child("phase"), status.phase, kPhases);
  }
  for (size_t i = 0; i < status.conditions.size(); ++i) {
    const std::string& s = status.conditions[i].status;
    if (s != "True" && s != "False" && s != "Unknown") {
      errs.NotSupported(p.Child("conditions").Index(i).Child("status"), s,
                        {"False", "True", "Unknown"});
    }
  }
  if (!status.nodeName.empty())
    validation_util::ValidateNodeName(status.nodeName, p.Child("nodeName"), errs);
}

}  // namespace allot::api
