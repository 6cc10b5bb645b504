// Service: defaulting, validation, cluster IP and node port allocation, table rows.
#include "api/core/service.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/machinery/resources.h"

namespace allot::api {
namespace {

Service Web() {
  Service svc;
  svc.metadata.name = "web";
  svc.metadata.namespace_ = "default";
  svc.spec.selector["app"] = "web";
  svc.spec.ports.push_back({.port = 80});
  return svc;
}

std::vector<std::string> Errors(const Service& svc) {
  FieldErrors errs;
  ValidateService(svc, errs);
  return errs.Messages();
}

TEST(ServiceTest, Defaults) {
  Service svc = Web();
  svc.spec.sessionAffinity = "ClientIP";
  DefaultService(svc);
  EXPECT_EQ(svc.spec.type, "ClusterIP");
  EXPECT_EQ(svc.spec.ports[0].protocol, "TCP");
  EXPECT_EQ(svc.spec.ports[0].targetPort.int_value, 80);
  EXPECT_EQ(svc.spec.internalTrafficPolicy, "Cluster");
  EXPECT_EQ(svc.spec.sessionAffinityConfig->clientIP->timeoutSeconds, 10800);
  EXPECT_TRUE(Errors(svc).empty()) << ::testing::PrintToString(Errors(svc));
}

TEST(ServiceTest, Validation) {
  Service svc = Web();
  DefaultService(svc);
  svc.spec.ports.push_back({.protocol = "HTTP", .port = 70000});
  svc.spec.type = "Magic";
  EXPECT_EQ(Errors(svc),
            (std::vector<std::string>{
                "spec.type: Unsupported value: \"Magic\": supported values: \"ClusterIP\", "
                "\"ExternalName\", \"LoadBalancer\", \"NodePort\"",
                "spec.ports[0].name: Required value", "spec.ports[1].name: Required value",
                "spec.ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive",
                "spec.ports[1].protocol: Unsupported value: \"HTTP\": supported values: "
                "\"SCTP\", \"TCP\", \"UDP\"",
                "spec.ports[1].targetPort: Invalid value: 0: must be between 1 and 65535, "
                "inclusive"}));
  Service none = Web();
  none.spec.ports.clear();
  DefaultService(none);
  EXPECT_EQ(Errors(none), std::vector<std::string>{"spec.ports: Required value"});
  Service external = Web();
  external.spec.type = "ExternalName";
  DefaultService(external);
  EXPECT_EQ(Errors(external), std::vector<std::string>{"spec.externalName: Required value"});
}

TEST(ServiceTest, AllocatesFreeAddressesAndPorts) {
  Service a = Web();
  a.spec.type = "NodePort";
  ASSERT_TRUE(AllocateServiceAddresses(a, {}, {}).ok());
  EXPECT_EQ(a.spec.clusterIP, "10.96.1.0");
  EXPECT_EQ(a.spec.clusterIPs, std::vector<std::string>{"10.96.1.0"});
  EXPECT_EQ(a.spec.ipFamilies, std::vector<std::string>{"IPv4"});
  EXPECT_EQ(a.spec.ports[0].nodePort, 30000);
  Service b = Web();
  b.spec.type = "NodePort";
  ASSERT_TRUE(AllocateServiceAddresses(b, {"10.96.1.0"}, {30000}).ok());
  EXPECT_EQ(b.spec.clusterIP, "10.96.1.1");
  EXPECT_EQ(b.spec.ports[0].nodePort, 30001);

  Service taken = Web();
  taken.spec.clusterIP = "10.96.1.0";
  Status st = AllocateServiceAddresses(taken, {"10.96.1.0"}, {});
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_NE(st.message().find("spec.clusterIPs: Invalid value: []string{\"10.96.1.0\"}: failed "
                              "to allocate IP 10.96.1.0: provided IP is already allocated"),
            std::string::npos)
      << st.ToString();
  Service outside = Web();
  outside.spec.clusterIP = "192.168.0.1";
  EXPECT_EQ(AllocateServiceAddresses(outside, {}, {}).code(), StatusCode::kInvalid);
  Service low_port = Web();
  low_port.spec.type = "NodePort";
  low_port.spec.ports[0].nodePort = 80;
  EXPECT_EQ(AllocateServiceAddresses(low_port, {}, {}).code(), StatusCode::kInvalid);
  Service headless = Web();
  headless.spec.clusterIP = "None";
  ASSERT_TRUE(AllocateServiceAddresses(headless, {}, {}).ok());
  EXPECT_EQ(headless.spec.clusterIPs, std::vector<std::string>{});
}

TEST(ServiceTest, ClusterIpCannotChange) {
  Service old = Web();
  old.spec.clusterIP = "10.96.1.0";
  old.spec.clusterIPs = {"10.96.1.0"};
  Service now = old;
  now.spec.clusterIP = "10.96.1.9";
  now.spec.clusterIPs = {"10.96.1.9"};
  FieldErrors errs;
  ValidateServiceUpdate(now, old, errs);
  EXPECT_EQ(errs.Messages(),
            std::vector<std::string>{"spec.clusterIPs[0]: Invalid value: []string{\"10.96.1.9\"}: "
                                     "may not change once set"});
}

TEST(ServiceTest, TableRow) {
  const ResourceInfo* r = ResourceRegistry::Default().Find("", "v1", "services");
  ASSERT_NE(r, nullptr);
  Service svc = Web();
  svc.spec.type = "NodePort";
  svc.spec.clusterIP = "10.96.1.0";
  svc.spec.ports[0].protocol = "TCP";
  svc.spec.ports[0].nodePort = 30000;
  std::vector<TableCell> row = r->row(svc, Time());
  EXPECT_EQ(std::get<std::string>(row[0]), "NodePort");
  EXPECT_EQ(std::get<std::string>(row[1]), "10.96.1.0");
  EXPECT_EQ(std::get<std::string>(row[2]), "<none>");
  EXPECT_EQ(std::get<std::string>(row[3]), "80:30000/TCP");
  EXPECT_EQ(std::get<std::string>(row[5]), "app=web");
}

}  // namespace
}  // namespace allot::api
