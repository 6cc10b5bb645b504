// Service: defaulting, validation (pkg/apis/core/validation ValidateService*), the cluster IP
// and node port allocation of pkg/registry/core/service, and kubectl's columns, Kubernetes 1.37.
#include "api/core/service.h"

#include <arpa/inet.h>

#include <algorithm>
#include <set>

#include "api/machinery/meta_validation.h"
#include "api/machinery/names.h"
#include "api/machinery/reflect.h"
#include "api/machinery/validation_util.h"
#include "api/machinery/strategy_hooks.h"

namespace allot::api {

ALLOT_DEFINE_TYPE(Service, "", "v1", "Service")

namespace {

const std::vector<std::string_view> kServiceTypes = {"ClusterIP", "ExternalName", "LoadBalancer",
                                                     "NodePort"};
const std::vector<std::string_view> kProtocols = {"SCTP", "TCP", "UDP"};
const std::vector<std::string_view> kAffinities = {"ClientIP", "None"};
const std::vector<std::string_view> kTrafficPolicies = {"Cluster", "Local"};
constexpr int32_t kDefaultClientIPTimeout = 10800;
// The lowest addresses of the range are left to Services that ask for one (kube-apiserver's
// static band: min(max(16, size/16), 256) addresses).
constexpr uint32_t kStaticBand = 256;

bool IsHeadless(const Service& svc) { return svc.spec.clusterIP == "None"; }

bool NeedsNodePorts(const Service& svc) {
  return svc.spec.type == "NodePort" ||
         (svc.spec.type == "LoadBalancer" && svc.spec.allocateLoadBalancerNodePorts.value_or(true));
}

struct Range {
  uint32_t base = 0;
  uint32_t size = 0;
};

Range ClusterIpRange() {
  const std::string_view cidr = kServiceClusterIpRange;
  const size_t slash = cidr.find('/');
  in_addr addr{};
  inet_pton(AF_INET, std::string(cidr.substr(0, slash)).c_str(), &addr);
  const int bits = std::stoi(std::string(cidr.substr(slash + 1)));
  return {ntohl(addr.s_addr), uint32_t{1} << (32 - bits)};
}

std::optional<uint32_t> ParseIpv4(const std::string& ip) {
  in_addr addr{};
  if (inet_pton(AF_INET, ip.c_str(), &addr) != 1) return std::nullopt;
  return ntohl(addr.s_addr);
}

std::string FormatIpv4(uint32_t ip) {
  in_addr addr{htonl(ip)};
  char buf[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &addr, buf, sizeof(buf));
  return buf;
}

void ValidatePorts(const Service& svc, const Path& spec, FieldErrors& errs) {
  const Path pp = spec.Child("ports");
  if (svc.spec.ports.empty() && !IsHeadless(svc) && svc.spec.type != "ExternalName") {
    errs.Required(pp);
  }
  std::set<std::string> names;
  std::set<std::pair<int32_t, std::string>> node_ports;
  for (size_t i = 0; i < svc.spec.ports.size(); ++i) {
    const ServicePort& port = svc.spec.ports[i];
    const Path ip = pp.Index(i);
    if (svc.spec.ports.size() > 1 && port.name.empty()) errs.Required(ip.Child("name"));
    if (!port.name.empty()) {
      ValidateDnsLabel(port.name, ip.Child("name"), errs);
      if (!names.insert(port.name).second) errs.Duplicate(ip.Child("name"), port.name);
    }
    if (port.port < 1 || port.port > 65535) {
      errs.InvalidInt(ip.Child("port"), port.port, InclusiveRangeError(1, 65535));
    }
    if (port.protocol.empty()) {
      errs.Required(ip.Child("protocol"));
    } else if (!validation_util::IsOneOf(port.protocol, kProtocols)) {
      errs.NotSupported(ip.Child("protocol"), port.protocol, kProtocols);
    }
    if (port.targetPort.is_string) {
      for (const std::string& m : PortNameErrors(port.targetPort.string_value)) {
        errs.Invalid(ip.Child("targetPort"), port.targetPort.string_value, m);
      }
    } else if (port.targetPort.int_value < 1 || port.targetPort.int_value > 65535) {
      errs.InvalidInt(ip.Child("targetPort"), port.targetPort.int_value,
                      InclusiveRangeError(1, 65535));
    }
    if (port.nodePort != 0) {
      if (!NeedsNodePorts(svc) && svc.spec.type != "LoadBalancer") {
        errs.Forbidden(ip.Child("nodePort"), "may not be used when `type` is 'ClusterIP'");
      } else if (!node_ports.insert({port.nodePort, port.protocol}).second) {
        errs.Duplicate(ip.Child("nodePort"), std::to_string(port.nodePort));
      }
    }
  }
}

std::vector<TableCell> ServiceRow(const Object& obj, Time now) {
  const auto& svc = static_cast<const Service&>(obj);
  std::string cluster_ip = svc.spec.clusterIP.empty() ? "<none>" : svc.spec.clusterIP;
  std::string external;
  if (svc.spec.type == "ExternalName") {
    external = svc.spec.externalName;
  } else {
    std::vector<std::string> ips = svc.spec.externalIPs;
    if (svc.spec.type == "LoadBalancer") {
      for (const LoadBalancerIngress& in : svc.status.loadBalancer.ingress) {
        ips.push_back(!in.ip.empty() ? in.ip : in.hostname);
      }
      if (ips.empty()) external = "<pending>";
    }
    for (const std::string& ip : ips) external += (external.empty() ? "" : ",") + ip;
    if (external.empty()) external = "<none>";
  }
  std::string ports;
  for (const ServicePort& p : svc.spec.ports) {
    if (!ports.empty()) ports += ",";
    ports += std::to_string(p.port);
    if (p.nodePort > 0) ports += ":" + std::to_string(p.nodePort);
    ports += "/" + p.protocol;
  }
  if (ports.empty()) ports = "<none>";
  std::string selector;
  for (const auto& [k, v] : svc.spec.selector) selector += (selector.empty() ? "" : ",") + k + "=" + v;
  if (selector.empty()) selector = "<none>";
  return {svc.spec.type, cluster_ip, external, ports, AgeCell(obj, now), selector};
}

std::optional<std::string> ServiceFieldValue(const Object& obj, std::string_view field) {
  const auto& svc = static_cast<const Service&>(obj);
  if (field == "spec.clusterIP") return svc.spec.clusterIP;
  if (field == "spec.type") return svc.spec.type;
  return std::nullopt;
}

Status AdmitService(Object& obj, const ObjectReader& objects) {
  std::vector<std::string> ips;
  std::vector<int32_t> ports;
  for (const ObjectPtr& other : objects.List(ResourceFor<Service>())) {
    const auto& s = static_cast<const Service&>(*other);
    if (!s.spec.clusterIP.empty()) ips.push_back(s.spec.clusterIP);
    for (const ServicePort& p : s.spec.ports) {
      if (p.nodePort != 0) ports.push_back(p.nodePort);
    }
  }
  return AllocateServiceAddresses(static_cast<Service&>(obj), ips, ports);
}

// An update keeps what was allocated when the client leaves it out (kubectl replace of a
// manifest without clusterIP), as the service REST storage does.
Status AdmitServiceUpdate(Object& obj, const Object& old, const ObjectReader&) {
  auto& svc = static_cast<Service&>(obj);
  const auto& prev = static_cast<const Service&>(old);
  if (svc.spec.clusterIP.empty() && svc.spec.type != "ExternalName") {
    svc.spec.clusterIP = prev.spec.clusterIP;
    svc.spec.clusterIPs = prev.spec.clusterIPs;
    if (svc.spec.ipFamilies.empty()) svc.spec.ipFamilies = prev.spec.ipFamilies;
    if (!svc.spec.ipFamilyPolicy) svc.spec.ipFamilyPolicy = prev.spec.ipFamilyPolicy;
  }
  return Status();
}

}  // namespace

void DefaultService(Service& svc) {
  ServiceSpec& s = svc.spec;
  if (s.type.empty()) s.type = "ClusterIP";
  if (s.sessionAffinity.empty()) s.sessionAffinity = "None";
  if (s.sessionAffinity == "ClientIP") {
    if (!s.sessionAffinityConfig) s.sessionAffinityConfig.emplace();
    if (!s.sessionAffinityConfig->clientIP) s.sessionAffinityConfig->clientIP.emplace();
    if (!s.sessionAffinityConfig->clientIP->timeoutSeconds) {
      s.sessionAffinityConfig->clientIP->timeoutSeconds = kDefaultClientIPTimeout;
    }
  }
  for (ServicePort& p : s.ports) {
    if (p.protocol.empty()) p.protocol = "TCP";
    if (!p.targetPort.is_string && p.targetPort.int_value == 0) p.targetPort.int_value = p.port;
  }
  if ((s.type == "NodePort" || s.type == "LoadBalancer") && s.externalTrafficPolicy.empty()) {
    s.externalTrafficPolicy = "Cluster";
  }
  if (s.type != "ExternalName" && !s.internalTrafficPolicy) s.internalTrafficPolicy = "Cluster";
  if (s.type == "LoadBalancer" && !s.allocateLoadBalancerNodePorts) {
    s.allocateLoadBalancerNodePorts = true;
  }
  if (s.clusterIPs.empty() && !s.clusterIP.empty()) s.clusterIPs = {s.clusterIP};
  if (s.clusterIP.empty() && !s.clusterIPs.empty()) s.clusterIP = s.clusterIPs[0];
}

void ValidateService(const Service& svc, FieldErrors& errs) {
  ValidateObjectMeta(svc.metadata, true, NameIsDnsLabel, errs);
  const Path spec("spec");
  if (!validation_util::IsOneOf(svc.spec.type, kServiceTypes)) {
    errs.NotSupported(spec.Child("type"), svc.spec.type, kServiceTypes);
  }
  ValidatePorts(svc, spec, errs);
  if (!validation_util::IsOneOf(svc.spec.sessionAffinity, kAffinities)) {
    errs.NotSupported(spec.Child("sessionAffinity"), svc.spec.sessionAffinity, kAffinities);
  }
  ValidateLabels(svc.spec.selector, spec.Child("selector"), errs);
  if (svc.spec.type == "ExternalName") {
    if (!svc.spec.clusterIP.empty()) {
      errs.Forbidden(spec.Child("clusterIPs"), "may not be set for ExternalName services");
    }
    std::string_view name = svc.spec.externalName;
    if (!name.empty() && name.back() == '.') name.remove_suffix(1);
    if (name.empty()) {
      errs.Required(spec.Child("externalName"));
    } else {
      ValidateDnsSubdomain(name, spec.Child("externalName"), errs);
    }
  }
  for (size_t i = 0; i < svc.spec.clusterIPs.size(); ++i) {
    const std::string& ip = svc.spec.clusterIPs[i];
    if (ip != "None" && !IsIpAddress(ip)) {
      errs.Invalid(spec.Child("clusterIPs").Index(i), ip,
                   "must be empty, 'None', or a valid IP address");
    }
  }
  if (!svc.spec.externalTrafficPolicy.empty() &&
      !validation_util::IsOneOf(svc.spec.externalTrafficPolicy, kTrafficPolicies)) {
    errs.NotSupported(spec.Child("externalTrafficPolicy"), svc.spec.externalTrafficPolicy,
                      kTrafficPolicies);
  }
  if (svc.spec.internalTrafficPolicy &&
      !validation_util::IsOneOf(*svc.spec.internalTrafficPolicy, kTrafficPolicies)) {
    errs.NotSupported(spec.Child("internalTrafficPolicy"), *svc.spec.internalTrafficPolicy,
                      kTrafficPolicies);
  }
  for (size_t i = 0; i < svc.spec.externalIPs.size(); ++i) {
    if (!IsIpAddress(svc.spec.externalIPs[i])) {
      errs.Invalid(spec.Child("externalIPs").Index(i), svc.spec.externalIPs[i],
                   "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
    }
  }
}

void ValidateServiceUpdate(const Service& svc, const Service& old, FieldErrors& errs) {
  ValidateObjectMetaUpdate(svc.metadata, old.metadata, errs);
  if (!old.spec.clusterIPs.empty() && old.spec.type != "ExternalName" &&
      svc.spec.type != "ExternalName" && svc.spec.clusterIPs != old.spec.clusterIPs) {
    errs.InvalidRendered(Path("spec").Child("clusterIPs").Index(0),
                         GoStringSlice(svc.spec.clusterIPs), "may not change once set");
  }
}

Status AllocateServiceAddresses(Service& svc, const std::vector<std::string>& used_ips,
                                const std::vector<int32_t>& used_node_ports) {
  FieldErrors errs;
  const Path spec("spec");
  if (svc.spec.type != "ExternalName" && !IsHeadless(svc)) {
    const Range range = ClusterIpRange();
    std::set<uint32_t> used;
    for (const std::string& ip : used_ips) {
      if (auto v = ParseIpv4(ip)) used.insert(*v);
    }
    if (svc.spec.clusterIP.empty()) {
      // Lowest free address above the static band; the network address and the last (broadcast)
      // are never handed out.
      for (uint32_t off = kStaticBand; off + 1 < range.size; ++off) {
        if (!used.count(range.base + off)) {
          svc.spec.clusterIP = FormatIpv4(range.base + off);
          break;
        }
      }
      if (svc.spec.clusterIP.empty()) {
        return Status(StatusCode::kInternalError,
                      "failed to allocate a serviceIP: range is full");
      }
    } else {
      std::optional<uint32_t> ip = ParseIpv4(svc.spec.clusterIP);
      const std::string rendered = GoStringSlice({svc.spec.clusterIP});
      if (!ip || *ip <= range.base || *ip >= range.base + range.size - 1) {
        errs.InvalidRendered(spec.Child("clusterIPs"), rendered,
                             "failed to allocate IP " + svc.spec.clusterIP +
                                 ": the provided IP (" + svc.spec.clusterIP +
                                 ") is not in the valid range. The range of valid IPs is " +
                                 std::string(kServiceClusterIpRange));
      } else if (used.count(*ip)) {
        errs.InvalidRendered(spec.Child("clusterIPs"), rendered,
                             "failed to allocate IP " + svc.spec.clusterIP +
                                 ": provided IP is already allocated");
      }
    }
    svc.spec.clusterIPs = {svc.spec.clusterIP};
  }
  if (svc.spec.type != "ExternalName") {
    if (svc.spec.ipFamilies.empty()) svc.spec.ipFamilies = {"IPv4"};
    if (!svc.spec.ipFamilyPolicy) svc.spec.ipFamilyPolicy = "SingleStack";
  }
  if (NeedsNodePorts(svc)) {
    std::set<int32_t> used(used_node_ports.begin(), used_node_ports.end());
    for (size_t i = 0; i < svc.spec.ports.size(); ++i) {
      ServicePort& p = svc.spec.ports[i];
      const Path np = spec.Child("ports").Index(i).Child("nodePort");
      if (p.nodePort != 0) {
        if (p.nodePort < kNodePortMin || p.nodePort > kNodePortMax) {
          errs.InvalidInt(np, p.nodePort,
                          "provided port is not in the valid range. The range of valid ports is " +
                              std::to_string(kNodePortMin) + "-" + std::to_string(kNodePortMax));
        } else if (used.count(p.nodePort)) {
          errs.InvalidInt(np, p.nodePort, "provided port is already allocated");
        }
        used.insert(p.nodePort);
        continue;
      }
      for (int32_t port = kNodePortMin; port <= kNodePortMax; ++port) {
        if (used.insert(port).second) {
          p.nodePort = port;
          break;
        }
      }
    }
  }
  return errs.ToStatus("Service", "", svc.metadata.name);
}

void RegisterServiceResources(ResourceRegistry& registry) {
  ResourceInfo r = NewResourceInfo("", "v1", "services", "service", Service::Type(), true);
  r.short_names = {"svc"};
  r.categories = {"all"};
  r.status_subresource = true;
  r.default_fn = hooks::Default<Service, DefaultService>;
  r.validate = hooks::Validate<Service, ValidateService>;
  r.validate_update = hooks::ValidateUpdate<Service, ValidateServiceUpdate>;
  r.admit_create = AdmitService;
  r.admit_update = AdmitServiceUpdate;
  r.field_labels = {"spec.clusterIP", "spec.type"};
  r.field_value = ServiceFieldValue;
  r.columns = {
      {"Type", "string", "", "The type of the service", 0},
      {"Cluster-IP", "string", "", "The IP address of the service", 0},
      {"External-IP", "string", "", "The external IP addresses of the service", 0},
      {"Port(s)", "string", "", "The ports of the service", 0},
      AgeColumn(),
      {"Selector", "string", "", "The selector of the service's pods", 1},
  };
  r.row = ServiceRow;
  registry.Add(std::move(r));
}

}  // namespace allot::api
