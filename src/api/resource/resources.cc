// Strategies for the resource.k8s.io resources: deviceclasses, resourceclaims,
// resourceclaimtemplates, resourceslices (v1) and podschedulingcontexts (v1alpha3). Upstream
// defines no short names or categories for them.
#include "api/machinery/resources.h"

#include "api/machinery/strategy_hooks.h"
#include "api/resource/device_taint_rule.h"
#include "api/resource/pod_scheduling_context.h"
#include "api/resource/types.h"
#include "api/resource/validation.h"

namespace allot::api {

namespace {

const TableColumn kAgeColumn = AgeColumn();

ResourceInfo DraResource(std::string resource, std::string singular, const TypeInfo& type,
                         bool namespaced) {
  return NewResourceInfo(std::string(kResourceGroup), "v1", std::move(resource),
                         std::move(singular), type, namespaced);
}

std::vector<TableCell> AgeOnlyRow(const Object& obj, Time now) { return {AgeCell(obj, now)}; }

ResourceInfo DeviceClasses() {
  ResourceInfo r = DraResource("deviceclasses", "deviceclass", DeviceClass::Type(), false);
  r.counts_generation = true;
  r.validate = hooks::ValidateWith<DeviceClass, ValidateDeviceClass>;
  r.validate_update = hooks::ValidateUpdate<DeviceClass, ValidateDeviceClassUpdate>;
  r.columns = {kAgeColumn};
  r.row = AgeOnlyRow;
  return r;
}

std::vector<TableCell> ResourceClaimRow(const Object& obj, Time now) {
  return {ResourceClaimState(static_cast<const ResourceClaim&>(obj)), AgeCell(obj, now)};
}

ResourceInfo ResourceClaims() {
  ResourceInfo r = DraResource("resourceclaims", "resourceclaim", ResourceClaim::Type(), true);
  r.status_subresource = true;
  r.default_fn = [](Object& obj) {
    SetResourceClaimSpecDefaults(static_cast<ResourceClaim&>(obj).spec);
  };
  r.validate = hooks::ValidateWith<ResourceClaim, ValidateResourceClaim>;
  r.validate_update = hooks::ValidateUpdate<ResourceClaim, ValidateResourceClaimUpdate>;
  r.validate_status = hooks::ValidateUpdate<ResourceClaim, ValidateResourceClaimStatusUpdate>;
  r.columns = {{"State", "string", "",
                "A summary of the current state (allocated, pending, reserved, etc.).", 0},
               kAgeColumn};
  r.row = ResourceClaimRow;
  return r;
}

ResourceInfo ResourceClaimTemplates() {
  ResourceInfo r = DraResource("resourceclaimtemplates", "resourceclaimtemplate",
                               ResourceClaimTemplate::Type(), true);
  r.default_fn = [](Object& obj) {
    SetResourceClaimSpecDefaults(static_cast<ResourceClaimTemplate&>(obj).spec.spec);
  };
  r.validate = hooks::ValidateWith<ResourceClaimTemplate, ValidateResourceClaimTemplate>;
  r.validate_update =
      hooks::ValidateUpdate<ResourceClaimTemplate, ValidateResourceClaimTemplateUpdate>;
  r.columns = {kAgeColumn};
  r.row = AgeOnlyRow;
  return r;
}

std::optional<std::string> ResourceSliceField(const Object& obj, std::string_view field) {
  const auto& slice = static_cast<const ResourceSlice&>(obj);
  if (field == "spec.nodeName") return slice.spec.nodeName.value_or("");
  if (field == "spec.driver") return slice.spec.driver;
  return std::nullopt;
}

std::vector<TableCell> ResourceSliceRow(const Object& obj, Time now) {
  const auto& slice = static_cast<const ResourceSlice&>(obj);
  return {slice.spec.nodeName.value_or(""), slice.spec.driver, slice.spec.pool.name,
          AgeCell(obj, now)};
}

ResourceInfo ResourceSlices() {
  ResourceInfo r = DraResource("resourceslices", "resourceslice", ResourceSlice::Type(), false);
  r.counts_generation = true;
  r.validate = hooks::Validate<ResourceSlice, ValidateResourceSlice>;
  r.validate_update = hooks::ValidateUpdate<ResourceSlice, ValidateResourceSliceUpdate>;
  r.field_labels = {"spec.nodeName", "spec.driver"};
  r.field_value = ResourceSliceField;
  r.columns = {
      {"Node", "string", "", "NodeName identifies the node which provides the resources.", 0},
      {"Driver", "string", "", "Driver identifies the DRA driver providing the devices.", 0},
      {"Pool", "string", "", "Name of the pool that the slice belongs to.", 0},
      kAgeColumn};
  r.row = ResourceSliceRow;
  return r;
}

std::vector<TableCell> PodSchedulingContextRow(const Object& obj, Time now) {
  const auto& ctx = static_cast<const PodSchedulingContext&>(obj);
  return {ctx.spec.selectedNode, static_cast<int64_t>(ctx.spec.potentialNodes.size()),
          AgeCell(obj, now)};
}

ResourceInfo PodSchedulingContexts() {
  ResourceInfo r =
      NewResourceInfo(std::string(kResourceGroup), "v1alpha3", "podschedulingcontexts",
                      "podschedulingcontext", PodSchedulingContext::Type(), /*namespaced=*/true);
  r.status_subresource = true;
  r.validate = hooks::Validate<PodSchedulingContext, ValidatePodSchedulingContext>;
  r.validate_update =
      hooks::ValidateUpdate<PodSchedulingContext, ValidatePodSchedulingContextUpdate>;
  r.validate_status =
      hooks::ValidateUpdate<PodSchedulingContext, ValidatePodSchedulingContextStatusUpdate>;
  r.columns = {{"SelectedNode", "string", "", "The node selected for allocation.", 0},
               {"Potential", "integer", "", "How many nodes the pod might run on.", 0},
               kAgeColumn};
  r.row = PodSchedulingContextRow;
  return r;
}

std::vector<TableCell> DeviceTaintRuleRow(const Object& obj, Time now) {
  const auto& rule = static_cast<const DeviceTaintRule&>(obj);
  const DeviceTaint& t = rule.spec.taint;
  std::string added;
  if (t.timeAdded) added = HumanDuration(now.unix_seconds() - t.timeAdded->unix_seconds());
  return {t.key, t.value, t.effect, added, AgeCell(obj, now)};
}

ResourceInfo DeviceTaintRules() {
  ResourceInfo r = DraResource("devicetaintrules", "devicetaintrule", DeviceTaintRule::Type(), false);
  r.counts_generation = true;
  r.status_subresource = true;
  r.validate = hooks::Validate<DeviceTaintRule, ValidateDeviceTaintRule>;
  r.validate_update = hooks::ValidateUpdate<DeviceTaintRule, ValidateDeviceTaintRuleUpdate>;
  r.validate_status =
      hooks::ValidateUpdate<DeviceTaintRule, ValidateDeviceTaintRuleStatusUpdate>;
  r.columns = {{"Key", "string", "", "The taint key to be applied to a device.", 0},
               {"Value", "string", "", "The taint value corresponding to the taint key.", 0},
               {"Effect", "string", "", "The effect of the taint on claims that do not tolerate the taint and through such claims on the pods using them.", 0},
               {"TimeAdded", "string", "", "TimeAdded represents the time at which the taint was added or (only in a DeviceTaintRule) the effect was modified.", 0},
               kAgeColumn};
  r.row = DeviceTaintRuleRow;
  return r;
}

}  // namespace

void RegisterDraResources(ResourceRegistry& registry) {
  registry.Add(DeviceClasses());
  registry.Add(ResourceClaims());
  registry.Add(ResourceClaimTemplates());
  registry.Add(ResourceSlices());
  registry.Add(DeviceTaintRules());
  registry.Add(PodSchedulingContexts());  // v1alpha3
}

}  // namespace allot::api
