#include "api/scheduling/priority_class.h"

#include "api/machinery/meta_validation.h"
#include "api/machinery/names.h"
#include "api/machinery/reflect.h"

namespace allot::api {

ALLOT_DEFINE_TYPE(PriorityClass, "scheduling.k8s.io", "v1", "PriorityClass")

namespace {

PriorityClass SystemClass(std::string_view name, int32_t value, std::string description) {
  PriorityClass pc;
  pc.metadata.name = std::string(name);
  pc.value = value;
  pc.description = std::move(description);
  pc.preemptionPolicy = std::string(kPreemptLowerPriority);
  return pc;
}

}  // namespace

std::vector<PriorityClass> SystemPriorityClasses() {
  return {SystemClass(kSystemNodeCritical, kSystemCriticalPriority + 1000,
                      "Used for system critical pods that must not be moved from their current "
                      "node."),
          SystemClass(kSystemClusterCritical, kSystemCriticalPriority,
                      "Used for system critical pods that must run in the cluster, but can be "
                      "moved to another node if necessary.")};
}

const PriorityClass* FindSystemPriorityClass(std::string_view name) {
  static const std::vector<PriorityClass> classes = SystemPriorityClasses();
  for (const PriorityClass& pc : classes) {
    if (pc.metadata.name == name) return &pc;
  }
  return nullptr;
}

void SetPriorityClassDefaults(PriorityClass& pc) {
  if (!pc.preemptionPolicy) pc.preemptionPolicy = std::string(kPreemptLowerPriority);
}

namespace {

// scheduling.IsKnownSystemPriorityClass: "" when it is one, else why not.
std::string WhyNotSystemClass(const PriorityClass& pc) {
  const PriorityClass* sys = FindSystemPriorityClass(pc.metadata.name);
  if (!sys) return pc.metadata.name + " is not a known system priority class";
  if (sys->value != pc.value) {
    return "value of " + pc.metadata.name + " PriorityClass must be " + std::to_string(sys->value);
  }
  if (sys->globalDefault != pc.globalDefault) {
    return "globalDefault of " + pc.metadata.name + " PriorityClass must be " +
           (sys->globalDefault ? "true" : "false");
  }
  return {};
}

}  // namespace

void ValidatePriorityClass(const PriorityClass& pc, FieldErrors& errs) {
  ValidateObjectMeta(pc.metadata, /*namespaced=*/false, NameIsDnsSubdomain, errs);
  if (pc.metadata.name.starts_with(kSystemPriorityClassPrefix)) {
    std::string why = WhyNotSystemClass(pc);
    if (!why.empty()) {
      errs.Forbidden(Path("metadata").Child("name"),
                     "priority class names with '" + std::string(kSystemPriorityClassPrefix) +
                         "' prefix are reserved for system use only. error: " + why);
    }
  } else if (pc.value > kHighestUserDefinablePriority) {
    errs.Forbidden(Path("value"), "maximum allowed value of a user defined priority is " +
                                      std::to_string(kHighestUserDefinablePriority));
  }
  if (pc.preemptionPolicy) {
    const std::string& pp = *pc.preemptionPolicy;
    if (pp.empty()) {
      errs.Required(Path("preemptionPolicy"));
    } else if (pp != kPreemptLowerPriority && pp != kPreemptNever) {
      errs.NotSupported(Path("preemptionPolicy"), pp, {kPreemptLowerPriority, kPreemptNever});
    }
  }
}

void ValidatePriorityClassUpdate(const PriorityClass& pc, const PriorityClass& old,
                                 FieldErrors& errs) {
  ValidateObjectMetaUpdate(pc.metadata, old.metadata, errs);
  if (pc.value != old.value) errs.Forbidden(Path("value"), "may not be changed in an update.");
  if (pc.preemptionPolicy != old.preemptionPolicy) {
    errs.Invalid(Path("preemptionPolicy"), pc.preemptionPolicy.value_or(""), "field is immutable");
  }
}

}  // namespace allot::api
