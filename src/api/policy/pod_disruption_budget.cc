#include "api/policy/pod_disruption_budget.h"

#include <charconv>

#include "api/machinery/conditions.h"
#include "api/machinery/meta_validation.h"
#include "api/machinery/names.h"
#include "api/machinery/reflect.h"
#include "api/machinery/selector.h"
#include "api/machinery/validation_util.h"

namespace allot::api {

ALLOT_DEFINE_TYPE(PodDisruptionBudget, "policy", "v1", "PodDisruptionBudget")

namespace {

constexpr std::string_view kPercentMessage =
    "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or "
    "'93%', regex used for validation is '[0-9]+%')";

// "N%" -> N; nullopt when not of that form.
std::optional<int64_t> Percent(std::string_view s) {
  if (s.size() < 2 || s.back() != '%') return std::nullopt;
  int64_t n = 0;
  auto digits = s.substr(0, s.size() - 1);
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
  return n;
}

// appsvalidation.ValidatePositiveIntOrPercent and IsNotMoreThan100Percent.
void ValidateIntOrPercent(const IntOrString& v, const Path& p, FieldErrors& errs) {
  if (v.is_string) {
    std::optional<int64_t> pct = Percent(v.string_value);
    if (!pct) {
      errs.Invalid(p, v.string_value, kPercentMessage);
    } else if (*pct > 100) {
      errs.Invalid(p, v.string_value, "must not be greater than 100%");
    }
  } else if (v.int_value < 0) {
    errs.InvalidInt(p, v.int_value, "must be greater than or equal to 0");
  }
}

void ValidateCount(int64_t v, const Path& p, FieldErrors& errs) {
  if (v < 0) errs.InvalidInt(p, v, "must be greater than or equal to 0");
}

}  // namespace

bool PodDisruptionBudgetSelects(const PodDisruptionBudget& pdb, const StringMap& pod_labels) {
  if (!pdb.spec.selector) return false;
  auto sel = LabelSelectorExpr::FromLabelSelector(*pdb.spec.selector);
  return sel.ok() && sel->Matches(pod_labels);
}

void UpdateDisruptionAllowedCondition(PodDisruptionBudget& pdb, Time now) {
  const bool allowed = pdb.status.disruptionsAllowed > 0;
  SetStatusCondition(
      pdb.status.conditions,
      {.type = std::string(kDisruptionAllowedCondition),
       .status = allowed ? "True" : "False",
       .observedGeneration = pdb.status.observedGeneration,
       .reason = std::string(allowed ? kReasonSufficientPods : kReasonInsufficientPods)},
      now);
}

bool DisruptionConditionsUpToDate(const PodDisruptionBudget& pdb) {
  const Condition* c = FindStatusCondition(pdb.status.conditions, kDisruptionAllowedCondition);
  if (!c || pdb.status.observedGeneration != pdb.metadata.generation) return false;
  if (pdb.status.disruptionsAllowed > 0) {
    return c->status == "True" && c->reason == kReasonSufficientPods;
  }
  return c->status == "False" && c->reason == kReasonInsufficientPods;
}

Result<int32_t> ScaledValue(const IntOrString& v, int32_t total) {
  if (!v.is_string) return static_cast<int32_t>(v.int_value);
  std::optional<int64_t> pct = Percent(v.string_value);
  if (!pct)
    return BadRequestError("invalid value for IntOrString: invalid value \"" + v.string_value +
                           "\": " + std::string(kPercentMessage));
  return static_cast<int32_t>((*pct * total + 99) / 100);
}

void ValidatePodDisruptionBudget(const PodDisruptionBudget& pdb, FieldErrors& errs) {
  ValidateObjectMeta(pdb.metadata, /*namespaced=*/true, NameIsDnsSubdomain, errs);
  const Path p("spec");
  const PodDisruptionBudgetSpec& spec = pdb.spec;
  if (spec.minAvailable && spec.maxUnavailable) {
    errs.Invalid(p, "", "minAvailable and maxUnavailable cannot be both set");
  }
  if (spec.minAvailable) ValidateIntOrPercent(*spec.minAvailable, p.Child("minAvailable"), errs);
  if (spec.maxUnavailable) {
    ValidateIntOrPercent(*spec.maxUnavailable, p.Child("maxUnavailable"), errs);
  }
  if (spec.selector) ValidateLabelSelector(*spec.selector, p.Child("selector"), errs);
  if (spec.unhealthyPodEvictionPolicy) {
    const std::string& u = *spec.unhealthyPodEvictionPolicy;
    if (u != kUnhealthyPodEvictionIfHealthyBudget && u != kUnhealthyPodEvictionAlwaysAllow) {
      errs.NotSupported(p.Child("unhealthyPodEvictionPolicy"), u,
                        {kUnhealthyPodEvictionAlwaysAllow, kUnhealthyPodEvictionIfHealthyBudget});
    }
  }
}

void ValidatePodDisruptionBudgetUpdate(const PodDisruptionBudget& pdb,
                                       const PodDisruptionBudget& old, FieldErrors& errs) {
  ValidateObjectMetaUpdate(pdb.metadata, old.metadata, errs);
}

void ValidatePodDisruptionBudgetStatusUpdate(const PodDisruptionBudget& pdb,
                                             const PodDisruptionBudget& old, FieldErrors& errs) {
  ValidateObjectMetaUpdate(pdb.metadata, old.metadata, errs);
  const Path p("status");
  const PodDisruptionBudgetStatus& s = pdb.status;
  ValidateCount(s.disruptionsAllowed, p.Child("disruptionsAllowed"), errs);
  ValidateCount(s.currentHealthy, p.Child("currentHealthy"), errs);
  ValidateCount(s.desiredHealthy, p.Child("desiredHealthy"), errs);
  ValidateCount(s.expectedPods, p.Child("expectedPods"), errs);
  validation_util::ValidateConditions(s.conditions, p.Child("conditions"), errs);
}

}  // namespace allot::api
