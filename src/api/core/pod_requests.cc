#include "api/core/pod_requests.h"

#include <string>
#include <string_view>

namespace allot::api {

namespace {

constexpr std::string_view kCpu = "cpu";
constexpr std::string_view kMemory = "memory";

void AddList(ResourceList& to, const ResourceList& from) {
  for (const auto& [name, q] : from) {
    auto it = to.find(name);
    if (it == to.end()) {
      to.emplace(name, q);
    } else {
      it->second.Add(q);
    }
  }
}

void MaxList(ResourceList& to, const ResourceList& from) {
  for (const auto& [name, q] : from) {
    auto it = to.find(name);
    if (it == to.end()) {
      to.emplace(name, q);
    } else if (it->second < q) {
      it->second = q;
    }
  }
}

const ResourceList& WithDefaults(const ResourceList& reqs, bool non_missing, ResourceList& tmp) {
  if (!non_missing || (reqs.count(std::string(kCpu)) && reqs.count(std::string(kMemory)))) {
    return reqs;
  }
  tmp = reqs;
  tmp.emplace(std::string(kCpu), Quantity::FromMilli(kDefaultMilliCpuRequest));
  tmp.emplace(std::string(kMemory), Quantity::FromInt(kDefaultMemoryRequest));
  return tmp;
}

bool PodLevelRequestsSet(const Pod& pod) {
  return pod.spec.resources && !pod.spec.resources->requests.empty();
}

bool IsPodLevelResource(std::string_view name) {
  return name == kCpu || name == kMemory || name.starts_with("hugepages-");
}

// Containers, then init containers (max rule with sidecars), as resource.PodRequests.
ResourceList AggregateContainers(const PodSpec& spec, bool non_missing) {
  ResourceList reqs;
  ResourceList tmp;
  for (const Container& c : spec.containers) {
    AddList(reqs, WithDefaults(c.resources.requests, non_missing, tmp));
  }
  ResourceList sidecars;
  ResourceList init_max;
  for (const Container& c : spec.initContainers) {
    const ResourceList& own = WithDefaults(c.resources.requests, non_missing, tmp);
    if (IsRestartableInitContainer(c)) {
      AddList(reqs, own);
      AddList(sidecars, own);
      MaxList(init_max, sidecars);
    } else {
      ResourceList use = own;
      AddList(use, sidecars);
      MaxList(init_max, use);
    }
  }
  MaxList(reqs, init_max);
  return reqs;
}

}  // namespace

bool IsRestartableInitContainer(const Container& c) {
  return c.rare->restartPolicy && *c.rare->restartPolicy == "Always";
}

ResourceList PodRequests(const Pod& pod, bool non_missing) {
  const bool pod_level = PodLevelRequestsSet(pod);
  ResourceList reqs = AggregateContainers(pod.spec, non_missing && !pod_level);
  if (pod_level) {
    for (const auto& [name, q] : pod.spec.resources->requests) {
      if (IsPodLevelResource(name)) reqs[name] = q;
    }
    if (non_missing) {
      reqs.emplace(std::string(kCpu), Quantity::FromMilli(kDefaultMilliCpuRequest));
      reqs.emplace(std::string(kMemory), Quantity::FromInt(kDefaultMemoryRequest));
    }
  }
  AddList(reqs, pod.spec.rare->overhead);
  return reqs;
}

}  // namespace allot::api
