// Protobuf field numbers of ConfigMap, Secret, ServiceAccount and Service (k8s.io/api
// core/v1/generated.proto). See api/machinery/protobuf_fields.h.
#pragma once

#include "api/core/config.h"
#include "api/core/protobuf_messages_pod.h"
#include "api/core/service.h"
#include "api/machinery/protobuf_fields.h"
#include "api/machinery/protobuf_messages.h"

namespace allot::api {

template <>
struct ProtoMessage<ConfigMap> {
  static constexpr ProtoField kFields[] = {
      {"metadata", 1}, {"immutable", 4}, {"data", 2}, {"binaryData", 3}};
};

template <>
struct ProtoMessage<Secret> {
  static constexpr ProtoField kFields[] = {
      {"metadata", 1}, {"immutable", 5}, {"data", 2}, {"stringData", 4}, {"type", 3}};
};

template <>
struct ProtoMessage<ServiceAccount> {
  static constexpr ProtoField kFields[] = {{"metadata", 1},
                                           {"secrets", 2},
                                           {"imagePullSecrets", 3},
                                           {"automountServiceAccountToken", 4}};
};

template <>
struct ProtoMessage<ServicePort> {
  static constexpr ProtoField kFields[] = {{"name", 1}, {"protocol", 2},   {"appProtocol", 6},
                                           {"port", 3}, {"targetPort", 4}, {"nodePort", 5}};
};

template <>
struct ProtoMessage<ClientIPConfig> {
  static constexpr ProtoField kFields[] = {{"timeoutSeconds", 1}};
};

template <>
struct ProtoMessage<SessionAffinityConfig> {
  static constexpr ProtoField kFields[] = {{"clientIP", 1}};
};

template <>
struct ProtoMessage<ServiceSpec> {
  static constexpr ProtoField kFields[] = {{"ports", 1},
                                           {"selector", 2},
                                           {"clusterIP", 3},
                                           {"clusterIPs", 18},
                                           {"type", 4},
                                           {"externalIPs", 5},
                                           {"sessionAffinity", 7},
                                           {"loadBalancerIP", 8},
                                           {"loadBalancerSourceRanges", 9},
                                           {"externalName", 10},
                                           {"externalTrafficPolicy", 11},
                                           {"healthCheckNodePort", 12},
                                           {"publishNotReadyAddresses", 13},
                                           {"sessionAffinityConfig", 14},
                                           {"ipFamilies", 19},
                                           {"ipFamilyPolicy", 17},
                                           {"allocateLoadBalancerNodePorts", 20},
                                           {"loadBalancerClass", 21},
                                           {"internalTrafficPolicy", 22},
                                           {"trafficDistribution", 23}};
};

template <>
struct ProtoMessage<PortStatus> {
  static constexpr ProtoField kFields[] = {{"port", 1}, {"protocol", 2}, {"error", 3}};
};

template <>
struct ProtoMessage<LoadBalancerIngress> {
  static constexpr ProtoField kFields[] = {
      {"ip", 1}, {"hostname", 2}, {"ipMode", 3}, {"ports", 4}};
};

template <>
struct ProtoMessage<LoadBalancerStatus> {
  static constexpr ProtoField kFields[] = {{"ingress", 1}};
};

template <>
struct ProtoMessage<ServiceStatus> {
  static constexpr ProtoField kFields[] = {{"loadBalancer", 1}, {"conditions", 2}};
};

template <>
struct ProtoMessage<Service> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}, {"status", 3}};
};

}  // namespace allot::api
