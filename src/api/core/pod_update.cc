// Pod update and status-update validation: ValidatePodUpdate and ValidatePodStatusUpdate of
// k8s.io/kubernetes pkg/apis/core/validation/validation.go (Kubernetes 1.34).
#include <arpa/inet.h>

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/core/strategy.h"
#include "api/machinery/meta_validation.h"
#include "api/machinery/names.h"
#include "api/machinery/reflect.h"

namespace allot::api {
namespace {

constexpr int64_t kMaxInt32 = 2147483647;

constexpr std::string_view kUpdatablePodSpecFields =
    "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
    "`spec.tolerations` (only additions to existing tolerations),"
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

// Each member of a Visitable struct as compact JSON, in declaration order.
struct FieldJson {
  std::vector<std::pair<const char*, std::string>> fields;
  template <class F>
  void operator()(const char* name, const F& f, FieldTags = {}) {
    fields.emplace_back(name, ToJson(f));
  }
};

// "  spec.<field>: <old JSON> -> <new JSON>" for each member that differs. Kubernetes prints a
// Go cmp.Diff of the whole spec at this point; clients only show it to humans.
std::string SpecDiff(const PodSpec& old_spec, const PodSpec& new_spec) {
  FieldJson a, b;
  const_cast<PodSpec&>(old_spec).Visit(a);
  const_cast<PodSpec&>(new_spec).Visit(b);
  std::string out;
  for (size_t i = 0; i < a.fields.size(); ++i) {
    if (a.fields[i].second == b.fields[i].second) continue;
    out += "\n  spec.";
    out += a.fields[i].first;
    out += ": " + a.fields[i].second + " -> " + b.fields[i].second;
  }
  return out;
}

// ValidateContainerUpdates. Returns false when the container count changed (stop).
bool ValidateContainerUpdates(const std::vector<Container>& now, const std::vector<Container>& old,
                              const Path& p, FieldErrors& errs) {
  if (now.size() != old.size()) {
    errs.Forbidden(p, "pod updates may not add or remove containers");
    return false;
  }
  for (size_t i = 0; i < now.size(); ++i) {
    const std::string& image = now[i].image;
    if (image.empty()) errs.Required(p.Index(i).Child("image"));
    size_t first = image.find_first_not_of(" \t\n\r\f\v");
    size_t last = image.find_last_not_of(" \t\n\r\f\v");
    bool trimmed = image.empty() || (first == 0 && last == image.size() - 1);
    if (!trimmed) {
      errs.Invalid(p.Index(i).Child("image"), image,
                   "must not have leading or trailing whitespace");
    }
  }
  return true;
}

// Returns false when validation must stop here (as Kubernetes returns early).
bool ValidateActiveDeadlineUpdate(const std::optional<int64_t>& now,
                                  const std::optional<int64_t>& old, const Path& p,
                                  FieldErrors& errs) {
  if (now) {
    if (*now < 0 || *now > kMaxInt32) {
      errs.InvalidInt(p, *now,
                      "must be between 0 and " + std::to_string(kMaxInt32) + ", inclusive");
      return false;
    }
    if (old && *old < *now) {
      errs.InvalidInt(p, *now, "must be less than or equal to previous value");
      return false;
    }
  } else if (old) {
    errs.Invalid(p, "null", "must not update from a positive integer to nil value");
  }
  return true;
}

// validateOnlyAddedTolerations: every old toleration must still be present (tolerationSeconds
// may change).
void ValidateOnlyAddedTolerations(const std::vector<Toleration>& now,
                                  const std::vector<Toleration>& old, const Path& p,
                                  FieldErrors& errs) {
  for (const Toleration& o : old) {
    bool found = false;
    for (const Toleration& n : now) {
      Toleration clone = o;
      clone.tolerationSeconds = n.tolerationSeconds;
      if (clone == n) {
        found = true;
        break;
      }
    }
    if (!found) {
      errs.Forbidden(p, "existing toleration can not be modified except its tolerationSeconds");
      return;
    }
  }
  ValidateTolerations(now, p, errs);
}

// validateOnlyDeletedSchedulingGates.
void ValidateOnlyDeletedSchedulingGates(const std::vector<PodSchedulingGate>& now,
                                        const std::vector<PodSchedulingGate>& old, const Path& p,
                                        FieldErrors& errs) {
  std::set<std::string> existing;
  for (const PodSchedulingGate& g : old) existing.insert(g.name);
  for (size_t i = 0; i < now.size(); ++i) {
    if (existing.count(now[i].name)) continue;
    errs.Forbidden(p.Index(i).Child("name"),
                   "only deletion is allowed, but found new scheduling gate '" + now[i].name + "'");
  }
}

// The new spec with every field that may change reset to its old value.
PodSpec MungedSpec(const PodSpec& now, const PodSpec& old) {
  PodSpec m = now;
  for (size_t i = 0; i < m.containers.size() && i < old.containers.size(); ++i) {
    m.containers[i].image = old.containers[i].image;
  }
  for (size_t i = 0; i < m.initContainers.size() && i < old.initContainers.size(); ++i) {
    m.initContainers[i].image = old.initContainers[i].image;
  }
  m.rare.set(&PodSpecRare::activeDeadlineSeconds, old.rare->activeDeadlineSeconds);
  m.schedulingGates = old.schedulingGates;
  m.tolerations = old.tolerations;
  if (old.terminationGracePeriodSeconds && *old.terminationGracePeriodSeconds < 0 &&
      m.terminationGracePeriodSeconds == 1) {
    m.terminationGracePeriodSeconds = old.terminationGracePeriodSeconds;
  }
  // Gated pods may gain nodeSelector entries (no removals or changes).
  if (!old.schedulingGates.empty()) {
    bool only_additions = true;
    for (const auto& [k, v] : old.nodeSelector) {
      auto it = m.nodeSelector.find(k);
      only_additions = only_additions && it != m.nodeSelector.end() && it->second == v;
    }
    if (only_additions) m.nodeSelector = old.nodeSelector;
  }
  return m;
}

bool IsValidIp(const std::string& s) {
  unsigned char buf[16];
  return inet_pton(AF_INET, s.c_str(), buf) == 1 || inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

void ValidateIps(const std::vector<std::string>& ips, const Path& p, FieldErrors& errs) {
  for (size_t i = 0; i < ips.size(); ++i) {
    if (!IsValidIp(ips[i])) {
      errs.Invalid(p.Index(i), ips[i],
                   "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
    }
  }
}

// ValidateContainerStateTransition: without restartPolicy Always, a terminated container may
// not go back (OnFailure: unless it failed).
void ValidateStateTransitions(const std::vector<ContainerStatus>& now,
                              const std::vector<ContainerStatus>& old,
                              const std::string& restart_policy, const Path& p, FieldErrors& errs) {
  if (restart_policy == "Always") return;
  for (size_t i = 0; i < old.size(); ++i) {
    const auto& term = old[i].state.terminated;
    if (!term) continue;
    if (term->exitCode != 0 && restart_policy == "OnFailure") continue;
    for (const ContainerStatus& n : now) {
      if (n.name == old[i].name && !n.state.terminated) {
        errs.Forbidden(p.Index(i).Child("state"),
                       "may not be transitioned to non-terminated state");
      }
    }
  }
}

void ValidateResourceClaimStatuses(const Pod& pod, const Path& p, FieldErrors& errs) {
  std::set<std::string> spec_names;
  for (const PodResourceClaim& c : pod.spec.resourceClaims) spec_names.insert(c.name);
  std::set<std::string> seen;
  for (size_t i = 0; i < pod.status.resourceClaimStatuses.size(); ++i) {
    const PodResourceClaimStatus& s = pod.status.resourceClaimStatuses[i];
    Path ip = p.Index(i);
    if (!spec_names.count(s.name)) {
      errs.Invalid(ip.Child("name"), s.name,
                   "must match the name of an entry in `spec.resourceClaims`");
    }
    if (!seen.insert(s.name).second) errs.Duplicate(ip.Child("name"), s.name);
    if (s.resourceClaimName) {
      for (const std::string& m : DnsSubdomainErrors(*s.resourceClaimName)) {
        errs.Invalid(ip.Child("name"), *s.resourceClaimName, m);
      }
    }
  }
}

}  // namespace

void ValidatePodUpdate(const Pod& pod, const Pod& old, FieldErrors& errs) {
  ValidateObjectMetaUpdate(pod.metadata, old.metadata, errs);
  Path spec("spec");
  if (!ValidateContainerUpdates(pod.spec.containers, old.spec.containers, spec.Child("containers"),
                                errs)) {
    return;
  }
  if (!ValidateContainerUpdates(pod.spec.initContainers, old.spec.initContainers,
                                spec.Child("initContainers"), errs)) {
    return;
  }
  if (!ValidateActiveDeadlineUpdate(pod.spec.rare->activeDeadlineSeconds,
                                    old.spec.rare->activeDeadlineSeconds,
                                    spec.Child("activeDeadlineSeconds"), errs)) {
    return;
  }
  ValidateOnlyAddedTolerations(pod.spec.tolerations, old.spec.tolerations,
                               spec.Child("tolerations"), errs);
  ValidateOnlyDeletedSchedulingGates(pod.spec.schedulingGates, old.spec.schedulingGates,
                                     spec.Child("schedulingGates"), errs);
  PodSpec munged = MungedSpec(pod.spec, old.spec);
  if (!(munged == old.spec)) {
    errs.Forbidden(spec, "pod updates may not change fields other than " +
                             std::string(kUpdatablePodSpecFields) + SpecDiff(old.spec, munged));
  }
}

void ValidatePodStatusUpdate(const Pod& pod, const Pod& old, FieldErrors& errs) {
  Path meta("metadata");
  ValidateObjectMetaUpdate(pod.metadata, old.metadata, errs);
  // Kubernetes validates condition types under "metadata.conditions[i].Type" (sic).
  for (size_t i = 0; i < pod.status.conditions.size(); ++i) {
    const std::string& type = pod.status.conditions[i].type;
    if (type == "PodScheduled" || type == "Ready" || type == "Initialized") continue;
    ValidateLabelName(type, meta.Child("conditions").Index(i).Child("Type"), errs);
  }
  Path status("status");
  if (pod.spec.nodeName != old.spec.nodeName) {
    errs.Forbidden(status.Child("nodeName"), "may not be changed directly");
  }
  const std::string& nominated = pod.status.nominatedNodeName;
  if (nominated != old.status.nominatedNodeName && !nominated.empty()) {
    ValidateDnsSubdomain(nominated, status.Child("nominatedNodeName"), errs);
  }
  if (pod.status.observedGeneration < 0) {
    errs.InvalidInt(status.Child("observedGeneration"), pod.status.observedGeneration,
                    "must be a non-negative integer");
  }
  if (pod.status.qosClass != old.status.qosClass) {
    errs.Invalid(status.Child("qosClass"), pod.status.qosClass, "field is immutable");
  }
  ValidateStateTransitions(pod.status.containerStatuses, old.status.containerStatuses,
                           old.spec.restartPolicy, status.Child("containerStatuses"), errs);
  ValidateResourceClaimStatuses(pod, status.Child("resourceClaimStatuses"), errs);
  std::vector<std::string> pod_ips, host_ips;
  for (const PodIP& ip : pod.status.podIPs) pod_ips.push_back(ip.ip);
  for (const HostIP& ip : pod.status.hostIPs) host_ips.push_back(ip.ip);
  ValidateIps(pod_ips, status.Child("podIPs"), errs);
  ValidateIps(host_ips, status.Child("hostIPs"), errs);
}

}  // namespace allot::api
