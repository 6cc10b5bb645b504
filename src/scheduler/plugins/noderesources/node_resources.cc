#include "scheduler/plugins/noderesources/node_resources.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <cmath>

#include "scheduler/framework/reservation_info.h"

namespace allot::scheduler {

namespace {

using rapidjson::Value;

Result<rapidjson::Document> ParseArgs(std::string_view json) {
  rapidjson::Document doc;
  if (json.empty()) {
    doc.SetObject();
    return doc;
  }
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return allot::BadRequestError("plugin args must be a JSON object");
  }
  return doc;
}

Result<std::vector<ResourceSpec>> ParseResources(const Value& v, const std::string& path) {
  if (!v.IsArray()) return allot::BadRequestError(path + ": must be a list");
  std::vector<ResourceSpec> out;
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    const Value& r = v[i];
    std::string at = path + "[" + std::to_string(i) + "]";
    if (!r.IsObject() || !r.HasMember("name") || !r["name"].IsString()) {
      return allot::BadRequestError(at + ".name: Required value");
    }
    ResourceSpec spec{r["name"].GetString(), 1};
    if (r.HasMember("weight")) {
      if (!r["weight"].IsInt64() || r["weight"].GetInt64() < 1 || r["weight"].GetInt64() > 100) {
        return allot::BadRequestError(at + ".weight: Invalid value: must be in the range [1, 100]");
      }
      spec.weight = r["weight"].GetInt64();
    }
    out.push_back(std::move(spec));
  }
  return out;
}

Result<std::vector<UtilizationShapePoint>> ParseShape(const Value& v, const std::string& path) {
  if (!v.IsArray() || v.Size() == 0) return allot::BadRequestError(path + ": Required value");
  std::vector<UtilizationShapePoint> out;
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    const Value& p = v[i];
    std::string at = path + "[" + std::to_string(i) + "]";
    if (!p.IsObject()) return allot::BadRequestError(at + ": must be an object");
    UtilizationShapePoint pt;
    if (p.HasMember("utilization") && p["utilization"].IsInt64()) {
      pt.utilization = p["utilization"].GetInt64();
    }
    if (p.HasMember("score") && p["score"].IsInt64()) pt.score = p["score"].GetInt64();
    if (pt.utilization < 0 || pt.utilization > 100) {
      return allot::BadRequestError(at +
                                    ".utilization: Invalid value: not in valid range [0, 100]");
    }
    if (pt.score < 0 || pt.score > 10) {
      return allot::BadRequestError(at + ".score: Invalid value: not in valid range [0, 10]");
    }
    if (!out.empty() && pt.utilization <= out.back().utilization) {
      return allot::BadRequestError(at +
                                    ".utilization: Invalid value: utilization values must be "
                                    "sorted in increasing order");
    }
    out.push_back(pt);
  }
  return out;
}

Result<std::vector<std::string>> ParseStrings(const Value& v, const std::string& path) {
  if (!v.IsArray()) return allot::BadRequestError(path + ": must be a list");
  std::vector<std::string> out;
  for (const Value& s : v.GetArray()) {
    if (!s.IsString()) return allot::BadRequestError(path + ": must be a list of strings");
    out.emplace_back(s.GetString());
  }
  return out;
}

allot::Status ParseStrategy(const Value& s, NodeResourcesFitArgs& args) {
  if (!s.IsObject()) return allot::BadRequestError("scoringStrategy: must be an object");
  if (s.HasMember("type")) {
    std::string type = s["type"].IsString() ? s["type"].GetString() : "";
    if (type == "LeastAllocated") {
      args.type = ScoringStrategyType::kLeastAllocated;
    } else if (type == "MostAllocated") {
      args.type = ScoringStrategyType::kMostAllocated;
    } else if (type == "RequestedToCapacityRatio") {
      args.type = ScoringStrategyType::kRequestedToCapacityRatio;
    } else {
      return allot::BadRequestError("scoringStrategy.type: Unsupported value: \"" + type +
                                    "\": supported values: \"LeastAllocated\", "
                                    "\"MostAllocated\", \"RequestedToCapacityRatio\"");
    }
  }
  if (s.HasMember("resources")) {
    ALLOT_ASSIGN_OR_RETURN(args.resources,
                           ParseResources(s["resources"], "scoringStrategy.resources"));
  }
  if (s.HasMember("requestedToCapacityRatio")) {
    const Value& r = s["requestedToCapacityRatio"];
    if (!r.IsObject() || !r.HasMember("shape")) {
      return allot::BadRequestError(
          "scoringStrategy.requestedToCapacityRatio.shape: Required value");
    }
    ALLOT_ASSIGN_OR_RETURN(
        args.shape, ParseShape(r["shape"], "scoringStrategy.requestedToCapacityRatio.shape"));
  }
  return allot::Status::Ok();
}

// Weighted mean over resources with allocatable > 0 of f(requested, allocatable).
template <class F>
int64_t WeightedMean(const std::vector<ResourceSpec>& res, std::span<const int64_t> req,
                     std::span<const int64_t> alloc, F f) {
  int64_t score = 0, weights = 0;
  for (size_t i = 0; i < req.size(); ++i) {
    if (alloc[i] == 0) continue;
    score += f(req[i], alloc[i]) * res[i].weight;
    weights += res[i].weight;
  }
  return weights == 0 ? 0 : score / weights;
}

ResourceScorer MakeFitScorer(const NodeResourcesFitArgs& args) {
  std::vector<ResourceSpec> res = args.resources;
  switch (args.type) {
    case ScoringStrategyType::kMostAllocated:
      return [res](std::span<const int64_t> req, std::span<const int64_t> alloc) {
        return WeightedMean(res, req, alloc, MostRequestedScore);
      };
    case ScoringStrategyType::kRequestedToCapacityRatio: {
      std::vector<UtilizationShapePoint> shape = args.shape;
      for (UtilizationShapePoint& p : shape) p.score *= kMaxNodeScore / 10;
      return [res, shape](std::span<const int64_t> req, std::span<const int64_t> alloc) {
        int64_t score = 0, weights = 0;
        for (size_t i = 0; i < req.size(); ++i) {
          if (alloc[i] == 0) continue;
          int64_t util = req[i] > alloc[i] ? 100 : req[i] * 100 / alloc[i];
          int64_t s = BrokenLinear(shape, util);
          if (s <= 0) continue;
          score += s * res[i].weight;
          weights += res[i].weight;
        }
        if (weights == 0) return int64_t{0};
        return static_cast<int64_t>(
            std::llround(static_cast<double>(score) / static_cast<double>(weights)));
      };
    }
    case ScoringStrategyType::kLeastAllocated:
      break;
  }
  return [res](std::span<const int64_t> req, std::span<const int64_t> alloc) {
    return WeightedMean(res, req, alloc, LeastRequestedScore);
  };
}

int64_t BalancedScore(std::span<const int64_t> req, std::span<const int64_t> alloc) {
  double small[16];
  std::vector<double> big;
  double* fractions = small;
  if (req.size() > 16) {
    big.resize(req.size());
    fractions = big.data();
  }
  double total = 0;
  size_t n = 0;
  for (size_t i = 0; i < req.size(); ++i) {
    if (alloc[i] == 0) continue;
    double f = std::min(1.0, static_cast<double>(req[i]) / static_cast<double>(alloc[i]));
    total += f;
    fractions[n++] = f;
  }
  double std_dev = 0;
  if (n == 2) {
    std_dev = std::abs((fractions[0] - fractions[1]) / 2);
  } else if (n > 2) {
    double mean = total / static_cast<double>(n);
    double sum = 0;
    for (size_t i = 0; i < n; ++i) sum += (fractions[i] - mean) * (fractions[i] - mean);
    std_dev = std::sqrt(sum / static_cast<double>(n));
  }
  return static_cast<int64_t>((1 - std_dev) * static_cast<double>(kMaxNodeScore));
}

std::string_view ResourceGroup(const std::string& name) {
  size_t slash = name.find('/');
  return slash == std::string::npos ? std::string_view() : std::string_view(name).substr(0, slash);
}

}  // namespace

// --- scoring functions --------------------------------------------------------------------------

int64_t LeastRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  return (capacity - requested) * kMaxNodeScore / capacity;
}

int64_t MostRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0) return 0;
  if (requested > capacity) requested = capacity;
  return requested * kMaxNodeScore / capacity;
}

int64_t BrokenLinear(std::span<const UtilizationShapePoint> shape, int64_t p) {
  for (size_t i = 0; i < shape.size(); ++i) {
    if (p > shape[i].utilization) continue;
    if (i == 0) return shape[0].score;
    const UtilizationShapePoint& a = shape[i - 1];
    const UtilizationShapePoint& b = shape[i];
    return a.score + (b.score - a.score) * (p - a.utilization) / (b.utilization - a.utilization);
  }
  return shape.empty() ? 0 : shape.back().score;
}

// --- ResourceAllocationScorer -------------------------------------------------------------------

std::vector<int64_t> ResourceAllocationScorer::PodRequests(const PodInfo& pod) const {
  const Resource& r = use_requested_ ? pod.requests : pod.non_zero_requests;
  std::vector<int64_t> out;
  out.reserve(resources_.size());
  for (const ResourceSpec& spec : resources_) out.push_back(r.Get(spec.name));
  return out;
}

ResourceAllocationScorer::ResourceAllocationScorer(std::vector<ResourceSpec> resources,
                                                   bool use_requested, ResourceScorer scorer)
    : resources_(std::move(resources)), use_requested_(use_requested), scorer_(std::move(scorer)) {
  for (const ResourceSpec& r : resources_) {
    kinds_.push_back(r.name == kResourceCpu                ? Kind::kCpu
                     : r.name == kResourceMemory           ? Kind::kMemory
                     : r.name == kResourceEphemeralStorage ? Kind::kEphemeralStorage
                     : IsScalarResourceName(r.name)        ? Kind::kScalar
                                                           : Kind::kOther);
  }
}

int64_t ResourceAllocationScorer::Score(const PodInfo& pod, const NodeInfo& node) const {
  const Resource& pod_req = use_requested_ ? pod.requests : pod.non_zero_requests;
  const Resource& node_req = use_requested_ ? node.requested() : node.non_zero_requested();
  const Resource& alloc_all = node.allocatable();
  int64_t requested[8], allocatable[8];
  std::vector<int64_t> req_big, alloc_big;
  int64_t* req = requested;
  int64_t* alloc = allocatable;
  if (resources_.size() > 8) {
    req_big.resize(resources_.size());
    alloc_big.resize(resources_.size());
    req = req_big.data();
    alloc = alloc_big.data();
  }
  for (size_t i = 0; i < resources_.size(); ++i) {
    req[i] = alloc[i] = 0;
    switch (kinds_[i]) {
      case Kind::kCpu:
        alloc[i] = alloc_all.milli_cpu;
        req[i] = node_req.milli_cpu + pod_req.milli_cpu;
        break;
      case Kind::kMemory:
        alloc[i] = alloc_all.memory;
        req[i] = node_req.memory + pod_req.memory;
        break;
      case Kind::kEphemeralStorage:
        alloc[i] = alloc_all.ephemeral_storage;
        req[i] = node.requested().ephemeral_storage + pod_req.ephemeral_storage;
        break;
      case Kind::kScalar: {
        // A scalar resource the pod does not ask for is left out of the score.
        int64_t pr = pod_req.Scalar(resources_[i].name);
        if (pr == 0) break;
        alloc[i] = alloc_all.Scalar(resources_[i].name);
        req[i] = node.requested().Scalar(resources_[i].name) + pr;
        break;
      }
      case Kind::kOther:
        break;
    }
  }
  return scorer_(std::span<const int64_t>(req, resources_.size()),
                 std::span<const int64_t>(alloc, resources_.size()));
}

// --- NodeResourcesFit ---------------------------------------------------------------------------

Result<NodeResourcesFitArgs> ParseNodeResourcesFitArgs(std::string_view json) {
  ALLOT_ASSIGN_OR_RETURN(rapidjson::Document doc, ParseArgs(json));
  NodeResourcesFitArgs args;
  for (auto it = doc.MemberBegin(); it != doc.MemberEnd(); ++it) {
    std::string key = it->name.GetString();
    if (key == "scoringStrategy") {
      ALLOT_RETURN_IF_ERROR(ParseStrategy(it->value, args));
    } else if (key == "ignoredResources") {
      ALLOT_ASSIGN_OR_RETURN(args.ignored_resources, ParseStrings(it->value, key));
    } else if (key == "ignoredResourceGroups") {
      ALLOT_ASSIGN_OR_RETURN(args.ignored_resource_groups, ParseStrings(it->value, key));
    } else if (key != "apiVersion" && key != "kind") {
      return allot::BadRequestError("unknown field \"" + key + "\"");
    }
  }
  if (args.resources.empty()) {
    return allot::BadRequestError("scoringStrategy.resources: Required value");
  }
  return args;
}

NodeResourcesFit::NodeResourcesFit(NodeResourcesFitArgs args)
    : args_(std::move(args)), scorer_(args_.resources, false, MakeFitScorer(args_)) {}

bool NodeResourcesFit::Ignored(const std::string& resource) const {
  if (!IsScalarResourceName(resource) || resource.find("kubernetes.io/") != std::string::npos) {
    return false;
  }
  for (const std::string& r : args_.ignored_resources) {
    if (r == resource) return true;
  }
  std::string_view group = ResourceGroup(resource);
  for (const std::string& g : args_.ignored_resource_groups) {
    if (g == group) return true;
  }
  return false;
}

std::vector<std::string> NodeResourcesFit::InsufficientResources(const PodInfo& pod,
                                                                 const NodeInfo& node,
                                                                 bool* unresolvable) const {
  std::vector<std::string> out;
  *unresolvable = false;
  const Resource& want = pod.requests;
  const Resource& alloc = node.allocatable();
  const Resource& used = node.requested();
  if (static_cast<int64_t>(node.pods().size()) + 1 > alloc.allowed_pods)
    out.emplace_back("Too many pods");
  // Reasons are built only for resources that do not fit: the common (fitting) path allocates
  // nothing.
  auto check = [&](int64_t w, int64_t a, int64_t u, std::string_view reason,
                   std::string_view name = {}) {
    if (w > 0 && w > a - u) {
      out.emplace_back(reason);
      out.back().append(name);
      if (w > a) *unresolvable = true;
    }
  };
  check(want.milli_cpu, alloc.milli_cpu, used.milli_cpu, "Insufficient cpu");
  check(want.memory, alloc.memory, used.memory, "Insufficient memory");
  check(want.ephemeral_storage, alloc.ephemeral_storage, used.ephemeral_storage,
        "Insufficient ephemeral-storage");
  for (const auto& [name, w] : want.scalars) {
    if (w == 0 || Ignored(name)) continue;
    check(w, alloc.Scalar(name), used.Scalar(name), "Insufficient ", name);
  }
  return out;
}

Status NodeResourcesFit::Filter(const CycleState&, const PodInfo& pod, const NodeInfo& node) const {
  if (pod.reservation() && pod.reservation()->pre_allocation) {
    // A preAllocation reservation skips the free-capacity check (it waits on the node until
    // the capacity frees up, docs/reservations.md); it must still fit the node at all.
    NodeInfo empty;
    if (node.node()) empty.SetNode(node.node_ptr());
    bool unresolvable = false;
    std::vector<std::string> reasons = InsufficientResources(pod, empty, &unresolvable);
    if (reasons.empty()) return Status::Success();
    return Status(Code::kUnschedulableAndUnresolvable, std::move(reasons));
  }
  bool unresolvable = false;
  std::vector<std::string> reasons = InsufficientResources(pod, node, &unresolvable);
  if (reasons.empty()) return Status::Success();
  return Status(unresolvable ? Code::kUnschedulableAndUnresolvable : Code::kUnschedulable,
                std::move(reasons));
}

Status NodeResourcesFit::Score(const CycleState&, const PodInfo& pod, const NodeInfo& node,
                               int64_t& score) const {
  score = scorer_.Score(pod, node);
  return Status::Success();
}

std::vector<ClusterEventWithHint> NodeResourcesFit::EventsToRegister() const {
  auto pod_deleted = [](const api::Pod&, const api::Object* old_obj, const api::Object*) {
    const api::Pod* p = old_obj ? api::As<api::Pod>(*old_obj) : nullptr;
    if (!p || (p->spec.nodeName.empty() && p->status.nominatedNodeName.empty())) {
      return QueueingHint::kQueueSkip;
    }
    return QueueingHint::kQueue;
  };
  NodeResourcesFitArgs args = args_;
  auto node_changed = [args](const api::Pod& pod, const api::Object* old_obj,
                             const api::Object* new_obj) {
    const api::Node* n = new_obj ? api::As<api::Node>(*new_obj) : nullptr;
    if (!n) return QueueingHint::kQueueSkip;
    NodeInfo fresh;
    fresh.SetNode(std::make_shared<api::Node>(*n));
    NodeResourcesFit fit(args);
    bool unresolvable = false;
    PodInfoPtr p = PodInfo::Make(std::make_shared<api::Pod>(pod));
    if (!fit.InsufficientResources(*p, fresh, &unresolvable).empty()) {
      return QueueingHint::kQueueSkip;
    }
    const api::Node* o = old_obj ? api::As<api::Node>(*old_obj) : nullptr;
    if (!o) return QueueingHint::kQueue;
    NodeInfo before;
    before.SetNode(std::make_shared<api::Node>(*o));
    if (fresh.allocatable().allowed_pods > before.allocatable().allowed_pods) {
      return QueueingHint::kQueue;
    }
    for (const auto& [name, v] : p->requests.scalars) {
      if (v > 0 && fresh.allocatable().Scalar(name) > before.allocatable().Scalar(name)) {
        return QueueingHint::kQueue;
      }
    }
    const Resource& r = p->requests;
    const Resource& a = fresh.allocatable();
    const Resource& b = before.allocatable();
    bool grew = (r.milli_cpu > 0 && a.milli_cpu > b.milli_cpu) ||
                (r.memory > 0 && a.memory > b.memory) ||
                (r.ephemeral_storage > 0 && a.ephemeral_storage > b.ephemeral_storage);
    return grew ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
  };
  return {{{EventResource::kAssignedPod, kDelete}, pod_deleted},
          {{EventResource::kNode, kAdd | kUpdateNodeAllocatable}, node_changed},
          {{EventResource::kReservation, kAdd | kUpdateOther}, RequeueOwnersOfAPlacedReservation}};
}

// --- BalancedAllocation -------------------------------------------------------------------------

Result<std::vector<ResourceSpec>> ParseBalancedAllocationArgs(std::string_view json) {
  ALLOT_ASSIGN_OR_RETURN(rapidjson::Document doc, ParseArgs(json));
  std::vector<ResourceSpec> res = {{"cpu", 1}, {"memory", 1}};
  for (auto it = doc.MemberBegin(); it != doc.MemberEnd(); ++it) {
    std::string key = it->name.GetString();
    if (key == "resources") {
      ALLOT_ASSIGN_OR_RETURN(res, ParseResources(it->value, key));
    } else if (key != "apiVersion" && key != "kind") {
      return allot::BadRequestError("unknown field \"" + key + "\"");
    }
  }
  return res;
}

BalancedAllocation::BalancedAllocation(std::vector<ResourceSpec> resources)
    : scorer_(std::move(resources), true, BalancedScore) {}

Status BalancedAllocation::PreScore(CycleState&, const PodInfo& pod,
                                    std::span<const NodeInfo* const>) {
  for (int64_t v : scorer_.PodRequests(pod)) {
    if (v != 0) return Status::Success();
  }
  return Status::Skip();
}

Status BalancedAllocation::Score(const CycleState&, const PodInfo& pod, const NodeInfo& node,
                                 int64_t& score) const {
  score = scorer_.Score(pod, node);
  return Status::Success();
}

}  // namespace allot::scheduler
