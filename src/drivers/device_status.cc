#include "drivers/device_status.h"

#include <algorithm>

namespace allot::drivers {

std::string PinnedNode(const api::AllocationResult& allocation) {
  if (!allocation.nodeSelector || allocation.nodeSelector->nodeSelectorTerms.size() != 1) {
    return "";
  }
  for (const api::NodeSelectorRequirement& r :
       allocation.nodeSelector->nodeSelectorTerms[0].matchFields) {
    if (r.key == "metadata.name" && r.operator_ == "In" && r.values.size() == 1) {
      return r.values[0];
    }
  }
  return "";
}

const api::AllocatedDeviceStatus* FindDeviceStatus(const api::ResourceClaimStatus& status,
                                                   const api::DeviceRequestAllocationResult& r) {
  for (const api::AllocatedDeviceStatus& d : status.devices) {
    if (d.driver == r.driver && d.pool == r.pool && d.device == r.device &&
        d.shareID == r.rare->shareID) {
      return &d;
    }
  }
  return nullptr;
}

bool ConditionIsTrue(const api::AllocatedDeviceStatus& entry, std::string_view type) {
  return std::any_of(entry.conditions.begin(), entry.conditions.end(),
                     [&](const api::Condition& c) { return c.type == type && c.status == "True"; });
}

bool AllConditionsTrue(const api::AllocatedDeviceStatus& entry,
                       const std::vector<std::string>& types) {
  return std::all_of(types.begin(), types.end(),
                     [&](const std::string& t) { return ConditionIsTrue(entry, t); });
}

bool AnyConditionTrue(const api::AllocatedDeviceStatus& entry,
                      const std::vector<std::string>& types) {
  return std::any_of(types.begin(), types.end(),
                     [&](const std::string& t) { return ConditionIsTrue(entry, t); });
}

bool ReportedReady(const api::ResourceClaimStatus& status,
                   const api::DeviceRequestAllocationResult& r) {
  const api::AllocatedDeviceStatus* entry = FindDeviceStatus(status, r);
  if (entry == nullptr || AnyConditionTrue(*entry, r.rare->bindingFailureConditions)) return false;
  if (!r.rare->bindingConditions.empty())
    return AllConditionsTrue(*entry, r.rare->bindingConditions);
  return !entry->conditions.empty() &&
         std::all_of(entry->conditions.begin(), entry->conditions.end(),
                     [](const api::Condition& c) { return c.status == "True"; });
}

bool SetDeviceConditions(api::ResourceClaimStatus& status,
                         const api::DeviceRequestAllocationResult& r,
                         const std::vector<api::Condition>& conditions) {
  auto entry = std::find_if(status.devices.begin(), status.devices.end(),
                            [&](const api::AllocatedDeviceStatus& d) {
                              return d.driver == r.driver && d.pool == r.pool &&
                                     d.device == r.device && d.shareID == r.rare->shareID;
                            });
  bool changed = false;
  if (entry == status.devices.end()) {
    status.devices.push_back(
        {.driver = r.driver, .pool = r.pool, .device = r.device, .shareID = r.rare->shareID});
    entry = status.devices.end() - 1;
    changed = true;
  }
  for (const api::Condition& c : conditions) {
    auto old = std::find_if(entry->conditions.begin(), entry->conditions.end(),
                            [&](const api::Condition& o) { return o.type == c.type; });
    if (old == entry->conditions.end()) {
      entry->conditions.push_back(c);
      changed = true;
      continue;
    }
    api::Condition updated = c;
    if (old->status == c.status) updated.lastTransitionTime = old->lastTransitionTime;
    if (!(*old == updated)) {
      *old = std::move(updated);
      changed = true;
    }
  }
  return changed;
}

}  // namespace allot::drivers
