// Round trips, defaulting, tables and resource registration of the core kinds.
#include "api/core/types.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>
#include <variant>

#include "api/codec/codec.h"
#include "api/core/strategy.h"
#include "api/machinery/resources.h"
#include "api/machinery/scheme.h"

namespace allot::api {
namespace {

// A pod using every modeled field, in Kubernetes' canonical JSON form (quantities canonical,
// the fields Go always writes present).
constexpr char kFullPod[] = R"json({
  "kind": "Pod", "apiVersion": "v1",
  "metadata": {"name": "trainer-0", "namespace": "ml", "uid": "5c1f", "resourceVersion": "42",
               "labels": {"app": "trainer", "tier": "gpu"}, "annotations": {"a": "b"}},
  "spec": {
    "volumes": [
      {"name": "data", "persistentVolumeClaim": {"claimName": "data"}},
      {"name": "scratch", "emptyDir": {"sizeLimit": "1Gi"}},
      {"name": "cfg", "configMap": {"name": "cfg", "defaultMode": 420}},
      {"name": "creds", "secret": {"secretName": "creds"}},
      {"name": "host", "hostPath": {"path": "/dev/shm", "type": ""}},
      {"name": "token", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}},
      {"name": "info", "downwardAPI": {"items": []}},
      {"name": "csi", "csi": {"driver": "csi.example.com"}},
      {"name": "eph", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}
    ],
    "initContainers": [
      {"name": "fetch", "image": "busybox:1.36", "command": ["sh", "-c"], "args": ["wget x"],
       "resources": {}, "terminationMessagePath": "/dev/termination-log",
       "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"},
      {"name": "proxy", "image": "envoy:v1", "restartPolicy": "Always",
       "resources": {"requests": {"cpu": "100m"}},
       "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080}},
       "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
       "imagePullPolicy": "IfNotPresent"}
    ],
    "containers": [
      {"name": "train", "image": "registry.example.com/train:2.1", "command": ["python"],
       "args": ["train.py", "--epochs=3"], "workingDir": "/work",
       "ports": [{"name": "metrics", "hostPort": 9090, "containerPort": 9090,
                  "protocol": "TCP", "hostIP": "0.0.0.0"}],
       "envFrom": [{"configMapRef": {"name": "env"}}],
       "env": [{"name": "MODE", "value": "fast"},
               {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
       "resources": {"limits": {"cpu": "2", "memory": "4Gi", "example.com/gpu": "1"},
                     "requests": {"cpu": "1", "memory": "4Gi", "example.com/gpu": "1"},
                     "claims": [{"name": "gpu", "request": "big"}, {"name": "nic"}]},
       "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}],
       "volumeMounts": [{"name": "data", "readOnly": true, "mountPath": "/data",
                         "subPath": "x", "mountPropagation": "HostToContainer"},
                        {"name": "scratch", "mountPath": "/scratch",
                         "recursiveReadOnly": "Disabled"}],
       "volumeDevices": [{"name": "raw", "devicePath": "/dev/xvda"}],
       "livenessProbe": {"exec": {"command": ["true"]}, "periodSeconds": 10},
       "startupProbe": {"tcpSocket": {"port": 9090}},
       "lifecycle": {"preStop": {"sleep": {"seconds": 5}}},
       "terminationMessagePath": "/dev/termination-log",
       "terminationMessagePolicy": "FallbackToLogsOnError", "imagePullPolicy": "Always",
       "securityContext": {"runAsUser": 1000}, "stdin": true, "stdinOnce": true, "tty": true}
    ],
    "restartPolicy": "OnFailure", "terminationGracePeriodSeconds": 60,
    "activeDeadlineSeconds": 3600, "dnsPolicy": "ClusterFirst",
    "nodeSelector": {"accelerator": "a100"},
    "serviceAccountName": "trainer", "serviceAccount": "trainer",
    "automountServiceAccountToken": false, "nodeName": "node-7",
    "hostNetwork": true, "hostPID": true, "hostIPC": true, "shareProcessNamespace": true,
    "securityContext": {"fsGroup": 2000},
    "imagePullSecrets": [{"name": "regcred"}],
    "hostname": "trainer", "subdomain": "ml",
    "affinity": {
      "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
          {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}],
           "matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["bad"]}]}]},
        "preferredDuringSchedulingIgnoredDuringExecution": [
          {"weight": 10, "preference": {"matchExpressions": [
            {"key": "gen", "operator": "Gt", "values": ["3"]}]}}]},
      "podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
          {"labelSelector": {"matchLabels": {"app": "ps"}}, "namespaces": ["ml"],
           "topologyKey": "topology.kubernetes.io/zone",
           "namespaceSelector": {"matchExpressions": [{"key": "team", "operator": "Exists"}]},
           "matchLabelKeys": ["tier"], "mismatchLabelKeys": ["app"]}],
        "preferredDuringSchedulingIgnoredDuringExecution": [
          {"weight": 50, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "db"}},
                                             "topologyKey": "kubernetes.io/hostname"}}]},
      "podAntiAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
          {"weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "trainer"}},
                                              "topologyKey": "kubernetes.io/hostname"}}]}},
    "schedulerName": "allot",
    "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"},
                    {"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                     "effect": "NoExecute", "tolerationSeconds": 300},
                    {"key": "dedicated", "operator": "Equal", "value": "ml"}],
    "hostAliases": [{"ip": "10.0.0.1", "hostnames": ["ps.local"]}],
    "priorityClassName": "high", "priority": 1000,
    "dnsConfig": {"nameservers": ["1.1.1.1"]},
    "readinessGates": [{"conditionType": "example.com/ready"}],
    "runtimeClassName": "nvidia", "enableServiceLinks": false,
    "preemptionPolicy": "Never", "overhead": {"cpu": "250m"},
    "topologySpreadConstraints": [
      {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
       "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "trainer"}},
       "minDomains": 2, "nodeAffinityPolicy": "Honor", "nodeTaintsPolicy": "Ignore",
       "matchLabelKeys": ["pod-template-hash"]}],
    "setHostnameAsFQDN": true, "os": {"name": "linux"}, "hostUsers": false,
    "schedulingGates": [{"name": "example.com/quota"}],
    "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu-template"},
                       {"name": "nic", "resourceClaimName": "shared-nic"}],
    "resources": {"limits": {"cpu": "4", "memory": "8Gi"}, "requests": {"cpu": "2"}},
    "hostnameOverride": "trainer-host"
  },
  "status": {
    "observedGeneration": 1, "phase": "Running",
    "conditions": [
      {"type": "PodScheduled", "status": "True", "lastProbeTime": null,
       "lastTransitionTime": "2024-05-01T12:00:00Z"},
      {"type": "Ready", "observedGeneration": 1, "status": "False", "lastProbeTime": null,
       "lastTransitionTime": "2024-05-01T12:01:00Z", "reason": "ContainersNotReady",
       "message": "containers with unready status: [train]"}],
    "message": "m", "reason": "r", "nominatedNodeName": "node-8",
    "hostIP": "10.1.0.7", "hostIPs": [{"ip": "10.1.0.7"}],
    "podIP": "10.244.1.5", "podIPs": [{"ip": "10.244.1.5"}, {"ip": "fd00::5"}],
    "startTime": "2024-05-01T12:00:05Z",
    "initContainerStatuses": [
      {"name": "fetch", "state": {"terminated": {"exitCode": 0, "reason": "Completed",
        "startedAt": "2024-05-01T12:00:06Z", "finishedAt": "2024-05-01T12:00:09Z",
        "containerID": "containerd://a"}}, "lastState": {}, "ready": true, "restartCount": 0,
       "image": "busybox:1.36", "imageID": "sha256:1", "containerID": "containerd://a",
       "started": false}],
    "containerStatuses": [
      {"name": "train", "state": {"running": {"startedAt": "2024-05-01T12:00:10Z"}},
       "lastState": {"terminated": {"exitCode": 137, "signal": 9, "reason": "OOMKilled",
         "message": "oom", "startedAt": null, "finishedAt": "2024-05-01T11:59:00Z"}},
       "ready": false, "restartCount": 2, "image": "registry.example.com/train:2.1",
       "imageID": "sha256:2", "containerID": "containerd://b", "started": true,
       "allocatedResources": {"cpu": "1"}, "resources": {"limits": {"cpu": "2"}},
       "volumeMounts": [{"name": "data", "mountPath": "/data"}], "user": {"linux": {"uid": 0}},
       "allocatedResourcesStatus": [{"name": "claim:gpu", "resources": []}],
       "stopSignal": "SIGTERM"},
      {"name": "waiting", "state": {"waiting": {"reason": "ContainerCreating"}},
       "lastState": {}, "ready": false, "restartCount": 0, "image": "x", "imageID": ""}],
    "qosClass": "Burstable",
    "resize": "InProgress",
    "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "trainer-0-gpu-x7k2p"},
                              {"name": "nic"}],
    "extendedResourceClaimStatus": {
      "requestMappings": [{"containerName": "train", "resourceName": "example.com/gpu",
                           "requestName": "container-0-request-0"}],
      "resourceClaimName": "trainer-0-extended-resources-abcde"}
  }
})json";

rapidjson::Document Parse(std::string_view text) {
  rapidjson::Document d;
  d.Parse(text.data(), text.size());
  EXPECT_FALSE(d.HasParseError()) << text;
  return d;
}

// Semantic JSON equality (member order ignored), with the offending texts on failure.
void ExpectSameJson(std::string_view actual, std::string_view expected) {
  rapidjson::Document a = Parse(actual);
  rapidjson::Document e = Parse(expected);
  EXPECT_TRUE(a == e) << "actual:   " << actual << "\nexpected: " << expected;
}

template <class T>
T DecodeStrict(std::string_view json) {
  DecodeOptions opts;
  opts.strict = true;
  opts.expected = &T::Type();
  auto r = DecodeJson(json, opts);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return T{};
  const T* typed = As<T>(*r->object);
  EXPECT_NE(typed, nullptr);
  return typed ? *typed : T{};
}

// decode (strict) -> encode -> decode gives an equal object, and the encoding is the input.
template <class T>
T ExpectRoundTrip(std::string_view json) {
  T first = DecodeStrict<T>(json);
  std::string encoded = EncodeJson(first);
  T second = DecodeStrict<T>(encoded);
  EXPECT_TRUE(first == second) << encoded;
  ExpectSameJson(encoded, json);
  return first;
}

TEST(CoreRoundTripTest, FullPod) {
  Pod pod = ExpectRoundTrip<Pod>(kFullPod);
  EXPECT_EQ(pod.spec.volumes.size(), 9u);
  EXPECT_EQ(pod.spec.volumes[0].SetSources(), std::vector<const char*>{"persistentVolumeClaim"});
  ASSERT_EQ(pod.spec.initContainers.size(), 2u);
  EXPECT_EQ(pod.spec.initContainers[1].rare->restartPolicy, "Always");
  const Container& train = pod.spec.containers.at(0);
  EXPECT_EQ(train.resources.claims,
            (std::vector<ContainerResourceClaim>{{"gpu", "big"}, {"nic", ""}}));
  EXPECT_EQ(train.resources.limits.at("example.com/gpu").Value(), 1);
  EXPECT_EQ(train.env.at(1).valueFrom.json, R"({"fieldRef":{"fieldPath":"metadata.name"}})");
  EXPECT_EQ(pod.spec.resourceClaims.at(0).resourceClaimTemplateName, "gpu-template");
  EXPECT_FALSE(pod.spec.resourceClaims.at(0).resourceClaimName.has_value());
  EXPECT_EQ(pod.spec.affinity->podAffinity->requiredDuringSchedulingIgnoredDuringExecution.at(0)
                .mismatchLabelKeys,
            std::vector<std::string>{"app"});
  EXPECT_EQ(
      pod.spec.affinity->podAntiAffinity->preferredDuringSchedulingIgnoredDuringExecution.at(0)
          .weight,
      100);
  EXPECT_EQ(pod.spec.tolerations.at(1).tolerationSeconds, 300);
  EXPECT_EQ(pod.spec.topologySpreadConstraints.at(0).minDomains, 2);
  EXPECT_EQ(pod.spec.enableServiceLinks, false);
  EXPECT_EQ(pod.status.containerStatuses.at(0).lastState.terminated->exitCode, 137);
  EXPECT_FALSE(pod.status.containerStatuses.at(0).lastState.terminated->startedAt.has_value());
  EXPECT_FALSE(pod.status.conditions.at(0).lastProbeTime.has_value());
  EXPECT_EQ(pod.status.resourceClaimStatuses.at(1).resourceClaimName, std::nullopt);
}

TEST(CoreRoundTripTest, PodWritesGoAlwaysFields) {
  Pod pod;
  pod.metadata.name = "p";
  pod.spec.containers.push_back(Container{.name = "c"});
  pod.spec.containers[0].ports.push_back(ContainerPort{});
  pod.status.conditions.push_back(PodCondition{.type = "Ready", .status = "True"});
  ExpectSameJson(EncodeJson(pod), R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"},
    "spec":{"containers":[{"name":"c","ports":[{"containerPort":0}],"resources":{}}]},
    "status":{"conditions":[{"type":"Ready","status":"True","lastProbeTime":null,
                             "lastTransitionTime":null}]}})");
}

TEST(CoreRoundTripTest, StrictDecodingRejectsUnknownVolumeSource) {
  DecodeOptions opts;
  opts.strict = true;
  opts.expected = &Pod::Type();
  auto r = DecodeJson(R"({"spec":{"volumes":[{"name":"v","bogusSource":{}}]}})", opts);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "strict decoding error: unknown field \"spec.volumes[0].bogusSource\"");
}

TEST(CoreRoundTripTest, Node) {
  Node node = ExpectRoundTrip<Node>(R"json({
    "kind": "Node", "apiVersion": "v1",
    "metadata": {"name": "node-7", "labels": {"node-role.kubernetes.io/worker": ""}},
    "spec": {"podCIDR": "10.244.1.0/24", "podCIDRs": ["10.244.1.0/24", "fd00:1::/64"],
             "providerID": "kind://docker/node-7", "unschedulable": true,
             "taints": [{"key": "gpu", "value": "a100", "effect": "NoSchedule"},
                        {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute",
                         "timeAdded": "2024-05-01T12:00:00Z"}],
             "configSource": {"configMap": {"name": "kc"}}, "externalID": "e"},
    "status": {
      "capacity": {"cpu": "16", "memory": "64Gi", "pods": "110", "example.com/gpu": "8"},
      "allocatable": {"cpu": "15500m", "memory": "63Gi", "pods": "110", "example.com/gpu": "8"},
      "phase": "Running",
      "conditions": [
        {"type": "Ready", "status": "True", "lastHeartbeatTime": "2024-05-01T12:00:00Z",
         "lastTransitionTime": "2024-05-01T10:00:00Z", "reason": "KubeletReady",
         "message": "kubelet is posting ready status"},
        {"type": "MemoryPressure", "status": "False", "lastHeartbeatTime": null,
         "lastTransitionTime": null}],
      "addresses": [{"type": "InternalIP", "address": "10.1.0.7"},
                    {"type": "Hostname", "address": "node-7"}],
      "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
      "nodeInfo": {"machineID": "m", "systemUUID": "s", "bootID": "b", "kernelVersion": "6.1",
                   "osImage": "Ubuntu 24.04", "containerRuntimeVersion": "containerd://1.7",
                   "kubeletVersion": "v1.34.0", "kubeProxyVersion": "", "operatingSystem": "linux",
                   "architecture": "amd64", "swap": {"capacity": 0}},
      "images": [{"names": ["nginx:1.25"], "sizeBytes": 70000000}],
      "volumesInUse": ["kubernetes.io/csi/x"],
      "volumesAttached": [{"name": "kubernetes.io/csi/x", "devicePath": ""}],
      "config": {"active": {}}, "runtimeHandlers": [{"name": "runc"}],
      "features": {"supplementalGroupsPolicy": true}}
  })json");
  EXPECT_TRUE(node.spec.unschedulable);
  EXPECT_EQ(node.spec.taints.at(1).timeAdded, Time::Parse("2024-05-01T12:00:00Z"));
  EXPECT_EQ(node.status.allocatable.at("cpu").MilliValue(), 15500);
  EXPECT_EQ(node.status.nodeInfo.kubeletVersion, "v1.34.0");
  EXPECT_EQ(node.status.images.at(0).sizeBytes, 70000000);
}

TEST(CoreRoundTripTest, NodeInfoIsAlwaysWritten) {
  Node node;
  node.metadata.name = "n";
  ExpectSameJson(EncodeJson(node), R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"n"},
    "spec":{},"status":{"nodeInfo":{"machineID":"","systemUUID":"","bootID":"",
    "kernelVersion":"","osImage":"","containerRuntimeVersion":"","kubeletVersion":"",
    "kubeProxyVersion":"","operatingSystem":"","architecture":""}}})");
}

TEST(CoreRoundTripTest, Event) {
  Event e = ExpectRoundTrip<Event>(R"json({
    "kind": "Event", "apiVersion": "v1",
    "metadata": {"name": "trainer-0.17c8a", "namespace": "ml"},
    "involvedObject": {"kind": "Pod", "namespace": "ml", "name": "trainer-0", "uid": "5c1f",
                       "apiVersion": "v1", "resourceVersion": "42",
                       "fieldPath": "spec.containers{train}"},
    "reason": "FailedScheduling", "message": "0/3 nodes are available",
    "source": {"component": "default-scheduler", "host": "cp-1"},
    "firstTimestamp": "2024-05-01T12:00:00Z", "lastTimestamp": "2024-05-01T12:05:00Z",
    "count": 4, "type": "Warning", "eventTime": "2024-05-01T12:00:00.123456Z",
    "series": {"count": 3, "lastObservedTime": "2024-05-01T12:05:00.500000Z"},
    "action": "Scheduling",
    "related": {"kind": "Node", "name": "node-7", "apiVersion": "v1"},
    "reportingComponent": "default-scheduler", "reportingInstance": "default-scheduler-cp-1"
  })json");
  EXPECT_EQ(e.eventTime->time.unix_micros % 1000000, 123456);
  EXPECT_EQ(e.series->count, 3);
  EXPECT_EQ(e.related->name, "node-7");
}

TEST(CoreRoundTripTest, OldStyleEventWritesNullTimes) {
  Event e;
  e.metadata.name = "x";
  e.involvedObject.kind = "Pod";
  ExpectSameJson(EncodeJson(e), R"({"kind":"Event","apiVersion":"v1","metadata":{"name":"x"},
    "involvedObject":{"kind":"Pod"},"source":{},"firstTimestamp":null,"lastTimestamp":null,
    "eventTime":null,"reportingComponent":"","reportingInstance":""})");
}

TEST(CoreRoundTripTest, Lease) {
  Lease l = ExpectRoundTrip<Lease>(R"json({
    "kind": "Lease", "apiVersion": "coordination.k8s.io/v1",
    "metadata": {"name": "node-7", "namespace": "kube-node-lease"},
    "spec": {"holderIdentity": "node-7", "leaseDurationSeconds": 40,
             "acquireTime": "2024-05-01T12:00:00.000000Z",
             "renewTime": "2024-05-01T12:00:10.250000Z", "leaseTransitions": 0,
             "strategy": "OldestEmulationVersion", "preferredHolder": "node-8"}
  })json");
  EXPECT_EQ(l.spec.leaseTransitions, 0);  // a set zero survives
  EXPECT_EQ(l.spec.renewTime->time.unix_micros % 1000000, 250000);
}

TEST(CoreRoundTripTest, BindingIsRegisteredAsSubresourceKind) {
  auto r = DecodeJson(R"({"apiVersion":"v1","kind":"Binding",
      "metadata":{"name":"p","namespace":"ml","uid":"u"},
      "target":{"apiVersion":"v1","kind":"Node","name":"node-7"}})",
                      {.scheme = &Scheme::Default()});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const Binding* b = As<Binding>(*r->object);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->target.name, "node-7");
  EXPECT_EQ(Scheme::Default().Find("coordination.k8s.io/v1", "Lease"), &Lease::Type());
  EXPECT_EQ(ResourceRegistry::Default().FindByKind("v1", "Binding"), nullptr);
}

// --- defaulting -------------------------------------------------------------------------------

Pod MinimalPod() {
  return DecodeStrict<Pod>(R"({"metadata":{"name":"p","namespace":"default"},
      "spec":{"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80}]}]}})");
}

TEST(CoreDefaultsTest, PodDefaultsMatchTheApiServer) {
  Pod pod = MinimalPod();
  DefaultPod(pod);
  ExpectSameJson(EncodeJson(pod), R"({"kind":"Pod","apiVersion":"v1",
    "metadata":{"name":"p","namespace":"default"},
    "spec":{"containers":[{"name":"c","image":"nginx",
              "ports":[{"containerPort":80,"protocol":"TCP"}],"resources":{},
              "terminationMessagePath":"/dev/termination-log",
              "terminationMessagePolicy":"File","imagePullPolicy":"Always"}],
            "restartPolicy":"Always","terminationGracePeriodSeconds":30,
            "dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler",
            "priority":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},
    "status":{"phase":"Pending","qosClass":"BestEffort"}})");
  Pod again = pod;
  DefaultPod(again);
  EXPECT_TRUE(again == pod) << "defaulting must be idempotent";
}

TEST(CoreDefaultsTest, ExplicitValuesAreKept) {
  Pod pod = MinimalPod();
  pod.spec.restartPolicy = "Never";
  pod.spec.terminationGracePeriodSeconds = 0;
  pod.spec.enableServiceLinks = false;
  pod.spec.schedulerName = "allot";
  pod.spec.priority = 2000001000;
  pod.status.phase = "Running";
  DefaultPod(pod);
  EXPECT_EQ(pod.spec.restartPolicy, "Never");
  EXPECT_EQ(pod.spec.terminationGracePeriodSeconds, 0);
  EXPECT_EQ(pod.spec.enableServiceLinks, false);
  EXPECT_EQ(pod.spec.schedulerName, "allot");
  EXPECT_EQ(pod.spec.priority, 2000001000);
  EXPECT_EQ(pod.status.phase, "Running");
}

TEST(CoreDefaultsTest, RequestsDefaultToLimitsAndQoS) {
  Pod pod = MinimalPod();
  pod.spec.containers[0].resources.limits = {{"cpu", Quantity::FromInt(1)},
                                             {"memory", *Quantity::Parse("1Gi")}};
  DefaultPod(pod);
  EXPECT_EQ(pod.spec.containers[0].resources.requests, pod.spec.containers[0].resources.limits);
  EXPECT_EQ(pod.status.qosClass, "Guaranteed");

  Pod burstable = MinimalPod();
  burstable.spec.containers[0].resources.requests = {{"cpu", Quantity::FromMilli(100)}};
  EXPECT_EQ(ComputePodQOS(burstable), "Burstable");

  // An init container without limits makes an otherwise guaranteed pod burstable.
  Pod with_init = pod;
  with_init.spec.initContainers.push_back(Container{.name = "i", .image = "busybox"});
  with_init.spec.initContainers[0].resources.requests = {{"cpu", Quantity::FromMilli(100)}};
  EXPECT_EQ(ComputePodQOS(with_init), "Burstable");

  // Only cpu and memory count; zero quantities are ignored.
  Pod best = MinimalPod();
  best.spec.containers[0].resources.requests = {{"example.com/gpu", Quantity::FromInt(1)},
                                                {"cpu", Quantity::FromInt(0)}};
  EXPECT_EQ(ComputePodQOS(best), "BestEffort");

  // Pod-level resources decide when present.
  Pod pod_level = MinimalPod();
  pod_level.spec.resources = ResourceRequirements{};
  pod_level.spec.resources->limits = {{"cpu", Quantity::FromInt(2)},
                                      {"memory", *Quantity::Parse("2Gi")}};
  DefaultPod(pod_level);
  EXPECT_EQ(pod_level.spec.resources->requests, pod_level.spec.resources->limits);
  EXPECT_EQ(pod_level.status.qosClass, "Guaranteed");
}

TEST(CoreDefaultsTest, HostNetworkVolumesAndGates) {
  Pod pod = MinimalPod();
  pod.spec.hostNetwork = true;
  pod.spec.volumes.push_back(Volume{.name = "v"});
  pod.spec.schedulingGates.push_back({"example.com/wait"});
  DefaultPod(pod);
  EXPECT_EQ(pod.spec.containers[0].ports[0].hostPort, 80);
  EXPECT_EQ(pod.spec.volumes[0].emptyDir.json, "{}");
  ASSERT_EQ(pod.status.conditions.size(), 1u);
  EXPECT_EQ(pod.status.conditions[0].type, "PodScheduled");
  EXPECT_EQ(pod.status.conditions[0].status, "False");
  EXPECT_EQ(pod.status.conditions[0].reason, "SchedulingGated");
  EXPECT_EQ(pod.status.conditions[0].message,
            "Scheduling is blocked due to non-empty scheduling gates");
  DefaultPod(pod);
  EXPECT_EQ(pod.status.conditions.size(), 1u);
}

TEST(CoreDefaultsTest, MatchLabelKeysMergeIntoSelectorOnce) {
  Pod pod = MinimalPod();
  pod.metadata.labels = {{"app", "web"}, {"hash", "abc"}};
  PodAffinityTerm term;
  term.labelSelector = LabelSelector{.matchLabels = {{"app", "web"}}};
  term.topologyKey = "kubernetes.io/hostname";
  term.matchLabelKeys = {"hash", "missing"};
  term.mismatchLabelKeys = {"app"};
  PodAffinityTerm no_selector = term;
  no_selector.labelSelector.reset();
  pod.spec.affinity = Affinity{};
  pod.spec.affinity->podAntiAffinity = PodAntiAffinity{};
  pod.spec.affinity->podAntiAffinity->requiredDuringSchedulingIgnoredDuringExecution = {
      term, no_selector};
  DefaultPod(pod);
  DefaultPod(pod);
  const auto& terms =
      pod.spec.affinity->podAntiAffinity->requiredDuringSchedulingIgnoredDuringExecution;
  EXPECT_EQ(
      terms[0].labelSelector->matchExpressions,
      (std::vector<LabelSelectorRequirement>{{"hash", "In", {"abc"}}, {"app", "NotIn", {"web"}}}));
  EXPECT_FALSE(terms[1].labelSelector.has_value());
}

TEST(CoreDefaultsTest, NodeAllocatableDefaultsToCapacity) {
  Node node;
  node.status.capacity = {{"cpu", Quantity::FromInt(8)}};
  node.spec.podCIDR = "10.0.0.0/24";
  DefaultNode(node);
  EXPECT_EQ(node.status.allocatable, node.status.capacity);
  EXPECT_EQ(node.spec.podCIDRs, std::vector<std::string>{"10.0.0.0/24"});
}

// --- registration, field selectors, tables ----------------------------------------------------

TEST(CoreResourcesTest, Registration) {
  const ResourceRegistry& reg = ResourceRegistry::Default();
  const ResourceInfo* pods = reg.Find("", "v1", "pods");
  ASSERT_NE(pods, nullptr);
  EXPECT_EQ(pods->short_names, std::vector<std::string>{"po"});
  EXPECT_EQ(pods->categories, std::vector<std::string>{"all"});
  EXPECT_TRUE(pods->status_subresource);
  EXPECT_EQ(pods->extra_subresources, (std::vector<std::string>{"binding", "eviction"}));
  const ResourceInfo* nodes = reg.Find("", "v1", "nodes");
  ASSERT_NE(nodes, nullptr);
  EXPECT_FALSE(nodes->namespaced);
  EXPECT_EQ(nodes->short_names, std::vector<std::string>{"no"});
  const ResourceInfo* events = reg.Find("", "v1", "events");
  ASSERT_NE(events, nullptr);
  EXPECT_EQ(events->short_names, std::vector<std::string>{"ev"});
  const ResourceInfo* leases = reg.Find("coordination.k8s.io", "v1", "leases");
  ASSERT_NE(leases, nullptr);
  EXPECT_TRUE(leases->namespaced);
  EXPECT_EQ(leases->QualifiedResource(), "leases.coordination.k8s.io");
  ASSERT_NE(reg.Find("", "v1", "namespaces"), nullptr);
}

TEST(CoreResourcesTest, FieldValues) {
  Pod pod = MinimalPod();
  pod.spec.nodeName = "n1";
  pod.spec.hostNetwork = true;
  pod.status.podIP = "10.0.0.9";
  const ResourceInfo* pods = ResourceRegistry::Default().Find("", "v1", "pods");
  for (const std::string& f : pods->field_labels) {
    EXPECT_TRUE(pods->field_value(pod, f).has_value()) << f;
  }
  EXPECT_EQ(pods->field_value(pod, "spec.nodeName"), "n1");
  EXPECT_EQ(pods->field_value(pod, "spec.hostNetwork"), "true");
  EXPECT_EQ(pods->field_value(pod, "status.podIP"), "10.0.0.9");
  EXPECT_EQ(pods->field_value(pod, "spec.bogus"), std::nullopt);

  Node node;
  EXPECT_EQ(NodeFieldValue(node, "spec.unschedulable"), "false");

  Event e;
  e.involvedObject = {.kind = "Pod", .namespace_ = "ml", .name = "p", .uid = "u"};
  e.reportingComponent = "kubelet";
  const ResourceInfo* events = ResourceRegistry::Default().Find("", "v1", "events");
  for (const std::string& f : events->field_labels) {
    EXPECT_TRUE(events->field_value(e, f).has_value()) << f;
  }
  EXPECT_EQ(EventFieldValue(e, "involvedObject.uid"), "u");
  EXPECT_EQ(EventFieldValue(e, "source"), "kubelet");  // falls back to reportingComponent
}

std::vector<TableCell> Cells(std::initializer_list<TableCell> cells) { return cells; }

TEST(CoreTablesTest, PodRows) {
  Time now = *Time::Parse("2024-05-01T13:00:00Z");
  Pod pod = DecodeStrict<Pod>(kFullPod);
  pod.metadata.creationTimestamp = *Time::Parse("2024-05-01T12:00:00Z");
  // The last container status is waiting (ContainerCreating); containers are read last to first.
  EXPECT_EQ(PodRow(pod, now), Cells({"0/2", "ContainerCreating", "2 (61m ago)", "60m", "10.244.1.5",
                                     "node-7", "node-8", "0/1"}));
  EXPECT_EQ(PodColumns().size(), PodRow(pod, now).size());

  Pod pending = MinimalPod();
  DefaultPod(pending);
  EXPECT_EQ(PodRow(pending, now),
            Cells({"0/1", "Pending", "0", "<unknown>", "<none>", "<none>", "<none>", "<none>"}));

  Pod running = pending;
  running.status.phase = "Running";
  running.status.containerStatuses.push_back(
      {.name = "c", .state = {.running = ContainerStateRunning{}}, .ready = true});
  EXPECT_EQ(PodStatusText(running), "Running");
  EXPECT_EQ(std::get<std::string>(PodRow(running, now)[0]), "1/1");
  running.metadata.rare.edit().deletionTimestamp = now;
  EXPECT_EQ(PodStatusText(running), "Terminating");

  Pod crash = pending;
  crash.status.phase = "Running";
  crash.status.containerStatuses.push_back(
      {.name = "c",
       .state = {.waiting = ContainerStateWaiting{"CrashLoopBackOff", ""}},
       .restartCount = 5});
  EXPECT_EQ(PodStatusText(crash), "CrashLoopBackOff");

  Pod init = pending;
  init.spec.initContainers.push_back({.name = "i", .image = "busybox"});
  init.status.rare.edit().initContainerStatuses.push_back({.name = "i"});
  EXPECT_EQ(PodStatusText(init), "Init:0/1");

  Pod gated = pending;
  gated.spec.schedulingGates.push_back({"g"});
  DefaultPod(gated);
  EXPECT_EQ(PodStatusText(gated), "SchedulingGated");

  Pod done = pending;
  done.status.phase = "Succeeded";
  done.status.containerStatuses.push_back(
      {.name = "c", .state = {.terminated = ContainerStateTerminated{.reason = "Completed"}}});
  done.metadata.rare.edit().deletionTimestamp = now;  // terminal pods do not show Terminating
  EXPECT_EQ(PodStatusText(done), "Completed");

  Pod killed = pending;
  killed.status.containerStatuses.push_back(
      {.name = "c",
       .state = {.terminated = ContainerStateTerminated{.exitCode = 137, .signal = 9}}});
  EXPECT_EQ(PodStatusText(killed), "Signal:9");
}

TEST(CoreTablesTest, NodeRows) {
  Time now = *Time::Parse("2024-05-03T12:00:00Z");
  Node node;
  node.metadata.name = "n";
  node.metadata.creationTimestamp = *Time::Parse("2024-05-01T12:00:00Z");
  node.metadata.labels = {{"node-role.kubernetes.io/worker", ""},
                          {"node-role.kubernetes.io/control-plane", ""},
                          {"kubernetes.io/role", "gpu"}};
  node.spec.unschedulable = true;
  node.status.conditions.push_back({.type = "Ready", .status = "True"});
  node.status.addresses.push_back({"InternalIP", "10.0.0.7"});
  node.status.nodeInfo.kubeletVersion = "v1.34.0";
  EXPECT_EQ(NodeRow(node, now),
            Cells({"Ready,SchedulingDisabled", "control-plane,gpu,worker", "2d", "v1.34.0",
                   "10.0.0.7", "<none>", "<unknown>", "<unknown>", "<unknown>"}));
  EXPECT_EQ(NodeColumns().size(), NodeRow(node, now).size());

  node.status.conditions[0].status = "Unknown";
  node.spec.unschedulable = false;
  EXPECT_EQ(NodeStatusText(node), "NotReady");
  node.status.conditions.clear();
  node.metadata.labels.clear();
  EXPECT_EQ(NodeStatusText(node), "Unknown");
  EXPECT_EQ(NodeRoles(node), "<none>");
}

TEST(CoreTablesTest, EventLeaseAndNamespaceRows) {
  Time now = *Time::Parse("2024-05-01T12:10:00Z");
  Event e;
  e.involvedObject = {.kind = "Pod", .name = "trainer-0", .fieldPath = "spec.containers{a}"};
  e.reason = "FailedScheduling";
  e.message = "  0/3 nodes are available\n";
  e.type = "Warning";
  e.source.component = "default-scheduler";
  e.firstTimestamp = *Time::Parse("2024-05-01T12:00:00Z");
  e.lastTimestamp = *Time::Parse("2024-05-01T12:05:00Z");
  e.count = 3;
  EXPECT_EQ(EventRow(e, now),
            Cells({"5m", "Warning", "FailedScheduling", "pod/trainer-0", "spec.containers{a}",
                   "default-scheduler", "0/3 nodes are available", "10m", int64_t{3}, ""}));
  EXPECT_EQ(EventColumns().size(), EventRow(e, now).size());

  Event fresh;  // events.k8s.io style: eventTime + series, no count
  fresh.involvedObject.kind = "Node";
  fresh.eventTime = MicroTime{*Time::Parse("2024-05-01T12:09:00Z")};
  fresh.reportingComponent = "kubelet";
  fresh.reportingInstance = "node-1";
  auto row = EventRow(fresh, now);
  EXPECT_EQ(row[0], TableCell{"60s"});
  EXPECT_EQ(row[3], TableCell{"node"});
  EXPECT_EQ(row[5], TableCell{"kubelet, node-1"});
  EXPECT_EQ(row[8], TableCell{int64_t{1}});

  Lease l;
  l.spec.holderIdentity = "node-7";
  EXPECT_EQ(LeaseRow(l, now), Cells({"node-7", "<unknown>"}));

  Namespace ns;
  ns.metadata.name = "ml";
  DefaultNamespace(ns);
  EXPECT_EQ(NamespaceRow(ns, now), Cells({"Active", "<unknown>"}));
  EXPECT_EQ(ns.metadata.labels.at("kubernetes.io/metadata.name"), "ml");
}

}  // namespace
}  // namespace allot::api
