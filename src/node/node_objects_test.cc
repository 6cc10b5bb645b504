#include "node/node_objects.h"

#include <gtest/gtest.h>

#include "testing/objects.h"

namespace allot::node {
namespace {

using testing::JsonAt;

constexpr char kTemplate[] = R"(
apiVersion: v1
kind: Node
metadata:
  name: gpu
  labels:
    node.kubernetes.io/instance-type: gpu-large
    topology.kubernetes.io/zone: zone-a
  annotations:
    example.com/team: ml
spec:
  taints:
  - key: nvidia.com/gpu
    value: present
    effect: NoSchedule
status:
  capacity:
    cpu: "64"
    memory: 512Gi
    pods: "110"
    nvidia.com/gpu: "8"
  allocatable:
    cpu: 63500m
    memory: 500Gi
    pods: "110"
    nvidia.com/gpu: "8"
)";

TEST(NodeTemplateTest, ParsesYamlAndRejectsTypos) {
  Result<api::Node> t = ParseNodeTemplate(kTemplate);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->metadata.name, "gpu");
  EXPECT_EQ(t->spec.taints.size(), 1u);
  EXPECT_EQ(t->status.allocatable.at("cpu").ToString(), "63500m");

  Result<api::Node> typo = ParseNodeTemplate("kind: Node\nspec:\n  tains: []\n");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("tains"), std::string::npos) << typo.status().message();
  EXPECT_FALSE(ParseNodeTemplate("kind: Pod\nmetadata: {name: x}\n").ok());
}

TEST(NodeTemplateTest, DefaultsCapacityAndAllocatable) {
  Result<api::Node> t = ParseNodeTemplate("kind: Node\nstatus:\n  capacity: {cpu: '4'}\n");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->status.allocatable.at("cpu").ToString(), "4");
  api::Node d = DefaultNodeTemplate();
  EXPECT_EQ(d.status.capacity.at("cpu").ToString(), "32");
  EXPECT_EQ(d.status.capacity.at("pods").ToString(), "110");
  EXPECT_EQ(d.status.allocatable, d.status.capacity);
}

TEST(MakeNodeTest, CopiesTheTemplateAndAddsKubeletFields) {
  NodeShape shape{*ParseNodeTemplate(kTemplate)};
  Time now = Time::FromUnixSeconds(1700000000);
  std::unique_ptr<api::Node> n = MakeNode(shape, "gpu-7", 7, now);
  EXPECT_EQ(n->metadata.name, "gpu-7");
  EXPECT_EQ(n->metadata.labels.at("kubernetes.io/hostname"), "gpu-7");
  EXPECT_EQ(n->metadata.labels.at("topology.kubernetes.io/zone"), "zone-a");
  EXPECT_EQ(n->metadata.labels.at("kubernetes.io/os"), "linux");
  EXPECT_EQ(n->metadata.annotations.at("example.com/team"), "ml");
  EXPECT_EQ(n->metadata.annotations.at(kSimulatedAnnotation), "true");
  EXPECT_EQ(JsonAt(*n, "/spec/taints"),
            R"([{"key":"nvidia.com/gpu","value":"present","effect":"NoSchedule"}])");
  EXPECT_EQ(n->spec.podCIDR, "10.0.7.0/24");
  EXPECT_EQ(JsonAt(*n, "/status/capacity/nvidia.com~1gpu"), R"("8")");
  EXPECT_EQ(JsonAt(*n, "/status/allocatable/cpu"), R"("63500m")");
  EXPECT_EQ(JsonAt(*n, "/status/nodeInfo/kubeletVersion"), R"("v1.37.0-allot")");
  EXPECT_EQ(
      JsonAt(*n, "/status/addresses"),
      R"([{"type":"InternalIP","address":"172.16.0.8"},{"type":"Hostname","address":"gpu-7"}])");
  ASSERT_EQ(n->status.conditions.size(), 4u);
  const api::NodeCondition& ready = n->status.conditions.back();
  EXPECT_EQ(ready.type, "Ready");
  EXPECT_EQ(ready.status, "True");
  EXPECT_EQ(ready.reason, "KubeletReady");
  EXPECT_EQ(ready.lastHeartbeatTime, now);
  EXPECT_EQ(ready.lastTransitionTime, now);
}

TEST(MakeNodeTest, AdoptReplacesOurConditionsOnly) {
  NodeShape shape{DefaultNodeTemplate()};
  Time t0 = Time::FromUnixSeconds(1000), t1 = Time::FromUnixSeconds(2000);
  std::unique_ptr<api::Node> old = MakeNode(shape, "n-0", 0, t0);
  old->status.conditions.push_back({.type = "NetworkUnavailable", .status = "False"});
  old->status.capacity.clear();
  AdoptNodeStatus(*MakeNode(shape, "n-0", 0, t1), *old);
  EXPECT_EQ(old->status.capacity.at("cpu").ToString(), "32");
  ASSERT_EQ(old->status.conditions.size(), 5u);
  EXPECT_EQ(old->status.conditions[0].type, "NetworkUnavailable");
  EXPECT_EQ(old->status.conditions.back().lastHeartbeatTime, t1);
  EXPECT_EQ(old->status.conditions.back().lastTransitionTime, t0);  // still True since t0
}

TEST(NodeLeaseTest, MakeAndRenew) {
  Time t0 = Time::FromUnixSeconds(1000);
  std::unique_ptr<api::Lease> l = MakeNodeLease("n-1", "uid-1", 40, t0);
  EXPECT_EQ(l->metadata.namespace_, "kube-node-lease");
  EXPECT_EQ(JsonAt(*l, "/metadata/ownerReferences"),
            R"([{"apiVersion":"v1","kind":"Node","name":"n-1","uid":"uid-1"}])");
  EXPECT_EQ(JsonAt(*l, "/spec/holderIdentity"), R"("n-1")");
  EXPECT_EQ(JsonAt(*l, "/spec/leaseDurationSeconds"), "40");
  EXPECT_EQ(JsonAt(*l, "/spec/renewTime"), R"("1970-01-01T00:16:40.000000Z")");
  l->metadata.resourceVersion = "7";
  std::unique_ptr<api::Lease> r = RenewedLease(*l, "uid-2", 40, Time::FromUnixSeconds(1010));
  EXPECT_EQ(r->metadata.resourceVersion, "7");
  EXPECT_EQ(r->spec.renewTime->time, Time::FromUnixSeconds(1010));
  ASSERT_EQ(r->metadata.ownerReferences.size(), 1u);
  EXPECT_EQ(r->metadata.ownerReferences[0].uid, "uid-2");  // a re-registered node
}

TEST(NodeHeartbeatTest, PatchRefreshesHeartbeatsOnly) {
  std::string p = NodeHeartbeatPatch(Time::FromUnixSeconds(1700000040));
  EXPECT_NE(p.find(R"({"type":"Ready","status":"True","reason":"KubeletReady")"), std::string::npos)
      << p;
  EXPECT_NE(p.find(R"("lastHeartbeatTime":"2023-11-14T22:14:00Z")"), std::string::npos) << p;
  EXPECT_EQ(p.find("lastTransitionTime"), std::string::npos) << p;
}

}  // namespace
}  // namespace allot::node
