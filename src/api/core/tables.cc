// `kubectl get` tables and field selectors for the core kinds: the column definitions and row
// printers of k8s.io/kubernetes pkg/printers/internalversion/printers.go (as the server
// computes them: every column, wide ones included) and the *ToSelectableFields functions of the
// pod, node, event and namespace registries.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/core/pod_state.h"
#include "api/core/strategy.h"

namespace allot::api {
namespace {

constexpr std::string_view kNodeRolePrefix = "node-role.kubernetes.io/";
constexpr std::string_view kNodeRoleLabel = "kubernetes.io/role";
constexpr char kAgeDescription[] =
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created.";

std::string Since(const std::optional<Time>& t, Time now) {
  if (!t) return "<unknown>";
  return HumanDuration(now.unix_seconds() - t->unix_seconds());
}

std::string SinceMicro(const std::optional<MicroTime>& t, Time now) {
  if (!t) return "<unknown>";
  return HumanDuration(now.unix_seconds() - t->time.unix_seconds());
}

std::string OrNone(const std::string& s) { return s.empty() ? "<none>" : s; }

bool HasCondition(const Pod& pod, std::string_view type) {
  const PodCondition* c = FindPodCondition(pod.status, type);
  return c && c->status == "True";
}

// The reason kubectl shows for a terminated container without one.
std::string ExitText(const ContainerStateTerminated& t, std::string_view prefix) {
  if (t.signal != 0) return std::string(prefix) + "Signal:" + std::to_string(t.signal);
  return std::string(prefix) + "ExitCode:" + std::to_string(t.exitCode);
}

// What printPod computes: ready/total containers, restarts, last restart time and STATUS.
struct PodSummary {
  int ready = 0;
  int total = 0;
  int64_t restarts = 0;
  std::optional<Time> last_restart;
  std::string reason;
};

void NoteRestart(const ContainerStatus& s, std::optional<Time>& last) {
  const auto& t = s.lastState.terminated;
  if (t && t->finishedAt && (!last || *last < *t->finishedAt)) last = t->finishedAt;
}

// The init container loop; returns true while the pod is still initializing.
bool SummarizeInit(const Pod& pod, PodSummary& s, int64_t& sidecar_restarts,
                   std::optional<Time>& sidecar_last) {
  std::map<std::string, bool> restartable;
  for (const Container& c : pod.spec.initContainers) {
    restartable[c.name] = c.rare->restartPolicy == "Always";
    if (restartable[c.name]) ++s.total;
  }
  const auto& statuses = pod.status.rare->initContainerStatuses;
  for (size_t i = 0; i < statuses.size(); ++i) {
    const ContainerStatus& c = statuses[i];
    s.restarts += c.restartCount;
    NoteRestart(c, s.last_restart);
    bool sidecar = restartable[c.name];
    if (sidecar) {
      sidecar_restarts += c.restartCount;
      NoteRestart(c, sidecar_last);
    }
    const auto& term = c.state.terminated;
    if (term && term->exitCode == 0) continue;
    if (sidecar && c.started.value_or(false)) {
      if (c.ready) ++s.ready;
      continue;
    }
    if (term) {
      s.reason = term->reason.empty() ? ExitText(*term, "Init:") : "Init:" + term->reason;
    } else if (c.state.waiting && !c.state.waiting->reason.empty() &&
               c.state.waiting->reason != "PodInitializing") {
      s.reason = "Init:" + c.state.waiting->reason;
    } else {
      s.reason = "Init:" + std::to_string(i) + "/" + std::to_string(pod.spec.initContainers.size());
    }
    return true;
  }
  return false;
}

PodSummary SummarizePod(const Pod& pod) {
  PodSummary s;
  s.total = static_cast<int>(pod.spec.containers.size());
  s.reason = pod.status.rare->reason.empty() ? pod.status.phase.str() : pod.status.rare->reason;
  for (const PodCondition& c : pod.status.conditions) {
    if (c.type == "PodScheduled" && c.reason == "SchedulingGated") s.reason = "SchedulingGated";
  }
  int64_t sidecar_restarts = 0;
  std::optional<Time> sidecar_last;
  bool initializing = SummarizeInit(pod, s, sidecar_restarts, sidecar_last);
  if (!initializing || HasCondition(pod, "Initialized")) {
    s.restarts = sidecar_restarts;
    s.last_restart = sidecar_last;
    bool has_running = false;
    const auto& statuses = pod.status.containerStatuses;
    for (auto it = statuses.rbegin(); it != statuses.rend(); ++it) {
      const ContainerStatus& c = *it;
      s.restarts += c.restartCount;
      NoteRestart(c, s.last_restart);
      if (c.state.waiting && !c.state.waiting->reason.empty()) {
        s.reason = c.state.waiting->reason;
      } else if (c.state.terminated) {
        const ContainerStateTerminated& t = *c.state.terminated;
        s.reason = t.reason.empty() ? ExitText(t, "") : t.reason;
      } else if (c.ready && c.state.running) {
        has_running = true;
        ++s.ready;
      }
    }
    if (s.reason == "Completed" && has_running) {
      s.reason = HasCondition(pod, "Ready") ? "Running" : "NotReady";
    }
  }
  bool terminal = IsPodTerminal(pod);
  if (pod.metadata.rare->deletionTimestamp && pod.status.rare->reason == "NodeLost") {
    s.reason = "Unknown";
  } else if (pod.metadata.rare->deletionTimestamp && !terminal) {
    s.reason = "Terminating";
  }
  return s;
}

std::string NodeAddressOfType(const Node& node, std::string_view type) {
  for (const NodeAddress& a : node.status.addresses) {
    if (a.type == type) return a.address;
  }
  return "<none>";
}

std::string Unknown(const std::string& s) { return s.empty() ? "<unknown>" : s; }

std::string ToLower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

std::string TrimSpace(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n\r\f\v");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\n\r\f\v");
  return s.substr(b, e - b + 1);
}

const std::string& FirstNonEmpty(const std::string& a, const std::string& b) {
  return a.empty() ? b : a;
}

}  // namespace

// --- pods -------------------------------------------------------------------------------------

std::string PodStatusText(const Pod& pod) { return SummarizePod(pod).reason; }

std::vector<TableColumn> PodColumns() {
  return {
      {"Ready", "string", "", "The aggregate readiness state of this pod for accepting traffic.",
       0},
      {"Status", "string", "", "The aggregate status of the containers in this pod.", 0},
      {"Restarts", "string", "",
       "The number of times the containers in this pod have been restarted and when the last "
       "container in this pod has restarted.",
       0},
      {"Age", "string", "", kAgeDescription, 0},
      {"IP", "string", "", "podIP address allocated to the pod.", 1},
      {"Node", "string", "", "NodeName indicates in which node this pod is scheduled.", 1},
      {"Nominated Node", "string", "",
       "nominatedNodeName is set only when this pod preempts other pods on the node.", 1},
      {"Readiness Gates", "string", "",
       "If specified, all readiness gates will be evaluated for pod readiness.", 1},
  };
}

std::vector<TableCell> PodRow(const Object& obj, Time now) {
  const auto& pod = static_cast<const Pod&>(obj);
  PodSummary s = SummarizePod(pod);
  std::string restarts = std::to_string(s.restarts);
  if (s.last_restart) restarts += " (" + Since(s.last_restart, now) + " ago)";
  std::string ip = pod.status.podIPs.empty() ? pod.status.podIP : pod.status.podIPs.front().ip;
  std::string gates = "<none>";
  if (!pod.spec.rare->readinessGates.empty()) {
    int true_count = 0;
    for (const PodReadinessGate& g : pod.spec.rare->readinessGates) {
      for (const PodCondition& c : pod.status.conditions) {
        if (c.type != g.conditionType) continue;
        if (c.status == "True") ++true_count;
        break;
      }
    }
    gates = std::to_string(true_count) + "/" + std::to_string(pod.spec.rare->readinessGates.size());
  }
  return {std::to_string(s.ready) + "/" + std::to_string(s.total),
          s.reason,
          restarts,
          AgeCell(obj, now),
          OrNone(ip),
          OrNone(pod.spec.nodeName),
          OrNone(pod.status.nominatedNodeName),
          gates};
}

std::optional<std::string> PodFieldValue(const Object& obj, std::string_view field) {
  const auto& pod = static_cast<const Pod&>(obj);
  if (field == "spec.nodeName") return pod.spec.nodeName;
  if (field == "spec.restartPolicy") return pod.spec.restartPolicy;
  if (field == "spec.schedulerName") return pod.spec.schedulerName;
  if (field == "spec.serviceAccountName") return pod.spec.serviceAccountName;
  if (field == "spec.hostNetwork") return std::string(pod.spec.hostNetwork ? "true" : "false");
  if (field == "status.phase") return pod.status.phase;
  if (field == "status.podIP") {
    return pod.status.podIPs.empty() ? pod.status.podIP : pod.status.podIPs.front().ip;
  }
  if (field == "status.nominatedNodeName") return pod.status.nominatedNodeName;
  return std::nullopt;
}

// --- nodes ------------------------------------------------------------------------------------

std::string NodeStatusText(const Node& node) {
  std::string status = "Unknown";
  for (const NodeCondition& c : node.status.conditions) {
    if (c.type == "Ready") status = c.status == "True" ? "Ready" : "NotReady";
  }
  if (node.spec.unschedulable) status += ",SchedulingDisabled";
  return status;
}

std::string NodeRoles(const Node& node) {
  std::set<std::string> roles;
  for (const auto& [k, v] : node.metadata.labels) {
    if (k.rfind(kNodeRolePrefix, 0) == 0) {
      std::string role = k.substr(kNodeRolePrefix.size());
      if (!role.empty()) roles.insert(role);
    } else if (k == kNodeRoleLabel && !v.empty()) {
      roles.insert(v);
    }
  }
  std::string out;
  for (const std::string& r : roles) out += (out.empty() ? "" : ",") + r;
  return out.empty() ? "<none>" : out;
}

std::vector<TableColumn> NodeColumns() {
  return {
      {"Status", "string", "", "The status of the node", 0},
      {"Roles", "string", "", "The roles of the node", 0},
      {"Age", "string", "", kAgeDescription, 0},
      {"Version", "string", "", "Kubelet Version reported by the node.", 0},
      {"Internal-IP", "string", "", "List of addresses reachable to the node.", 1},
      {"External-IP", "string", "", "List of addresses reachable to the node.", 1},
      {"OS-Image", "string", "", "OS Image reported by the node from /etc/os-release.", 1},
      {"Kernel-Version", "string", "", "Kernel Version reported by the node.", 1},
      {"Container-Runtime", "string", "", "ContainerRuntime Version reported by the node.", 1},
  };
}

std::vector<TableCell> NodeRow(const Object& obj, Time now) {
  const auto& node = static_cast<const Node&>(obj);
  const NodeSystemInfo& info = node.status.nodeInfo;
  return {NodeStatusText(node),
          NodeRoles(node),
          AgeCell(obj, now),
          info.kubeletVersion,
          NodeAddressOfType(node, "InternalIP"),
          NodeAddressOfType(node, "ExternalIP"),
          Unknown(info.osImage),
          Unknown(info.kernelVersion),
          Unknown(info.containerRuntimeVersion)};
}

std::optional<std::string> NodeFieldValue(const Object& obj, std::string_view field) {
  const auto& node = static_cast<const Node&>(obj);
  if (field == "spec.unschedulable") {
    return std::string(node.spec.unschedulable ? "true" : "false");
  }
  return std::nullopt;
}

// --- events -----------------------------------------------------------------------------------

// Kubernetes' event table has no leading Name column: Name is its last, wide column (the
// resource sets leading_name_column = false).
std::vector<TableColumn> EventColumns() {
  return {
      {"Last Seen", "string", "",
       "The time at which the most recent occurrence of this event "
       "was recorded.",
       0},
      {"Type", "string", "",
       "Type of this event (Normal, Warning), new types could be added in "
       "the future",
       0},
      {"Reason", "string", "",
       "This should be a short, machine understandable string that "
       "gives the reason for the transition into the object's current "
       "status.",
       0},
      {"Object", "string", "", "The object that this event is about.", 0},
      {"Subobject", "string", "",
       "If referring to a piece of an object instead of an entire "
       "object, this string should contain a valid JSON/Go "
       "field access statement.",
       1},
      {"Source", "string", "", "The component reporting this event.", 1},
      {"Message", "string", "",
       "A human-readable description of the status of this "
       "operation.",
       0},
      {"First Seen", "string", "", "The time at which the event was first recorded.", 1},
      {"Count", "string", "", "The number of times this event has occurred.", 1},
      {"Name", "string", "name", "The name of the event.", 1},
  };
}

std::vector<TableCell> EventRow(const Object& obj, Time now) {
  const auto& e = static_cast<const Event&>(obj);
  std::string first =
      e.firstTimestamp ? Since(e.firstTimestamp, now) : SinceMicro(e.eventTime, now);
  std::string last = e.lastTimestamp ? Since(e.lastTimestamp, now) : first;
  int64_t count = e.count;
  if (e.series) {
    last = SinceMicro(e.series->lastObservedTime, now);
    count = e.series->count;
  } else if (count == 0) {
    count = 1;  // singleton events from the events.k8s.io API have no count
  }
  std::string target = ToLower(e.involvedObject.kind);
  if (!e.involvedObject.name.empty()) target += "/" + e.involvedObject.name;
  std::string component = FirstNonEmpty(e.source.component, e.reportingComponent);
  std::string instance = FirstNonEmpty(e.source.host, e.reportingInstance);
  std::string source = instance.empty() ? component : component + ", " + instance;
  return {last,  e.type, e.reason, target, e.involvedObject.fieldPath, source, TrimSpace(e.message),
          first, count, e.metadata.name};
}

std::optional<std::string> EventFieldValue(const Object& obj, std::string_view field) {
  const auto& e = static_cast<const Event&>(obj);
  const ObjectReference& o = e.involvedObject;
  if (field == "involvedObject.kind") return o.kind;
  if (field == "involvedObject.namespace") return o.namespace_;
  if (field == "involvedObject.name") return o.name;
  if (field == "involvedObject.uid") return o.uid;
  if (field == "involvedObject.apiVersion") return o.apiVersion;
  if (field == "involvedObject.resourceVersion") return o.resourceVersion;
  if (field == "involvedObject.fieldPath") return o.fieldPath;
  if (field == "reason") return e.reason;
  if (field == "reportingComponent") return e.reportingComponent;
  if (field == "source") return FirstNonEmpty(e.source.component, e.reportingComponent);
  if (field == "type") return e.type;
  return std::nullopt;
}

// --- leases and namespaces --------------------------------------------------------------------

std::vector<TableColumn> LeaseColumns() {
  return {{"Holder", "string", "",
           "holderIdentity contains the identity of the holder of a current lease.", 0},
          {"Age", "string", "", kAgeDescription, 0}};
}

std::vector<TableCell> LeaseRow(const Object& obj, Time now) {
  const auto& lease = static_cast<const Lease&>(obj);
  return {lease.spec.holderIdentity.value_or(""), AgeCell(obj, now)};
}

std::vector<TableColumn> NamespaceColumns() {
  return {{"Status", "string", "", "The status of the namespace", 0},
          {"Age", "string", "", kAgeDescription, 0}};
}

std::vector<TableCell> NamespaceRow(const Object& obj, Time now) {
  const auto& ns = static_cast<const Namespace&>(obj);
  return {ns.status.phase, AgeCell(obj, now)};
}

std::optional<std::string> NamespaceFieldValue(const Object& obj, std::string_view field) {
  const auto& ns = static_cast<const Namespace&>(obj);
  if (field == "status.phase") return ns.status.phase;
  if (field == "name") return ns.metadata.name;  // kept by Kubernetes for compatibility
  return std::nullopt;
}

}  // namespace allot::api
