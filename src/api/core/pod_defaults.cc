// Pod defaulting: k8s.io/kubernetes pkg/apis/core/v1/defaults.go (SetDefaults_Pod, _PodSpec,
// _Container, _ContainerPort, _Volume), the pod strategy's create-time mutations
// (pkg/registry/core/pod/strategy.go) and the Priority admission plugin.
#include <algorithm>
#include <set>
#include <string>
#include <string_view>

#include "api/core/strategy.h"
#include "api/machinery/image_reference.h"

namespace allot::api {
namespace {

constexpr std::string_view kPodScheduled = "PodScheduled";
constexpr std::string_view kReasonSchedulingGated = "SchedulingGated";

bool IsQoSResource(std::string_view name) { return name == "cpu" || name == "memory"; }

bool IsHugePages(std::string_view name) { return name.rfind("hugepages-", 0) == 0; }

// Requests default to limits for every resource that has a limit but no request.
void DefaultRequestsToLimits(ResourceRequirements& r) {
  for (const auto& [name, limit] : r.limits) r.requests.try_emplace(name, limit);
}

void DefaultContainer(Container& c, bool host_network) {
  if (c.imagePullPolicy.empty()) c.imagePullPolicy = DefaultImagePullPolicy(c.image);
  if (c.terminationMessagePath.empty()) {
    c.terminationMessagePath = std::string(kTerminationMessagePathDefault);
  }
  if (c.terminationMessagePolicy.empty()) c.terminationMessagePolicy = "File";
  for (ContainerPort& p : c.ports) {
    if (p.protocol.empty()) p.protocol = "TCP";
    if (host_network && p.hostPort == 0) p.hostPort = p.containerPort;
  }
  DefaultRequestsToLimits(c.resources);
}

// defaultPodRequests (PodLevelResources): a pod-level limit without a request takes the sum of
// the containers' requests for that resource when any container has one, else the limit.
void DefaultPodLevelRequests(PodSpec& spec) {
  if (!spec.resources) return;
  for (const auto& [name, limit] : spec.resources->limits) {
    if (!IsQoSResource(name) && !IsHugePages(name)) continue;
    if (spec.resources->requests.count(name)) continue;
    Quantity sum;
    bool any = false;
    for (const Container& c : spec.containers) {
      auto it = c.resources.requests.find(name);
      if (it == c.resources.requests.end()) continue;
      sum.Add(it->second);
      any = true;
    }
    spec.resources->requests[name] = any ? sum : limit;
  }
}

bool HasRequirement(const LabelSelector& sel, const LabelSelectorRequirement& req) {
  return std::find(sel.matchExpressions.begin(), sel.matchExpressions.end(), req) !=
         sel.matchExpressions.end();
}

// addMatchLabelKeys: `key In (v)` for matchLabelKeys and `key NotIn (v)` for mismatchLabelKeys,
// for keys the pod has as labels. Ignored when the term has no labelSelector.
void AddMatchLabelKeys(const StringMap& labels, PodAffinityTerm& term) {
  if (!term.labelSelector) return;
  auto add = [&](const std::vector<std::string>& keys, const char* op) {
    for (const std::string& key : keys) {
      auto it = labels.find(key);
      if (it == labels.end()) continue;
      LabelSelectorRequirement req{key, op, {it->second}};
      if (!HasRequirement(*term.labelSelector, req)) {
        term.labelSelector->matchExpressions.push_back(std::move(req));
      }
    }
  };
  add(term.matchLabelKeys, "In");
  add(term.mismatchLabelKeys, "NotIn");
}

void MutateAffinityTerms(const StringMap& labels, PodAffinity& a) {
  for (PodAffinityTerm& t : a.requiredDuringSchedulingIgnoredDuringExecution) {
    AddMatchLabelKeys(labels, t);
  }
  for (WeightedPodAffinityTerm& t : a.preferredDuringSchedulingIgnoredDuringExecution) {
    AddMatchLabelKeys(labels, t.podAffinityTerm);
  }
}

void MutatePodAffinity(Pod& pod) {
  if (!pod.spec.affinity) return;
  if (pod.spec.affinity->podAffinity) {
    MutateAffinityTerms(pod.metadata.labels, *pod.spec.affinity->podAffinity);
  }
  if (pod.spec.affinity->podAntiAffinity) {
    MutateAffinityTerms(pod.metadata.labels, *pod.spec.affinity->podAntiAffinity);
  }
}

void DefaultPodSpec(PodSpec& spec) {
  if (spec.dnsPolicy.empty()) spec.dnsPolicy = "ClusterFirst";
  if (spec.restartPolicy.empty()) spec.restartPolicy = "Always";
  if (spec.securityContext.empty()) spec.securityContext.json = "{}";
  if (!spec.terminationGracePeriodSeconds) {
    spec.terminationGracePeriodSeconds = kDefaultTerminationGracePeriodSeconds;
  }
  if (spec.schedulerName.empty()) spec.schedulerName = std::string(kDefaultSchedulerName);
  if (!spec.enableServiceLinks) spec.enableServiceLinks = true;
  for (Container& c : spec.initContainers) DefaultContainer(c, spec.hostNetwork);
  for (Container& c : spec.containers) DefaultContainer(c, spec.hostNetwork);
  for (Volume& v : spec.volumes) {
    if (v.SetSources().empty()) v.emptyDir.json = "{}";
  }
  DefaultPodLevelRequests(spec);
}

// Priority comes from priority admission (api/scheduling/priority_admission.h), which runs
// before defaulting; a pod that did not pass through it (built in memory) gets priority 0.
void DefaultPriority(PodSpec& spec) {
  if (!spec.priority) spec.priority = 0;
  if (!spec.preemptionPolicy) spec.preemptionPolicy = "PreemptLowerPriority";
}

void ApplySchedulingGatedCondition(Pod& pod) {
  if (pod.spec.schedulingGates.empty()) return;
  for (const PodCondition& c : pod.status.conditions) {
    if (c.type == kPodScheduled) return;
  }
  PodCondition c;
  c.type = std::string(kPodScheduled);
  c.status = "False";
  c.reason = std::string(kReasonSchedulingGated);
  c.message = "Scheduling is blocked due to non-empty scheduling gates";
  pod.status.conditions.push_back(std::move(c));
}

// Adds the positive cpu/memory quantities of `list` into `sum`; records which were found.
void AccumulateQoS(const ResourceList& list, ResourceList& sum, std::set<std::string>* found) {
  for (const auto& [name, q] : list) {
    if (!IsQoSResource(name) || q.Sign() <= 0) continue;
    auto [it, inserted] = sum.try_emplace(name, q);
    if (!inserted) it->second.Add(q);
    if (found) found->insert(name);
  }
}

}  // namespace

std::string ComputePodQOS(const Pod& pod) {
  ResourceList requests;
  ResourceList limits;
  bool guaranteed = true;
  auto has_cpu_and_memory = [](const std::set<std::string>& found) {
    return found.count("cpu") && found.count("memory");
  };
  if (pod.spec.resources) {
    AccumulateQoS(pod.spec.resources->requests, requests, nullptr);
    if (!pod.spec.resources->limits.empty()) {
      std::set<std::string> found;
      AccumulateQoS(pod.spec.resources->limits, limits, &found);
      guaranteed = has_cpu_and_memory(found);
    }
  } else {
    auto visit = [&](const Container& c) {
      AccumulateQoS(c.resources.requests, requests, nullptr);
      std::set<std::string> found;
      AccumulateQoS(c.resources.limits, limits, &found);
      if (!has_cpu_and_memory(found)) guaranteed = false;
    };
    for (const Container& c : pod.spec.containers) visit(c);
    for (const Container& c : pod.spec.initContainers) visit(c);
  }
  if (requests.empty() && limits.empty()) return "BestEffort";
  if (guaranteed) {
    for (const auto& [name, req] : requests) {
      auto it = limits.find(name);
      if (it == limits.end() || it->second.Compare(req) != 0) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size() == limits.size() ? "Guaranteed" : "Burstable";
}

void DefaultPodTemplateSpec(PodTemplateSpec& tmpl) { DefaultPodSpec(tmpl.spec); }

void DefaultPod(Pod& pod) {
  DefaultPodSpec(pod.spec);
  DefaultPriority(pod.spec);
  MutatePodAffinity(pod);
  if (pod.status.phase.empty()) pod.status.phase = "Pending";
  if (pod.status.qosClass.empty()) pod.status.qosClass = ComputePodQOS(pod);
  ApplySchedulingGatedCondition(pod);
}

}  // namespace allot::api
