// Pod and node builders for scheduler tests (header-only; tests only).
//
//   auto pod = PodBuilder("p1").Req("500m", "1Gi").Toleration("k", "Equal", "v", "NoSchedule")
//                  .Build();
//   auto node = NodeBuilder("n1").Cap("4", "8Gi", 110).Label("zone", "a").Build();
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "api/core/types.h"
#include "scheduler/framework/types.h"

namespace allot::scheduler::testing {

inline api::Quantity Q(const std::string& s) { return api::Quantity::Parse(s).value(); }

inline api::ResourceList RL(const std::map<std::string, std::string>& m) {
  api::ResourceList out;
  for (const auto& [k, v] : m) out.emplace(k, Q(v));
  return out;
}

class PodBuilder {
 public:
  explicit PodBuilder(std::string name, std::string ns = "default") {
    pod_.metadata.name = name;
    pod_.metadata.namespace_ = ns;
    pod_.metadata.uid = "uid-" + ns + "-" + name;
  }
  PodBuilder& Uid(std::string uid) {
    pod_.metadata.uid = std::move(uid);
    return *this;
  }
  // One container requesting cpu / memory ("" leaves that resource out).
  PodBuilder& Req(const std::string& cpu, const std::string& mem = "") {
    std::map<std::string, std::string> m;
    if (!cpu.empty()) m["cpu"] = cpu;
    if (!mem.empty()) m["memory"] = mem;
    return Container(m);
  }
  PodBuilder& Container(const std::map<std::string, std::string>& requests) {
    api::Container c;
    c.name = "c" + std::to_string(pod_.spec.containers.size());
    c.image = "registry.k8s.io/pause:3.10";
    c.resources.requests = RL(requests);
    // Extended resources cannot be overcommitted: validation wants limit == request.
    for (const auto& [k, v] : c.resources.requests) {
      if (IsScalarResourceName(k)) c.resources.limits.emplace(k, v);
    }
    pod_.spec.containers.push_back(std::move(c));
    return *this;
  }
  PodBuilder& InitContainer(const std::map<std::string, std::string>& requests,
                            bool sidecar = false) {
    api::Container c;
    c.name = "i" + std::to_string(pod_.spec.initContainers.size());
    c.image = "registry.k8s.io/pause:3.10";
    c.resources.requests = RL(requests);
    if (sidecar) c.rare.edit().restartPolicy = "Always";
    pod_.spec.initContainers.push_back(std::move(c));
    return *this;
  }
  PodBuilder& Overhead(const std::map<std::string, std::string>& m) {
    pod_.spec.rare.edit().overhead = RL(m);
    return *this;
  }
  PodBuilder& PodLevel(const std::map<std::string, std::string>& m) {
    pod_.spec.resources = api::ResourceRequirements{};
    pod_.spec.resources->requests = RL(m);
    return *this;
  }
  PodBuilder& HostPort(int32_t port, std::string protocol = "", std::string ip = "") {
    if (pod_.spec.containers.empty()) Container({});
    api::ContainerPort p;
    p.containerPort = port;
    p.hostPort = port;
    p.protocol = std::move(protocol);
    p.hostIP = std::move(ip);
    pod_.spec.containers.back().ports.push_back(std::move(p));
    return *this;
  }
  PodBuilder& NodeSelector(const std::string& k, const std::string& v) {
    pod_.spec.nodeSelector[k] = v;
    return *this;
  }
  PodBuilder& RequiredAffinity(const std::string& key, const std::string& op,
                               std::vector<std::string> values) {
    auto& na = NodeAff();
    if (!na.requiredDuringSchedulingIgnoredDuringExecution) {
      na.requiredDuringSchedulingIgnoredDuringExecution = api::NodeSelector{};
    }
    api::NodeSelectorTerm term;
    term.matchExpressions.push_back({key, op, std::move(values)});
    na.requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms.push_back(term);
    return *this;
  }
  PodBuilder& RequiredNodeNames(std::vector<std::string> names) {
    auto& na = NodeAff();
    if (!na.requiredDuringSchedulingIgnoredDuringExecution) {
      na.requiredDuringSchedulingIgnoredDuringExecution = api::NodeSelector{};
    }
    api::NodeSelectorTerm term;
    term.matchFields.push_back({"metadata.name", "In", std::move(names)});
    na.requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms.push_back(term);
    return *this;
  }
  PodBuilder& PreferredAffinity(int32_t weight, const std::string& key, const std::string& op,
                                std::vector<std::string> values) {
    api::PreferredSchedulingTerm t;
    t.weight = weight;
    t.preference.matchExpressions.push_back({key, op, std::move(values)});
    NodeAff().preferredDuringSchedulingIgnoredDuringExecution.push_back(t);
    return *this;
  }
  PodBuilder& Toleration(std::string key, std::string op, std::string value, std::string effect) {
    pod_.spec.tolerations.push_back(
        {std::move(key), std::move(op), std::move(value), std::move(effect), {}});
    return *this;
  }
  PodBuilder& NodeName(std::string n) {
    pod_.spec.nodeName = std::move(n);
    return *this;
  }
  PodBuilder& Priority(int32_t p) {
    pod_.spec.priority = p;
    return *this;
  }
  PodBuilder& SchedulerName(std::string n) {
    pod_.spec.schedulerName = std::move(n);
    return *this;
  }
  PodBuilder& Gate(std::string n) {
    pod_.spec.schedulingGates.push_back({std::move(n)});
    return *this;
  }
  PodBuilder& Label(const std::string& k, const std::string& v) {
    pod_.metadata.labels[k] = v;
    return *this;
  }
  PodBuilder& Annotation(const std::string& k, const std::string& v) {
    pod_.metadata.annotations[k] = v;
    return *this;
  }
  std::shared_ptr<api::Pod> Build() const { return std::make_shared<api::Pod>(pod_); }
  PodInfoPtr Info() const { return PodInfo::Make(Build()); }

 private:
  api::NodeAffinity& NodeAff() {
    if (!pod_.spec.affinity) pod_.spec.affinity = api::Affinity{};
    if (!pod_.spec.affinity->nodeAffinity) pod_.spec.affinity->nodeAffinity = api::NodeAffinity{};
    return *pod_.spec.affinity->nodeAffinity;
  }
  api::Pod pod_;
};

class NodeBuilder {
 public:
  explicit NodeBuilder(std::string name) {
    node_.metadata.name = name;
    node_.metadata.uid = "uid-node-" + name;
    node_.metadata.labels["kubernetes.io/hostname"] = name;
  }
  NodeBuilder& Cap(const std::string& cpu, const std::string& mem, int pods = 110) {
    node_.status.allocatable["cpu"] = Q(cpu);
    node_.status.allocatable["memory"] = Q(mem);
    node_.status.allocatable["pods"] = api::Quantity::FromInt(pods);
    node_.status.capacity = node_.status.allocatable;
    return *this;
  }
  NodeBuilder& Resource(const std::string& name, const std::string& value) {
    node_.status.allocatable[name] = Q(value);
    node_.status.capacity[name] = Q(value);
    return *this;
  }
  NodeBuilder& Label(const std::string& k, const std::string& v) {
    node_.metadata.labels[k] = v;
    return *this;
  }
  NodeBuilder& Taint(std::string key, std::string value, std::string effect) {
    node_.spec.taints.push_back({std::move(key), std::move(value), std::move(effect), {}});
    return *this;
  }
  NodeBuilder& Unschedulable() {
    node_.spec.unschedulable = true;
    return *this;
  }
  std::shared_ptr<api::Node> Build() const { return std::make_shared<api::Node>(node_); }

 private:
  api::Node node_;
};

// A NodeInfo for `node` with `pods` on it.
inline NodeInfo MakeNodeInfo(std::shared_ptr<const api::Node> node,
                             const std::vector<std::shared_ptr<api::Pod>>& pods = {}) {
  NodeInfo ni;
  ni.SetNode(std::move(node));
  for (const auto& p : pods) {
    auto copy = std::make_shared<api::Pod>(*p);
    copy->spec.nodeName = ni.name();
    ni.AddPod(PodInfo::Make(copy));
  }
  return ni;
}

}  // namespace allot::scheduler::testing
