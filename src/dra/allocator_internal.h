// Allocator::Impl: everything Allocator::Create prepares once per pod, shared by the per-node
// search (allocator_search.cc) and the result builder (allocator_result.cc). Private to src/dra.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dra/allocator.h"

namespace allot::dra {

inline constexpr size_t kMaxResultsPerClaim = 32;  // resourceapi.AllocationResultsMaxSize

// The devices one (sub)request may take, before looking at the node or at what is in use:
// class and request selectors matched, and the static rules applied (taints, binding-condition
// and partitionable gates, capacity that can never fit). Requests with the same class,
// selectors, tolerations and capacity share one set, also across pods: sets are cached in the
// Inventory (FindDerived / AddDerived).
struct CandidateSet {
  std::vector<uint64_t> bits;  // by DeviceIndex
  // For shared devices (allowMultipleAllocations with DRAConsumableCapacity): what one
  // allocation consumes, aligned with device.capacity. Sorted by device.
  std::vector<std::pair<DeviceIndex, std::vector<api::Quantity>>> shares;
  // Devices whose selectors failed to evaluate (ascending), and the first message.
  std::vector<DeviceIndex> error_devices;
  std::string error;

  bool Has(DeviceIndex i) const { return (bits[i >> 6] >> (i & 63)) & 1; }
  const std::vector<api::Quantity>* Share(DeviceIndex i) const;
};

// A request with `exactly`, or one subrequest of a firstAvailable list.
struct Alternative {
  uint32_t request = 0;  // index into Impl::requests
  std::string name;      // the result's request field: "req" or "req/sub"
  std::shared_ptr<const api::DeviceClass> device_class;
  bool all = false;  // allocationMode All
  int64_t count = 1;
  bool admin = false;
  const std::vector<api::DeviceToleration>* tolerations = nullptr;
  uint32_t candidates = 0;  // index into Impl::sets
};

struct Request {
  uint32_t claim = 0;
  uint32_t index = 0;  // in the claim's spec
  const api::DeviceRequest* spec = nullptr;
  bool first_available = false;
  std::vector<uint32_t> alternatives;  // indices into Impl::alternatives, in preference order
};

struct Constraint {
  uint32_t claim = 0;
  bool match = true;  // matchAttribute; else distinctAttribute
  std::string attribute;
  std::shared_ptr<const Inventory::AttributeValues> values;
  std::vector<uint8_t> in_scope;  // by alternative index
};

struct ClaimInfo {
  std::shared_ptr<const api::ResourceClaim> claim;
  std::string label;  // "namespace/name"
  std::vector<uint32_t> requests;
  std::vector<uint32_t> constraints;
};

struct Allocator::Impl {
  Features features;
  uint64_t max_steps = 0;
  std::shared_ptr<const Inventory> inventory;
  std::vector<ClaimInfo> claims;
  std::vector<Request> requests;
  std::vector<Alternative> alternatives;
  std::vector<std::shared_ptr<const CandidateSet>> sets;
  std::vector<Constraint> constraints;
};

// What the search chose: per claim, the devices in result order.
struct Pick {
  uint32_t alternative;
  DeviceIndex device;
  bool shared;  // a share of an allowMultipleAllocations device
};
struct Solution {
  std::vector<std::vector<Pick>> claims;  // by claim, ordered by request then pick order
  std::vector<uint32_t> chosen;           // by request: the alternative used
};

// Builds the AllocationResults (allocator_result.cc).
std::vector<api::AllocationResult> BuildResults(const Allocator::Impl& impl,
                                                const Solution& solution, const api::Node& node);

// A share ID in UID form, derived from the claim's UID (or namespace/name) and the result's
// index in the claim, so the same allocation always gets the same IDs and different claims
// get different ones.
std::string MakeShareID(const api::ResourceClaim& claim, size_t result_index);

}  // namespace allot::dra
