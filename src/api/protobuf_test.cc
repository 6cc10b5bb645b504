#include "api/protobuf.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "api/codec/codec.h"
#include "api/codec/protobuf_reflect.h"
#include "api/codec/protobuf_wire.h"
#include "api/apps/protobuf_messages.h"
#include "api/core/protobuf_messages_config.h"
#include "api/core/protobuf_messages_node.h"
#include "api/core/protobuf_messages_pod.h"
#include "api/core/types.h"
#include "api/machinery/protobuf_messages.h"
#include "api/policy/pod_disruption_budget.h"
#include "api/policy/protobuf_messages.h"
#include "api/resource/protobuf_messages.h"
#include "api/scheduling/priority_class.h"
#include "api/scheduling/protobuf_messages.h"
#include "api/storage/protobuf_messages.h"

namespace allot::api {
namespace {

std::unique_ptr<Object> FromJsonText(const TypeInfo& type, std::string_view json) {
  DecodeOptions opts;
  opts.strict = true;
  opts.expected = &type;
  auto decoded = DecodeJson(json, opts);
  EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
  return decoded.ok() ? std::move(decoded->object) : type.make();
}

std::string Envelope(const Object& obj) {
  std::string message;
  EXPECT_TRUE(EncodeProtobufMessage(obj, message));
  std::string out;
  AppendProtobufEnvelope(obj.type(), message, out);
  return out;
}

// Protobuf bytes written field by field: inputs the codec's own writer would not produce.
struct Msg {
  std::string bytes;
  Msg& Str(int number, std::string_view v) {
    protobuf::Writer(bytes).BytesField(number, v);
    return *this;
  }
  Msg& Int(int number, int64_t v) {
    protobuf::Writer(bytes).IntField(number, v);
    return *this;
  }
  Msg& Sub(int number, const Msg& m) { return Str(number, m.bytes); }
};

// JSON -> object -> protobuf -> object must give back the same object, field for field.
void ExpectRoundTrip(const TypeInfo& type, std::string_view json) {
  auto obj = FromJsonText(type, json);
  auto back = DecodeProtobufObject(type, Envelope(*obj));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(EncodeJson(**back), EncodeJson(*obj));
  EXPECT_TRUE(type.equal(**back, *obj));
}

constexpr std::string_view kPod = R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "train-0", "namespace": "ml", "uid": "u-1", "resourceVersion": "42",
    "generation": 3, "creationTimestamp": "2026-11-27T10:00:00Z",
    "deletionGracePeriodSeconds": 30,
    "labels": {"app": "train", "tier": ""}, "annotations": {"note": "ünïcode ✓"},
    "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "train",
      "uid": "j-1", "controller": true, "blockOwnerDeletion": false}],
    "finalizers": ["example.com/keep"]},
  "spec": {
    "containers": [{"name": "main", "image": "registry/train:1",
      "command": ["python", ""], "ports": [{"containerPort": 8080, "protocol": "TCP"}],
      "env": [{"name": "EMPTY"}, {"name": "A", "value": "1"}],
      "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"nvidia.com/gpu": "2"},
        "claims": [{"name": "gpus", "request": "a"}]}}],
    "nodeSelector": {"pool": "a"}, "priority": -5, "priorityClassName": "low",
    "terminationGracePeriodSeconds": 0, "automountServiceAccountToken": false,
    "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoExecute",
      "tolerationSeconds": 300}],
    "affinity": {
      "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]}]}},
      "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10,
        "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
          "labelSelector": {"matchLabels": {"app": "train"}}}}]}},
    "schedulingGates": [{"name": "wait"}],
    "resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "two-gpus"}],
    "overhead": {"cpu": "10m"}},
  "status": {"phase": "Pending", "nominatedNodeName": "node-1",
    "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
      "lastTransitionTime": "2026-11-27T10:00:01Z"}],
    "resourceClaimStatuses": [{"name": "gpus", "resourceClaimName": "train-0-gpus-x"}]}
})";

constexpr std::string_view kClaim = R"({
  "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
  "metadata": {"name": "c", "namespace": "default"},
  "spec": {"devices": {
    "requests": [{"name": "a", "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount",
      "count": 2, "selectors": [{"cel": {"expression": "device.attributes['x'].model == 'h'"}}]}}],
    "config": [{"requests": ["a"], "opaque": {"driver": "gpu.example.com",
      "parameters": {"kind": "Params", "n": [1, 2.5, null, {"x": true}]}}}]},
    "controllerName": "ctl.example.com", "allocationMode": "Immediate"},
  "status": {
    "allocation": {"devices": {"results": [{"request": "a", "driver": "gpu.example.com",
      "pool": "node-1", "device": "gpu-0", "bindingConditions": ["Attached"]}],
      "config": [{"source": "FromClaim", "requests": ["a"], "opaque": {"driver": "gpu.example.com",
        "parameters": {}}}]},
      "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name",
        "operator": "In", "values": ["node-1"]}]}]},
      "allocationTimestamp": "2026-11-27T10:00:02Z"},
    "reservedFor": [{"resource": "pods", "name": "p", "uid": "u"}],
    "deallocationRequested": true,
    "devices": [{"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0",
      "conditions": [{"type": "Attached", "status": "True", "observedGeneration": 1,
        "lastTransitionTime": "2026-11-27T10:00:03Z", "reason": "Done", "message": ""}],
      "data": {"bus": "0000:3b:00.0"}}]}
})";

constexpr std::string_view kSlice = R"({
  "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
  "metadata": {"name": "node-1-gpu"},
  "spec": {"driver": "gpu.example.com", "nodeName": "node-1",
    "pool": {"name": "node-1", "generation": 7, "resourceSliceCount": 1},
    "devices": [{"name": "gpu-0",
      "attributes": {"model": {"string": "h100"}, "index": {"int": -1}, "ok": {"bool": false},
        "drv": {"version": "1.2.3"}},
      "capacity": {"memory": {"value": "80Gi"}},
      "taints": [{"key": "broken", "effect": "NoSchedule"}],
      "bindsToNode": true, "bindingConditions": ["Attached"],
      "bindingFailureConditions": ["Failed"]}]}
})";

TEST(Protobuf, PodsClaimsAndSlicesSurviveTheRoundTrip) {
  ExpectRoundTrip(Pod::Type(), kPod);
  ExpectRoundTrip(ResourceClaim::Type(), kClaim);
  ExpectRoundTrip(ResourceSlice::Type(), kSlice);
}

TEST(Protobuf, TheOtherKindsSurviveTheRoundTrip) {
  ExpectRoundTrip(Node::Type(), R"({"metadata": {"name": "n", "labels": {"zone": "a"}},
    "spec": {"unschedulable": true, "taints": [{"key": "k", "value": "v", "effect": "NoSchedule",
      "timeAdded": "2026-11-27T10:00:00Z"}], "podCIDR": "10.0.0.0/24"},
    "status": {"capacity": {"cpu": "64", "pods": "110"}, "allocatable": {"cpu": "63900m"},
      "conditions": [{"type": "Ready", "status": "True",
        "lastHeartbeatTime": "2026-11-27T10:00:00Z"}],
      "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}]}})");
  ExpectRoundTrip(Binding::Type(), R"({"metadata": {"name": "p", "namespace": "default"},
    "target": {"kind": "Node", "name": "node-1"}})");
  ExpectRoundTrip(Lease::Type(), R"({"metadata": {"name": "l"}, "spec": {"holderIdentity": "a",
    "leaseDurationSeconds": 15, "renewTime": "2026-11-27T10:00:00.123456Z",
    "leaseTransitions": 0}})");
  ExpectRoundTrip(Event::Type(), R"({"metadata": {"name": "e", "namespace": "default"},
    "involvedObject": {"kind": "Pod", "name": "p", "uid": "u"}, "reason": "Scheduled",
    "message": "assigned", "type": "Normal", "count": 2,
    "eventTime": "2026-11-27T10:00:00.5Z", "firstTimestamp": "1960-01-01T00:00:00Z"})");
  ExpectRoundTrip(PodDisruptionBudget::Type(), R"({"metadata": {"name": "b"},
    "spec": {"minAvailable": "50%", "maxUnavailable": 0,
      "selector": {"matchLabels": {"app": "a"}}}})");
  ExpectRoundTrip(PriorityClass::Type(), R"({"metadata": {"name": "high"}, "value": 1000000,
    "globalDefault": false, "preemptionPolicy": "Never"})");
  ExpectRoundTrip(DeviceClass::Type(), R"({"metadata": {"name": "gpu"}, "spec": {
    "selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}],
    "config": [{"opaque": {"driver": "gpu.example.com", "parameters": {"a": 1}}}],
    "suitableNodes": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "gpu",
      "operator": "Exists"}]}]}}})");
}

// A set optional holding its zero value is written, so presence survives.
TEST(Protobuf, ASetOptionalStaysSetEvenWhenZero) {
  auto obj = FromJsonText(Pod::Type(), R"({"metadata": {"name": "p"}, "spec": {
    "containers": [{"name": "c"}], "terminationGracePeriodSeconds": 0, "hostUsers": false}})");
  auto back = DecodeProtobufObject(Pod::Type(), Envelope(*obj));
  ASSERT_TRUE(back.ok());
  const auto& spec = static_cast<const Pod&>(**back).spec;
  ASSERT_TRUE(spec.terminationGracePeriodSeconds.has_value());
  EXPECT_EQ(*spec.terminationGracePeriodSeconds, 0);
  ASSERT_TRUE(spec.rare->hostUsers.has_value());
  EXPECT_FALSE(*spec.rare->hostUsers);
}

// The bytes of a small object, written out from Kubernetes' message definitions by hand.
TEST(Protobuf, ABindingHasKubernetesBytes) {
  auto obj = FromJsonText(Binding::Type(), R"({"metadata": {"name": "p"},
    "target": {"kind": "Node", "name": "n1"}})");
  // Binding {metadata = 1 {name = 1}, target = 2 (ObjectReference {kind = 1, name = 3})}.
  const std::string raw("\x0a\x03\x0a\x01p\x12\x0a\x0a\x04Node\x1a\x02n1", 17);
  // runtime.Unknown {typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2}.
  const std::string want = std::string("k8s\0", 4) +
                           "\x0a\x0d\x0a\x02v1\x12\x07"
                           "Binding" +
                           "\x12\x11" + raw;
  EXPECT_EQ(Envelope(*obj), want);
}

TEST(Protobuf, NestedMessagesOver127BytesGetAWideLength) {
  auto obj = FromJsonText(Pod::Type(), R"({"metadata": {"name": "p"}, "spec": {
    "containers": [{"name": "c"}]}})");
  auto& pod = static_cast<Pod&>(*obj);
  pod.metadata.annotations["long"] = std::string(300, 'x');
  pod.metadata.annotations["longer"] = std::string(20000, 'y');
  auto back = DecodeProtobufObject(Pod::Type(), Envelope(pod));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(EncodeJson(**back), EncodeJson(pod));
}

// The messages Allot keeps as JSON text (probes, security contexts, volume sources) travel as
// their messages and read back as the JSON encoding/json would write.
TEST(Protobuf, MessagesKeptAsJsonTravelAsTheirMessages) {
  auto pod = FromJsonText(Pod::Type(), R"({"metadata": {"name": "p"}, "spec": {
    "containers": [{"name": "c",
      "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080,
          "httpHeaders": [{"name": "X", "value": "y"}]}, "initialDelaySeconds": 3,
          "periodSeconds": 10},
      "readinessProbe": {"exec": {"command": ["cat", "/ready"]}, "successThreshold": 1},
      "securityContext": {"runAsUser": 0, "privileged": false,
          "capabilities": {"add": ["NET_ADMIN"]}},
      "env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
      "envFrom": [{"configMapRef": {"name": "cm"}, "prefix": "P_"}],
      "lifecycle": {"preStop": {"sleep": {"seconds": 5}}}}],
    "securityContext": {"fsGroup": 2000, "sysctls": [{"name": "a.b", "value": "1"}]},
    "dnsConfig": {"nameservers": ["1.1.1.1"], "options": [{"name": "ndots", "value": "2"}]},
    "volumes": [
      {"name": "scratch", "emptyDir": {"medium": "Memory", "sizeLimit": "1Gi"}},
      {"name": "config", "configMap": {"name": "cm", "items": [{"key": "k", "path": "p"}],
          "defaultMode": 420}},
      {"name": "token", "projected": {"sources": [{"serviceAccountToken":
          {"expirationSeconds": 3607, "path": "token"}}]}},
      {"name": "eph", "ephemeral": {"volumeClaimTemplate": {"metadata": {"labels": {"a": "b"}},
          "spec": {"accessModes": ["ReadWriteOnce"],
                   "resources": {"requests": {"storage": "1Gi"}}}}}},
      {"name": "data", "csi": {"driver": "d.example.com", "volumeAttributes": {"z": "1", "a": "2"}}}
    ]}})");
  auto back = DecodeProtobufObject(Pod::Type(), Envelope(*pod));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  std::string json = EncodeJson(**back);
  // As kube-apiserver writes them: zero values of omitempty fields are left out (runAsUser 0 is
  // a pointer, so it stays; privileged false too), a struct that Go always writes is there.
  EXPECT_NE(json.find(R"("livenessProbe":{"httpGet":{"path":"/healthz","port":8080,)"
                      R"("httpHeaders":[{"name":"X","value":"y"}]},"initialDelaySeconds":3,)"
                      R"("periodSeconds":10})"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("securityContext":{"capabilities":{"add":["NET_ADMIN"]},)"
                      R"("privileged":false,"runAsUser":0})"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"({"name":"scratch","emptyDir":{"medium":"Memory","sizeLimit":"1Gi"}})"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("volumeClaimTemplate":{"metadata":{"labels":{"a":"b"}},)"
                      R"("spec":{"accessModes":["ReadWriteOnce"],)"
                      R"("resources":{"requests":{"storage":"1Gi"}}}})"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("csi":{"driver":"d.example.com","volumeAttributes":{"a":"2","z":"1"}})"),
            std::string::npos)
      << json;
  // And a second trip changes nothing.
  auto again = DecodeProtobufObject(Pod::Type(), Envelope(**back));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(EncodeJson(**again), json);
  EXPECT_FALSE(ProtobufMayRefuse(Pod::Type()));
}

// JSON that the message cannot hold (a value of the wrong type: kube-apiserver would have
// refused it) is not encoded, so the object goes as JSON.
TEST(Protobuf, JsonThatItsMessageCannotHoldIsNotEncoded) {
  auto obj = FromJsonText(Pod::Type(), R"({"metadata": {"name": "p"}, "spec": {
    "containers": [{"name": "c", "livenessProbe": {"initialDelaySeconds": "soon"}}]}})");
  std::string out = "keep";
  EXPECT_FALSE(EncodeProtobufMessage(*obj, out));
  EXPECT_EQ(out, "keep");
}

// Decoded as Go decodes those messages: members a message lacks go (and are named), and a value
// of the wrong type is an error at its path.
TEST(Protobuf, JsonKeptForMessagesIsNormalizedAsGoDecodesIt) {
  auto obj = FromJsonText(Pod::Type(), R"({"metadata": {"name": "p"}, "spec": {
    "containers": [{"name": "c", "livenessProbe": {"httpGet": {"port": "http", "bogus": 1},
      "periodSeconds": 5}}]}})");
  DecodeContext ctx;
  ASSERT_TRUE(NormalizeJsonMessages(*obj, ctx)) << ctx.error();
  EXPECT_EQ(ctx.unknown_fields(),
            std::vector<std::string>{"spec.containers[0].livenessProbe.httpGet.bogus"});
  EXPECT_EQ(static_cast<const Pod&>(*obj).spec.containers[0].rare->livenessProbe.json,
            R"({"httpGet":{"port":"http"},"periodSeconds":5})");
  auto wrong = FromJsonText(Pod::Type(), R"({"metadata": {"name": "p"}, "spec": {
    "containers": [{"name": "c"}], "volumes": [{"name": "v",
      "configMap": {"name": "cm", "items": [{"key": "k", "path": 3}]}}]}})");
  DecodeContext bad;
  EXPECT_FALSE(NormalizeJsonMessages(*wrong, bad));
  EXPECT_EQ(bad.error(), "json: cannot unmarshal number into field "
                         "spec.volumes[0].configMap.items[0].path of type string");
}

// Every kind that holds such messages gets their defaults after its own, as kube-apiserver's
// decoding gives them: a pod's probes and volume sources, a workload's template, a PV's source.
TEST(Protobuf, KindsGetTheDefaultsOfTheMessagesTheyKeepAsJson) {
  const ResourceRegistry& reg = ResourceRegistry::Default();
  auto pod = FromJsonText(Pod::Type(), R"({"metadata": {"name": "p"}, "spec": {
    "containers": [{"name": "c", "image": "i", "readinessProbe": {"tcpSocket": {"port": 80}}}],
    "volumes": [{"name": "s", "secret": {"secretName": "s"}}, {"name": "e"}]}})");
  reg.FindByType(Pod::Type())->Default(*pod);
  const Pod& p = static_cast<const Pod&>(*pod);
  EXPECT_EQ(p.spec.containers[0].rare->readinessProbe.json,
            R"({"tcpSocket":{"port":80},"timeoutSeconds":1,"periodSeconds":10,)"
            R"("successThreshold":1,"failureThreshold":3})");
  EXPECT_EQ(p.spec.volumes[0].secret.json, R"({"secretName":"s","defaultMode":420})");
  EXPECT_EQ(p.spec.volumes[1].emptyDir.json, "{}");  // the pod's own default, none inside
  auto rs = FromJsonText(ReplicaSet::Type(), R"({"metadata": {"name": "r"}, "spec": {
    "selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}},
    "spec": {"containers": [{"name": "c", "image": "i",
      "lifecycle": {"preStop": {"httpGet": {"port": 8080}}}}]}}}})");
  reg.FindByType(ReplicaSet::Type())->Default(*rs);
  const PodSpec& tmpl = static_cast<const ReplicaSet&>(*rs).spec.template_.spec;
  EXPECT_EQ(tmpl.containers[0].rare->lifecycle.json,
            R"({"preStop":{"httpGet":{"path":"/","port":8080,"scheme":"HTTP"}}})");
  auto pv = FromJsonText(PersistentVolume::Type(), R"({"metadata": {"name": "v"}, "spec": {
    "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
    "rbd": {"monitors": ["m"], "image": "i"}}})");
  reg.FindByType(PersistentVolume::Type())->Default(*pv);
  EXPECT_EQ(static_cast<const PersistentVolume&>(*pv).spec.rbd.json,
            R"({"monitors":["m"],"image":"i","pool":"rbd","user":"admin",)"
            R"("keyring":"/etc/ceph/keyring"})");
  EXPECT_EQ(reg.FindByType(ConfigMap::Type())->default_json_messages, nullptr);
  EXPECT_EQ(reg.FindByType(Node::Type())->default_json_messages, nullptr);
}

// A record of the wrong wire type inside such a message is a 400 naming the field.
TEST(Protobuf, AWrongWireTypeInsideAMessageKeptAsJsonIsBadRequest) {
  // Pod {spec = 2 {containers = 2 {name = 1, livenessProbe = 10 {initialDelaySeconds = 2 "x"}}}}.
  const Msg probed = Msg().Sub(2, Msg().Sub(2, Msg().Str(1, "c").Sub(10, Msg().Str(2, "x"))));
  auto r = DecodeProtobufMessage(Pod::Type(), probed.bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_NE(r.status().message().find("spec.containers[0].livenessProbe.initialDelaySeconds"),
            std::string::npos)
      << r.status().message();
}

// A RawJson field whose message the table does not name can carry only {}: the codec refuses
// the rest (a server answers 415) or, reading leniently, drops it and says so.
struct Unmodelled {
  RawJson blob;
  template <class V>
  void Visit(V& v) {
    v("blob", blob);
  }
};

}  // namespace

template <>
struct ProtoMessage<Unmodelled> {
  static constexpr ProtoField kFields[] = {{"blob", 1, ProtoAs::kOpaque}};
};

namespace {

TEST(Protobuf, AFieldWithNoMessageCarriesOnlyTheEmptyObject) {
  Unmodelled u;
  u.blob.json = R"({"a":1})";
  std::string bytes;
  protobuf::Writer w(bytes);
  EXPECT_FALSE(protobuf::WriteFields(w, u));
  u.blob.json = "{}";
  bytes.clear();
  EXPECT_TRUE(protobuf::WriteFields(w, u));
  const Msg content = Msg().Sub(1, Msg().Str(1, "x"));
  Unmodelled read;
  protobuf::DecodeState s;
  EXPECT_FALSE(protobuf::ReadFields(content.bytes, read, s));
  EXPECT_TRUE(s.unsupported);
  protobuf::DecodeState lenient;
  lenient.lenient = true;
  EXPECT_TRUE(protobuf::ReadFields(content.bytes, read, lenient));
  EXPECT_TRUE(lenient.dropped);
  EXPECT_TRUE(read.blob.empty());
  // Go writes its non-pointer fields even when zero: an all-zero message is {}.
  const Msg zero = Msg().Sub(1, Msg().Str(1, "").Int(2, 0));
  protobuf::DecodeState z;
  EXPECT_TRUE(protobuf::ReadFields(zero.bytes, read, z));
  EXPECT_EQ(read.blob.json, "{}");
}

// Go writes a zero metav1.Time (JSON null) as an empty message, and a set one with its seconds.
TEST(Protobuf, AnEmptyTimeIsUnsetAndTheEpochIsATime) {
  // Pod {status = 3 {conditions = 2 {type = 1, lastProbeTime = 3 {}}}}.
  const Msg zero = Msg().Sub(3, Msg().Sub(2, Msg().Str(1, "R").Sub(3, Msg())));
  auto r = DecodeProtobufMessage(Pod::Type(), zero.bytes);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& cond = static_cast<const Pod&>(**r).status.conditions.at(0);
  EXPECT_FALSE(cond.lastProbeTime.has_value());
  auto epoch = FromJsonText(Pod::Type(), R"({"metadata": {"name": "p"}, "spec": {
    "containers": [{"name": "c"}]}, "status": {"conditions": [{"type": "R", "status": "True",
    "lastProbeTime": "1970-01-01T00:00:00Z"}]}})");
  auto back = DecodeProtobufObject(Pod::Type(), Envelope(*epoch));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(static_cast<const Pod&>(**back).status.conditions.at(0).lastProbeTime,
            std::optional<Time>(Time{}));
}

// Go writes its non-pointer fields even when zero: `emptyDir: {}` arrives as {medium: ""}.
TEST(Protobuf, AGoZeroStructInAMessageKeptAsJsonIsAnEmptyObject) {
  // Pod {spec = 2 {volumes = 1 {name = 1, volumeSource = 2 {emptyDir = 2 {medium = 1 ""}}},
  //   containers = 2 {name = 1}}}.
  const Msg empty_dir = Msg().Str(1, "");
  const Msg raw = Msg().Sub(
      2, Msg().Sub(1, Msg().Str(1, "v").Sub(2, Msg().Sub(2, empty_dir))).Sub(2, Msg().Str(1, "c")));
  auto r = DecodeProtobufMessage(Pod::Type(), raw.bytes);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(static_cast<const Pod&>(**r).spec.volumes.at(0).emptyDir.json, "{}");
}

// The catalog parses, and every message a table names is in it: no kind that travels in
// protobuf may have to refuse an object for a field it holds as JSON text.
TEST(Protobuf, TheCatalogOfMessagesKeptAsJsonIsWhole) {
  EXPECT_EQ(protobuf::OpaqueCatalogProblems(), std::vector<std::string>{});
  EXPECT_NE(protobuf::FindOpaqueMessage("k8s.io.api.core.v1.Probe"), nullptr);
  EXPECT_EQ(protobuf::FindOpaqueMessage("k8s.io.api.core.v1.Nope"), nullptr);
  for (const ResourceInfo& r : ResourceRegistry::Default().All()) {
    if (HasProtobuf(*r.type)) {
      EXPECT_FALSE(ProtobufMayRefuse(*r.type)) << r.type->kind;
    }
  }
}

TEST(Protobuf, WhatProtobufCannotHoldIsNotEncoded) {
  auto pdb = FromJsonText(PodDisruptionBudget::Type(), R"({"metadata": {"name": "b"},
    "spec": {"maxUnavailable": 3000000000}})");
  std::string out;
  EXPECT_FALSE(EncodeProtobufMessage(*pdb, out));  // intVal is an int32
  EXPECT_FALSE(ProtobufMayRefuse(Pod::Type()));
  EXPECT_FALSE(ProtobufMayRefuse(Node::Type()));
  EXPECT_FALSE(ProtobufMayRefuse(ResourceClaim::Type()));
  EXPECT_FALSE(ProtobufMayRefuse(ResourceSlice::Type()));
  EXPECT_FALSE(ProtobufMayRefuse(Event::Type()));
}

TEST(Protobuf, UnknownFieldsAreSkipped) {
  // Pod {99: varint, metadata = 1 {name = 1}, 100: bytes}.
  const Msg raw = Msg().Int(99, 7).Sub(1, Msg().Str(1, "p")).Str(100, "zz");
  auto r = DecodeProtobufMessage(Pod::Type(), raw.bytes);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->metadata.name, "p");
}

// Go writes map entries sorted by key; any other order, and repeated keys, must read as the
// same map std::map would make (of repeated keys the last wins), in every message that holds
// one, and at no more than a sort's cost however many entries arrive out of order.
TEST(Protobuf, MapEntriesInAnyOrderReadSortedAndTheLastRepeatWins) {
  auto entry = [](std::string_view k, std::string_view v) { return Msg().Str(1, k).Str(2, v); };
  auto quantity = [](std::string_view k, std::string_view v) {
    return Msg().Str(1, k).Sub(2, Msg().Str(1, v));
  };
  Msg meta = Msg().Str(1, "p");
  meta.Sub(11, entry("b", "2")).Sub(12, entry("z", "26")).Sub(11, entry("a", "1"));
  meta.Sub(12, entry("y", "25")).Sub(11, entry("b", "3"));
  Msg requests = Msg().Sub(2, quantity("memory", "1Gi")).Sub(2, quantity("cpu", "2"));
  Msg spec = Msg()
                 .Sub(2, Msg().Str(1, "c0").Sub(8, requests))
                 .Sub(2, Msg().Str(1, "c1").Sub(8, Msg().Sub(2, quantity("cpu", "1"))));
  // Many keys in descending order: each would otherwise be inserted at the front.
  for (int i = 999; i >= 0; --i) meta.Sub(12, entry("k" + std::to_string(1000 + i), "v"));
  auto r = DecodeProtobufMessage(Pod::Type(), Msg().Sub(1, meta).Sub(2, spec).bytes);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& pod = static_cast<const Pod&>(**r);
  EXPECT_EQ(pod.metadata.labels, (StringMap{{"a", "1"}, {"b", "3"}}));
  ASSERT_EQ(pod.metadata.annotations.size(), 1002u);
  EXPECT_EQ(pod.metadata.annotations.begin()->first, "k1000");
  EXPECT_EQ(pod.metadata.annotations.at("y"), "25");
  EXPECT_TRUE(std::is_sorted(
      pod.metadata.annotations.begin(), pod.metadata.annotations.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; }));
  ASSERT_EQ(pod.spec.containers.size(), 2u);
  const ResourceList& r0 = pod.spec.containers[0].resources.requests;
  ASSERT_EQ(r0.size(), 2u);
  EXPECT_EQ(r0.begin()->first, "cpu");
  EXPECT_EQ(r0.at("memory").ToString(), "1Gi");
  EXPECT_EQ(pod.spec.containers[1].resources.requests.at("cpu").ToString(), "1");
  // Protobuf merges a message that repeats: each copy of metadata adds its label (K copies must
  // not cost K sorts of the growing map).
  Msg merged;
  for (int i = 499; i >= 0; --i) {
    merged.Sub(1, Msg().Sub(11, entry("l" + std::to_string(1000 + i), "v")));
  }
  auto m = DecodeProtobufMessage(Pod::Type(), merged.bytes);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const StringMap& labels = (*m)->metadata.labels;
  ASSERT_EQ(labels.size(), 500u);
  EXPECT_EQ(labels.begin()->first, "l1000");
  EXPECT_TRUE(std::is_sorted(labels.begin(), labels.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; }));
  // Read back in order, it is the same pod.
  auto again = DecodeProtobufObject(Pod::Type(), Envelope(pod));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(Pod::Type().equal(**again, pod));
}

TEST(Protobuf, MalformedInputIsA400) {
  for (std::string raw : {std::string("\x0a\x05\x0a", 3), std::string("\x0a", 1),
                          std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 11),
                          std::string("\x0b", 1), std::string("\x12\x02\x08\x01", 4)}) {
    auto r = DecodeProtobufMessage(Pod::Type(), raw);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kBadRequest) << r.status().ToString();
  }
  EXPECT_FALSE(ParseProtobufEnvelope("{\"kind\":\"Pod\"}").ok());
  auto wrong_kind = DecodeProtobufObject(Node::Type(), Envelope(*FromJsonText(Pod::Type(), kPod)));
  EXPECT_FALSE(wrong_kind.ok());
  // Quantities are parsed as they are from JSON: Pod {spec = 2 {containers = 2 {name = 1,
  // resources = 8 {requests = 2 {key = 1, value = 2 {string = 1 "x"}}}}}}.
  const Msg requests = Msg().Str(1, "cpu").Sub(2, Msg().Str(1, "x"));
  const Msg bad_quantity =
      Msg().Sub(2, Msg().Sub(2, Msg().Str(1, "c").Sub(8, Msg().Sub(2, requests))));
  auto q = DecodeProtobufMessage(Pod::Type(), bad_quantity.bytes);
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.status().code(), StatusCode::kBadRequest);
}

TEST(Protobuf, ListsKeepTheirMetaAndItems) {
  auto a = FromJsonText(Pod::Type(), kPod);
  auto b = FromJsonText(Pod::Type(), R"({"metadata": {"name": "b"},
    "spec": {"containers": [{"name": "c"}]}})");
  std::string ma, mb;
  ASSERT_TRUE(EncodeProtobufMessage(*a, ma));
  ASSERT_TRUE(EncodeProtobufMessage(*b, mb));
  ListMeta meta;
  meta.resourceVersion = "77";
  meta.continue_ = "next";
  meta.remainingItemCount = 0;
  std::string body;
  AppendProtobufList(Pod::Type(), meta, {ma, mb}, body);
  auto env = ParseProtobufEnvelope(body);
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->kind, "PodList");
  EXPECT_EQ(env->api_version, "v1");
  auto list = DecodeProtobufList(Pod::Type(), body);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_EQ(list->meta.resourceVersion, "77");
  EXPECT_EQ(list->meta.continue_, "next");
  EXPECT_EQ(list->meta.remainingItemCount, std::optional<int64_t>(0));
  ASSERT_EQ(list->items.size(), 2u);
  EXPECT_EQ(EncodeJson(*list->items[0]), EncodeJson(*a));
  EXPECT_EQ(EncodeJson(*list->items[1]), EncodeJson(*b));
}

TEST(Protobuf, WatchFramesCarryTheTypeAndTheObjectsEnvelope) {
  auto pod = FromJsonText(Pod::Type(), kPod);
  const std::string object = Envelope(*pod);
  std::string frames;
  AppendProtobufWatchFrame("MODIFIED", object, frames);
  Status gone(StatusCode::kExpired, "too old resource version: 1 (5)");
  std::string status;
  AppendProtobufStatus(gone, status);
  AppendProtobufWatchFrame("ERROR", status, frames);

  std::string_view in = frames;
  auto next = [&]() {
    EXPECT_GE(in.size(), 4u);
    uint32_t n = 0;
    for (int i = 0; i < 4; ++i) n = n << 8 | static_cast<uint8_t>(in[i]);
    std::string_view frame = in.substr(4, n);
    in.remove_prefix(4 + n);
    return frame;
  };
  auto first = ParseProtobufWatchEvent(next());
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->type, "MODIFIED");
  EXPECT_EQ(first->object, object);
  auto second = ParseProtobufWatchEvent(next());
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->type, "ERROR");
  auto st = DecodeProtobufStatus(second->object);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ(st->status, "Failure");
  EXPECT_EQ(st->reason, "Expired");
  EXPECT_EQ(st->code, 410);
  EXPECT_EQ(st->message, "too old resource version: 1 (5)");
  EXPECT_TRUE(in.empty());
}

TEST(Protobuf, StatusDetailsAndCausesRoundTrip) {
  Status invalid(StatusCode::kInvalid, "Pod \"p\" is invalid");
  StatusDetails d;
  d.name = "p";
  d.kind = "Pod";
  d.causes.push_back({"FieldValueRequired", "Required value", "spec.containers"});
  invalid.WithDetails(d);
  std::string body;
  AppendProtobufStatus(invalid, body);
  auto st = DecodeProtobufStatus(body);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->code, 422);
  EXPECT_EQ(st->details.name, "p");
  EXPECT_EQ(st->details.kind, "Pod");
  ASSERT_EQ(st->details.causes.size(), 1u);
  EXPECT_EQ(st->details.causes[0], d.causes[0]);
}

template <class T>
void ExpectComplete() {
  std::vector<std::string> missing;
  std::vector<const void*> seen;
  protobuf::CollectMissing<T>(missing, seen);
  EXPECT_TRUE(missing.empty()) << T::Type().kind << " lacks field numbers for "
                               << testing::PrintToString(missing);
  EXPECT_TRUE(HasProtobuf(T::Type()));
  EXPECT_EQ(ProtobufKind(T::Type().api_version, T::Type().kind), &T::Type());
}

// Every field of every kind with protobuf, at any depth, has a number: nothing is dropped.
TEST(Protobuf, EveryFieldOfEveryCarriedKindHasANumber) {
  ExpectComplete<Pod>();
  ExpectComplete<Binding>();
  ExpectComplete<Node>();
  ExpectComplete<Namespace>();
  ExpectComplete<Event>();
  ExpectComplete<Lease>();
  ExpectComplete<DeviceClass>();
  ExpectComplete<ResourceClaim>();
  ExpectComplete<ResourceClaimTemplate>();
  ExpectComplete<ResourceSlice>();
  ExpectComplete<PodSchedulingContext>();
  ExpectComplete<PriorityClass>();
  ExpectComplete<PodDisruptionBudget>();
  ExpectComplete<ConfigMap>();
  ExpectComplete<Secret>();
  ExpectComplete<ServiceAccount>();
  ExpectComplete<Service>();
  ExpectComplete<PersistentVolume>();
  ExpectComplete<PersistentVolumeClaim>();
  ExpectComplete<ReplicationController>();
  ExpectComplete<ReplicaSet>();
  ExpectComplete<StatefulSet>();
  ExpectComplete<StorageClass>();
  ExpectComplete<CSIDriver>();
  ExpectComplete<CSINode>();
  ExpectComplete<CSIStorageCapacity>();
  ExpectComplete<VolumeAttachment>();
  ExpectComplete<DeviceTaintRule>();
}

// The kinds kube-scheduler's informers list (and kubectl's first commands create) travel in
// protobuf field for field; a Secret's bytes are raw on the wire and base64 in JSON.
TEST(Protobuf, TheKindsOfTheApiSurfaceSurviveTheRoundTrip) {
  ExpectRoundTrip(ConfigMap::Type(), R"({"metadata": {"name": "c", "namespace": "d"},
    "immutable": true, "data": {"a": "b"}, "binaryData": {"bin": "AAEC/w=="}})");
  ExpectRoundTrip(Secret::Type(), R"({"metadata": {"name": "s", "namespace": "d"},
    "data": {"password": "aHVudGVyMg=="}, "type": "Opaque"})");
  ExpectRoundTrip(ServiceAccount::Type(), R"({"metadata": {"name": "sa", "namespace": "d"},
    "secrets": [{"name": "tok"}], "imagePullSecrets": [{"name": "pull"}],
    "automountServiceAccountToken": false})");
  ExpectRoundTrip(Service::Type(), R"({"metadata": {"name": "web", "namespace": "d"},
    "spec": {"ports": [{"name": "http", "protocol": "TCP", "port": 80, "targetPort": "http",
      "nodePort": 30080}], "selector": {"app": "web"}, "clusterIP": "10.96.1.2",
      "clusterIPs": ["10.96.1.2"], "type": "NodePort", "sessionAffinity": "ClientIP",
      "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 10800}},
      "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
      "externalTrafficPolicy": "Cluster", "internalTrafficPolicy": "Cluster"},
    "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4", "ports": [{"port": 80,
      "protocol": "TCP"}]}]}}})");
  ExpectRoundTrip(PersistentVolumeClaim::Type(), R"({"metadata": {"name": "c", "namespace": "d"},
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
      "storageClassName": "fast", "volumeMode": "Filesystem",
      "dataSourceRef": {"kind": "VolumeSnapshot", "name": "snap", "apiGroup": "s.io"}},
    "status": {"phase": "Bound", "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
      "conditions": [{"type": "Resizing", "status": "True"}]}})");
  ExpectRoundTrip(PersistentVolume::Type(), R"({"metadata": {"name": "pv"},
    "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
      "claimRef": {"namespace": "d", "name": "c"}, "persistentVolumeReclaimPolicy": "Retain",
      "storageClassName": "fast", "volumeMode": "Block", "nodeAffinity": {"required": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Exists"}]}]}}},
    "status": {"phase": "Bound"}})");
  const char* tmpl = R"("template": {"metadata": {"labels": {"app": "a"}},
      "spec": {"containers": [{"name": "c", "image": "busybox"}]}})";
  ExpectRoundTrip(ReplicaSet::Type(), std::string(R"({"metadata": {"name": "rs"}, "spec": {
    "replicas": 3, "selector": {"matchLabels": {"app": "a"}}, )") + tmpl +
                                          R"(}, "status": {"replicas": 2, "readyReplicas": 1,
    "conditions": [{"type": "ReplicaFailure", "status": "True"}]}})");
  ExpectRoundTrip(ReplicationController::Type(), std::string(R"({"metadata": {"name": "rc"},
    "spec": {"replicas": 1, "selector": {"app": "a"}, )") + tmpl + "}}");
  ExpectRoundTrip(StatefulSet::Type(), std::string(R"({"metadata": {"name": "db"}, "spec": {
    "replicas": 2, "selector": {"matchLabels": {"app": "a"}}, "serviceName": "db",
    "podManagementPolicy": "Parallel", "updateStrategy": {"type": "RollingUpdate",
      "rollingUpdate": {"partition": 1, "maxUnavailable": "50%"}},
    "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {
      "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}],
    "ordinals": {"start": 5}, )") + tmpl + R"(}, "status": {"replicas": 2,
    "availableReplicas": 1, "currentRevision": "db-1"}})");
  ExpectRoundTrip(StorageClass::Type(), R"({"metadata": {"name": "fast"},
    "provisioner": "csi.example.com", "parameters": {"type": "ssd"}, "reclaimPolicy": "Delete",
    "volumeBindingMode": "WaitForFirstConsumer", "allowVolumeExpansion": true,
    "allowedTopologies": [{"matchLabelExpressions": [{"key": "zone", "values": ["a"]}]}]})");
  ExpectRoundTrip(CSIDriver::Type(), R"({"metadata": {"name": "csi.example.com"}, "spec": {
    "attachRequired": true, "podInfoOnMount": false, "volumeLifecycleModes": ["Persistent"],
    "tokenRequests": [{"audience": "vault", "expirationSeconds": 3600}],
    "nodeAllocatableUpdatePeriodSeconds": 60}})");
  ExpectRoundTrip(CSINode::Type(), R"({"metadata": {"name": "node-1"}, "spec": {"drivers": [
    {"name": "csi.example.com", "nodeID": "n1", "topologyKeys": ["zone"],
     "allocatable": {"count": 16}}]}})");
  ExpectRoundTrip(CSIStorageCapacity::Type(), R"({"metadata": {"name": "c", "namespace": "d"},
    "storageClassName": "fast", "capacity": "100Gi", "maximumVolumeSize": "10Gi",
    "nodeTopology": {"matchLabels": {"zone": "a"}}})");
  ExpectRoundTrip(VolumeAttachment::Type(), R"({"metadata": {"name": "va"}, "spec": {
    "attacher": "csi.example.com", "source": {"persistentVolumeName": "pv"},
    "nodeName": "node-1"}, "status": {"attached": true, "attachmentMetadata": {"dev": "/dev/x"},
    "attachError": {"message": "busy", "errorCode": 5}}})");
  ExpectRoundTrip(DeviceTaintRule::Type(), R"({"metadata": {"name": "r"}, "spec": {
    "deviceSelector": {"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"},
    "taint": {"key": "example.com/broken", "value": "fan", "effect": "NoExecute"}},
    "status": {"conditions": [{"type": "EvictionInProgress", "status": "False",
      "reason": "Done", "message": "", "lastTransitionTime": "2026-11-27T10:00:00Z"}]}})");
}

// A Secret's data is bytes: raw in protobuf, and JSON that is not base64 is a 400.
TEST(Protobuf, SecretBytesAreRawOnTheWire) {
  auto obj = FromJsonText(Secret::Type(), R"({"metadata": {"name": "s"},
    "data": {"k": "AP8="}})");
  EXPECT_EQ(static_cast<const Secret&>(*obj).data.at("k").data, std::string("\0\xff", 2));
  std::string message;
  ASSERT_TRUE(EncodeProtobufMessage(*obj, message));
  EXPECT_NE(message.find(std::string("\0\xff", 2)), std::string::npos);
  DecodeOptions opts;
  opts.expected = &Secret::Type();
  auto bad = DecodeJson(R"({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
    "data": {"k": "not base64!"}})", opts);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("data[k]: illegal base64 data"), std::string::npos)
      << bad.status().ToString();
}

TEST(ProtobufWire, VarintsAndNestedLengths) {
  std::string out;
  protobuf::Writer w(out);
  w.IntField(1, -1);  // ten bytes, as protobuf's int64
  EXPECT_EQ(out.size(), 11u);
  protobuf::Reader r(out);
  protobuf::Record rec;
  ASSERT_TRUE(r.Next(rec));
  EXPECT_EQ(static_cast<int64_t>(rec.value), -1);
  EXPECT_FALSE(r.Next(rec));
  EXPECT_TRUE(r.ok());

  for (size_t n : {0u, 1u, 127u, 128u, 16383u, 16384u, 3000000u}) {
    std::string buf;
    protobuf::Writer nw(buf);
    size_t mark = nw.BeginNested(3);
    buf.append(n, 'z');
    nw.EndNested(mark, false);
    protobuf::Reader nr(buf);
    ASSERT_TRUE(nr.Next(rec)) << n;
    EXPECT_EQ(rec.number, 3);
    EXPECT_EQ(rec.bytes.size(), n);
    EXPECT_FALSE(nr.Next(rec));
    EXPECT_TRUE(nr.ok());
  }
  std::string dropped;
  protobuf::Writer dw(dropped);
  dw.EndNested(dw.BeginNested(2000), true);
  EXPECT_TRUE(dropped.empty());
}

}  // namespace
}  // namespace allot::api
