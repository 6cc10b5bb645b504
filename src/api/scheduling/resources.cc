// Strategy for priorityclasses (scheduling.k8s.io/v1): short name "pc", kubectl's columns
// (NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY), the system classes created at startup.
#include "api/machinery/resources.h"

#include "api/machinery/strategy_hooks.h"
#include "api/scheduling/priority_class.h"

namespace allot::api {

namespace {

std::vector<TableCell> PriorityClassRow(const Object& obj, Time now) {
  const auto& pc = static_cast<const PriorityClass&>(obj);
  return {int64_t{pc.value}, std::string(pc.globalDefault ? "true" : "false"), AgeCell(obj, now),
          pc.preemptionPolicy.value_or("")};
}

std::vector<ObjectPtr> SystemClasses() {
  std::vector<ObjectPtr> out;
  for (PriorityClass& pc : SystemPriorityClasses()) {
    out.push_back(std::make_shared<const PriorityClass>(std::move(pc)));
  }
  return out;
}

ResourceInfo PriorityClasses() {
  ResourceInfo r = NewResourceInfo(std::string(kSchedulingGroup), "v1", "priorityclasses",
                                   "priorityclass", PriorityClass::Type(), /*namespaced=*/false);
  r.counts_generation = true;
  r.short_names = {"pc"};
  r.default_fn = hooks::Default<PriorityClass, SetPriorityClassDefaults>;
  r.validate = hooks::Validate<PriorityClass, ValidatePriorityClass>;
  r.validate_update = hooks::ValidateUpdate<PriorityClass, ValidatePriorityClassUpdate>;
  r.bootstrap = SystemClasses;
  r.columns = {
      {"Value", "integer", "", "value represents the integer value of this priority class.", 0},
      {"Global-Default", "boolean", "",
       "globalDefault specifies whether this PriorityClass should be considered as the default "
       "priority for pods that do not have any priority class.",
       0},
      {"Age", "string", "",
       "CreationTimestamp is a timestamp representing the server time when this object was "
       "created.",
       0},
      {"PreemptionPolicy", "string", "",
       "preemptionPolicy is the Policy for preempting pods with lower priority.", 0}};
  r.row = PriorityClassRow;
  return r;
}

}  // namespace

void RegisterSchedulingResources(ResourceRegistry& registry) { registry.Add(PriorityClasses()); }

}  // namespace allot::api
