#include "node/node_objects.h"

#include <algorithm>
#include <utility>

#include "api/codec/codec.h"
#include "api/codec/yaml.h"
#include "node/addresses.h"

namespace allot::node {

namespace {

constexpr int32_t kKubeletPort = 10250;

struct ConditionText {
  const char* type;
  const char* status;
  const char* reason;
  const char* message;
};

// The conditions a healthy kubelet reports, in the order kubelet writes them.
constexpr ConditionText kConditions[] = {
    {"MemoryPressure", "False", "KubeletHasSufficientMemory",
     "kubelet has sufficient memory available"},
    {"DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
    {"PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"},
    {"Ready", "True", "KubeletReady", "kubelet is posting ready status"},
};

api::Quantity MustParse(std::string_view text) {
  Result<api::Quantity> q = api::Quantity::Parse(text);
  return q.ok() ? *q : api::Quantity();
}

void DefaultCapacity(api::Node& node) {
  if (node.status.capacity.empty()) {
    node.status.capacity["cpu"] = MustParse("32");
    node.status.capacity["memory"] = MustParse("256Gi");
    node.status.capacity["pods"] = MustParse("110");
  }
  if (node.status.allocatable.empty()) node.status.allocatable = node.status.capacity;
}

api::NodeSystemInfo SystemInfo(const std::string& name, const NodeShape& shape) {
  api::NodeSystemInfo info;
  info.machineID = "allot-" + name;
  info.systemUUID = "allot-" + name;
  info.bootID = "allot-" + name;
  info.kernelVersion = "6.8.0-allot";
  info.osImage = "Allot simulated node";
  info.containerRuntimeVersion = "allot-sim://1.0.0";
  info.kubeletVersion = shape.kubelet_version;
  info.operatingSystem = "linux";
  info.architecture = "amd64";
  return info;
}

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

}  // namespace

api::Node DefaultNodeTemplate() {
  api::Node node;
  DefaultCapacity(node);
  return node;
}

Result<api::Node> ParseNodeTemplate(std::string_view manifest) {
  ALLOT_ASSIGN_OR_RETURN(std::string json, api::YamlDocumentToJson(manifest));
  api::DecodeOptions opts;
  opts.strict = true;
  opts.expected = &api::Node::Type();
  ALLOT_ASSIGN_OR_RETURN(api::Decoded decoded, api::DecodeJson(json, opts));
  const api::Node* node = api::As<api::Node>(*decoded.object);
  if (node == nullptr) return BadRequestError("the node template must be a Node");
  api::Node out = *node;
  DefaultCapacity(out);
  return out;
}

std::unique_ptr<api::Node> MakeNode(const NodeShape& shape, const std::string& name, int64_t index,
                                    Time now) {
  const api::Node& t = shape.node_template;
  auto node = std::make_unique<api::Node>();
  node->metadata.name = name;
  node->metadata.labels = t.metadata.labels;
  node->metadata.labels[kHostnameLabel] = name;
  node->metadata.labels.emplace("kubernetes.io/os", "linux");
  node->metadata.labels.emplace("kubernetes.io/arch", "amd64");
  node->metadata.annotations = t.metadata.annotations;
  node->metadata.annotations["node.alpha.kubernetes.io/ttl"] = "0";
  node->metadata.annotations[kSimulatedAnnotation] = "true";

  node->spec.taints = t.spec.taints;
  node->spec.unschedulable = t.spec.unschedulable;
  node->spec.podCIDR = NodePodCidr(index);
  node->spec.podCIDRs = {node->spec.podCIDR};
  node->spec.providerID = "allot://" + name;

  api::NodeStatus& st = node->status;
  st.capacity = t.status.capacity;
  st.allocatable = t.status.allocatable.empty() ? t.status.capacity : t.status.allocatable;
  Time sec = now.TruncatedToSeconds();
  for (const ConditionText& c : kConditions) {
    st.conditions.push_back({.type = c.type,
                             .status = c.status,
                             .lastHeartbeatTime = sec,
                             .lastTransitionTime = sec,
                             .reason = c.reason,
                             .message = c.message});
  }
  st.addresses = {{"InternalIP", NodeInternalIp(index)}, {"Hostname", name}};
  st.daemonEndpoints.json = "{\"kubeletEndpoint\":{\"Port\":" + std::to_string(kKubeletPort) + "}}";
  st.nodeInfo = SystemInfo(name, shape);
  return node;
}

void AdoptNodeStatus(const api::Node& fresh, api::Node& existing) {
  api::NodeStatus& st = existing.status;
  st.capacity = fresh.status.capacity;
  st.allocatable = fresh.status.allocatable;
  st.addresses = fresh.status.addresses;
  st.nodeInfo = fresh.status.nodeInfo;
  st.daemonEndpoints = fresh.status.daemonEndpoints;
  std::vector<api::NodeCondition> kept;
  for (const api::NodeCondition& c : st.conditions) {
    bool ours = false;
    for (const ConditionText& t : kConditions) ours = ours || c.type == t.type;
    if (!ours) kept.push_back(c);
  }
  for (const api::NodeCondition& c : fresh.status.conditions) {
    api::NodeCondition next = c;
    // Keep the transition time when the status did not change.
    for (const api::NodeCondition& old : st.conditions) {
      if (old.type == c.type && old.status == c.status && old.lastTransitionTime) {
        next.lastTransitionTime = old.lastTransitionTime;
      }
    }
    kept.push_back(std::move(next));
  }
  st.conditions = std::move(kept);
}

std::unique_ptr<api::Lease> MakeNodeLease(const std::string& node_name, const std::string& node_uid,
                                          int32_t duration_seconds, Time now) {
  auto lease = std::make_unique<api::Lease>();
  lease->metadata.name = node_name;
  lease->metadata.namespace_ = kNodeLeaseNamespace;
  if (!node_uid.empty()) {
    lease->metadata.ownerReferences.push_back(
        {.apiVersion = "v1", .kind = "Node", .name = node_name, .uid = node_uid});
  }
  lease->spec.holderIdentity = node_name;
  lease->spec.leaseDurationSeconds = duration_seconds;
  lease->spec.renewTime = api::MicroTime{now};
  return lease;
}

std::unique_ptr<api::Lease> RenewedLease(const api::Lease& lease, const std::string& node_uid,
                                         int32_t duration_seconds, Time now) {
  auto next = std::make_unique<api::Lease>(lease);
  if (!node_uid.empty()) {
    auto& owners = next->metadata.ownerReferences;
    bool owned = std::any_of(owners.begin(), owners.end(),
                             [&](const api::OwnerReference& o) { return o.uid == node_uid; });
    if (!owned) {
      std::erase_if(owners, [](const api::OwnerReference& o) { return o.kind == "Node"; });
      owners.push_back(
          {.apiVersion = "v1", .kind = "Node", .name = lease.metadata.name, .uid = node_uid});
    }
  }
  next->spec.holderIdentity = lease.metadata.name;
  next->spec.leaseDurationSeconds = duration_seconds;
  next->spec.renewTime = api::MicroTime{now};
  return next;
}

std::string NodeHeartbeatPatch(Time now) {
  std::string t = Quoted(now.TruncatedToSeconds().ToRfc3339());
  std::string out = "{\"status\":{\"conditions\":[";
  bool first = true;
  for (const ConditionText& c : kConditions) {
    if (!first) out += ",";
    first = false;
    out += "{\"type\":" + Quoted(c.type) + ",\"status\":" + Quoted(c.status) +
           ",\"reason\":" + Quoted(c.reason) + ",\"message\":" + Quoted(c.message) +
           ",\"lastHeartbeatTime\":" + t + "}";
  }
  out += "]}}";
  return out;
}

}  // namespace allot::node
