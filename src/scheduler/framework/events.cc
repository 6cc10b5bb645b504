#include "scheduler/framework/events.h"

#include <array>

namespace allot::scheduler {

namespace {

constexpr std::array<std::string_view, 14> kResourceNames = {"Pod",
                                                             "AssignedPod",
                                                             "UnscheduledPod",
                                                             "Node",
                                                             "PersistentVolume",
                                                             "PersistentVolumeClaim",
                                                             "StorageClass",
                                                             "CSINode",
                                                             "ResourceClaim",
                                                             "ResourceSlice",
                                                             "DeviceClass",
                                                             "PodSchedulingContext",
                                                             "Reservation",
                                                             "*"};

constexpr std::array<std::string_view, 13> kActionNames = {"Add",
                                                           "Delete",
                                                           "UpdateNodeAllocatable",
                                                           "UpdateNodeLabel",
                                                           "UpdateNodeTaint",
                                                           "UpdateNodeCondition",
                                                           "UpdateNodeAnnotation",
                                                           "UpdatePodLabel",
                                                           "UpdatePodScaleDown",
                                                           "UpdatePodToleration",
                                                           "UpdatePodSchedulingGatesEliminated",
                                                           "UpdatePodGeneratedResourceClaim",
                                                           "UpdateOther"};

bool ResourceMatches(EventResource registered, EventResource event) {
  if (registered == EventResource::kWildCard || registered == event) return true;
  return registered == EventResource::kPod &&
         (event == EventResource::kAssignedPod || event == EventResource::kUnscheduledPod);
}

// True when `a` is strictly less than `b` for every requested resource, counting an absent
// resource as zero: a resource grew.
bool AnyResourceGrew(const api::ResourceList& before, const api::ResourceList& after) {
  for (const auto& [name, q] : after) {
    auto it = before.find(name);
    if (it == before.end() ? q.Sign() > 0 : it->second < q) return true;
  }
  return false;
}

bool PodResourcesShrank(const api::Pod& o, const api::Pod& n) {
  auto containers_shrank = [](const auto& a, const auto& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (AnyResourceGrew(b[i].resources.requests, a[i].resources.requests)) return true;
    }
    return false;
  };
  return containers_shrank(o.spec.containers, n.spec.containers) ||
         containers_shrank(o.spec.initContainers, n.spec.initContainers);
}

}  // namespace

bool ClusterEvent::Matches(const ClusterEvent& event) const {
  return ResourceMatches(resource, event.resource) && (actions & event.actions) != 0;
}

std::string ClusterEvent::Label() const {
  std::string out(kResourceNames[static_cast<size_t>(resource)]);
  out += "/";
  if ((actions & kAll) == kAll) return out + "*";
  bool first = true;
  for (size_t i = 0; i < kActionNames.size(); ++i) {
    if (!(actions & (1u << i))) continue;
    if (!first) out += "|";
    out += kActionNames[i];
    first = false;
  }
  return out;
}

std::string EventTargetKey(const api::Object& obj) {
  std::string key;
  key.reserve(obj.metadata.namespace_.size() + 1 + obj.metadata.name.size());
  key += obj.metadata.namespace_;
  key += '/';
  key += obj.metadata.name;
  return key;
}

uint32_t NodeUpdateActions(const api::Node& o, const api::Node& n) {
  uint32_t a = 0;
  if (o.status.allocatable != n.status.allocatable) a |= kUpdateNodeAllocatable;
  if (o.metadata.labels != n.metadata.labels) a |= kUpdateNodeLabel;
  if (o.spec.taints != n.spec.taints || o.spec.unschedulable != n.spec.unschedulable) {
    a |= kUpdateNodeTaint;
  }
  if (o.status.conditions != n.status.conditions) a |= kUpdateNodeCondition;
  if (o.metadata.annotations != n.metadata.annotations) a |= kUpdateNodeAnnotation;
  return a;
}

uint32_t PodUpdateActions(const api::Pod& o, const api::Pod& n) {
  uint32_t a = 0;
  if (o.metadata.labels != n.metadata.labels) a |= kUpdatePodLabel;
  if (o.spec.tolerations != n.spec.tolerations) a |= kUpdatePodToleration;
  if (!o.spec.schedulingGates.empty() && n.spec.schedulingGates.empty()) {
    a |= kUpdatePodSchedulingGatesEliminated;
  }
  if (o.status.resourceClaimStatuses != n.status.resourceClaimStatuses) {
    a |= kUpdatePodGeneratedResourceClaim;
  }
  if (PodResourcesShrank(o, n)) a |= kUpdatePodScaleDown;
  return a == 0 ? kUpdateOther : a;
}

}  // namespace allot::scheduler
