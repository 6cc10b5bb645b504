// Strategy for poddisruptionbudgets (policy/v1): short name "pdb", kubectl's columns
// (NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE).
#include "api/machinery/resources.h"

#include "api/machinery/strategy_hooks.h"
#include "api/policy/pod_disruption_budget.h"

namespace allot::api {

namespace {

std::string IntOrPercentCell(const std::optional<IntOrString>& v) {
  if (!v) return "N/A";
  return v->is_string ? v->string_value : std::to_string(v->int_value);
}

std::vector<TableCell> PodDisruptionBudgetRow(const Object& obj, Time now) {
  const auto& pdb = static_cast<const PodDisruptionBudget&>(obj);
  return {IntOrPercentCell(pdb.spec.minAvailable), IntOrPercentCell(pdb.spec.maxUnavailable),
          int64_t{pdb.status.disruptionsAllowed}, AgeCell(obj, now)};
}

ResourceInfo PodDisruptionBudgets() {
  ResourceInfo r = NewResourceInfo(std::string(kPolicyGroup), "v1", "poddisruptionbudgets",
                                   "poddisruptionbudget", PodDisruptionBudget::Type(),
                                   /*namespaced=*/true);
  r.counts_generation = true;
  r.short_names = {"pdb"};
  r.status_subresource = true;
  r.validate = hooks::Validate<PodDisruptionBudget, ValidatePodDisruptionBudget>;
  r.validate_update = hooks::ValidateUpdate<PodDisruptionBudget, ValidatePodDisruptionBudgetUpdate>;
  r.validate_status =
      hooks::ValidateUpdate<PodDisruptionBudget, ValidatePodDisruptionBudgetStatusUpdate>;
  r.columns = {{"Min Available", "string", "",
                "The minimum number of pods that must be available simultaneously. This can be "
                "either an integer or a string specifying a percentage, e.g. \"28%\".",
                0},
               {"Max Unavailable", "string", "",
                "The maximum number of pods that may be unavailable simultaneously. This can be "
                "either an integer or a string specifying a percentage, e.g. \"28%\".",
                0},
               {"Allowed Disruptions", "integer", "",
                "Calculated number of pods that may be disrupted at this time.", 0},
               {"Age", "string", "",
                "CreationTimestamp is a timestamp representing the server time when this object "
                "was created.",
                0}};
  r.row = PodDisruptionBudgetRow;
  return r;
}

}  // namespace

void RegisterPolicyResources(ResourceRegistry& registry) { registry.Add(PodDisruptionBudgets()); }

}  // namespace allot::api
