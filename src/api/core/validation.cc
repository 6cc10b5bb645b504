// Defaulting and validation of Node, Event, Lease and Namespace:
// k8s.io/kubernetes pkg/apis/core/v1/defaults.go (SetDefaults_NodeStatus),
// pkg/apis/core/validation (ValidateNode, ValidateNodeUpdate, ValidateEventCreate,
// ValidateNamespace) and pkg/apis/coordination/validation (ValidateLease), Kubernetes 1.34.
#include <arpa/inet.h>

#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/core/strategy.h"
#include "api/machinery/meta_validation.h"
#include "api/machinery/names.h"

namespace allot::api {
namespace {

// Event length limits (pkg/apis/core/validation/events.go).
constexpr size_t kReportingInstanceLengthLimit = 128;
constexpr size_t kActionLengthLimit = 128;
constexpr size_t kReasonLengthLimit = 128;
constexpr size_t kNoteLengthLimit = 1024;

// 4 or 6 for a valid CIDR ("10.0.0.0/24", "fd00::/64"), 0 otherwise.
int CidrFamily(const std::string& cidr) {
  size_t slash = cidr.find('/');
  if (slash == std::string::npos || slash + 1 >= cidr.size()) return 0;
  std::string ip = cidr.substr(0, slash);
  std::string bits = cidr.substr(slash + 1);
  for (char c : bits) {
    if (c < '0' || c > '9') return 0;
  }
  int n = std::atoi(bits.c_str());
  unsigned char buf[16];
  if (inet_pton(AF_INET, ip.c_str(), buf) == 1) return n <= 32 ? 4 : 0;
  if (inet_pton(AF_INET6, ip.c_str(), buf) == 1) return n <= 128 ? 6 : 0;
  return 0;
}

void ValidateNodeResources(const Node& node, FieldErrors& errs) {
  Path status("status");
  for (const auto& [name, q] : node.status.capacity) {
    ValidateResourceQuantityValue(name, q, status.Child("capacity").Child(name), errs);
  }
  for (const auto& [name, q] : node.status.allocatable) {
    ValidateResourceQuantityValue(name, q, status.Child("allocatable").Child(name), errs);
  }
}

void ValidatePodCidrs(const std::vector<std::string>& cidrs, FieldErrors& errs) {
  Path p = Path("spec").Child("podCIDRs");
  std::set<int> families;
  for (size_t i = 0; i < cidrs.size(); ++i) {
    int family = CidrFamily(cidrs[i]);
    if (family == 0) {
      errs.Invalid(p.Index(i), cidrs[i],
                   "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)");
    }
    families.insert(family);
  }
  if (cidrs.size() > 1 && (cidrs.size() > 2 || families.size() != 2)) {
    // Kubernetes prints the list as a Go slice; we print it comma-separated.
    std::string joined;
    for (const std::string& c : cidrs) joined += (joined.empty() ? "" : ",") + c;
    errs.Invalid(p, joined, "may specify no more than one CIDR for each IP family");
  }
}

void ValidateEventLimits(const Event& e, FieldErrors& errs) {
  auto at_most = [](size_t n) { return "can have at most " + std::to_string(n) + " characters"; };
  if (e.reportingComponent.empty()) errs.Required(Path("reportingComponent"));
  ValidateLabelName(e.reportingComponent, Path("reportingComponent"), errs);
  if (e.reportingInstance.empty()) errs.Required(Path("reportingInstance"));
  if (e.reportingInstance.size() > kReportingInstanceLengthLimit) {
    errs.Invalid(Path("reportingInstance"), "", at_most(kReportingInstanceLengthLimit));
  }
  if (e.action.empty()) errs.Required(Path("action"));
  if (e.action.size() > kActionLengthLimit) {
    errs.Invalid(Path("action"), "", at_most(kActionLengthLimit));
  }
  if (e.reason.empty()) errs.Required(Path("reason"));
  if (e.reason.size() > kReasonLengthLimit) {
    errs.Invalid(Path("reason"), "", at_most(kReasonLengthLimit));
  }
  if (e.message.size() > kNoteLengthLimit) {
    errs.Invalid(Path("message"), "", at_most(kNoteLengthLimit));
  }
}

void ValidateLeaseSpec(const LeaseSpec& spec, FieldErrors& errs) {
  Path p("spec");
  if (spec.leaseDurationSeconds && *spec.leaseDurationSeconds <= 0) {
    errs.InvalidInt(p.Child("leaseDurationSeconds"), *spec.leaseDurationSeconds,
                    "must be greater than 0");
  }
  if (spec.leaseTransitions && *spec.leaseTransitions < 0) {
    errs.InvalidInt(p.Child("leaseTransitions"), *spec.leaseTransitions,
                    "must be greater than or equal to 0");
  }
  if (spec.strategy) {
    // Kubernetes reports strategy errors under "spec.strategy.strategy" (sic).
    Path sp = p.Child("strategy").Child("strategy");
    const std::string& s = *spec.strategy;
    if (s.find('/') == std::string::npos) {
      if (s != "OldestEmulationVersion") errs.NotSupported(sp, s, {"OldestEmulationVersion"});
    } else {
      for (const std::string& m : QualifiedNameErrors(s)) errs.Invalid(sp, s, m);
    }
  }
  if (spec.preferredHolder && !spec.preferredHolder->empty() &&
      (!spec.strategy || spec.strategy->empty())) {
    errs.Forbidden(p.Child("preferredHolder"), "may only be specified if `strategy` is defined");
  }
}

}  // namespace

// --- Node -------------------------------------------------------------------------------------

void DefaultNode(Node& node) {
  if (node.status.allocatable.empty()) node.status.allocatable = node.status.capacity;
  if (!node.spec.podCIDR.empty() && node.spec.podCIDRs.empty()) {
    node.spec.podCIDRs = {node.spec.podCIDR};
  } else if (node.spec.podCIDR.empty() && !node.spec.podCIDRs.empty()) {
    node.spec.podCIDR = node.spec.podCIDRs.front();
  }
}

void ValidateNode(const Node& node, FieldErrors& errs) {
  ValidateObjectMeta(node.metadata, false, NameIsDnsSubdomain, errs);
  // Kubernetes reports taint errors under "metadata.taints" (sic).
  ValidateTaints(node.spec.taints, Path("metadata").Child("taints"), errs);
  ValidateNodeResources(node, errs);
  ValidatePodCidrs(node.spec.podCIDRs, errs);
}

void ValidateNodeUpdate(const Node& node, const Node& old, FieldErrors& errs) {
  ValidateObjectMetaUpdate(node.metadata, old.metadata, errs);
  std::set<std::pair<std::string, std::string>> addresses;
  for (size_t i = 0; i < node.status.addresses.size(); ++i) {
    const NodeAddress& a = node.status.addresses[i];
    if (!addresses.insert({a.type, a.address}).second) {
      errs.Duplicate(Path("status").Child("addresses").Index(i), a.address);
    }
  }
  if (!old.spec.podCIDRs.empty() && old.spec.podCIDRs != node.spec.podCIDRs) {
    errs.Forbidden(Path("spec").Child("podCIDRs"),
                   "node updates may not change podCIDR except from \"\" to valid");
  }
  if (!old.spec.providerID.empty() && old.spec.providerID != node.spec.providerID) {
    errs.Forbidden(Path("spec").Child("providerID"),
                   "node updates may not change providerID except from \"\" to valid");
  }
}

// --- Event ------------------------------------------------------------------------------------

void ValidateEvent(const Event& e, FieldErrors& errs) {
  ValidateObjectMeta(e.metadata, true, NameIsPathSegment, errs);
  const std::string& ns = e.metadata.namespace_;
  const std::string& involved = e.involvedObject.namespace_;
  Path involved_path = Path("involvedObject").Child("namespace");
  if (!e.eventTime) {
    bool ok = involved.empty() ? (ns.empty() || ns == "default") : ns == involved;
    if (!ok) errs.Invalid(involved_path, involved, "does not match event.namespace");
  } else {
    if (involved.empty() && ns != "default" && ns != "kube-system") {
      errs.Invalid(involved_path, involved, "does not match event.namespace");
    }
    ValidateEventLimits(e, errs);
  }
  for (const std::string& m : DnsSubdomainErrors(ns)) errs.Invalid(Path("namespace"), ns, m);
}

// --- Lease ------------------------------------------------------------------------------------

void ValidateLease(const Lease& lease, FieldErrors& errs) {
  ValidateObjectMeta(lease.metadata, true, NameIsDnsSubdomain, errs);
  ValidateLeaseSpec(lease.spec, errs);
}

void ValidateLeaseUpdate(const Lease& lease, const Lease& old, FieldErrors& errs) {
  ValidateObjectMetaUpdate(lease.metadata, old.metadata, errs);
  ValidateLeaseSpec(lease.spec, errs);
}

// --- Namespace --------------------------------------------------------------------------------

void DefaultNamespace(Namespace& ns) {
  if (ns.status.phase.empty()) ns.status.phase = "Active";
  // Kubernetes labels every namespace with its own name.
  ns.metadata.labels["kubernetes.io/metadata.name"] = ns.metadata.name;
}

void ValidateNamespace(const Namespace& ns, FieldErrors& errs) {
  ValidateObjectMeta(ns.metadata, false, NameIsDnsLabel, errs);
  Path p = Path("spec").Child("finalizers");
  for (const std::string& f : ns.spec.finalizers) {
    ValidateLabelName(f, p, errs);
    if (f.find('/') == std::string::npos && f != "kubernetes" && f != "orphan" &&
        f != "foregroundDeletion") {
      errs.Invalid(p, f, "name is neither a standard finalizer name nor is it fully qualified");
    }
  }
}

void ValidateNamespaceUpdate(const Namespace& ns, const Namespace& old, FieldErrors& errs) {
  ValidateObjectMetaUpdate(ns.metadata, old.metadata, errs);
}

}  // namespace allot::api
