// Pod validation: k8s.io/kubernetes pkg/apis/core/validation/validation.go (ValidatePodCreate,
// ValidatePodSpec, validateContainers, ValidatePodUpdate, ValidatePodStatusUpdate,
// ValidatePodBinding), Kubernetes 1.34 with default feature gates.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/core/strategy.h"
#include "api/machinery/meta_validation.h"
#include "api/machinery/names.h"
#include "api/machinery/reflect.h"

namespace allot::api {
namespace {

constexpr std::string_view kIsNegativeErrorMsg = "must be greater than or equal to 0";
constexpr std::string_view kIsNotPositiveErrorMsg = "must be greater than zero";
constexpr int64_t kMaxInt32 = 2147483647;

// --- small helpers ----------------------------------------------------------------------------

// field.NotFound with a detail; FieldErrors has no NotFound, so this is Invalid.
// TODO(core): use FieldErrors::NotFound once api/machinery/validation.h offers it.
void NotFound(FieldErrors& errs, const Path& p, std::string_view value, std::string_view detail) {
  errs.Invalid(p, value, detail.empty() ? std::string_view("not found") : detail);
}

void ValidateQualifiedName(std::string_view value, const Path& p, FieldErrors& errs) {
  ValidateLabelName(value, p, errs);
}

bool IsStandardContainerResource(std::string_view n) {
  return n == "cpu" || n == "memory" || n == "ephemeral-storage" || n.rfind("hugepages-", 0) == 0;
}

// helper.IsStandardResourceName: the names ResourceQuota and LimitRange also know.
bool IsStandardResourceName(std::string_view n) {
  static const std::set<std::string_view> kNames = {"cpu",
                                                    "memory",
                                                    "ephemeral-storage",
                                                    "pods",
                                                    "services",
                                                    "replicationcontrollers",
                                                    "resourcequotas",
                                                    "secrets",
                                                    "configmaps",
                                                    "persistentvolumeclaims",
                                                    "storage",
                                                    "requests.cpu",
                                                    "requests.memory",
                                                    "requests.storage",
                                                    "requests.ephemeral-storage",
                                                    "limits.cpu",
                                                    "limits.memory",
                                                    "limits.ephemeral-storage",
                                                    "services.nodeports",
                                                    "services.loadbalancers"};
  return kNames.count(n) || n.rfind("hugepages-", 0) == 0 || n.rfind("requests.hugepages-", 0) == 0;
}

bool IsNativeResource(std::string_view n) {
  return n.find('/') == std::string_view::npos ||
         n.find("kubernetes.io/") != std::string_view::npos;
}

bool IsOvercommitAllowed(std::string_view n) {
  return IsNativeResource(n) && n.rfind("hugepages-", 0) != 0;
}

// validateContainerResourceName.
void ValidateContainerResourceName(const std::string& name, const Path& p, FieldErrors& errs) {
  size_t before = errs.size();
  ValidateLabelName(name, p, errs);
  if (errs.size() == before && name.find('/') == std::string::npos &&
      !IsStandardResourceName(name)) {
    errs.Invalid(p, name, "must be a standard resource type or fully qualified");
  }
  if (name.find('/') == std::string::npos) {
    if (!IsStandardContainerResource(name)) {
      errs.Invalid(p, name, "must be a standard resource for containers");
    }
  } else if (!IsNativeResource(name) && !IsExtendedResourceName(name)) {
    errs.Invalid(p, name, "doesn't follow extended resource name standard");
  }
}

void ValidateQuantityValue(const std::string& name, const Quantity& q, const Path& p,
                           FieldErrors& errs) {
  ValidateResourceQuantityValue(name, q, p, errs);
}

// validateResourceRequirements for containers, and the claim names.
void ValidateResources(const ResourceRequirements& r, const std::set<std::string>& pod_claims,
                       const Path& p, FieldErrors& errs) {
  Path lim = p.Child("limits");
  Path req = p.Child("requests");
  for (const auto& [name, q] : r.limits) {
    ValidateContainerResourceName(name, lim.Key(name), errs);
    ValidateQuantityValue(name, q, lim.Key(name), errs);
  }
  for (const auto& [name, q] : r.requests) {
    ValidateContainerResourceName(name, req.Key(name), errs);
    ValidateQuantityValue(name, q, req.Key(name), errs);
    auto it = r.limits.find(name);
    if (it != r.limits.end()) {
      const std::string limit = it->second.ToString();
      if (q.Compare(it->second) != 0 && !IsOvercommitAllowed(name)) {
        errs.Invalid(req, q.ToString(), "must be equal to " + name + " limit of " + limit);
      } else if (q.Compare(it->second) > 0) {
        errs.Invalid(req, q.ToString(),
                     "must be less than or equal to " + name + " limit of " + limit);
      }
    } else if (!IsOvercommitAllowed(name)) {
      errs.Required(lim, "Limit must be set for non overcommitable resources");
    }
  }
  // validateResourceClaimNames.
  std::set<std::string> seen;
  std::string known;
  for (const std::string& n : pod_claims) known += (known.empty() ? "" : ", ") + n;
  for (size_t i = 0; i < r.claims.size(); ++i) {
    const ContainerResourceClaim& c = r.claims[i];
    Path ip = p.Child("claims").Index(i);
    if (c.name.empty()) {
      errs.Required(ip.Child("name"));
      continue;
    }
    std::string key = c.name;
    if (!c.request.empty()) {
      ValidateDnsLabel(c.request, ip.Child("request"), errs);
      key += "/" + c.request;
    }
    if (!seen.insert(key).second) errs.Duplicate(ip, key);
    if (!pod_claims.count(c.name)) {
      NotFound(errs, ip, c.name,
               "must be one of the names in pod.spec.resourceClaims" +
                   (pod_claims.empty() ? std::string(" which is empty") : ": " + known));
    }
  }
}

// --- containers -------------------------------------------------------------------------------

struct PodContext {
  const PodSpec& spec;
  std::set<std::string> volumes;     // valid volume names
  std::set<std::string> pod_claims;  // spec.resourceClaims[].name
};

void ValidatePorts(const std::vector<ContainerPort>& ports, const Path& p, FieldErrors& errs) {
  std::set<std::string> names;
  for (size_t i = 0; i < ports.size(); ++i) {
    const ContainerPort& port = ports[i];
    Path ip = p.Index(i);
    if (!port.name.empty()) {
      std::vector<std::string> msgs = PortNameErrors(port.name);
      for (const std::string& m : msgs) errs.Invalid(ip.Child("name"), port.name, m);
      if (msgs.empty() && !names.insert(port.name).second) {
        errs.Duplicate(ip.Child("name"), port.name);
      }
    }
    if (port.containerPort == 0) {
      errs.Required(ip.Child("containerPort"));
    } else if (port.containerPort < 1 || port.containerPort > 65535) {
      errs.InvalidInt(ip.Child("containerPort"), port.containerPort, InclusiveRangeError(1, 65535));
    }
    if (port.hostPort != 0 && (port.hostPort < 1 || port.hostPort > 65535)) {
      errs.InvalidInt(ip.Child("hostPort"), port.hostPort, InclusiveRangeError(1, 65535));
    }
    if (port.protocol.empty()) {
      errs.Required(ip.Child("protocol"));
    } else if (port.protocol != "TCP" && port.protocol != "UDP" && port.protocol != "SCTP") {
      errs.NotSupported(ip.Child("protocol"), port.protocol, {"SCTP", "TCP", "UDP"});
    }
  }
}

void ValidateEnv(const std::vector<EnvVar>& env, const Path& p, FieldErrors& errs) {
  for (size_t i = 0; i < env.size(); ++i) {
    const EnvVar& e = env[i];
    Path ip = p.Index(i);
    if (e.name.empty()) {
      errs.Required(ip.Child("name"));
    } else {
      for (unsigned char c : e.name) {
        if (c > 0x7e || c < 0x20 || c == '=') {
          errs.Invalid(ip.Child("name"), e.name,
                       "a valid environment variable name must consist only of printable ASCII "
                       "characters other than '='");
          break;
        }
      }
    }
    if (!e.value.empty() && !e.valueFrom.empty()) {
      errs.Invalid(ip.Child("valueFrom"), "", "may not be specified when `value` is not empty");
    }
  }
}

void ValidateVolumeMounts(const Container& c, const PodContext& ctx, const Path& p,
                          FieldErrors& errs) {
  std::set<std::string> paths;
  for (size_t i = 0; i < c.volumeMounts.size(); ++i) {
    const VolumeMount& m = c.volumeMounts[i];
    Path ip = p.Index(i);
    if (m.name.empty()) errs.Required(ip.Child("name"));
    if (!ctx.volumes.count(m.name)) NotFound(errs, ip.Child("name"), m.name, "");
    if (m.mountPath.empty()) errs.Required(ip.Child("mountPath"));
    if (!paths.insert(m.mountPath).second) {
      errs.Invalid(ip.Child("mountPath"), m.mountPath, "must be unique");
    }
    for (const VolumeDevice& d : c.rare->volumeDevices) {
      if (d.name == m.name) {
        errs.Invalid(ip.Child("name"), m.name, "must not already exist in volumeDevices");
      }
      if (d.devicePath == m.mountPath) {
        errs.Invalid(ip.Child("mountPath"), m.mountPath,
                     "must not already exist as a path in volumeDevices");
      }
    }
  }
}

void ValidatePullPolicy(const std::string& policy, const Path& p, FieldErrors& errs) {
  if (policy.empty()) {
    errs.Required(p);
  } else if (policy != "Always" && policy != "IfNotPresent" && policy != "Never") {
    errs.NotSupported(p, policy, {"Always", "IfNotPresent", "Never"});
  }
}

void ValidateResizePolicy(const std::vector<ContainerResizePolicy>& list,
                          const std::string& pod_restart_policy, const Path& p, FieldErrors& errs) {
  std::set<std::string> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    const ContainerResizePolicy& r = list[i];
    if (!seen.insert(r.resourceName).second) errs.Duplicate(p.Index(i), r.resourceName);
    if (r.resourceName.empty()) {
      errs.Required(p);
    } else if (r.resourceName != "cpu" && r.resourceName != "memory") {
      errs.NotSupported(p, r.resourceName, {"cpu", "memory"});
    }
    if (r.restartPolicy.empty()) {
      errs.Required(p);
    } else if (r.restartPolicy != "NotRequired" && r.restartPolicy != "RestartContainer") {
      errs.NotSupported(p, r.restartPolicy, {"NotRequired", "RestartContainer"});
    }
    if (pod_restart_policy == "Never" && r.restartPolicy != "NotRequired") {
      errs.Invalid(p, r.restartPolicy, "must be 'NotRequired' when `restartPolicy` is 'Never'");
    }
  }
}

// validateContainerCommon.
void ValidateContainerCommon(const Container& c, const PodContext& ctx, const Path& p,
                             FieldErrors& errs) {
  if (c.name.empty()) {
    errs.Required(p.Child("name"));
  } else {
    ValidateDnsLabel(c.name, p.Child("name"), errs);
  }
  if (c.image.empty()) errs.Required(p.Child("image"));
  const std::string& tmp = c.terminationMessagePolicy;
  if (tmp.empty()) {
    errs.Required(p.Child("terminationMessagePolicy"));
  } else if (tmp != "File" && tmp != "FallbackToLogsOnError") {
    errs.NotSupported(p.Child("terminationMessagePolicy"), tmp, {"File", "FallbackToLogsOnError"});
  }
  ValidatePorts(c.ports, p.Child("ports"), errs);
  ValidateEnv(c.env, p.Child("env"), errs);
  ValidateVolumeMounts(c, ctx, p.Child("volumeMounts"), errs);
  ValidatePullPolicy(c.imagePullPolicy, p.Child("imagePullPolicy"), errs);
  ValidateResources(c.resources, ctx.pod_claims, p.Child("resources"), errs);
  ValidateResizePolicy(c.rare->resizePolicy, ctx.spec.restartPolicy, p.Child("resizePolicy"), errs);
}

// AccumulateUniqueHostPorts: "<hostIP>/<protocol>/<hostPort>" must be unique.
void CheckHostPortConflicts(const std::vector<const Container*>& containers,
                            const std::vector<Path>& paths, FieldErrors& errs) {
  std::set<std::string> seen;
  for (size_t ci = 0; ci < containers.size(); ++ci) {
    const Container& c = *containers[ci];
    for (size_t pi = 0; pi < c.ports.size(); ++pi) {
      const ContainerPort& port = c.ports[pi];
      if (port.hostPort == 0) continue;
      std::string key = port.hostIP + "/" + port.protocol + "/" + std::to_string(port.hostPort);
      if (!seen.insert(key).second) {
        errs.Duplicate(paths[ci].Child("ports").Index(pi).Child("hostPort"), key);
      }
    }
  }
}

void ValidateContainers(const PodContext& ctx, const Path& p, FieldErrors& errs) {
  const std::vector<Container>& containers = ctx.spec.containers;
  if (containers.empty()) errs.Required(p);
  std::set<std::string> names;
  std::vector<const Container*> ptrs;
  std::vector<Path> paths;
  for (size_t i = 0; i < containers.size(); ++i) {
    const Container& c = containers[i];
    Path ip = p.Index(i);
    ValidateContainerCommon(c, ctx, ip, errs);
    if (!names.insert(c.name).second) errs.Duplicate(ip.Child("name"), c.name);
    if (c.rare->restartPolicy) {
      errs.Forbidden(ip.Child("restartPolicy"), "may not be set for non-init containers");
    }
    ptrs.push_back(&c);
    paths.push_back(ip);
  }
  CheckHostPortConflicts(ptrs, paths, errs);
}

void ValidateInitContainers(const PodContext& ctx, const Path& p, FieldErrors& errs) {
  std::set<std::string> names;
  for (const Container& c : ctx.spec.containers) names.insert(c.name);
  constexpr std::string_view kNotSidecar =
      "may not be set for init containers without "
      "restartPolicy=Always";
  for (size_t i = 0; i < ctx.spec.initContainers.size(); ++i) {
    const Container& c = ctx.spec.initContainers[i];
    Path ip = p.Index(i);
    ValidateContainerCommon(c, ctx, ip, errs);
    bool sidecar = false;
    if (c.rare->restartPolicy) {
      if (*c.rare->restartPolicy != "Always") {
        errs.NotSupported(ip.Child("restartPolicy"), *c.rare->restartPolicy, {"Always"});
      }
      sidecar = *c.rare->restartPolicy == "Always";
    }
    if (names.count(c.name)) {
      errs.Duplicate(ip.Child("name"), c.name);
    } else if (!c.name.empty()) {
      names.insert(c.name);
    }
    CheckHostPortConflicts({&c}, {ip}, errs);
    if (!sidecar) {
      if (!c.rare->lifecycle.empty()) errs.Forbidden(ip.Child("lifecycle"), kNotSidecar);
      if (!c.rare->livenessProbe.empty()) errs.Forbidden(ip.Child("livenessProbe"), kNotSidecar);
      if (!c.rare->readinessProbe.empty()) {
        errs.Forbidden(ip.Child("readinessProbe"), "may not be set for init containers");
      }
      if (!c.rare->startupProbe.empty()) errs.Forbidden(ip.Child("startupProbe"), kNotSidecar);
    }
    if (!c.rare->resizePolicy.empty()) {
      errs.Invalid(ip.Child("resizePolicy"), "", "must not be set for init containers");
    }
  }
}

// --- volumes and claims -----------------------------------------------------------------------

std::set<std::string> ValidateVolumes(const std::vector<Volume>& volumes, const Path& p,
                                      FieldErrors& errs) {
  std::set<std::string> names;
  for (size_t i = 0; i < volumes.size(); ++i) {
    const Volume& v = volumes[i];
    Path ip = p.Index(i);
    size_t before = errs.size();
    std::vector<const char*> sources = v.SetSources();
    if (sources.empty()) errs.Required(ip, "must specify a volume type");
    for (size_t s = 1; s < sources.size(); ++s) {
      errs.Forbidden(ip.Child(sources[s]), "may not specify more than 1 volume type");
    }
    if (v.name.empty()) {
      errs.Required(ip.Child("name"));
    } else {
      ValidateDnsLabel(v.name, ip.Child("name"), errs);
    }
    if (names.count(v.name)) errs.Duplicate(ip.Child("name"), v.name);
    if (errs.size() == before) names.insert(v.name);
  }
  return names;
}

// validatePodResourceClaims. Kubernetes prints the claim as a Go struct for the one-of errors;
// we print its name.
// --- affinity and spreading -------------------------------------------------------------------

void ValidateLabelKeys(const std::vector<std::string>& keys,
                       const std::optional<LabelSelector>& selector, const Path& p,
                       FieldErrors& errs) {
  if (keys.empty()) return;
  if (!selector) {
    errs.Forbidden(p, "must not be specified when labelSelector is not set");
    return;
  }
  for (size_t i = 0; i < keys.size(); ++i) ValidateLabelName(keys[i], p.Index(i), errs);
}

void ValidatePodAffinityTerm(const PodAffinityTerm& t, const Path& p, FieldErrors& errs) {
  if (t.labelSelector) ValidateLabelSelector(*t.labelSelector, p.Child("labelSelector"), errs);
  if (t.namespaceSelector) {
    ValidateLabelSelector(*t.namespaceSelector, p.Child("namespaceSelector"), errs);
  }
  for (const std::string& ns : t.namespaces) {
    for (const std::string& m : DnsLabelErrors(ns)) errs.Invalid(p.Child("namespace"), ns, m);
  }
  ValidateLabelKeys(t.matchLabelKeys, t.labelSelector, p.Child("matchLabelKeys"), errs);
  ValidateLabelKeys(t.mismatchLabelKeys, t.labelSelector, p.Child("mismatchLabelKeys"), errs);
  std::set<std::string> match(t.matchLabelKeys.begin(), t.matchLabelKeys.end());
  for (size_t i = 0; i < t.mismatchLabelKeys.size(); ++i) {
    if (match.count(t.mismatchLabelKeys[i])) {
      errs.Invalid(p.Child("matchLabelKeys").Index(i), t.mismatchLabelKeys[i],
                   "exists in both matchLabelKeys and mismatchLabelKeys");
    }
  }
  if (t.topologyKey.empty()) errs.Required(p.Child("topologyKey"), "can not be empty");
  ValidateLabelName(t.topologyKey, p.Child("topologyKey"), errs);
}

void ValidatePodAffinity(const PodAffinity& a, const Path& p, FieldErrors& errs) {
  Path req = p.Child("requiredDuringSchedulingIgnoredDuringExecution");
  for (size_t i = 0; i < a.requiredDuringSchedulingIgnoredDuringExecution.size(); ++i) {
    ValidatePodAffinityTerm(a.requiredDuringSchedulingIgnoredDuringExecution[i], req.Index(i),
                            errs);
  }
  Path pref = p.Child("preferredDuringSchedulingIgnoredDuringExecution");
  for (size_t i = 0; i < a.preferredDuringSchedulingIgnoredDuringExecution.size(); ++i) {
    const WeightedPodAffinityTerm& w = a.preferredDuringSchedulingIgnoredDuringExecution[i];
    if (w.weight <= 0 || w.weight > 100) {
      errs.InvalidInt(pref.Index(i).Child("weight"), w.weight, "must be in the range 1-100");
    }
    ValidatePodAffinityTerm(w.podAffinityTerm, pref.Index(i).Child("podAffinityTerm"), errs);
  }
}

void ValidateAffinity(const Affinity& a, const Path& p, FieldErrors& errs) {
  if (a.nodeAffinity) {
    Path np = p.Child("nodeAffinity");
    const NodeAffinity& na = *a.nodeAffinity;
    if (na.requiredDuringSchedulingIgnoredDuringExecution) {
      ValidateNodeSelector(*na.requiredDuringSchedulingIgnoredDuringExecution, false,
                           np.Child("requiredDuringSchedulingIgnoredDuringExecution"), errs);
    }
    Path pref = np.Child("preferredDuringSchedulingIgnoredDuringExecution");
    for (size_t i = 0; i < na.preferredDuringSchedulingIgnoredDuringExecution.size(); ++i) {
      const PreferredSchedulingTerm& t = na.preferredDuringSchedulingIgnoredDuringExecution[i];
      if (t.weight <= 0 || t.weight > 100) {
        errs.InvalidInt(pref.Index(i).Child("weight"), t.weight, "must be in the range 1-100");
      }
      ValidateNodeSelectorTerm(t.preference, true, pref.Index(i).Child("preference"), errs);
    }
  }
  if (a.podAffinity) ValidatePodAffinity(*a.podAffinity, p.Child("podAffinity"), errs);
  if (a.podAntiAffinity) {
    ValidatePodAffinity(*a.podAntiAffinity, p.Child("podAntiAffinity"), errs);
  }
}

void ValidateTopologySpread(const std::vector<TopologySpreadConstraint>& list, const Path& p,
                            FieldErrors& errs) {
  for (size_t i = 0; i < list.size(); ++i) {
    const TopologySpreadConstraint& c = list[i];
    Path ip = p.Index(i);
    if (c.maxSkew <= 0) errs.InvalidInt(ip.Child("maxSkew"), c.maxSkew, kIsNotPositiveErrorMsg);
    if (c.topologyKey.empty()) errs.Required(ip.Child("topologyKey"), "can not be empty");
    if (c.whenUnsatisfiable != "DoNotSchedule" && c.whenUnsatisfiable != "ScheduleAnyway") {
      errs.NotSupported(ip.Child("whenUnsatisfiable"), c.whenUnsatisfiable,
                        {"DoNotSchedule", "ScheduleAnyway"});
    }
    for (size_t j = i + 1; j < list.size(); ++j) {
      if (list[j].topologyKey == c.topologyKey &&
          list[j].whenUnsatisfiable == c.whenUnsatisfiable) {
        errs.Duplicate(ip.Child("{topologyKey, whenUnsatisfiable}"),
                       "{" + c.topologyKey + ", " + c.whenUnsatisfiable + "}");
        break;
      }
    }
    if (c.minDomains) {
      if (*c.minDomains <= 0) {
        errs.InvalidInt(ip.Child("minDomains"), *c.minDomains, kIsNotPositiveErrorMsg);
      }
      if (c.whenUnsatisfiable != "DoNotSchedule") {
        errs.InvalidInt(ip.Child("minDomains"), *c.minDomains,
                        "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not " +
                            c.whenUnsatisfiable);
      }
    }
    for (const auto& [field, value] : {std::pair{"nodeAffinityPolicy", &c.nodeAffinityPolicy},
                                       std::pair{"nodeTaintsPolicy", &c.nodeTaintsPolicy}}) {
      if (*value && **value != "Honor" && **value != "Ignore") {
        errs.NotSupported(ip.Child(field), **value, {"Honor", "Ignore"});
      }
    }
    ValidateLabelKeys(c.matchLabelKeys, c.labelSelector, ip.Child("matchLabelKeys"), errs);
    if (c.labelSelector) ValidateLabelSelector(*c.labelSelector, ip.Child("labelSelector"), errs);
  }
}

// --- the spec ---------------------------------------------------------------------------------

void ValidatePolicies(const PodSpec& spec, const Path& p, FieldErrors& errs) {
  if (spec.restartPolicy.empty()) {
    errs.Required(p.Child("restartPolicy"));
  } else if (spec.restartPolicy != "Always" && spec.restartPolicy != "OnFailure" &&
             spec.restartPolicy != "Never") {
    errs.NotSupported(p.Child("restartPolicy"), spec.restartPolicy,
                      {"Always", "OnFailure", "Never"});
  }
  const std::string& dns = spec.dnsPolicy;
  if (dns.empty()) {
    errs.Required(p.Child("dnsPolicy"));
  } else if (dns != "ClusterFirst" && dns != "ClusterFirstWithHostNet" && dns != "Default" &&
             dns != "None") {
    errs.NotSupported(p.Child("dnsPolicy"), dns,
                      {"ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"});
  }
}

void ValidateHostNetworkPorts(const PodSpec& spec, const Path& p, FieldErrors& errs) {
  if (!spec.hostNetwork) return;
  for (size_t i = 0; i < spec.containers.size(); ++i) {
    for (size_t j = 0; j < spec.containers[i].ports.size(); ++j) {
      const ContainerPort& port = spec.containers[i].ports[j];
      if (port.hostPort != port.containerPort) {
        errs.InvalidInt(p.Child("containers").Index(i).Child("ports").Index(j).Child("hostPort"),
                        port.hostPort, "must match `containerPort` when `hostNetwork` is true");
      }
    }
  }
}

void ValidateGates(const PodSpec& spec, const Path& p, FieldErrors& errs) {
  for (size_t i = 0; i < spec.rare->readinessGates.size(); ++i) {
    ValidateQualifiedName(spec.rare->readinessGates[i].conditionType,
                          p.Child("readinessGates").Index(i).Child("conditionType"), errs);
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < spec.schedulingGates.size(); ++i) {
    const std::string& name = spec.schedulingGates[i].name;
    Path ip = p.Child("schedulingGates").Index(i);
    ValidateQualifiedName(name, ip, errs);
    if (!seen.insert(name).second) errs.Duplicate(ip, name);
  }
}

void ValidateNamesAndScalars(const PodSpec& spec, const Path& p, FieldErrors& errs) {
  if (!spec.serviceAccountName.empty()) {
    ValidateDnsSubdomain(spec.serviceAccountName, p.Child("serviceAccountName"), errs);
  }
  if (!spec.nodeName.empty()) ValidateDnsSubdomain(spec.nodeName, p.Child("nodeName"), errs);
  if (spec.rare->activeDeadlineSeconds &&
      (*spec.rare->activeDeadlineSeconds < 1 || *spec.rare->activeDeadlineSeconds > kMaxInt32)) {
    errs.InvalidInt(p.Child("activeDeadlineSeconds"), *spec.rare->activeDeadlineSeconds,
                    InclusiveRangeError(1, kMaxInt32));
  }
  const std::string& hostname = spec.rare->hostname;
  const std::string& subdomain = spec.rare->subdomain;
  if (!hostname.empty()) ValidateDnsLabel(hostname, p.Child("hostname"), errs);
  if (!subdomain.empty()) ValidateDnsLabel(subdomain, p.Child("subdomain"), errs);
  ValidateTolerations(spec.tolerations, p.Child("tolerations"), errs);
  for (size_t i = 0; i < spec.rare->hostAliases.size(); ++i) {
    const HostAlias& h = spec.rare->hostAliases[i];
    Path ip = p.Child("hostAliases").Index(i);
    if (!IsIpAddress(h.ip)) {
      errs.Invalid(ip.Child("ip"), h.ip,
                   "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
    }
    for (size_t j = 0; j < h.hostnames.size(); ++j) {
      ValidateDnsSubdomain(h.hostnames[j], ip.Child("hostnames").Index(j), errs);
    }
  }
  if (!spec.priorityClassName.empty()) {
    ValidateDnsSubdomain(spec.priorityClassName, p.Child("priorityClassName"), errs);
  }
  if (spec.rare->runtimeClassName) {
    ValidateDnsSubdomain(*spec.rare->runtimeClassName, p.Child("runtimeClassName"), errs);
  }
  if (spec.preemptionPolicy) {
    const std::string& pp = *spec.preemptionPolicy;
    if (pp.empty()) {
      errs.Required(p.Child("preemptionPolicy"));
    } else if (pp != "PreemptLowerPriority" && pp != "Never") {
      errs.NotSupported(p.Child("preemptionPolicy"), pp, {"PreemptLowerPriority", "Never"});
    }
  }
  for (const auto& [name, q] : spec.rare->overhead) {
    ValidateContainerResourceName(name, p.Child("overhead").Key(name), errs);
    ValidateQuantityValue(name, q, p.Child("overhead").Key(name), errs);
  }
  if (spec.os) {
    if (spec.os->name.empty()) {
      errs.Required(p.Child("os").Child("name"));
    } else if (spec.os->name != "linux" && spec.os->name != "windows") {
      errs.NotSupported(p.Child("os").Child("name"), spec.os->name, {"linux", "windows"});
    }
  }
}

void ValidatePodLevelResources(const PodSpec& spec, const Path& p, FieldErrors& errs) {
  if (!spec.resources) return;
  Path rp = p.Child("resources");
  if (!spec.resources->claims.empty()) {
    errs.Forbidden(rp.Child("claims"), "claims may not be set for Resources at pod-level");
  }
  for (const auto& [name, q] : spec.resources->limits) {
    ValidateQuantityValue(name, q, rp.Child("limits").Key(name), errs);
  }
  for (const auto& [name, q] : spec.resources->requests) {
    ValidateQuantityValue(name, q, rp.Child("requests").Key(name), errs);
    auto it = spec.resources->limits.find(name);
    if (it != spec.resources->limits.end() && q.Compare(it->second) > 0) {
      errs.Invalid(rp.Child("requests"), q.ToString(),
                   "must be less than or equal to " + name + " limit of " + it->second.ToString());
    }
  }
}

void ValidatePodSpec(const Pod& pod, const Path& p, FieldErrors& errs) {
  const PodSpec& spec = pod.spec;
  PodContext ctx{spec, {}, {}};
  ctx.volumes = ValidateVolumes(spec.volumes, p.Child("volumes"), errs);
  for (const PodResourceClaim& c : spec.resourceClaims) ctx.pod_claims.insert(c.name);
  ValidatePodResourceClaims(pod.spec.resourceClaims, pod.metadata.name, p.Child("resourceClaims"),
                            errs);
  ValidateContainers(ctx, p.Child("containers"), errs);
  ValidateInitContainers(ctx, p.Child("initContainers"), errs);
  ValidateHostNetworkPorts(spec, p, errs);
  ValidatePolicies(spec, p, errs);
  ValidateLabels(spec.nodeSelector, p.Child("nodeSelector"), errs);
  if (spec.affinity) ValidateAffinity(*spec.affinity, p.Child("affinity"), errs);
  ValidateGates(spec, p, errs);
  ValidateTopologySpread(spec.topologySpreadConstraints, p.Child("topologySpreadConstraints"),
                         errs);
  ValidateNamesAndScalars(spec, p, errs);
  ValidatePodLevelResources(spec, p, errs);
}

}  // namespace

void ValidatePodResourceClaims(const std::vector<PodResourceClaim>& claims,
                               std::string_view owner_name, const Path& p, FieldErrors& errs) {
  std::set<std::string> names;
  for (size_t i = 0; i < claims.size(); ++i) {
    const PodResourceClaim& c = claims[i];
    Path ip = p.Index(i);
    if (c.name.empty()) {
      errs.Required(ip.Child("name"));
    } else if (names.count(c.name)) {
      errs.Duplicate(ip.Child("name"), c.name);
    } else {
      size_t before = errs.size();
      ValidateDnsLabel(c.name, ip.Child("name"), errs);
      if (errs.size() == before && !owner_name.empty()) {
        std::string claim_name = std::string(owner_name) + "-" + c.name;
        for (const std::string& m : DnsSubdomainErrors(claim_name)) {
          errs.Invalid(ip.Child("name"), claim_name, "final ResourceClaim name: " + m);
        }
      }
      names.insert(c.name);
    }
    if (c.resourceClaimName && c.resourceClaimTemplateName) {
      errs.Invalid(ip, c.name,
                   "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be "
                   "specified");
    }
    if (!c.resourceClaimName && !c.resourceClaimTemplateName) {
      errs.Invalid(ip, c.name,
                   "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`");
    }
    if (c.resourceClaimName) {
      ValidateDnsSubdomain(*c.resourceClaimName, ip.Child("resourceClaimName"), errs);
    }
    if (c.resourceClaimTemplateName) {
      ValidateDnsSubdomain(*c.resourceClaimTemplateName, ip.Child("resourceClaimTemplateName"),
                           errs);
    }
  }
}

bool IsExtendedResourceName(std::string_view name) {
  if (IsNativeResource(name) || name.rfind("requests.", 0) == 0) return false;
  return IsQualifiedName("requests." + std::string(name));
}

void ValidateResourceQuantityValue(const std::string& name, const Quantity& value, const Path& path,
                                   FieldErrors& errs) {
  if (value.Sign() < 0) errs.Invalid(path, value.ToString(), kIsNegativeErrorMsg);
  if (IsExtendedResourceName(name) && value.MilliValue() % 1000 != 0) {
    errs.Invalid(path, value.ToString(), "must be an integer");
  }
}

void ValidatePod(const Pod& pod, FieldErrors& errs) {
  ValidateObjectMeta(pod.metadata, true, NameIsDnsSubdomain, errs);
  ValidatePodSpec(pod, Path("spec"), errs);
  if (!pod.spec.rare->ephemeralContainers.empty()) {
    errs.Forbidden(Path("spec").Child("ephemeralContainers"), "cannot be set on create");
  }
}

void ValidatePodTemplateSpec(const PodTemplateSpec& tmpl, const Path& p, FieldErrors& errs) {
  ValidateLabels(tmpl.metadata.labels, p.Child("metadata").Child("labels"), errs);
  ValidateAnnotations(tmpl.metadata.annotations, p.Child("metadata").Child("annotations"), errs);
  Pod pod;  // ValidatePodSpec reads a pod; a template's has no name yet
  pod.spec = tmpl.spec;
  ValidatePodSpec(pod, p.Child("spec"), errs);
  if (!tmpl.spec.rare->ephemeralContainers.empty()) {
    errs.Forbidden(p.Child("spec").Child("ephemeralContainers"),
                   "ephemeral containers not allowed in pod template");
  }
}

void ValidateBinding(const Binding& binding, FieldErrors& errs) {
  Path target("target");
  if (!binding.target.kind.empty() && binding.target.kind != "Node") {
    errs.NotSupported(target.Child("kind"), binding.target.kind, {"Node", "<empty>"});
  }
  if (binding.target.name.empty()) errs.Required(target.Child("name"));
}

}  // namespace allot::api
