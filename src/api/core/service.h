// core/v1 Service (k8s.io/api core/v1, Kubernetes 1.37): a stable name and virtual IP for a set
// of pods. Allot stores, defaults and validates Services and allocates their cluster IPs and node
// ports as kube-apiserver does (from 10.96.0.0/12, kubeadm's default range, and 30000-32767);
// it proxies nothing (there is no kube-proxy and there are no endpoints). kube-scheduler reads
// Services to spread a Service's pods.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/field.h"
#include "api/machinery/meta.h"
#include "api/machinery/object.h"
#include "api/machinery/resources.h"
#include "api/machinery/validation.h"

namespace allot::api {

// The ranges Allot allocates from: kube-apiserver's --service-cluster-ip-range as kubeadm sets
// it, and its default --service-node-port-range.
inline constexpr std::string_view kServiceClusterIpRange = "10.96.0.0/12";
inline constexpr int32_t kNodePortMin = 30000;
inline constexpr int32_t kNodePortMax = 32767;

struct ServicePort {
  std::string name;
  std::string protocol;  // TCP (default) | UDP | SCTP
  std::optional<std::string> appProtocol;
  int32_t port = 0;
  IntOrString targetPort;  // defaults to port
  int32_t nodePort = 0;
  template <class V> void Visit(V& v) {
    v("name", name);
    v("protocol", protocol);
    v("appProtocol", appProtocol);
    v("port", port, {.always = true, .required = true});
    v("targetPort", targetPort);
    v("nodePort", nodePort);
  }
  bool operator==(const ServicePort&) const = default;
};

struct ClientIPConfig {
  std::optional<int32_t> timeoutSeconds;
  template <class V> void Visit(V& v) { v("timeoutSeconds", timeoutSeconds); }
  bool operator==(const ClientIPConfig&) const = default;
};

struct SessionAffinityConfig {
  std::optional<ClientIPConfig> clientIP;
  template <class V> void Visit(V& v) { v("clientIP", clientIP); }
  bool operator==(const SessionAffinityConfig&) const = default;
};

struct ServiceSpec {
  std::vector<ServicePort> ports;  // listType=map, keys port and protocol
  StringMap selector;
  std::string clusterIP;
  std::vector<std::string> clusterIPs;
  std::string type;  // ClusterIP (default) | NodePort | LoadBalancer | ExternalName
  std::vector<std::string> externalIPs;
  std::string sessionAffinity;  // None (default) | ClientIP
  std::string loadBalancerIP;
  std::vector<std::string> loadBalancerSourceRanges;
  std::string externalName;
  std::string externalTrafficPolicy;  // Cluster | Local
  int32_t healthCheckNodePort = 0;
  bool publishNotReadyAddresses = false;
  std::optional<SessionAffinityConfig> sessionAffinityConfig;
  std::vector<std::string> ipFamilies;
  std::optional<std::string> ipFamilyPolicy;  // SingleStack | PreferDualStack | RequireDualStack
  std::optional<bool> allocateLoadBalancerNodePorts;
  std::optional<std::string> loadBalancerClass;
  std::optional<std::string> internalTrafficPolicy;  // Cluster | Local
  std::optional<std::string> trafficDistribution;
  template <class V> void Visit(V& v) {
    v("ports", ports, {.merge_key = "port"});
    v("selector", selector);
    v("clusterIP", clusterIP);
    v("clusterIPs", clusterIPs, {.atomic = true});
    v("type", type);
    v("externalIPs", externalIPs, {.atomic = true});
    v("sessionAffinity", sessionAffinity);
    v("loadBalancerIP", loadBalancerIP);
    v("loadBalancerSourceRanges", loadBalancerSourceRanges, {.atomic = true});
    v("externalName", externalName);
    v("externalTrafficPolicy", externalTrafficPolicy);
    v("healthCheckNodePort", healthCheckNodePort);
    v("publishNotReadyAddresses", publishNotReadyAddresses);
    v("sessionAffinityConfig", sessionAffinityConfig);
    v("ipFamilies", ipFamilies, {.atomic = true});
    v("ipFamilyPolicy", ipFamilyPolicy);
    v("allocateLoadBalancerNodePorts", allocateLoadBalancerNodePorts);
    v("loadBalancerClass", loadBalancerClass);
    v("internalTrafficPolicy", internalTrafficPolicy);
    v("trafficDistribution", trafficDistribution);
  }
  bool operator==(const ServiceSpec&) const = default;
};

struct PortStatus {
  int32_t port = 0;
  std::string protocol;
  std::optional<std::string> error;
  template <class V> void Visit(V& v) {
    v("port", port, {.always = true, .required = true});
    v("protocol", protocol, {.always = true, .required = true});
    v("error", error);
  }
  bool operator==(const PortStatus&) const = default;
};

struct LoadBalancerIngress {
  std::string ip;
  std::string hostname;
  std::optional<std::string> ipMode;
  std::vector<PortStatus> ports;
  template <class V> void Visit(V& v) {
    v("ip", ip);
    v("hostname", hostname);
    v("ipMode", ipMode);
    v("ports", ports, {.atomic = true});
  }
  bool operator==(const LoadBalancerIngress&) const = default;
};

struct LoadBalancerStatus {
  std::vector<LoadBalancerIngress> ingress;
  template <class V> void Visit(V& v) { v("ingress", ingress, {.atomic = true}); }
  bool operator==(const LoadBalancerStatus&) const = default;
};

struct ServiceStatus {
  LoadBalancerStatus loadBalancer;
  std::vector<Condition> conditions;
  template <class V> void Visit(V& v) {
    v("loadBalancer", loadBalancer);
    v("conditions", conditions, {.merge_key = "type"});
  }
  bool operator==(const ServiceStatus&) const = default;
};

struct Service : TypedObject<Service> {
  static const TypeInfo& Type();
  ServiceSpec spec;
  ServiceStatus status;
  template <class V> void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec);
    v("status", status);
  }
  bool operator==(const Service& o) const {
    return metadata == o.metadata && spec == o.spec && status == o.status;
  }
};

// SetDefaults_Service: type ClusterIP, sessionAffinity None (ClientIP gets a 10800 s timeout),
// ports' protocol TCP and targetPort = port, externalTrafficPolicy Cluster for NodePort and
// LoadBalancer, internalTrafficPolicy Cluster, allocateLoadBalancerNodePorts for LoadBalancer;
// clusterIPs follows clusterIP.
void DefaultService(Service& svc);

// corevalidation.ValidateService: ports (required unless headless or ExternalName; 1-65535;
// TCP/UDP/SCTP; names required and unique once there are two; targetPort a port or a port
// name), type, session affinity, selector labels, clusterIP empty, None or an IP,
// externalName for ExternalName. On update: clusterIP may not change once set, nor
// ExternalName services gain one.
void ValidateService(const Service& svc, FieldErrors& errs);
void ValidateServiceUpdate(const Service& svc, const Service& old, FieldErrors& errs);

// The allocation kube-apiserver's service REST storage does on create: a free cluster IP from
// kServiceClusterIpRange (one asked for must be in it and free: 422 otherwise), ipFamilies
// [IPv4] with SingleStack, and a free node port for every port of a NodePort or LoadBalancer
// Service that names none. `used_ips` and `used_node_ports` are what other Services hold.
Status AllocateServiceAddresses(Service& svc, const std::vector<std::string>& used_ips,
                                const std::vector<int32_t>& used_node_ports);

// services ("svc", category all), with a status subresource and kubectl's columns.
void RegisterServiceResources(ResourceRegistry& registry);

}  // namespace allot::api
