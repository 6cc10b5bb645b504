// DeviceTaintRule: validation (pkg/apis/resource/validation ValidateDeviceTaintRule*),
// Kubernetes 1.37.
#include "api/resource/device_taint_rule.h"

#include "api/machinery/meta_validation.h"
#include "api/machinery/reflect.h"
#include "api/machinery/validation_util.h"
#include "api/resource/validation.h"

namespace allot::api {

ALLOT_DEFINE_TYPE(DeviceTaintRule, "resource.k8s.io", "v1", "DeviceTaintRule")

namespace {

void ValidateSpec(const DeviceTaintRuleSpec& spec, const DeviceTaintRuleSpec* old,
                  FieldErrors& errs) {
  const Path p("spec");
  if (spec.deviceSelector) {
    const DeviceTaintSelector& sel = *spec.deviceSelector;
    const Path sp = p.Child("deviceSelector");
    if (sel.driver) validation_util::ValidateDriverName(*sel.driver, sp.Child("driver"), errs);
    if (sel.pool) dra_internal::ValidatePoolName(*sel.pool, sp.Child("pool"), errs);
    if (sel.device) ValidateDnsLabel(*sel.device, sp.Child("device"), errs);
  }
  if (old && old->taint.effect == spec.taint.effect) {
    // An unchanged effect is not checked again (a rule stored before a value was retired stays
    // updatable).
    DeviceTaint t = spec.taint;
    t.effect = "NoSchedule";
    ValidateDeviceTaint(t, p.Child("taint"), errs);
    return;
  }
  ValidateDeviceTaint(spec.taint, p.Child("taint"), errs);
}

void ValidateStatus(const DeviceTaintRuleStatus& status, FieldErrors& errs) {
  const Path p = Path("status").Child("conditions");
  if (status.conditions.size() > kDeviceTaintRuleMaxConditions) {
    errs.TooMany(p, static_cast<int64_t>(status.conditions.size()),
                 static_cast<int64_t>(kDeviceTaintRuleMaxConditions));
    return;
  }
  validation_util::ValidateConditions(status.conditions, p, errs);
}

}  // namespace

void ValidateDeviceTaintRule(const DeviceTaintRule& rule, FieldErrors& errs) {
  ValidateObjectMeta(rule.metadata, false, NameIsDnsSubdomain, errs);
  ValidateSpec(rule.spec, nullptr, errs);
}

void ValidateDeviceTaintRuleUpdate(const DeviceTaintRule& rule, const DeviceTaintRule& old,
                                   FieldErrors& errs) {
  ValidateObjectMetaUpdate(rule.metadata, old.metadata, errs);
  ValidateSpec(rule.spec, &old.spec, errs);
}

void ValidateDeviceTaintRuleStatusUpdate(const DeviceTaintRule& rule, const DeviceTaintRule& old,
                                         FieldErrors& errs) {
  ValidateObjectMetaUpdate(rule.metadata, old.metadata, errs);
  ValidateStatus(rule.status, errs);
}

}  // namespace allot::api
