// core/v1 Pod and Binding (k8s.io/api core/v1/types.go, Kubernetes 1.34).
//
// Every field a scheduler, kubelet or kubectl user touches is typed, in Kubernetes' order and
// with its JSON name; subtrees Allot does not interpret (probes, security contexts, volume
// sources, env valueFrom, ...) are kept verbatim as RawJson. Go pointers are std::optional, so
// "unset" and "zero" stay distinct; rarely set structs are Boxed, and the fields most pods leave
// unset are grouped in a Rare part (both out of line, the same on the wire: api/machinery/
// boxed.h, rare.h). Strategic-merge tags mirror Kubernetes' patchMergeKey /
// patchStrategy / listType markers. Include through api/core/types.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/machinery/boxed.h"
#include "api/machinery/field.h"
#include "api/machinery/meta.h"
#include "api/machinery/object.h"
#include "api/machinery/rare.h"

namespace allot::api {

// --- containers -------------------------------------------------------------------------------

struct ContainerPort {
  std::string name;
  int32_t hostPort = 0;
  int32_t containerPort = 0;
  InternedString protocol;  // TCP (default) | UDP | SCTP
  std::string hostIP;
  template <class V> void Visit(V& v) {
    v("name", name);
    v("hostPort", hostPort);
    v("containerPort", containerPort, {.always = true, .required = true});
    v("protocol", protocol);
    v("hostIP", hostIP);
  }
  bool operator==(const ContainerPort&) const = default;
};

struct EnvVar {
  std::string name;
  std::string value;
  RawJson valueFrom;  // EnvVarSource
  template <class V> void Visit(V& v) {
    v("name", name, {.always = true, .required = true});
    v("value", value);
    v("valueFrom", valueFrom);
  }
  bool operator==(const EnvVar&) const = default;
};

// core/v1 ResourceClaim: one entry of container.resources.claims (a name from
// pod.spec.resourceClaims, optionally narrowed to one request). Not the resource.k8s.io kind.
struct ContainerResourceClaim {
  InternedString name;
  InternedString request;
  template <class V> void Visit(V& v) {
    v("name", name, {.always = true, .required = true});
    v("request", request);
  }
  bool operator==(const ContainerResourceClaim&) const = default;
};

struct ResourceRequirements {
  ResourceList limits;
  ResourceList requests;
  std::vector<ContainerResourceClaim> claims;  // listType=map, key name
  template <class V> void Visit(V& v) {
    v("limits", limits);
    v("requests", requests);
    v("claims", claims);
  }
  bool operator==(const ResourceRequirements&) const = default;
};

struct ContainerResizePolicy {
  std::string resourceName;
  std::string restartPolicy;  // NotRequired | RestartContainer
  template <class V> void Visit(V& v) {
    v("resourceName", resourceName, {.always = true, .required = true});
    v("restartPolicy", restartPolicy, {.always = true, .required = true});
  }
  bool operator==(const ContainerResizePolicy&) const = default;
};

struct VolumeMount {
  std::string name;
  bool readOnly = false;
  std::optional<std::string> recursiveReadOnly;
  std::string mountPath;
  std::string subPath;
  std::optional<std::string> mountPropagation;
  std::string subPathExpr;
  template <class V> void Visit(V& v) {
    v("name", name, {.always = true, .required = true});
    v("readOnly", readOnly);
    v("recursiveReadOnly", recursiveReadOnly);
    v("mountPath", mountPath, {.always = true, .required = true});
    v("subPath", subPath);
    v("mountPropagation", mountPropagation);
    v("subPathExpr", subPathExpr);
  }
  bool operator==(const VolumeMount&) const = default;
};

struct VolumeDevice {
  std::string name;
  std::string devicePath;
  template <class V> void Visit(V& v) {
    v("name", name, {.always = true, .required = true});
    v("devicePath", devicePath, {.always = true, .required = true});
  }
  bool operator==(const VolumeDevice&) const = default;
};

// Used for containers and init containers (ephemeral containers are kept as RawJson).
// The fields of a Container that most containers leave unset, kept out of line
// (api/machinery/rare.h): Container::rare.
struct ContainerRare {
  std::string workingDir;
  std::vector<RawJson> envFrom;  // EnvFromSource
  std::vector<ContainerResizePolicy> resizePolicy;
  // Init containers only: "Always" makes it a sidecar (restartable init container).
  std::optional<std::string> restartPolicy;
  std::vector<RawJson> restartPolicyRules;  // ContainerRestartRule (alpha)
  std::vector<VolumeDevice> volumeDevices;
  RawJson livenessProbe;
  RawJson readinessProbe;
  RawJson startupProbe;
  RawJson lifecycle;
  bool stdin = false;
  bool stdinOnce = false;
  bool tty = false;
  bool operator==(const ContainerRare&) const = default;
};

struct Container {
  InternedString name;
  InternedString image;
  std::vector<std::string> command;
  std::vector<std::string> args;
  std::vector<ContainerPort> ports;
  std::vector<EnvVar> env;
  ResourceRequirements resources;
  std::vector<VolumeMount> volumeMounts;
  InternedString terminationMessagePath;    // default /dev/termination-log
  InternedString terminationMessagePolicy;  // File (default) | FallbackToLogsOnError
  InternedString imagePullPolicy;           // Always | IfNotPresent | Never
  RawJson securityContext;
  Rare<ContainerRare> rare;  // workingDir, envFrom, probes, lifecycle, stdin, ...

  template <class V> void Visit(V& v) {
    using R = ContainerRare;
    v("name", name, {.always = true, .required = true});
    v("image", image);
    v("command", command, {.atomic = true});
    v("args", args, {.atomic = true});
    VisitRare(v, "workingDir", rare, &R::workingDir);
    v("ports", ports, {.merge_key = "containerPort"});
    VisitRare(v, "envFrom", rare, &R::envFrom, {.atomic = true});
    v("env", env, {.merge_key = "name"});
    v("resources", resources);
    VisitRare(v, "resizePolicy", rare, &R::resizePolicy, {.atomic = true});
    VisitRare(v, "restartPolicy", rare, &R::restartPolicy);
    VisitRare(v, "restartPolicyRules", rare, &R::restartPolicyRules, {.atomic = true});
    v("volumeMounts", volumeMounts, {.merge_key = "mountPath"});
    VisitRare(v, "volumeDevices", rare, &R::volumeDevices, {.merge_key = "devicePath"});
    VisitRare(v, "livenessProbe", rare, &R::livenessProbe);
    VisitRare(v, "readinessProbe", rare, &R::readinessProbe);
    VisitRare(v, "startupProbe", rare, &R::startupProbe);
    VisitRare(v, "lifecycle", rare, &R::lifecycle);
    v("terminationMessagePath", terminationMessagePath);
    v("terminationMessagePolicy", terminationMessagePolicy);
    v("imagePullPolicy", imagePullPolicy);
    v("securityContext", securityContext);
    VisitRare(v, "stdin", rare, &R::stdin);
    VisitRare(v, "stdinOnce", rare, &R::stdinOnce);
    VisitRare(v, "tty", rare, &R::tty);
  }
  bool operator==(const Container&) const = default;
};

// --- volumes ----------------------------------------------------------------------------------

// A pod volume: the name is typed, each volume source is kept verbatim. Exactly one source is
// set (validation checks this). All core/v1 VolumeSource members are listed so strict decoding
// accepts every valid volume.
struct Volume {
  std::string name;
  RawJson hostPath;
  RawJson emptyDir;
  RawJson gcePersistentDisk;
  RawJson awsElasticBlockStore;
  RawJson gitRepo;
  RawJson secret;
  RawJson nfs;
  RawJson iscsi;
  RawJson glusterfs;
  RawJson persistentVolumeClaim;
  RawJson rbd;
  RawJson flexVolume;
  RawJson cinder;
  RawJson cephfs;
  RawJson flocker;
  RawJson downwardAPI;
  RawJson fc;
  RawJson azureFile;
  RawJson configMap;
  RawJson vsphereVolume;
  RawJson quobyte;
  RawJson azureDisk;
  RawJson photonPersistentDisk;
  RawJson projected;
  RawJson portworxVolume;
  RawJson scaleIO;
  RawJson storageos;
  RawJson csi;
  RawJson ephemeral;
  RawJson image;

  template <class V> void Visit(V& v) {
    v("name", name, {.always = true, .required = true});
    v("hostPath", hostPath);
    v("emptyDir", emptyDir);
    v("gcePersistentDisk", gcePersistentDisk);
    v("awsElasticBlockStore", awsElasticBlockStore);
    v("gitRepo", gitRepo);
    v("secret", secret);
    v("nfs", nfs);
    v("iscsi", iscsi);
    v("glusterfs", glusterfs);
    v("persistentVolumeClaim", persistentVolumeClaim);
    v("rbd", rbd);
    v("flexVolume", flexVolume);
    v("cinder", cinder);
    v("cephfs", cephfs);
    v("flocker", flocker);
    v("downwardAPI", downwardAPI);
    v("fc", fc);
    v("azureFile", azureFile);
    v("configMap", configMap);
    v("vsphereVolume", vsphereVolume);
    v("quobyte", quobyte);
    v("azureDisk", azureDisk);
    v("photonPersistentDisk", photonPersistentDisk);
    v("projected", projected);
    v("portworxVolume", portworxVolume);
    v("scaleIO", scaleIO);
    v("storageos", storageos);
    v("csi", csi);
    v("ephemeral", ephemeral);
    v("image", image);
  }
  bool operator==(const Volume&) const = default;
  // The JSON names of the sources that are set, in declaration order.
  std::vector<const char*> SetSources() const;
};

// --- affinity ---------------------------------------------------------------------------------

struct PreferredSchedulingTerm {
  int32_t weight = 0;  // 1-100
  NodeSelectorTerm preference;
  template <class V> void Visit(V& v) {
    v("weight", weight, {.always = true, .required = true});
    v("preference", preference, {.required = true});
  }
  bool operator==(const PreferredSchedulingTerm&) const = default;
};

struct NodeAffinity {
  std::optional<NodeSelector> requiredDuringSchedulingIgnoredDuringExecution;
  std::vector<PreferredSchedulingTerm> preferredDuringSchedulingIgnoredDuringExecution;
  template <class V> void Visit(V& v) {
    v("requiredDuringSchedulingIgnoredDuringExecution",
      requiredDuringSchedulingIgnoredDuringExecution);
    v("preferredDuringSchedulingIgnoredDuringExecution",
      preferredDuringSchedulingIgnoredDuringExecution, {.atomic = true});
  }
  bool operator==(const NodeAffinity&) const = default;
};

struct PodAffinityTerm {
  std::optional<LabelSelector> labelSelector;
  std::vector<std::string> namespaces;
  std::string topologyKey;
  std::optional<LabelSelector> namespaceSelector;
  std::vector<std::string> matchLabelKeys;
  std::vector<std::string> mismatchLabelKeys;
  template <class V> void Visit(V& v) {
    v("labelSelector", labelSelector);
    v("namespaces", namespaces, {.atomic = true});
    v("topologyKey", topologyKey, {.always = true, .required = true});
    v("namespaceSelector", namespaceSelector);
    v("matchLabelKeys", matchLabelKeys, {.atomic = true});
    v("mismatchLabelKeys", mismatchLabelKeys, {.atomic = true});
  }
  bool operator==(const PodAffinityTerm&) const = default;
};

struct WeightedPodAffinityTerm {
  int32_t weight = 0;  // 1-100
  PodAffinityTerm podAffinityTerm;
  template <class V> void Visit(V& v) {
    v("weight", weight, {.always = true, .required = true});
    v("podAffinityTerm", podAffinityTerm, {.required = true});
  }
  bool operator==(const WeightedPodAffinityTerm&) const = default;
};

struct PodAffinity {
  std::vector<PodAffinityTerm> requiredDuringSchedulingIgnoredDuringExecution;
  std::vector<WeightedPodAffinityTerm> preferredDuringSchedulingIgnoredDuringExecution;
  template <class V> void Visit(V& v) {
    v("requiredDuringSchedulingIgnoredDuringExecution",
      requiredDuringSchedulingIgnoredDuringExecution, {.atomic = true});
    v("preferredDuringSchedulingIgnoredDuringExecution",
      preferredDuringSchedulingIgnoredDuringExecution, {.atomic = true});
  }
  bool operator==(const PodAffinity&) const = default;
};

// Same shape as PodAffinity; a distinct type as in Kubernetes.
struct PodAntiAffinity : PodAffinity {
  bool operator==(const PodAntiAffinity&) const = default;
};

struct Affinity {
  std::optional<NodeAffinity> nodeAffinity;
  std::optional<PodAffinity> podAffinity;
  std::optional<PodAntiAffinity> podAntiAffinity;
  template <class V> void Visit(V& v) {
    v("nodeAffinity", nodeAffinity);
    v("podAffinity", podAffinity);
    v("podAntiAffinity", podAntiAffinity);
  }
  bool operator==(const Affinity&) const = default;
};

struct TopologySpreadConstraint {
  int32_t maxSkew = 0;
  std::string topologyKey;
  std::string whenUnsatisfiable;  // DoNotSchedule | ScheduleAnyway
  std::optional<LabelSelector> labelSelector;
  std::optional<int32_t> minDomains;
  std::optional<std::string> nodeAffinityPolicy;  // Honor | Ignore
  std::optional<std::string> nodeTaintsPolicy;    // Honor | Ignore
  std::vector<std::string> matchLabelKeys;
  template <class V> void Visit(V& v) {
    v("maxSkew", maxSkew, {.always = true, .required = true});
    v("topologyKey", topologyKey, {.always = true, .required = true});
    v("whenUnsatisfiable", whenUnsatisfiable, {.always = true, .required = true});
    v("labelSelector", labelSelector);
    v("minDomains", minDomains);
    v("nodeAffinityPolicy", nodeAffinityPolicy);
    v("nodeTaintsPolicy", nodeTaintsPolicy);
    v("matchLabelKeys", matchLabelKeys, {.atomic = true});
  }
  bool operator==(const TopologySpreadConstraint&) const = default;
};

// --- small pod spec entries -------------------------------------------------------------------

// pod.spec.resourceClaims[]: exactly one of resourceClaimName / resourceClaimTemplateName.
struct PodResourceClaim {
  InternedString name;
  std::optional<std::string> resourceClaimName;
  std::optional<InternedString> resourceClaimTemplateName;
  template <class V> void Visit(V& v) {
    v("name", name, {.always = true, .required = true});
    v("resourceClaimName", resourceClaimName);
    v("resourceClaimTemplateName", resourceClaimTemplateName);
  }
  bool operator==(const PodResourceClaim&) const = default;
};

struct PodSchedulingGate {
  std::string name;
  template <class V> void Visit(V& v) { v("name", name, {.always = true, .required = true}); }
  bool operator==(const PodSchedulingGate&) const = default;
};

struct LocalObjectReference {
  std::string name;
  template <class V> void Visit(V& v) { v("name", name); }
  bool operator==(const LocalObjectReference&) const = default;
};

struct PodReadinessGate {
  std::string conditionType;
  template <class V> void Visit(V& v) {
    v("conditionType", conditionType, {.always = true, .required = true});
  }
  bool operator==(const PodReadinessGate&) const = default;
};

struct PodOS {
  std::string name;  // linux | windows
  template <class V> void Visit(V& v) { v("name", name, {.always = true, .required = true}); }
  bool operator==(const PodOS&) const = default;
};

struct HostAlias {
  std::string ip;
  std::vector<std::string> hostnames;
  template <class V> void Visit(V& v) {
    v("ip", ip, {.always = true, .required = true});
    v("hostnames", hostnames, {.atomic = true});
  }
  bool operator==(const HostAlias&) const = default;
};

// --- PodSpec ----------------------------------------------------------------------------------

// The fields of a PodSpec that most pods leave unset, kept out of line (api/machinery/rare.h):
// PodSpec::rare.
struct PodSpecRare {
  std::vector<RawJson> ephemeralContainers;  // EphemeralContainer, via pods/ephemeralcontainers
  std::optional<int64_t> activeDeadlineSeconds;
  std::string serviceAccount;  // deprecated alias of serviceAccountName
  std::optional<bool> automountServiceAccountToken;
  std::optional<bool> shareProcessNamespace;
  std::optional<bool> setHostnameAsFQDN;
  std::optional<bool> hostUsers;
  std::vector<LocalObjectReference> imagePullSecrets;
  std::string hostname;
  std::string subdomain;
  std::vector<HostAlias> hostAliases;
  RawJson dnsConfig;
  std::vector<PodReadinessGate> readinessGates;
  std::optional<std::string> runtimeClassName;
  ResourceList overhead;
  std::optional<std::string> hostnameOverride;
  bool operator==(const PodSpecRare&) const = default;
};

struct PodSpec {
  std::vector<Volume> volumes;
  std::vector<Container> initContainers;
  std::vector<Container> containers;
  InternedString restartPolicy;  // Always (default) | OnFailure | Never
  std::optional<int64_t> terminationGracePeriodSeconds;
  InternedString dnsPolicy;  // ClusterFirst (default) | ClusterFirstWithHostNet | Default | None
  StringMap nodeSelector;
  InternedString serviceAccountName;
  std::string nodeName;
  bool hostNetwork = false;
  bool hostPID = false;
  bool hostIPC = false;
  std::optional<bool> enableServiceLinks;
  std::optional<int32_t> priority;
  RawJson securityContext;  // PodSecurityContext
  Boxed<Affinity> affinity;
  InternedString schedulerName;  // default-scheduler (default)
  std::vector<Toleration> tolerations;
  InternedString priorityClassName;
  std::optional<InternedString> preemptionPolicy;  // PreemptLowerPriority | Never
  std::vector<TopologySpreadConstraint> topologySpreadConstraints;
  Boxed<PodOS> os;
  std::vector<PodSchedulingGate> schedulingGates;
  std::vector<PodResourceClaim> resourceClaims;
  Boxed<ResourceRequirements> resources;  // pod-level resources
  Rare<PodSpecRare> rare;  // hostname, hostAliases, dnsConfig, overhead, readinessGates, ...

  template <class V> void Visit(V& v) {
    using R = PodSpecRare;
    v("volumes", volumes, {.merge_key = "name"});
    v("initContainers", initContainers, {.merge_key = "name"});
    v("containers", containers, {.merge_key = "name", .required = true});
    VisitRare(v, "ephemeralContainers", rare, &R::ephemeralContainers, {.merge_key = "name"});
    v("restartPolicy", restartPolicy);
    v("terminationGracePeriodSeconds", terminationGracePeriodSeconds);
    VisitRare(v, "activeDeadlineSeconds", rare, &R::activeDeadlineSeconds);
    v("dnsPolicy", dnsPolicy);
    v("nodeSelector", nodeSelector, {.atomic = true});
    v("serviceAccountName", serviceAccountName);
    VisitRare(v, "serviceAccount", rare, &R::serviceAccount);
    VisitRare(v, "automountServiceAccountToken", rare, &R::automountServiceAccountToken);
    v("nodeName", nodeName);
    v("hostNetwork", hostNetwork);
    v("hostPID", hostPID);
    v("hostIPC", hostIPC);
    VisitRare(v, "shareProcessNamespace", rare, &R::shareProcessNamespace);
    v("securityContext", securityContext);
    VisitRare(v, "imagePullSecrets", rare, &R::imagePullSecrets, {.merge_key = "name"});
    VisitRare(v, "hostname", rare, &R::hostname);
    VisitRare(v, "subdomain", rare, &R::subdomain);
    v("affinity", affinity);
    v("schedulerName", schedulerName);
    v("tolerations", tolerations, {.atomic = true});
    VisitRare(v, "hostAliases", rare, &R::hostAliases, {.merge_key = "ip"});
    v("priorityClassName", priorityClassName);
    v("priority", priority);
    VisitRare(v, "dnsConfig", rare, &R::dnsConfig);
    VisitRare(v, "readinessGates", rare, &R::readinessGates, {.atomic = true});
    VisitRare(v, "runtimeClassName", rare, &R::runtimeClassName);
    v("enableServiceLinks", enableServiceLinks);
    v("preemptionPolicy", preemptionPolicy);
    VisitRare(v, "overhead", rare, &R::overhead);
    v("topologySpreadConstraints", topologySpreadConstraints, {.merge_key = "topologyKey"});
    VisitRare(v, "setHostnameAsFQDN", rare, &R::setHostnameAsFQDN);
    v("os", os);
    VisitRare(v, "hostUsers", rare, &R::hostUsers);
    v("schedulingGates", schedulingGates, {.merge_key = "name"});
    v("resourceClaims", resourceClaims, {.merge_key = "name"});
    v("resources", resources);
    VisitRare(v, "hostnameOverride", rare, &R::hostnameOverride);
  }
  bool operator==(const PodSpec&) const = default;
};

// --- PodStatus --------------------------------------------------------------------------------

struct PodCondition {
  InternedString type;  // PodScheduled | Initialized | ContainersReady | Ready | ...
  int64_t observedGeneration = 0;
  InternedString status;                   // True | False | Unknown
  std::optional<Time> lastProbeTime;       // written as null when unset, as Go does
  std::optional<Time> lastTransitionTime;  // written as null when unset, as Go does
  InternedString reason;
  std::string message;
  template <class V> void Visit(V& v) {
    v("type", type, {.always = true, .required = true});
    v("observedGeneration", observedGeneration);
    v("status", status, {.always = true, .required = true});
    v("lastProbeTime", lastProbeTime, {.always = true});
    v("lastTransitionTime", lastTransitionTime, {.always = true});
    v("reason", reason);
    v("message", message);
  }
  bool operator==(const PodCondition&) const = default;
};

struct HostIP {
  std::string ip;
  template <class V> void Visit(V& v) { v("ip", ip, {.always = true, .required = true}); }
  bool operator==(const HostIP&) const = default;
};

struct PodIP {
  std::string ip;
  template <class V> void Visit(V& v) { v("ip", ip, {.always = true, .required = true}); }
  bool operator==(const PodIP&) const = default;
};

struct ContainerStateWaiting {
  std::string reason;  // ContainerCreating, CrashLoopBackOff, ErrImagePull, ...
  std::string message;
  template <class V> void Visit(V& v) {
    v("reason", reason);
    v("message", message);
  }
  bool operator==(const ContainerStateWaiting&) const = default;
};

struct ContainerStateRunning {
  std::optional<Time> startedAt;
  template <class V> void Visit(V& v) { v("startedAt", startedAt, {.always = true}); }
  bool operator==(const ContainerStateRunning&) const = default;
};

struct ContainerStateTerminated {
  int32_t exitCode = 0;
  int32_t signal = 0;
  std::string reason;
  std::string message;
  std::optional<Time> startedAt;
  std::optional<Time> finishedAt;
  std::string containerID;
  template <class V> void Visit(V& v) {
    v("exitCode", exitCode, {.always = true, .required = true});
    v("signal", signal);
    v("reason", reason);
    v("message", message);
    v("startedAt", startedAt, {.always = true});
    v("finishedAt", finishedAt, {.always = true});
    v("containerID", containerID);
  }
  bool operator==(const ContainerStateTerminated&) const = default;
};

// At most one member is set; none means "waiting" with no detail.
struct ContainerState {
  std::optional<ContainerStateWaiting> waiting;
  std::optional<ContainerStateRunning> running;
  std::optional<ContainerStateTerminated> terminated;
  template <class V> void Visit(V& v) {
    v("waiting", waiting);
    v("running", running);
    v("terminated", terminated);
  }
  bool operator==(const ContainerState&) const = default;
};

struct ContainerStatus {
  InternedString name;
  ContainerState state;
  ContainerState lastState;
  bool ready = false;
  int32_t restartCount = 0;
  InternedString image;
  std::string imageID;
  std::string containerID;
  std::optional<bool> started;
  ResourceList allocatedResources;
  Boxed<ResourceRequirements> resources;
  std::vector<RawJson> volumeMounts;  // VolumeMountStatus
  RawJson user;
  std::vector<RawJson> allocatedResourcesStatus;
  std::optional<std::string> stopSignal;
  template <class V> void Visit(V& v) {
    v("name", name, {.always = true, .required = true});
    v("state", state);
    v("lastState", lastState);
    v("ready", ready, {.always = true, .required = true});
    v("restartCount", restartCount, {.always = true, .required = true});
    v("image", image, {.always = true, .required = true});
    v("imageID", imageID, {.always = true, .required = true});
    v("containerID", containerID);
    v("started", started);
    v("allocatedResources", allocatedResources);
    v("resources", resources);
    v("volumeMounts", volumeMounts, {.merge_key = "mountPath"});
    v("user", user);
    v("allocatedResourcesStatus", allocatedResourcesStatus, {.merge_key = "name"});
    v("stopSignal", stopSignal);
  }
  bool operator==(const ContainerStatus&) const = default;
};

// pod.status.resourceClaimStatuses[]: the ResourceClaim generated for a template (absent when
// none was needed).
struct PodResourceClaimStatus {
  InternedString name;
  std::optional<std::string> resourceClaimName;
  template <class V> void Visit(V& v) {
    v("name", name, {.always = true, .required = true});
    v("resourceClaimName", resourceClaimName);
  }
  bool operator==(const PodResourceClaimStatus&) const = default;
};

struct ContainerExtendedResourceRequest {
  std::string containerName;
  std::string resourceName;
  std::string requestName;
  template <class V> void Visit(V& v) {
    v("containerName", containerName, {.always = true, .required = true});
    v("resourceName", resourceName, {.always = true, .required = true});
    v("requestName", requestName, {.always = true, .required = true});
  }
  bool operator==(const ContainerExtendedResourceRequest&) const = default;
};

// pod.status.extendedResourceClaimStatus (alpha DRAExtendedResource).
struct PodExtendedResourceClaimStatus {
  std::vector<ContainerExtendedResourceRequest> requestMappings;
  std::string resourceClaimName;
  template <class V> void Visit(V& v) {
    v("requestMappings", requestMappings, {.atomic = true, .required = true});
    v("resourceClaimName", resourceClaimName, {.always = true, .required = true});
  }
  bool operator==(const PodExtendedResourceClaimStatus&) const = default;
};

// The fields of a PodStatus that most pods leave unset, kept out of line
// (api/machinery/rare.h): PodStatus::rare.
struct PodStatusRare {
  std::string message;
  std::string reason;
  std::vector<ContainerStatus> initContainerStatuses;
  std::vector<ContainerStatus> ephemeralContainerStatuses;
  std::string resize;  // deprecated
  Boxed<PodExtendedResourceClaimStatus> extendedResourceClaimStatus;
  bool operator==(const PodStatusRare&) const = default;
};

struct PodStatus {
  int64_t observedGeneration = 0;
  InternedString phase;  // Pending | Running | Succeeded | Failed | Unknown
  std::vector<PodCondition> conditions;
  std::string nominatedNodeName;
  std::string hostIP;
  std::vector<HostIP> hostIPs;
  std::string podIP;
  std::vector<PodIP> podIPs;
  std::optional<Time> startTime;
  std::vector<ContainerStatus> containerStatuses;
  InternedString qosClass;  // Guaranteed | Burstable | BestEffort
  std::vector<PodResourceClaimStatus> resourceClaimStatuses;
  Rare<PodStatusRare> rare;  // message, reason, init and ephemeral container statuses, ...

  template <class V> void Visit(V& v) {
    using R = PodStatusRare;
    v("observedGeneration", observedGeneration);
    v("phase", phase);
    v("conditions", conditions, {.merge_key = "type"});
    VisitRare(v, "message", rare, &R::message);
    VisitRare(v, "reason", rare, &R::reason);
    v("nominatedNodeName", nominatedNodeName);
    v("hostIP", hostIP);
    v("hostIPs", hostIPs, {.merge_key = "ip"});
    v("podIP", podIP);
    v("podIPs", podIPs, {.merge_key = "ip"});
    v("startTime", startTime);
    VisitRare(v, "initContainerStatuses", rare, &R::initContainerStatuses, {.atomic = true});
    v("containerStatuses", containerStatuses, {.atomic = true});
    v("qosClass", qosClass);
    VisitRare(v, "ephemeralContainerStatuses", rare, &R::ephemeralContainerStatuses,
              {.atomic = true});
    VisitRare(v, "resize", rare, &R::resize);
    v("resourceClaimStatuses", resourceClaimStatuses, {.merge_key = "name"});
    VisitRare(v, "extendedResourceClaimStatus", rare, &R::extendedResourceClaimStatus);
  }
  bool operator==(const PodStatus&) const = default;
};

// core/v1 PodTemplateSpec: the metadata and spec of pods to be created (workload templates,
// Reservation.spec.template).
struct PodTemplateSpec {
  ObjectMeta metadata;
  PodSpec spec;
  template <class V> void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec);
  }
  bool operator==(const PodTemplateSpec&) const = default;
};

// --- kinds ------------------------------------------------------------------------------------

struct Pod : TypedObject<Pod> {
  static const TypeInfo& Type();
  PodSpec spec;
  PodStatus status;
  template <class V> void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec);
    v("status", status);
  }
  bool operator==(const Pod& o) const {
    return metadata == o.metadata && spec == o.spec && status == o.status;
  }
};

// The body of POST pods/{name}/binding: binds the pod named by metadata to target (a Node).
// Not a resource of its own; registered with RegisterSubresourceKinds.
struct Binding : TypedObject<Binding> {
  static const TypeInfo& Type();
  ObjectReference target;
  template <class V> void Visit(V& v) {
    v("metadata", metadata);
    v("target", target, {.required = true});
  }
  bool operator==(const Binding& o) const { return metadata == o.metadata && target == o.target; }
};

}  // namespace allot::api
