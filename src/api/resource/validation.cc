// Validation of DeviceClass, ResourceClaim (spec) and ResourceClaimTemplate, plus the pieces
// the status and slice files share. See api/resource/validation.h for the contract.
#include "api/resource/validation.h"

#include <atomic>

#include "api/machinery/meta_validation.h"
#include "api/machinery/names.h"
#include "api/machinery/validation_util.h"
#include "api/resource/validation_internal.h"

namespace allot::api {

namespace dra_internal {

namespace {

constexpr std::string_view kRequestRefMsg =
    "must be the name of a request in the claim or the name of a request and a subrequest "
    "separated by '/'";

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    out.push_back(s.substr(start, pos == std::string_view::npos ? s.npos : pos - start));
    if (pos == std::string_view::npos) return out;
    start = pos + 1;
  }
}

void ValidateCIdentifier(std::string_view id, const Path& p, FieldErrors& errs) {
  if (id.size() > kDeviceMaxIDLength) errs.TooLong(p, kDeviceMaxIDLength);
  for (const std::string& m : CIdentifierErrors(id)) errs.Invalid(p, id, m);
}

void ValidateFullyQualifiedName(std::string_view name, const Path& p, FieldErrors& errs) {
  ValidateQualifiedName(name, p, errs);
  if (name.find('/') == std::string_view::npos) {
    errs.Invalid(p, name,
                 "a fully qualified name must be a domain and a name separated by a slash");
  }
}

void ValidateDeviceClassName(std::string_view name, const Path& p, FieldErrors& errs) {
  if (name.empty()) {
    errs.Required(p);
  } else {
    ValidateDnsSubdomain(name, p, errs);
  }
}

void ValidateAllocationMode(std::string_view mode, int64_t count, const Path& p,
                            FieldErrors& errs) {
  if (mode == kAllocationModeAll) {
    if (count != 0) {
      errs.InvalidInt(p.Child("count"), count,
                      "must not be specified when allocationMode is 'All'");
    }
  } else if (mode == kAllocationModeExactCount) {
    if (count <= 0) errs.InvalidInt(p.Child("count"), count, "must be greater than zero");
  } else {
    errs.NotSupported(p.Child("allocationMode"), mode,
                      {kAllocationModeAll, kAllocationModeExactCount});
  }
}

void ValidateExactRequest(const ExactDeviceRequest& r, const Path& p, const Validators& v,
                          FieldErrors& errs) {
  ValidateDeviceClassName(r.deviceClassName, p.Child("deviceClassName"), errs);
  ValidateSelectors(r.selectors, p.Child("selectors"), v, errs);
  ValidateAllocationMode(r.allocationMode, r.count, p, errs);
  ValidateDeviceTolerations(r.rare->tolerations, p.Child("tolerations"), errs);
}

void ValidateSubRequest(const DeviceSubRequest& r, const Path& p, const Validators& v,
                        FieldErrors& errs) {
  ValidateDnsLabel(r.name, p.Child("name"), errs);
  ValidateDeviceClassName(r.deviceClassName, p.Child("deviceClassName"), errs);
  ValidateSelectors(r.selectors, p.Child("selectors"), v, errs);
  ValidateAllocationMode(r.allocationMode, r.count, p, errs);
  ValidateDeviceTolerations(r.tolerations, p.Child("tolerations"), errs);
}

void ValidateRequest(const DeviceRequest& r, const Path& p, const Validators& v,
                     FieldErrors& errs) {
  ValidateDnsLabel(r.name, p.Child("name"), errs);
  bool has_exactly = r.exactly.has_value();
  bool has_first = !r.firstAvailable.empty();
  if (!has_exactly && !has_first) {
    errs.Required(p, "exactly one of `exactly` or `firstAvailable` is required");
  } else if (has_exactly && has_first) {
    errs.Invalid(p, "null",
                 "exactly one of `exactly` or `firstAvailable` is required, but multiple fields "
                 "are set");
  } else if (has_first) {
    ValidateSet(
        r.firstAvailable, kFirstAvailableDeviceRequestMaxSize, p.Child("firstAvailable"), errs,
        [&](const DeviceSubRequest& s, const Path& sp) { ValidateSubRequest(s, sp, v, errs); },
        [](const DeviceSubRequest& s) { return s.name; });
  } else {
    ValidateExactRequest(*r.exactly, p.Child("exactly"), v, errs);
  }
}

void ValidateConstraint(const DeviceConstraint& c, const Path& p, const RequestNames& names,
                        FieldErrors& errs) {
  ValidateRequestNameRefs(c.requests, p.Child("requests"), names, errs);
  if (c.matchAttribute && c.distinctAttribute) {
    errs.Invalid(p, "null",
                 "exactly one of \"matchAttribute\" or \"distinctAttribute\" is required, but "
                 "multiple fields are set");
  } else if (c.matchAttribute) {
    ValidateFullyQualifiedName(*c.matchAttribute, p.Child("matchAttribute"), errs);
  } else if (c.distinctAttribute) {
    ValidateFullyQualifiedName(*c.distinctAttribute, p.Child("distinctAttribute"), errs);
  } else {
    // Upstream's wording (DRAConsumableCapacity enabled), "multiple" included.
    errs.Required(p,
                  "exactly one of \"matchAttribute\" or \"distinctAttribute\" is required, but "
                  "multiple fields are set");
  }
}

void ValidateDeviceToleration(const DeviceToleration& t, const Path& p, FieldErrors& errs) {
  if (!t.key.empty()) ValidateLabelName(t.key, p.Child("key"), errs);
  if (t.operator_ == "Exists") {
    if (!t.value.empty())
      errs.Invalid(p.Child("value"), t.value, "must be empty for operator `Exists`");
  } else if (t.operator_ == "Equal") {
    ValidateLabelValue(t.value, p.Child("value"), errs);
  } else if (t.operator_.empty()) {
    errs.Required(p.Child("operator"));
  } else {
    errs.NotSupported(p.Child("operator"), t.operator_, {"Equal", "Exists"});
  }
  if (!t.effect.empty() && t.effect != "NoSchedule" && t.effect != "NoExecute") {
    errs.NotSupported(p.Child("effect"), t.effect, {"NoExecute", "NoSchedule"});
  }
}

}  // namespace

RequestNames::RequestNames(const DeviceClaim& claim) {
  for (const DeviceRequest& r : claim.requests) {
    if (r.firstAvailable.empty()) {
      names_[r.name] = std::nullopt;
      continue;
    }
    std::set<std::string> subs;
    for (const DeviceSubRequest& s : r.firstAvailable) subs.insert(s.name);
    names_[r.name] = std::move(subs);
  }
}

bool RequestNames::Has(std::string_view ref) const {
  std::vector<std::string_view> segments = Split(ref, '/');
  if (segments.size() > 2) return false;
  auto it = names_.find(segments[0]);
  if (it == names_.end()) return false;
  if (segments.size() == 1) return true;
  return it->second && it->second->count(std::string(segments[1])) > 0;
}

void ValidateRequestNameRef(std::string_view ref, const Path& p, const RequestNames& names,
                            FieldErrors& errs) {
  std::vector<std::string_view> segments = Split(ref, '/');
  if (segments.size() > 2) {
    errs.Invalid(p, ref, kRequestRefMsg);
    return;
  }
  for (std::string_view s : segments) ValidateDnsLabel(s, p, errs);
  if (!names.Has(ref)) errs.Invalid(p, ref, kRequestRefMsg);
}

void ValidateRequestNameRefs(const std::vector<std::string>& refs, const Path& p,
                             const RequestNames& names, FieldErrors& errs) {
  ValidateSet(
      refs, kDeviceRequestsMaxSize, p, errs,
      [&](const std::string& r, const Path& rp) { ValidateRequestNameRef(r, rp, names, errs); },
      [](const std::string& r) { return r; });
}

std::string JoinSetFields(const std::vector<std::string>& fields) {
  std::string out = "{";
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ", ";
    out += fields[i];
  }
  return out + "}";
}

void ValidateSelectors(const std::vector<DeviceSelector>& selectors, const Path& p,
                       const Validators& validators, FieldErrors& errs) {
  ValidateSlice(selectors, kDeviceSelectorsMaxSize, p, errs,
                [&](const DeviceSelector& s, const Path& sp) {
                  if (!s.cel) {
                    errs.Required(sp.Child("cel"));
                    return;
                  }
                  Path ep = sp.Child("cel").Child("expression");
                  const std::string& expr = s.cel->expression;
                  if (expr.empty()) {
                    errs.Required(ep);
                  } else if (expr.size() > kCELSelectorExpressionMaxLength) {
                    errs.TooLong(ep, kCELSelectorExpressionMaxLength);
                  } else if (validators.device_selector) {
                    ExpressionCheckResult r = validators.device_selector(expr);
                    if (!r.error.empty()) {
                      errs.Invalid(ep, expr, r.error);
                    } else if (r.estimated_cost > kCELSelectorExpressionMaxCost) {
                      errs.Forbidden(ep, "too complex, exceeds cost limit");
                    }
                  }
                });
}

void ValidatePoolName(std::string_view name, const Path& p, FieldErrors& errs) {
  if (name.empty()) {
    errs.Required(p);
    return;
  }
  if (name.size() > kPoolNameMaxLength) errs.TooLong(p, kPoolNameMaxLength);
  for (std::string_view part : Split(name, '/')) ValidateDnsSubdomain(part, p, errs);
}

void ValidateQualifiedName(std::string_view name, const Path& p, FieldErrors& errs) {
  std::vector<std::string_view> parts = Split(name, '/');
  if (parts.size() == 1) {
    ValidateCIdentifier(parts[0], p, errs);
  } else if (parts.size() == 2) {
    if (parts[0].empty()) {
      errs.Invalid(p, "", "the domain must not be empty");
    } else {
      validation_util::ValidateDriverName(parts[0], p, errs);
    }
    if (parts[1].empty()) {
      errs.Invalid(p, "", "the name must not be empty");
    } else {
      ValidateCIdentifier(parts[1], p, errs);
    }
  } else {
    errs.Invalid(p, name, "must not contain more than one slash");
  }
}

void ValidateDeviceTolerations(const std::vector<DeviceToleration>& tolerations, const Path& p,
                               FieldErrors& errs) {
  ValidateSlice(
      tolerations, kDeviceTolerationsMaxLength, p, errs,
      [&](const DeviceToleration& t, const Path& tp) { ValidateDeviceToleration(t, tp, errs); });
}

void ValidateBindingConditions(const std::vector<std::string>& conditions,
                               const std::vector<std::string>& failure_conditions, const Path& p,
                               FieldErrors& errs) {
  Path cp = p.Child("bindingConditions");
  Path fp = p.Child("bindingFailureConditions");
  auto label_name = [&](const std::string& c, const Path& ip) { ValidateLabelName(c, ip, errs); };
  ValidateSlice(conditions, kBindingConditionsMaxSize, cp, errs, label_name);
  ValidateSlice(failure_conditions, kBindingFailureConditionsMaxSize, fp, errs, label_name);
  std::set<std::string> seen;
  for (size_t i = 0; i < conditions.size(); ++i) {
    if (!seen.insert(conditions[i]).second) errs.Duplicate(cp.Index(i), conditions[i]);
  }
  std::set<std::string> seen_failure;
  for (size_t i = 0; i < failure_conditions.size(); ++i) {
    const std::string& c = failure_conditions[i];
    if (!seen_failure.insert(c).second) errs.Duplicate(fp.Index(i), c);
    if (seen.count(c)) {
      errs.Invalid(fp.Index(i), c,
                   "bindingFailureConditions must not overlap with bindingConditions");
    }
  }
  // Go prints the missing list with %#v.
  if (conditions.empty() && !failure_conditions.empty()) {
    validation_util::InvalidRaw(errs, cp, "[]string(nil)",
                                "bindingConditions are required to use bindingFailureConditions");
  }
  if (failure_conditions.empty() && !conditions.empty()) {
    validation_util::InvalidRaw(errs, fp, "[]string(nil)",
                                "bindingFailureConditions are required to use bindingConditions");
  }
}

void ValidateOpaqueConfig(const std::optional<OpaqueDeviceConfiguration>& opaque, const Path& p,
                          FieldErrors& errs) {
  if (!opaque) {
    errs.Required(p.Child("opaque"));
    return;
  }
  Path op = p.Child("opaque");
  validation_util::ValidateDriverName(opaque->driver, op.Child("driver"), errs);
  validation_util::ValidateRawObject(opaque->parameters, op.Child("parameters"),
                                     kOpaqueParametersMaxLength, errs);
}

void ValidateResourceClaimSpec(const ResourceClaimSpec& spec, const Path& p,
                               const Validators& validators, FieldErrors& errs) {
  Path dp = p.Child("devices");
  const DeviceClaim& claim = spec.devices;
  RequestNames names(claim);
  ValidateSet(
      claim.requests, kDeviceRequestsMaxSize, dp.Child("requests"), errs,
      [&](const DeviceRequest& r, const Path& rp) { ValidateRequest(r, rp, validators, errs); },
      [](const DeviceRequest& r) { return r.name; });
  ValidateSlice(
      claim.constraints, kDeviceConstraintsMaxSize, dp.Child("constraints"), errs,
      [&](const DeviceConstraint& c, const Path& cp) { ValidateConstraint(c, cp, names, errs); });
  ValidateSlice(claim.config, kDeviceConfigMaxSize, dp.Child("config"), errs,
                [&](const DeviceClaimConfiguration& c, const Path& cp) {
                  ValidateRequestNameRefs(c.requests, cp.Child("requests"), names, errs);
                  ValidateOpaqueConfig(c.opaque, cp, errs);
                });
  // KEP-3063 extension fields.
  if (!spec.controllerName.empty()) {
    validation_util::ValidateDriverName(spec.controllerName, p.Child("controllerName"), errs);
  }
  if (!spec.allocationMode.empty()) {
    if (spec.allocationMode != kClaimAllocationImmediate &&
        spec.allocationMode != kClaimAllocationWaitForFirstConsumer) {
      errs.NotSupported(p.Child("allocationMode"), spec.allocationMode,
                        {kClaimAllocationImmediate, kClaimAllocationWaitForFirstConsumer});
    } else if (spec.allocationMode == kClaimAllocationImmediate && spec.controllerName.empty()) {
      errs.Forbidden(p.Child("allocationMode"), "`Immediate` allocation requires `controllerName`");
    }
  }
}

}  // namespace dra_internal

using dra_internal::ValidateSlice;

void ValidateDeviceClass(const DeviceClass& obj, FieldErrors& errs, const Validators& validators) {
  ValidateObjectMeta(obj.metadata, /*namespaced=*/false, NameIsDnsSubdomain, errs);
  Path p("spec");
  const DeviceClassSpec& spec = obj.spec;
  dra_internal::ValidateSelectors(spec.selectors, p.Child("selectors"), validators, errs);
  ValidateSlice(spec.config, kDeviceConfigMaxSize, p.Child("config"), errs,
                [&](const DeviceClassConfiguration& c, const Path& cp) {
                  dra_internal::ValidateOpaqueConfig(c.opaque, cp, errs);
                });
  if (spec.suitableNodes) {
    ValidateNodeSelector(*spec.suitableNodes, /*allow_invalid_label_values=*/false,
                         p.Child("suitableNodes"), errs);
  }
  if (spec.extendedResourceName &&
      !validation_util::IsExtendedResourceName(*spec.extendedResourceName)) {
    errs.Invalid(p.Child("extendedResourceName"), *spec.extendedResourceName,
                 "must be a valid extended resource name");
  }
}

void ValidateDeviceClassUpdate(const DeviceClass& obj, const DeviceClass& old, FieldErrors& errs) {
  // The spec is mutable; only the metadata update rules apply.
  ValidateObjectMetaUpdate(obj.metadata, old.metadata, errs);
}

void ValidateResourceClaim(const ResourceClaim& obj, FieldErrors& errs,
                           const Validators& validators) {
  ValidateObjectMeta(obj.metadata, /*namespaced=*/true, NameIsDnsSubdomain, errs);
  dra_internal::ValidateResourceClaimSpec(obj.spec, Path("spec"), validators, errs);
}

void ValidateResourceClaimUpdate(const ResourceClaim& obj, const ResourceClaim& old,
                                 FieldErrors& errs) {
  ValidateObjectMetaUpdate(obj.metadata, old.metadata, errs);
  if (!(obj.spec == old.spec)) errs.Immutable(Path("spec"));
}

void ValidateResourceClaimTemplate(const ResourceClaimTemplate& obj, FieldErrors& errs,
                                   const Validators& validators) {
  ValidateObjectMeta(obj.metadata, /*namespaced=*/true, NameIsDnsSubdomain, errs);
  Path p("spec");
  validation_util::ValidateTemplateObjectMeta(obj.spec.metadata, p.Child("metadata"), errs);
  dra_internal::ValidateResourceClaimSpec(obj.spec.spec, p.Child("spec"), validators, errs);
}

void ValidateResourceClaimTemplateUpdate(const ResourceClaimTemplate& obj,
                                         const ResourceClaimTemplate& old, FieldErrors& errs) {
  ValidateObjectMetaUpdate(obj.metadata, old.metadata, errs);
  if (!(obj.spec == old.spec)) errs.Immutable(Path("spec"));
}

}  // namespace allot::api
