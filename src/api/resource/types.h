// resource.k8s.io/v1 kinds: DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice.
//
// Field names and JSON shapes follow Kubernetes 1.34 (k8s.io/api resource/v1/types.go); the
// comments give each field's meaning and limits (see api/resource/validation.h for the checks).
// Go pointers (*bool, *string, *T) are std::optional so "unset" and "zero" stay distinct.
//
// Allot extensions (KEP-3063 "DRA with a control-plane controller", docs/architecture.md §5.1).
// They are not in upstream v1 (1.32 tombstoned them) and belong behind the feature gate
// DRAControlPlaneController. No gate plumbing exists yet: the fields always decode, and
// validation checks them only when they are set, so plain v1 objects are unaffected.
//   * ResourceClaimSpec::controllerName     (JSON spec.controllerName; v1alpha3 named it
//                                            `controller`)
//   * ResourceClaimSpec::allocationMode     (JSON spec.allocationMode: Immediate |
//                                            WaitForFirstConsumer; claim-level, not to be
//                                            confused with requests[].exactly.allocationMode)
//   * ResourceClaimStatus::deallocationRequested
//   * AllocationResult::controllerName      (JSON status.allocation.controllerName)
//   * DeviceClassSpec::suitableNodes
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/field.h"
#include "api/machinery/meta.h"
#include "api/machinery/object.h"
#include "api/machinery/quantity.h"

namespace allot::api {

// --- constants (resource/v1) --------------------------------------------------------------------

inline constexpr std::string_view kResourceGroup = "resource.k8s.io";
inline constexpr std::string_view kResourceClaimFinalizer =
    "resource.kubernetes.io/delete-protection";
inline constexpr std::string_view kDRAAdminNamespaceLabel = "resource.kubernetes.io/admin-access";
inline constexpr std::string_view kExtendedResourceClaimAnnotation =
    "resource.kubernetes.io/extended-resource-claim";
inline constexpr std::string_view kResourceDeviceClassPrefix =
    "deviceclass.resource.kubernetes.io/";

inline constexpr std::string_view kAllocationModeExactCount = "ExactCount";
inline constexpr std::string_view kAllocationModeAll = "All";
// Claim-level allocation modes (Allot extension, KEP-3063).
inline constexpr std::string_view kClaimAllocationImmediate = "Immediate";
inline constexpr std::string_view kClaimAllocationWaitForFirstConsumer = "WaitForFirstConsumer";
inline constexpr std::string_view kAllocationConfigSourceClass = "FromClass";
inline constexpr std::string_view kAllocationConfigSourceClaim = "FromClaim";

// --- shared pieces ------------------------------------------------------------------------------

// A CEL expression over `device` that must evaluate to true. At most 10 KiB.
struct CELDeviceSelector {
  std::string expression;
  template <class V>
  void Visit(V& v) {
    v("expression", expression, {.always = true, .required = true});
  }
  bool operator==(const CELDeviceSelector&) const = default;
};

// Exactly one member must be set (today only `cel`).
struct DeviceSelector {
  std::optional<CELDeviceSelector> cel;
  template <class V>
  void Visit(V& v) {
    v("cel", cel);
  }
  bool operator==(const DeviceSelector&) const = default;
};

// Driver-specific parameters. `driver` is a DNS subdomain of at most 63 characters;
// `parameters` must be a JSON object of at most 10 KiB.
struct OpaqueDeviceConfiguration {
  std::string driver;
  RawJson parameters;
  template <class V>
  void Visit(V& v) {
    v("driver", driver, {.always = true, .required = true});
    v("parameters", parameters, {.always = true, .required = true});
  }
  bool operator==(const OpaqueDeviceConfiguration&) const = default;
};

// DeviceClassConfiguration: the inlined DeviceConfiguration (exactly one member: `opaque`).
struct DeviceClassConfiguration {
  std::optional<OpaqueDeviceConfiguration> opaque;
  template <class V>
  void Visit(V& v) {
    v("opaque", opaque);
  }
  bool operator==(const DeviceClassConfiguration&) const = default;
};

// A claim's tolerations of device taints. operator: Exists | Equal (default);
// effect: NoSchedule | NoExecute | "" (all effects).
struct DeviceToleration {
  std::string key;
  std::string operator_;
  std::string value;
  std::string effect;
  std::optional<int64_t> tolerationSeconds;
  template <class V>
  void Visit(V& v) {
    v("key", key);
    v("operator", operator_);
    v("value", value);
    v("effect", effect);
    v("tolerationSeconds", tolerationSeconds);
  }
  bool operator==(const DeviceToleration&) const = default;
};

// Per-device demand for consumable capacity (DRAConsumableCapacity).
struct CapacityRequirements {
  std::map<std::string, Quantity> requests;  // qualified capacity name -> amount
  template <class V>
  void Visit(V& v) {
    v("requests", requests);
  }
  bool operator==(const CapacityRequirements&) const = default;
};

// --- DeviceClass --------------------------------------------------------------------------------

struct DeviceClassSpec {
  std::vector<DeviceSelector> selectors;         // <= 32, all must match
  std::vector<DeviceClassConfiguration> config;  // <= 32
  // Allot extension (KEP-3063): limits the nodes considered for controller-allocated claims.
  std::optional<NodeSelector> suitableNodes;
  std::optional<std::string> extendedResourceName;  // DRAExtendedResource
  template <class V>
  void Visit(V& v) {
    v("selectors", selectors, {.atomic = true});
    v("config", config, {.atomic = true});
    v("suitableNodes", suitableNodes);
    v("extendedResourceName", extendedResourceName);
  }
  bool operator==(const DeviceClassSpec&) const = default;
};

struct DeviceClass : TypedObject<DeviceClass> {
  static const TypeInfo& Type();
  DeviceClassSpec spec;
  template <class V>
  void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec, {.required = true});
  }
  bool operator==(const DeviceClass& o) const { return metadata == o.metadata && spec == o.spec; }
};

// --- ResourceClaim spec -------------------------------------------------------------------------

// A request for one or more identical devices of one class.
// The fields of an ExactDeviceRequest that most requests leave unset, kept out of line
// (api/machinery/rare.h): ExactDeviceRequest::rare.
struct ExactDeviceRequestRare {
  std::optional<bool> adminAccess;            // DRAAdminAccess
  std::vector<DeviceToleration> tolerations;  // <= 16
  std::optional<CapacityRequirements> capacity;
  bool operator==(const ExactDeviceRequestRare&) const = default;
};

struct ExactDeviceRequest {
  InternedString deviceClassName;         // required, DNS subdomain
  std::vector<DeviceSelector> selectors;  // <= 32
  InternedString allocationMode;          // ExactCount (default) | All
  int64_t count = 0;                      // ExactCount only; > 0, defaults to 1
  Rare<ExactDeviceRequestRare> rare;      // adminAccess, tolerations, capacity
  template <class V>
  void Visit(V& v) {
    using R = ExactDeviceRequestRare;
    v("deviceClassName", deviceClassName, {.always = true, .required = true});
    v("selectors", selectors, {.atomic = true});
    v("allocationMode", allocationMode);
    v("count", count);
    VisitRare(v, "adminAccess", rare, &R::adminAccess);
    VisitRare(v, "tolerations", rare, &R::tolerations, {.atomic = true});
    VisitRare(v, "capacity", rare, &R::capacity);
  }
  bool operator==(const ExactDeviceRequest&) const = default;
};

// One alternative of a firstAvailable list; referenced as "<request>/<subrequest>".
struct DeviceSubRequest {
  std::string name;  // DNS label
  InternedString deviceClassName;
  std::vector<DeviceSelector> selectors;
  InternedString allocationMode;
  int64_t count = 0;
  std::vector<DeviceToleration> tolerations;
  std::optional<CapacityRequirements> capacity;
  template <class V>
  void Visit(V& v) {
    v("name", name, {.always = true, .required = true});
    v("deviceClassName", deviceClassName, {.always = true, .required = true});
    v("selectors", selectors, {.atomic = true});
    v("allocationMode", allocationMode);
    v("count", count);
    v("tolerations", tolerations, {.atomic = true});
    v("capacity", capacity);
  }
  bool operator==(const DeviceSubRequest&) const = default;
};

// Exactly one of `exactly` and `firstAvailable` (<= 8 entries) is set.
struct DeviceRequest {
  InternedString name;  // DNS label, unique in the claim
  std::optional<ExactDeviceRequest> exactly;
  std::vector<DeviceSubRequest> firstAvailable;
  template <class V>
  void Visit(V& v) {
    v("name", name, {.always = true, .required = true});
    v("exactly", exactly);
    v("firstAvailable", firstAvailable, {.atomic = true});
  }
  bool operator==(const DeviceRequest&) const = default;
};

// `requests` (empty = all) plus exactly one of matchAttribute / distinctAttribute, each a fully
// qualified attribute name ("domain/id").
struct DeviceConstraint {
  std::vector<std::string> requests;
  std::optional<std::string> matchAttribute;
  std::optional<std::string> distinctAttribute;
  template <class V>
  void Visit(V& v) {
    v("requests", requests, {.atomic = true});
    v("matchAttribute", matchAttribute);
    v("distinctAttribute", distinctAttribute);
  }
  bool operator==(const DeviceConstraint&) const = default;
};

// DeviceClaimConfiguration: requests (empty = all; "req" or "req/sub") plus the inlined
// DeviceConfiguration.
struct DeviceClaimConfiguration {
  std::vector<std::string> requests;
  std::optional<OpaqueDeviceConfiguration> opaque;
  template <class V>
  void Visit(V& v) {
    v("requests", requests, {.atomic = true});
    v("opaque", opaque);
  }
  bool operator==(const DeviceClaimConfiguration&) const = default;
};

struct DeviceClaim {
  std::vector<DeviceRequest> requests;           // <= 32, unique names
  std::vector<DeviceConstraint> constraints;     // <= 32
  std::vector<DeviceClaimConfiguration> config;  // <= 32
  template <class V>
  void Visit(V& v) {
    v("requests", requests, {.atomic = true});
    v("constraints", constraints, {.atomic = true});
    v("config", config, {.atomic = true});
  }
  bool operator==(const DeviceClaim&) const = default;
};

// Immutable once created.
struct ResourceClaimSpec {
  DeviceClaim devices;
  // Allot extension (KEP-3063): the driver whose control-plane controller allocates this claim.
  // Empty: the scheduler allocates from structured parameters.
  InternedString controllerName;
  // Allot extension (KEP-3063): Immediate | WaitForFirstConsumer. Only meaningful together with
  // controllerName; defaulted to WaitForFirstConsumer when controllerName is set.
  InternedString allocationMode;
  template <class V>
  void Visit(V& v) {
    v("devices", devices);
    v("controllerName", controllerName);
    v("allocationMode", allocationMode);
  }
  bool operator==(const ResourceClaimSpec&) const = default;
};

// --- ResourceClaim status -----------------------------------------------------------------------

// A consumer of the claim (a pod, in practice). uid is the list-map key.
struct ResourceClaimConsumerReference {
  InternedString apiGroup;  // "" for core
  InternedString resource;  // "pods"
  std::string name;
  std::string uid;
  template <class V>
  void Visit(V& v) {
    v("apiGroup", apiGroup);
    v("resource", resource, {.always = true, .required = true});
    v("name", name, {.always = true, .required = true});
    v("uid", uid, {.always = true, .required = true});
  }
  bool operator==(const ResourceClaimConsumerReference&) const = default;
};

// One allocated device. Its ID is <driver>/<pool>/<device> (plus shareID for shared devices).
// The fields of a DeviceRequestAllocationResult that most allocated devices leave unset, kept
// out of line (api/machinery/rare.h): DeviceRequestAllocationResult::rare. A device with
// binding conditions, shared capacity or a toleration pays for all of them (about 170 bytes).
struct DeviceRequestAllocationResultRare {
  std::optional<bool> adminAccess;
  std::vector<DeviceToleration> tolerations;
  std::vector<std::string> bindingConditions;         // copied from the slice device
  std::vector<std::string> bindingFailureConditions;  // copied from the slice device
  std::optional<std::string> shareID;                 // a UID
  std::map<std::string, Quantity> consumedCapacity;
  bool operator==(const DeviceRequestAllocationResultRare&) const = default;
};

struct DeviceRequestAllocationResult {
  InternedString request;  // "req" or "req/sub"
  InternedString driver;
  std::string pool;
  std::string device;
  // adminAccess, tolerations, bindingConditions, bindingFailureConditions, shareID,
  // consumedCapacity
  Rare<DeviceRequestAllocationResultRare> rare;
  template <class V>
  void Visit(V& v) {
    using R = DeviceRequestAllocationResultRare;
    v("request", request, {.always = true, .required = true});
    v("driver", driver, {.always = true, .required = true});
    v("pool", pool, {.always = true, .required = true});
    v("device", device, {.always = true, .required = true});
    VisitRare(v, "adminAccess", rare, &R::adminAccess);
    VisitRare(v, "tolerations", rare, &R::tolerations, {.atomic = true});
    VisitRare(v, "bindingConditions", rare, &R::bindingConditions, {.atomic = true});
    VisitRare(v, "bindingFailureConditions", rare, &R::bindingFailureConditions, {.atomic = true});
    VisitRare(v, "shareID", rare, &R::shareID);
    VisitRare(v, "consumedCapacity", rare, &R::consumedCapacity);
  }
  bool operator==(const DeviceRequestAllocationResult&) const = default;
};

// Class and claim configuration copied into the allocation. source: FromClass | FromClaim.
struct DeviceAllocationConfiguration {
  std::string source;
  std::vector<std::string> requests;
  std::optional<OpaqueDeviceConfiguration> opaque;
  template <class V>
  void Visit(V& v) {
    v("source", source, {.always = true, .required = true});
    v("requests", requests, {.atomic = true});
    v("opaque", opaque);
  }
  bool operator==(const DeviceAllocationConfiguration&) const = default;
};

struct DeviceAllocationResult {
  std::vector<DeviceRequestAllocationResult> results;  // <= 32
  std::vector<DeviceAllocationConfiguration> config;   // <= 64 (class + claim)
  template <class V>
  void Visit(V& v) {
    v("results", results, {.atomic = true});
    v("config", config, {.atomic = true});
  }
  bool operator==(const DeviceAllocationResult&) const = default;
};

struct AllocationResult {
  DeviceAllocationResult devices;
  std::optional<NodeSelector> nodeSelector;  // unset: usable everywhere
  // Allot extension (KEP-3063): the controller that must deallocate.
  std::string controllerName;
  std::optional<Time> allocationTimestamp;  // start of the binding-condition timeout
  template <class V>
  void Visit(V& v) {
    v("devices", devices);
    v("nodeSelector", nodeSelector);
    v("controllerName", controllerName);
    v("allocationTimestamp", allocationTimestamp);
  }
  bool operator==(const AllocationResult&) const = default;
};

struct NetworkDeviceData {
  std::string interfaceName;     // <= 256
  std::vector<std::string> ips;  // <= 16, CIDR form
  std::string hardwareAddress;   // <= 128
  template <class V>
  void Visit(V& v) {
    v("interfaceName", interfaceName);
    v("ips", ips, {.atomic = true});
    v("hardwareAddress", hardwareAddress);
  }
  bool operator==(const NetworkDeviceData&) const = default;
};

// Written by drivers; (driver, device, pool, shareID) must match an allocated device.
struct AllocatedDeviceStatus {
  std::string driver;
  std::string pool;
  std::string device;
  std::optional<std::string> shareID;
  std::vector<Condition> conditions;  // <= 8, keyed by type
  RawJson data;                       // <= 10 KiB JSON object; empty = unset
  std::optional<NetworkDeviceData> networkData;
  template <class V>
  void Visit(V& v) {
    v("driver", driver, {.always = true, .required = true});
    v("pool", pool, {.always = true, .required = true});
    v("device", device, {.always = true, .required = true});
    v("shareID", shareID);
    v("conditions", conditions, {.merge_key = "type"});
    v("data", data);
    v("networkData", networkData);
  }
  bool operator==(const AllocatedDeviceStatus&) const = default;
};

struct ResourceClaimStatus {
  std::optional<AllocationResult> allocation;
  std::vector<ResourceClaimConsumerReference> reservedFor;  // <= 256, keyed by uid
  // Allot extension (KEP-3063): while set, nobody may be added to reservedFor; the driver clears
  // it together with `allocation`.
  bool deallocationRequested = false;
  std::vector<AllocatedDeviceStatus> devices;
  template <class V>
  void Visit(V& v) {
    v("allocation", allocation);
    v("reservedFor", reservedFor, {.merge_key = "uid"});
    v("deallocationRequested", deallocationRequested);
    v("devices", devices);
  }
  bool operator==(const ResourceClaimStatus&) const = default;
};

struct ResourceClaim : TypedObject<ResourceClaim> {
  static const TypeInfo& Type();
  ResourceClaimSpec spec;
  ResourceClaimStatus status;
  template <class V>
  void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec, {.required = true});
    v("status", status);
  }
  bool operator==(const ResourceClaim& o) const {
    return metadata == o.metadata && spec == o.spec && status == o.status;
  }
};

// --- ResourceClaimTemplate ----------------------------------------------------------------------

// `metadata` may hold only labels and annotations (validation rejects every other field); they
// are copied into generated claims. `spec` is copied verbatim.
struct ResourceClaimTemplateSpec {
  ObjectMeta metadata;
  ResourceClaimSpec spec;
  template <class V>
  void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec, {.required = true});
  }
  bool operator==(const ResourceClaimTemplateSpec&) const = default;
};

struct ResourceClaimTemplate : TypedObject<ResourceClaimTemplate> {
  static const TypeInfo& Type();
  ResourceClaimTemplateSpec spec;
  template <class V>
  void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec, {.required = true});
  }
  bool operator==(const ResourceClaimTemplate& o) const {
    return metadata == o.metadata && spec == o.spec;
  }
};

// --- ResourceSlice ------------------------------------------------------------------------------

struct ResourcePool {
  std::string name;                // <= 253, DNS subdomains joined by '/', immutable
  int64_t generation = 0;          // >= 0; consumers use the highest
  int64_t resourceSliceCount = 0;  // > 0
  template <class V>
  void Visit(V& v) {
    v("name", name, {.always = true, .required = true});
    v("generation", generation, {.always = true, .required = true});
    v("resourceSliceCount", resourceSliceCount, {.always = true, .required = true});
  }
  bool operator==(const ResourcePool&) const = default;
};

// Exactly one member is set. JSON keys: int, bool, string (<= 64), version (semver 2.0.0, <= 64).
struct DeviceAttribute {
  std::optional<int64_t> intValue;
  std::optional<bool> boolValue;
  std::optional<std::string> stringValue;
  std::optional<std::string> versionValue;
  template <class V>
  void Visit(V& v) {
    v("int", intValue);
    v("bool", boolValue);
    v("string", stringValue);
    v("version", versionValue);
  }
  bool operator==(const DeviceAttribute&) const = default;
};

struct CapacityRequestPolicyRange {
  std::optional<Quantity> min;  // required
  std::optional<Quantity> max;
  std::optional<Quantity> step;
  template <class V>
  void Visit(V& v) {
    v("min", min);
    v("max", max);
    v("step", step);
  }
  bool operator==(const CapacityRequestPolicyRange&) const = default;
};

// How requests consume a shared device's capacity: at most one of validValues (<= 10,
// ascending, must contain default) and validRange.
struct CapacityRequestPolicy {
  std::optional<Quantity> defaultValue;  // JSON "default"
  std::vector<Quantity> validValues;
  std::optional<CapacityRequestPolicyRange> validRange;
  template <class V>
  void Visit(V& v) {
    v("default", defaultValue);
    v("validValues", validValues, {.atomic = true});
    v("validRange", validRange);
  }
  bool operator==(const CapacityRequestPolicy&) const = default;
};

struct DeviceCapacity {
  Quantity value;
  std::optional<CapacityRequestPolicy> requestPolicy;  // only with allowMultipleAllocations
  template <class V>
  void Visit(V& v) {
    v("value", value, {.required = true});
    v("requestPolicy", requestPolicy);
  }
  bool operator==(const DeviceCapacity&) const = default;
};

struct Counter {
  Quantity value;
  template <class V>
  void Visit(V& v) {
    v("value", value, {.required = true});
  }
  bool operator==(const Counter&) const = default;
};

// Counters a device consumes from one of the slice's sharedCounters sets.
struct DeviceCounterConsumption {
  std::string counterSet;
  std::map<std::string, Counter> counters;
  template <class V>
  void Visit(V& v) {
    v("counterSet", counterSet, {.always = true, .required = true});
    v("counters", counters);
  }
  bool operator==(const DeviceCounterConsumption&) const = default;
};

// effect: NoSchedule | NoExecute (1.34).
struct DeviceTaint {
  std::string key;
  std::string value;
  std::string effect;
  std::optional<Time> timeAdded;
  template <class V>
  void Visit(V& v) {
    v("key", key, {.always = true, .required = true});
    v("value", value);
    v("effect", effect, {.always = true, .required = true});
    v("timeAdded", timeAdded);
  }
  bool operator==(const DeviceTaint&) const = default;
};

struct Device {
  std::string name;                                   // DNS label, unique in the pool
  std::map<std::string, DeviceAttribute> attributes;  // attributes + capacity <= 32
  std::map<std::string, DeviceCapacity> capacity;
  std::vector<DeviceCounterConsumption> consumesCounters;
  // Per-device node scoping: exactly one, iff spec.perDeviceNodeSelection is true.
  std::optional<std::string> nodeName;
  std::optional<NodeSelector> nodeSelector;
  std::optional<bool> allNodes;
  std::vector<DeviceTaint> taints;  // <= 4 (1.34)
  std::optional<bool> bindsToNode;
  std::vector<std::string> bindingConditions;         // <= 4
  std::vector<std::string> bindingFailureConditions;  // <= 4; both lists or neither
  std::optional<bool> allowMultipleAllocations;
  template <class V>
  void Visit(V& v) {
    v("name", name, {.always = true, .required = true});
    v("attributes", attributes);
    v("capacity", capacity);
    v("consumesCounters", consumesCounters, {.atomic = true});
    v("nodeName", nodeName);
    v("nodeSelector", nodeSelector);
    v("allNodes", allNodes);
    v("taints", taints, {.atomic = true});
    v("bindsToNode", bindsToNode);
    v("bindingConditions", bindingConditions, {.atomic = true});
    v("bindingFailureConditions", bindingFailureConditions, {.atomic = true});
    v("allowMultipleAllocations", allowMultipleAllocations);
  }
  bool operator==(const Device&) const = default;
};

struct CounterSet {
  std::string name;  // DNS label
  std::map<std::string, Counter> counters;
  template <class V>
  void Visit(V& v) {
    v("name", name, {.always = true, .required = true});
    v("counters", counters);
  }
  bool operator==(const CounterSet&) const = default;
};

// Node scoping: exactly one of nodeName, nodeSelector (one term), allNodes (true) and
// perDeviceNodeSelection (true).
struct ResourceSliceSpec {
  std::string driver;  // DNS subdomain <= 63, immutable
  ResourcePool pool;
  std::optional<std::string> nodeName;  // immutable
  std::optional<NodeSelector> nodeSelector;
  std::optional<bool> allNodes;
  std::vector<Device> devices;  // <= 128
  std::optional<bool> perDeviceNodeSelection;
  std::vector<CounterSet> sharedCounters;
  template <class V>
  void Visit(V& v) {
    v("driver", driver, {.always = true, .required = true});
    v("pool", pool, {.required = true});
    v("nodeName", nodeName);
    v("nodeSelector", nodeSelector);
    v("allNodes", allNodes);
    v("devices", devices, {.atomic = true});
    v("perDeviceNodeSelection", perDeviceNodeSelection);
    v("sharedCounters", sharedCounters, {.atomic = true});
  }
  bool operator==(const ResourceSliceSpec&) const = default;
};

struct ResourceSlice : TypedObject<ResourceSlice> {
  static const TypeInfo& Type();
  ResourceSliceSpec spec;
  template <class V>
  void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec, {.required = true});
  }
  bool operator==(const ResourceSlice& o) const { return metadata == o.metadata && spec == o.spec; }
};

// --- helpers ------------------------------------------------------------------------------------

// Applies the v1 defaults: allocationMode ExactCount, count 1 for ExactCount, toleration operator
// Equal (requests and subrequests); the claim-level allocationMode WaitForFirstConsumer when
// controllerName is set.
void SetResourceClaimSpecDefaults(ResourceClaimSpec& spec);

// The claim-level allocation mode in effect: allocationMode, or WaitForFirstConsumer when unset.
std::string_view EffectiveClaimAllocationMode(const ResourceClaimSpec& spec);

// The STATE column of `kubectl get resourceclaims`: comma-joined "deleted", "pending" |
// "allocated", "reserved".
std::string ResourceClaimState(const ResourceClaim& claim);

}  // namespace allot::api
