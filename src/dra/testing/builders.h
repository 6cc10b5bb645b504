// Builders for DRA objects in tests (header-only; tests only).
//
//   auto slice = SliceBuilder("node-1-gpus", "gpu.example.com", "node-1").Node("node-1")
//                    .Devices("gpu", 4, [](int i, DeviceBuilder& d) { d.Int("index", i); })
//                    .Build();
//   auto cls = ClassBuilder("gpu").Selector("driver=gpu.example.com").Build();
//   auto claim = ClaimBuilder("c1").Request("gpu", "gpu", 2).Selector("model=A100")
//                    .MatchAttribute("gpu.example.com/numa").Build();
//   api::Node node = MakeNode("node-1", {{"zone", "a"}});
//
// Requests and subrequests: Request() / AllRequest() start a request with `exactly`;
// FirstAvailable() starts a request with subrequests, Sub() adds one. Selector(), Toleration(),
// Capacity() and Admin() apply to the last request or subrequest added.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "api/core/types.h"
#include "api/machinery/quantity.h"
#include "api/resource/types.h"

namespace allot::dra::testing {

inline api::Quantity Q(std::string_view s) { return api::Quantity::Parse(s).value(); }

inline api::Node MakeNode(std::string name, std::map<std::string, std::string> labels = {}) {
  api::Node node;
  node.metadata.name = std::move(name);
  for (auto& [k, v] : labels) node.metadata.labels[k] = v;
  return node;
}

// A node selector with one term: matchExpressions key In [value].
inline api::NodeSelector LabelSelector(std::string key, std::string value) {
  api::NodeSelectorRequirement r;
  r.key = std::move(key);
  r.operator_ = "In";
  r.values = {std::move(value)};
  api::NodeSelectorTerm term;
  term.matchExpressions.push_back(std::move(r));
  api::NodeSelector sel;
  sel.nodeSelectorTerms.push_back(std::move(term));
  return sel;
}

class DeviceBuilder {
 public:
  explicit DeviceBuilder(std::string name) { d_.name = std::move(name); }
  DeviceBuilder& Int(const std::string& attr, int64_t v) {
    d_.attributes[attr].intValue = v;
    return *this;
  }
  DeviceBuilder& Str(const std::string& attr, std::string v) {
    d_.attributes[attr].stringValue = std::move(v);
    return *this;
  }
  DeviceBuilder& Bool(const std::string& attr, bool v) {
    d_.attributes[attr].boolValue = v;
    return *this;
  }
  DeviceBuilder& Version(const std::string& attr, std::string v) {
    d_.attributes[attr].versionValue = std::move(v);
    return *this;
  }
  DeviceBuilder& Capacity(const std::string& name, std::string_view value) {
    d_.capacity[name].value = Q(value);
    return *this;
  }
  DeviceBuilder& Capacity(const std::string& name, std::string_view value,
                          api::CapacityRequestPolicy policy) {
    d_.capacity[name].value = Q(value);
    d_.capacity[name].requestPolicy = std::move(policy);
    return *this;
  }
  DeviceBuilder& Shared() {
    d_.allowMultipleAllocations = true;
    return *this;
  }
  DeviceBuilder& Taint(std::string key, std::string value, std::string effect) {
    d_.taints.push_back({std::move(key), std::move(value), std::move(effect), std::nullopt});
    return *this;
  }
  DeviceBuilder& Consumes(const std::string& counter_set, const std::string& counter,
                          std::string_view value) {
    for (api::DeviceCounterConsumption& c : d_.consumesCounters) {
      if (c.counterSet == counter_set) {
        c.counters[counter].value = Q(value);
        return *this;
      }
    }
    api::DeviceCounterConsumption& c = d_.consumesCounters.emplace_back();
    c.counterSet = counter_set;
    c.counters[counter].value = Q(value);
    return *this;
  }
  DeviceBuilder& Binding(std::vector<std::string> conditions,
                         std::vector<std::string> failure_conditions, bool binds_to_node = true) {
    d_.bindingConditions = std::move(conditions);
    d_.bindingFailureConditions = std::move(failure_conditions);
    if (binds_to_node) d_.bindsToNode = true;
    return *this;
  }
  // Per-device node selection (the slice needs PerDevice()).
  DeviceBuilder& NodeName(std::string node) {
    d_.nodeName = std::move(node);
    return *this;
  }
  DeviceBuilder& NodeSelector(api::NodeSelector sel) {
    d_.nodeSelector = std::move(sel);
    return *this;
  }
  DeviceBuilder& AllNodes() {
    d_.allNodes = true;
    return *this;
  }
  const api::Device& device() const { return d_; }
  api::Device Build() const { return d_; }

 private:
  api::Device d_;
};

// A capacity request policy: default plus validValues, or default plus a validRange.
inline api::CapacityRequestPolicy ValidValues(std::string_view def,
                                              std::vector<std::string_view> values) {
  api::CapacityRequestPolicy p;
  p.defaultValue = Q(def);
  for (std::string_view v : values) p.validValues.push_back(Q(v));
  return p;
}
inline api::CapacityRequestPolicy ValidRange(std::string_view def, std::string_view min,
                                             std::string_view max = "",
                                             std::string_view step = "") {
  api::CapacityRequestPolicy p;
  p.defaultValue = Q(def);
  api::CapacityRequestPolicyRange r;
  r.min = Q(min);
  if (!max.empty()) r.max = Q(max);
  if (!step.empty()) r.step = Q(step);
  p.validRange = r;
  return p;
}

class SliceBuilder {
 public:
  // A slice of `pool`, generation 0 of a one-slice pool, usable on all nodes until Node(),
  // NodeSelector() or PerDevice() says otherwise.
  SliceBuilder(std::string name, std::string driver, std::string pool) {
    s_.metadata.name = std::move(name);
    s_.metadata.uid = "uid-slice-" + s_.metadata.name;
    s_.spec.driver = std::move(driver);
    s_.spec.pool.name = std::move(pool);
    s_.spec.pool.resourceSliceCount = 1;
    s_.spec.allNodes = true;
  }
  SliceBuilder& Node(std::string node) {
    ClearScope();
    s_.spec.nodeName = std::move(node);
    return *this;
  }
  SliceBuilder& NodeSelector(api::NodeSelector sel) {
    ClearScope();
    s_.spec.nodeSelector = std::move(sel);
    return *this;
  }
  SliceBuilder& AllNodes() {
    ClearScope();
    s_.spec.allNodes = true;
    return *this;
  }
  SliceBuilder& PerDevice() {
    ClearScope();
    s_.spec.perDeviceNodeSelection = true;
    return *this;
  }
  SliceBuilder& Pool(int64_t generation, int64_t slice_count) {
    s_.spec.pool.generation = generation;
    s_.spec.pool.resourceSliceCount = slice_count;
    return *this;
  }
  SliceBuilder& Device(const DeviceBuilder& d) {
    s_.spec.devices.push_back(d.Build());
    return *this;
  }
  // Devices "<prefix>-0" .. "<prefix>-<n-1>", each passed to `fill` first if given.
  SliceBuilder& Devices(const std::string& prefix, int n,
                        const std::function<void(int, DeviceBuilder&)>& fill = nullptr) {
    for (int i = 0; i < n; ++i) {
      DeviceBuilder d(prefix + "-" + std::to_string(i));
      if (fill) fill(i, d);
      s_.spec.devices.push_back(d.Build());
    }
    return *this;
  }
  SliceBuilder& SharedCounter(const std::string& set, const std::string& counter,
                              std::string_view value) {
    for (api::CounterSet& cs : s_.spec.sharedCounters) {
      if (cs.name == set) {
        cs.counters[counter].value = Q(value);
        return *this;
      }
    }
    api::CounterSet& cs = s_.spec.sharedCounters.emplace_back();
    cs.name = set;
    cs.counters[counter].value = Q(value);
    return *this;
  }
  std::shared_ptr<const api::ResourceSlice> Build() const {
    return std::make_shared<api::ResourceSlice>(s_);
  }

 private:
  void ClearScope() {
    s_.spec.nodeName.reset();
    s_.spec.nodeSelector.reset();
    s_.spec.allNodes.reset();
    s_.spec.perDeviceNodeSelection.reset();
  }
  api::ResourceSlice s_;
};

class ClassBuilder {
 public:
  explicit ClassBuilder(std::string name) { c_.metadata.name = std::move(name); }
  ClassBuilder& Selector(std::string expression) {
    c_.spec.selectors.push_back(api::DeviceSelector{api::CELDeviceSelector{std::move(expression)}});
    return *this;
  }
  ClassBuilder& Config(std::string driver, std::string json) {
    c_.spec.config.push_back(api::DeviceClassConfiguration{
        api::OpaqueDeviceConfiguration{std::move(driver), api::RawJson{std::move(json)}}});
    return *this;
  }
  std::shared_ptr<const api::DeviceClass> Build() const {
    return std::make_shared<api::DeviceClass>(c_);
  }

 private:
  api::DeviceClass c_;
};

class ClaimBuilder {
 public:
  explicit ClaimBuilder(std::string name, std::string ns = "default") {
    c_.metadata.name = std::move(name);
    c_.metadata.namespace_ = std::move(ns);
    c_.metadata.uid = "uid-" + c_.metadata.namespace_ + "-" + c_.metadata.name;
  }
  ClaimBuilder& Request(std::string name, std::string device_class, int64_t count = 1) {
    api::DeviceRequest& r = c_.spec.devices.requests.emplace_back();
    r.name = std::move(name);
    r.exactly.emplace();
    r.exactly->deviceClassName = std::move(device_class);
    r.exactly->allocationMode = std::string(api::kAllocationModeExactCount);
    r.exactly->count = count;
    return *this;
  }
  ClaimBuilder& AllRequest(std::string name, std::string device_class) {
    Request(std::move(name), std::move(device_class), 0);
    c_.spec.devices.requests.back().exactly->allocationMode = std::string(api::kAllocationModeAll);
    return *this;
  }
  ClaimBuilder& FirstAvailable(std::string name) {
    c_.spec.devices.requests.emplace_back().name = std::move(name);
    return *this;
  }
  ClaimBuilder& Sub(std::string name, std::string device_class, int64_t count = 1) {
    api::DeviceSubRequest& s = c_.spec.devices.requests.back().firstAvailable.emplace_back();
    s.name = std::move(name);
    s.deviceClassName = std::move(device_class);
    s.allocationMode = std::string(api::kAllocationModeExactCount);
    s.count = count;
    return *this;
  }
  ClaimBuilder& AllSub(std::string name, std::string device_class) {
    Sub(std::move(name), std::move(device_class), 0);
    c_.spec.devices.requests.back().firstAvailable.back().allocationMode =
        std::string(api::kAllocationModeAll);
    return *this;
  }
  ClaimBuilder& Selector(std::string expression) {
    Selectors().push_back(api::DeviceSelector{api::CELDeviceSelector{std::move(expression)}});
    return *this;
  }
  ClaimBuilder& Toleration(std::string key, std::string op, std::string value, std::string effect) {
    Tolerations().push_back(
        {std::move(key), std::move(op), std::move(value), std::move(effect), std::nullopt});
    return *this;
  }
  ClaimBuilder& Capacity(const std::string& name, std::string_view value) {
    api::DeviceRequest& r = c_.spec.devices.requests.back();
    auto& cap = r.exactly ? r.exactly->rare.edit().capacity : r.firstAvailable.back().capacity;
    if (!cap) cap.emplace();
    cap->requests[name] = Q(value);
    return *this;
  }
  ClaimBuilder& Admin(bool admin = true) {
    c_.spec.devices.requests.back().exactly->rare.edit().adminAccess = admin;
    return *this;
  }
  ClaimBuilder& MatchAttribute(std::string attr, std::vector<std::string> requests = {}) {
    api::DeviceConstraint& c = c_.spec.devices.constraints.emplace_back();
    c.matchAttribute = std::move(attr);
    c.requests = std::move(requests);
    return *this;
  }
  ClaimBuilder& DistinctAttribute(std::string attr, std::vector<std::string> requests = {}) {
    api::DeviceConstraint& c = c_.spec.devices.constraints.emplace_back();
    c.distinctAttribute = std::move(attr);
    c.requests = std::move(requests);
    return *this;
  }
  ClaimBuilder& Config(std::vector<std::string> requests, std::string driver, std::string json) {
    api::DeviceClaimConfiguration& c = c_.spec.devices.config.emplace_back();
    c.requests = std::move(requests);
    c.opaque = api::OpaqueDeviceConfiguration{std::move(driver), api::RawJson{std::move(json)}};
    return *this;
  }
  ClaimBuilder& ControllerName(std::string name) {
    c_.spec.controllerName = std::move(name);
    return *this;
  }
  std::shared_ptr<const api::ResourceClaim> Build() const {
    return std::make_shared<api::ResourceClaim>(c_);
  }

 private:
  std::vector<api::DeviceSelector>& Selectors() {
    api::DeviceRequest& r = c_.spec.devices.requests.back();
    return r.exactly ? r.exactly->selectors : r.firstAvailable.back().selectors;
  }
  std::vector<api::DeviceToleration>& Tolerations() {
    api::DeviceRequest& r = c_.spec.devices.requests.back();
    return r.exactly ? r.exactly->rare.edit().tolerations : r.firstAvailable.back().tolerations;
  }
  api::ResourceClaim c_;
};

}  // namespace allot::dra::testing
