// Per-kind behaviour of the core/v1 and coordination.k8s.io kinds, as the Kubernetes API server
// implements it: defaulting (SetDefaults_* plus the create-time mutations of the pod strategy
// and the Priority admission plugin), validation (pkg/apis/core/validation, .../coordination/
// validation) and `kubectl get` table rows (pkg/printers/internalversion). api/core/resources.cc
// wires these into ResourceInfo hooks; they are public so tests, the simulator and clients can
// call them directly.
//
// Messages and field paths are Kubernetes' own. Where Kubernetes prints a Go struct or an
// unquoted value that FieldErrors cannot express (it quotes every string value and has no
// NotFound), the nearest form is used and the function comment says so.
//
// All functions are pure (no shared state) and thread-compatible.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/core/types.h"
#include "api/machinery/resources.h"
#include "api/machinery/validation.h"
#include "common/time.h"

namespace allot::api {

// --- Pod defaulting (api/core/pod_defaults.cc)
// ----------------------------------------------------

inline constexpr std::string_view kDefaultSchedulerName = "default-scheduler";
inline constexpr int64_t kDefaultTerminationGracePeriodSeconds = 30;
inline constexpr std::string_view kTerminationMessagePathDefault = "/dev/termination-log";

// Defaults a pod in place. Idempotent (it also runs on updates):
//   spec: dnsPolicy ClusterFirst, restartPolicy Always, securityContext {},
//     terminationGracePeriodSeconds 30, schedulerName default-scheduler, enableServiceLinks
//     true; with hostNetwork, ports' hostPort = containerPort; volumes without a source get
//     emptyDir {}; pod-level requests default to limits.
//   containers and init containers: terminationMessagePath /dev/termination-log,
//     terminationMessagePolicy File, imagePullPolicy (Always for ":latest" or no tag, else
//     IfNotPresent), port protocol TCP, requests default to limits.
//   Priority: set before defaulting by priority admission from the pod's PriorityClass
//     (api/scheduling/priority_admission.h); defaulting only fills priority 0 and
//     preemptionPolicy PreemptLowerPriority where nothing set them.
//   Pod strategy: matchLabelKeys / mismatchLabelKeys of pod (anti-)affinity terms are merged
//     into their labelSelector as `key In/NotIn (value)` (skipped when already present);
//     status.phase Pending and status.qosClass when empty; a PodScheduled=False condition with
//     reason SchedulingGated while schedulingGates are present.
// Not defaulted: fields inside RawJson (probes, volume sources, env valueFrom, ...).
void DefaultPod(Pod& pod);

// The pod defaulting of the spec alone (SetDefaults_PodSpec and its containers), as a workload's
// pod template gets it: no priority, status or strategy mutations.
void DefaultPodTemplateSpec(PodTemplateSpec& tmpl);

// The pod's QoS class (Guaranteed | Burstable | BestEffort) from cpu and memory requests and
// limits of its containers and init containers, or of spec.resources when set.
std::string ComputePodQOS(const Pod& pod);

// --- Pod validation (api/core/pod_validation.cc)
// --------------------------------------------------

// ValidatePodCreate: metadata (namespaced, DNS-subdomain name), the spec (volumes,
// resourceClaims, containers, init containers, restart/DNS policies, nodeSelector, affinity,
// tolerations, topology spread, scheduling/readiness gates, priority, overhead, os, ...), and
// ephemeralContainers forbidden on create.
// Differences from Kubernetes: "Not found" errors (volumeMounts[].name, resources.claims[])
// are reported as Invalid with the same detail, since FieldErrors has no NotFound.
void ValidatePod(const Pod& pod, FieldErrors& errs);
// spec.resourceClaims of a pod named `owner_name` ("" before generateName: the final claim
// name is not checked): names unique DNS labels, exactly one of resourceClaimName /
// resourceClaimTemplateName. Also used for Reservation templates.
void ValidatePodResourceClaims(const std::vector<PodResourceClaim>& claims,
                               std::string_view owner_name, const Path& p, FieldErrors& errs);
// corevalidation.ValidatePodTemplateSpec under `p` ("spec.template"): metadata holds only labels
// and annotations (ValidateTemplateObjectMeta), the spec validates as a pod's.
void ValidatePodTemplateSpec(const PodTemplateSpec& tmpl, const Path& p, FieldErrors& errs);
// ValidatePodUpdate: metadata update rules; only container/init container images,
// activeDeadlineSeconds (lowering), tolerations (additions) and schedulingGates (removals) may
// change — anything else is `spec: Forbidden: pod updates may not change fields other than ...`
// followed by the changed fields, one per line (Kubernetes prints a Go diff there).
void ValidatePodUpdate(const Pod& pod, const Pod& old, FieldErrors& errs);
// ValidatePodStatusUpdate: condition types, nominatedNodeName, qosClass immutable,
// resourceClaimStatuses match spec.resourceClaims.
void ValidatePodStatusUpdate(const Pod& pod, const Pod& old, FieldErrors& errs);
// ValidatePodBinding: target.kind "Node" or empty, target.name required.
void ValidateBinding(const Binding& binding, FieldErrors& errs);

// v1helper.IsExtendedResourceName: "domain/name" outside *kubernetes.io, valid as
// "requests.<name>" (e.g. "nvidia.com/gpu", "example.com/foo").
bool IsExtendedResourceName(std::string_view name);
// ValidateResourceQuantityValue: not negative ("must be greater than or equal to 0") and whole
// for extended resources ("must be an integer"; Kubernetes prints the value unquoted there).
void ValidateResourceQuantityValue(const std::string& name, const Quantity& value, const Path& path,
                                   FieldErrors& errs);

// --- Node, Event, Lease, Namespace (api/core/validation.cc)
// ---------------------------------------

// Node defaulting: status.allocatable defaults to capacity; podCIDR and podCIDRs[0] kept in
// sync (the v1 conversion does this).
void DefaultNode(Node& node);
void ValidateNode(const Node& node, FieldErrors& errs);
void ValidateNodeUpdate(const Node& node, const Node& old, FieldErrors& errs);

// core/v1 events: legacy validation (involvedObject.namespace vs namespace; for events with
// eventTime also reportingComponent, reportingInstance, action, reason and length limits).
void ValidateEvent(const Event& event, FieldErrors& errs);

void ValidateLease(const Lease& lease, FieldErrors& errs);
void ValidateLeaseUpdate(const Lease& lease, const Lease& old, FieldErrors& errs);

void DefaultNamespace(Namespace& ns);
void ValidateNamespace(const Namespace& ns, FieldErrors& errs);
void ValidateNamespaceUpdate(const Namespace& ns, const Namespace& old, FieldErrors& errs);

// --- tables and field selectors (api/core/tables.cc)
// ----------------------------------------------

// kubectl's STATUS column for a pod: the phase or status.reason, refined by init and container
// states ("Init:0/2", "CrashLoopBackOff", "Completed", "SchedulingGated", ...), "Terminating"
// while being deleted.
std::string PodStatusText(const Pod& pod);
// kubectl's STATUS column for a node: "Ready" / "NotReady" / "Unknown", plus
// ",SchedulingDisabled".
std::string NodeStatusText(const Node& node);
// Roles from node-role.kubernetes.io/<role> labels and kubernetes.io/role, sorted, joined by
// ","; "<none>" when there are none.
std::string NodeRoles(const Node& node);

// The table columns after NAME, and the matching rows (cells for every column, wide ones too).
std::vector<TableColumn> PodColumns();
std::vector<TableCell> PodRow(const Object& obj, Time now);
std::vector<TableColumn> NodeColumns();
std::vector<TableCell> NodeRow(const Object& obj, Time now);
std::vector<TableColumn> EventColumns();
std::vector<TableCell> EventRow(const Object& obj, Time now);
std::vector<TableColumn> LeaseColumns();
std::vector<TableCell> LeaseRow(const Object& obj, Time now);
std::vector<TableColumn> NamespaceColumns();
std::vector<TableCell> NamespaceRow(const Object& obj, Time now);

// Field selector values (beyond metadata.name / metadata.namespace); nullopt for fields the kind
// does not support. Booleans are "true" / "false".
std::optional<std::string> PodFieldValue(const Object& obj, std::string_view field);
std::optional<std::string> NodeFieldValue(const Object& obj, std::string_view field);
std::optional<std::string> EventFieldValue(const Object& obj, std::string_view field);
std::optional<std::string> NamespaceFieldValue(const Object& obj, std::string_view field);

}  // namespace allot::api
