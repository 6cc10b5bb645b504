// Protobuf field numbers of the Pod and Binding structs (k8s.io/api core/v1/generated.proto). See
// api/machinery/protobuf_fields.h.
#pragma once

#include "api/core/types.h"
#include "api/machinery/protobuf_messages.h"

namespace allot::api {

// --- containers -------------------------------------------------------------------------------

template <>
struct ProtoMessage<ContainerPort> {
  static constexpr ProtoField kFields[] = {
      {"name", 1}, {"hostPort", 2}, {"containerPort", 3}, {"protocol", 4}, {"hostIP", 5}};
};

template <>
struct ProtoMessage<EnvVar> {
  static constexpr ProtoField kFields[] = {
      {"name", 1}, {"value", 2},
      {"valueFrom", 3, ProtoAs::kOpaque, 0, "k8s.io.api.core.v1.EnvVarSource"}};
};

// Proto message ResourceClaim (core/v1).
template <>
struct ProtoMessage<ContainerResourceClaim> {
  static constexpr ProtoField kFields[] = {{"name", 1}, {"request", 2}};
};

template <>
struct ProtoMessage<ResourceRequirements> {
  static constexpr ProtoField kFields[] = {{"limits", 1}, {"requests", 2}, {"claims", 3}};
};

template <>
struct ProtoMessage<ContainerResizePolicy> {
  static constexpr ProtoField kFields[] = {{"resourceName", 1}, {"restartPolicy", 2}};
};

template <>
struct ProtoMessage<VolumeMount> {
  static constexpr ProtoField kFields[] = {
      {"name", 1},    {"readOnly", 2},         {"recursiveReadOnly", 7}, {"mountPath", 3},
      {"subPath", 4}, {"mountPropagation", 5}, {"subPathExpr", 6}};
};

template <>
struct ProtoMessage<VolumeDevice> {
  static constexpr ProtoField kFields[] = {{"name", 1}, {"devicePath", 2}};
};

template <>
struct ProtoMessage<Container> {
  static constexpr ProtoField kFields[] = {
      {"name", 1},
      {"image", 2},
      {"command", 3},
      {"args", 4},
      {"workingDir", 5},
      {"ports", 6},
      {"envFrom", 19, ProtoAs::kOpaque, 0, "k8s.io.api.core.v1.EnvFromSource"},
      {"env", 7},
      {"resources", 8},
      {"resizePolicy", 23},
      {"restartPolicy", 24},
      {"restartPolicyRules", 25, ProtoAs::kOpaque, 0, "k8s.io.api.core.v1.ContainerRestartRule"},
      {"volumeMounts", 9},
      {"volumeDevices", 21},
      {"livenessProbe", 10, ProtoAs::kOpaque, 0, "k8s.io.api.core.v1.Probe"},
      {"readinessProbe", 11, ProtoAs::kOpaque, 0, "k8s.io.api.core.v1.Probe"},
      {"startupProbe", 22, ProtoAs::kOpaque, 0, "k8s.io.api.core.v1.Probe"},
      {"lifecycle", 12, ProtoAs::kOpaque, 0, "k8s.io.api.core.v1.Lifecycle"},
      {"terminationMessagePath", 13},
      {"terminationMessagePolicy", 20},
      {"imagePullPolicy", 14},
      {"securityContext", 15, ProtoAs::kOpaque, 0, "k8s.io.api.core.v1.SecurityContext"},
      {"stdin", 16},
      {"stdinOnce", 17},
      {"tty", 18},
  };
};

// --- volumes ----------------------------------------------------------------------------------

// The proto Volume is {name = 1, VolumeSource volumeSource = 2}: Go inlines VolumeSource, so JSON
// has the sources flat, but protobuf nests them one message down.
template <>
struct ProtoMessage<Volume> {
  // The sources belong to Go's embedded VolumeSource (field 2). Allot keeps each as JSON text,
  // carried as its message (api/codec/opaque_messages.h).
  static constexpr ProtoField kFields[] = {
      {"name", 1},
      {"hostPath", 2, ProtoAs::kEmbedded, 1, "k8s.io.api.core.v1.HostPathVolumeSource"},
      {"emptyDir", 2, ProtoAs::kEmbedded, 2, "k8s.io.api.core.v1.EmptyDirVolumeSource"},
      {"gcePersistentDisk", 2, ProtoAs::kEmbedded, 3,
       "k8s.io.api.core.v1.GCEPersistentDiskVolumeSource"},
      {"awsElasticBlockStore", 2, ProtoAs::kEmbedded, 4,
       "k8s.io.api.core.v1.AWSElasticBlockStoreVolumeSource"},
      {"gitRepo", 2, ProtoAs::kEmbedded, 5, "k8s.io.api.core.v1.GitRepoVolumeSource"},
      {"secret", 2, ProtoAs::kEmbedded, 6, "k8s.io.api.core.v1.SecretVolumeSource"},
      {"nfs", 2, ProtoAs::kEmbedded, 7, "k8s.io.api.core.v1.NFSVolumeSource"},
      {"iscsi", 2, ProtoAs::kEmbedded, 8, "k8s.io.api.core.v1.ISCSIVolumeSource"},
      {"glusterfs", 2, ProtoAs::kEmbedded, 9, "k8s.io.api.core.v1.GlusterfsVolumeSource"},
      {"persistentVolumeClaim", 2, ProtoAs::kEmbedded, 10,
       "k8s.io.api.core.v1.PersistentVolumeClaimVolumeSource"},
      {"rbd", 2, ProtoAs::kEmbedded, 11, "k8s.io.api.core.v1.RBDVolumeSource"},
      {"flexVolume", 2, ProtoAs::kEmbedded, 12, "k8s.io.api.core.v1.FlexVolumeSource"},
      {"cinder", 2, ProtoAs::kEmbedded, 13, "k8s.io.api.core.v1.CinderVolumeSource"},
      {"cephfs", 2, ProtoAs::kEmbedded, 14, "k8s.io.api.core.v1.CephFSVolumeSource"},
      {"flocker", 2, ProtoAs::kEmbedded, 15, "k8s.io.api.core.v1.FlockerVolumeSource"},
      {"downwardAPI", 2, ProtoAs::kEmbedded, 16, "k8s.io.api.core.v1.DownwardAPIVolumeSource"},
      {"fc", 2, ProtoAs::kEmbedded, 17, "k8s.io.api.core.v1.FCVolumeSource"},
      {"azureFile", 2, ProtoAs::kEmbedded, 18, "k8s.io.api.core.v1.AzureFileVolumeSource"},
      {"configMap", 2, ProtoAs::kEmbedded, 19, "k8s.io.api.core.v1.ConfigMapVolumeSource"},
      {"vsphereVolume", 2, ProtoAs::kEmbedded, 20,
       "k8s.io.api.core.v1.VsphereVirtualDiskVolumeSource"},
      {"quobyte", 2, ProtoAs::kEmbedded, 21, "k8s.io.api.core.v1.QuobyteVolumeSource"},
      {"azureDisk", 2, ProtoAs::kEmbedded, 22, "k8s.io.api.core.v1.AzureDiskVolumeSource"},
      {"photonPersistentDisk", 2, ProtoAs::kEmbedded, 23,
       "k8s.io.api.core.v1.PhotonPersistentDiskVolumeSource"},
      {"projected", 2, ProtoAs::kEmbedded, 26, "k8s.io.api.core.v1.ProjectedVolumeSource"},
      {"portworxVolume", 2, ProtoAs::kEmbedded, 24, "k8s.io.api.core.v1.PortworxVolumeSource"},
      {"scaleIO", 2, ProtoAs::kEmbedded, 25, "k8s.io.api.core.v1.ScaleIOVolumeSource"},
      {"storageos", 2, ProtoAs::kEmbedded, 27, "k8s.io.api.core.v1.StorageOSVolumeSource"},
      {"csi", 2, ProtoAs::kEmbedded, 28, "k8s.io.api.core.v1.CSIVolumeSource"},
      {"ephemeral", 2, ProtoAs::kEmbedded, 29, "k8s.io.api.core.v1.EphemeralVolumeSource"},
      {"image", 2, ProtoAs::kEmbedded, 30, "k8s.io.api.core.v1.ImageVolumeSource"},
  };
};

// --- affinity ---------------------------------------------------------------------------------

template <>
struct ProtoMessage<PreferredSchedulingTerm> {
  static constexpr ProtoField kFields[] = {{"weight", 1}, {"preference", 2}};
};

template <>
struct ProtoMessage<NodeAffinity> {
  static constexpr ProtoField kFields[] = {{"requiredDuringSchedulingIgnoredDuringExecution", 1},
                                           {"preferredDuringSchedulingIgnoredDuringExecution", 2}};
};

template <>
struct ProtoMessage<PodAffinityTerm> {
  static constexpr ProtoField kFields[] = {{"labelSelector", 1},  {"namespaces", 2},
                                           {"topologyKey", 3},    {"namespaceSelector", 4},
                                           {"matchLabelKeys", 5}, {"mismatchLabelKeys", 6}};
};

template <>
struct ProtoMessage<WeightedPodAffinityTerm> {
  static constexpr ProtoField kFields[] = {{"weight", 1}, {"podAffinityTerm", 2}};
};

template <>
struct ProtoMessage<PodAffinity> {
  static constexpr ProtoField kFields[] = {{"requiredDuringSchedulingIgnoredDuringExecution", 1},
                                           {"preferredDuringSchedulingIgnoredDuringExecution", 2}};
};

template <>
struct ProtoMessage<PodAntiAffinity> {
  static constexpr ProtoField kFields[] = {{"requiredDuringSchedulingIgnoredDuringExecution", 1},
                                           {"preferredDuringSchedulingIgnoredDuringExecution", 2}};
};

template <>
struct ProtoMessage<Affinity> {
  static constexpr ProtoField kFields[] = {
      {"nodeAffinity", 1}, {"podAffinity", 2}, {"podAntiAffinity", 3}};
};

template <>
struct ProtoMessage<TopologySpreadConstraint> {
  static constexpr ProtoField kFields[] = {{"maxSkew", 1},           {"topologyKey", 2},
                                           {"whenUnsatisfiable", 3}, {"labelSelector", 4},
                                           {"minDomains", 5},        {"nodeAffinityPolicy", 6},
                                           {"nodeTaintsPolicy", 7},  {"matchLabelKeys", 8}};
};

// --- small pod spec entries -------------------------------------------------------------------

template <>
struct ProtoMessage<PodResourceClaim> {
  static constexpr ProtoField kFields[] = {
      {"name", 1}, {"resourceClaimName", 3}, {"resourceClaimTemplateName", 4}};
};

template <>
struct ProtoMessage<PodSchedulingGate> {
  static constexpr ProtoField kFields[] = {{"name", 1}};
};

template <>
struct ProtoMessage<LocalObjectReference> {
  static constexpr ProtoField kFields[] = {{"name", 1}};
};

template <>
struct ProtoMessage<PodReadinessGate> {
  static constexpr ProtoField kFields[] = {{"conditionType", 1}};
};

template <>
struct ProtoMessage<PodOS> {
  static constexpr ProtoField kFields[] = {{"name", 1}};
};

template <>
struct ProtoMessage<HostAlias> {
  static constexpr ProtoField kFields[] = {{"ip", 1}, {"hostnames", 2}};
};

// --- PodSpec ----------------------------------------------------------------------------------

template <>
struct ProtoMessage<PodSpec> {
  static constexpr ProtoField kFields[] = {
      {"volumes", 1},
      {"initContainers", 20},
      {"containers", 2},
      {"ephemeralContainers", 34, ProtoAs::kOpaque, 0, "k8s.io.api.core.v1.EphemeralContainer"},
      {"restartPolicy", 3},
      {"terminationGracePeriodSeconds", 4},
      {"activeDeadlineSeconds", 5},
      {"dnsPolicy", 6},
      {"nodeSelector", 7},
      {"serviceAccountName", 8},
      {"serviceAccount", 9},
      {"automountServiceAccountToken", 21},
      {"nodeName", 10},
      {"hostNetwork", 11},
      {"hostPID", 12},
      {"hostIPC", 13},
      {"shareProcessNamespace", 27},
      {"securityContext", 14, ProtoAs::kOpaque, 0, "k8s.io.api.core.v1.PodSecurityContext"},
      {"imagePullSecrets", 15},
      {"hostname", 16},
      {"subdomain", 17},
      {"affinity", 18},
      {"schedulerName", 19},
      {"tolerations", 22},
      {"hostAliases", 23},
      {"priorityClassName", 24},
      {"priority", 25},
      {"dnsConfig", 26, ProtoAs::kOpaque, 0, "k8s.io.api.core.v1.PodDNSConfig"},
      {"readinessGates", 28},
      {"runtimeClassName", 29},
      {"enableServiceLinks", 30},
      {"preemptionPolicy", 31},
      {"overhead", 32},
      {"topologySpreadConstraints", 33},
      {"setHostnameAsFQDN", 35},
      {"os", 36},
      {"hostUsers", 37},
      {"schedulingGates", 38},
      {"resourceClaims", 39},
      {"resources", 40},
      {"hostnameOverride", 41},
  };
};

// --- PodStatus --------------------------------------------------------------------------------

template <>
struct ProtoMessage<PodCondition> {
  static constexpr ProtoField kFields[] = {
      {"type", 1},          {"observedGeneration", 7}, {"status", 2},
      {"lastProbeTime", 3}, {"lastTransitionTime", 4}, {"reason", 5},
      {"message", 6}};
};

template <>
struct ProtoMessage<HostIP> {
  static constexpr ProtoField kFields[] = {{"ip", 1}};
};

template <>
struct ProtoMessage<PodIP> {
  static constexpr ProtoField kFields[] = {{"ip", 1}};
};

template <>
struct ProtoMessage<ContainerStateWaiting> {
  static constexpr ProtoField kFields[] = {{"reason", 1}, {"message", 2}};
};

template <>
struct ProtoMessage<ContainerStateRunning> {
  static constexpr ProtoField kFields[] = {{"startedAt", 1}};
};

template <>
struct ProtoMessage<ContainerStateTerminated> {
  static constexpr ProtoField kFields[] = {{"exitCode", 1},   {"signal", 2},    {"reason", 3},
                                           {"message", 4},    {"startedAt", 5}, {"finishedAt", 6},
                                           {"containerID", 7}};
};

template <>
struct ProtoMessage<ContainerState> {
  static constexpr ProtoField kFields[] = {{"waiting", 1}, {"running", 2}, {"terminated", 3}};
};

template <>
struct ProtoMessage<ContainerStatus> {
  static constexpr ProtoField kFields[] = {
      {"name", 1},
      {"state", 2},
      {"lastState", 3},
      {"ready", 4},
      {"restartCount", 5},
      {"image", 6},
      {"imageID", 7},
      {"containerID", 8},
      {"started", 9},
      {"allocatedResources", 10},
      {"resources", 11},
      {"volumeMounts", 12, ProtoAs::kOpaque, 0, "k8s.io.api.core.v1.VolumeMountStatus"},
      {"user", 13, ProtoAs::kOpaque, 0, "k8s.io.api.core.v1.ContainerUser"},
      {"allocatedResourcesStatus", 14, ProtoAs::kOpaque, 0, "k8s.io.api.core.v1.ResourceStatus"},
      {"stopSignal", 15},
  };
};

template <>
struct ProtoMessage<PodResourceClaimStatus> {
  static constexpr ProtoField kFields[] = {{"name", 1}, {"resourceClaimName", 2}};
};

template <>
struct ProtoMessage<ContainerExtendedResourceRequest> {
  static constexpr ProtoField kFields[] = {
      {"containerName", 1}, {"resourceName", 2}, {"requestName", 3}};
};

template <>
struct ProtoMessage<PodExtendedResourceClaimStatus> {
  static constexpr ProtoField kFields[] = {{"requestMappings", 1}, {"resourceClaimName", 2}};
};

template <>
struct ProtoMessage<PodStatus> {
  static constexpr ProtoField kFields[] = {
      {"observedGeneration", 17},
      {"phase", 1},
      {"conditions", 2},
      {"message", 3},
      {"reason", 4},
      {"nominatedNodeName", 11},
      {"hostIP", 5},
      {"hostIPs", 16},
      {"podIP", 6},
      {"podIPs", 12},
      {"startTime", 7},
      {"initContainerStatuses", 10},
      {"containerStatuses", 8},
      {"qosClass", 9},
      {"ephemeralContainerStatuses", 13},
      {"resize", 14},
      {"resourceClaimStatuses", 15},
      {"extendedResourceClaimStatus", 18},
  };
};

template <>
struct ProtoMessage<PodTemplateSpec> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}};
};

// --- kinds ------------------------------------------------------------------------------------

template <>
struct ProtoMessage<Pod> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"spec", 2}, {"status", 3}};
};

template <>
struct ProtoMessage<Binding> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"target", 2}};
};

}  // namespace allot::api
