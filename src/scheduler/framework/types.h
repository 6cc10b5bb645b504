// The scheduler's view of pods and nodes: Resource vectors, PodInfo (a pod with its requests
// computed once) and NodeInfo (a node with the pods on it and what they use).
//
// Resource requests are api::PodRequests (api/core/pod_requests.h); the "non-zero" requests
// used for scoring are its non_missing form, so best-effort pods still spread.
//
// Thread safety: PodInfo is immutable once made and shared (shared_ptr<const PodInfo>). A
// NodeInfo is a plain value: the cache mutates its own under its lock, the snapshot holds
// copies that only the scheduling thread touches.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/core/pod_requests.h"
#include "api/core/types.h"
#include "api/machinery/boxed.h"

namespace allot::scheduler {

inline constexpr std::string_view kResourceCpu = "cpu";
inline constexpr std::string_view kResourceMemory = "memory";
inline constexpr std::string_view kResourceEphemeralStorage = "ephemeral-storage";
inline constexpr std::string_view kResourcePods = "pods";

using api::kDefaultMemoryRequest;
using api::kDefaultMilliCpuRequest;

// Extended, hugepages-*, attachable-volumes-* and other domain-prefixed resources: tracked by
// name as integers (schedutil.IsScalarResourceName).
bool IsScalarResourceName(std::string_view name);

// A resource vector in the units the scheduler compares: milli-cpu, bytes, counts.
struct Resource {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  int64_t allowed_pods = 0;  // allocatable only
  // Scalar resources, sorted by name, no duplicates.
  std::vector<std::pair<std::string, int64_t>> scalars;

  static Resource FromList(const api::ResourceList& list);
  // The value for a resource name (cpu in milli-units); 0 when absent.
  int64_t Get(std::string_view name) const;
  int64_t Scalar(std::string_view name) const;
  void SetScalar(std::string_view name, int64_t value);
  void Add(const Resource& other);
  void Sub(const Resource& other);
  bool IsZero() const;
  bool operator==(const Resource&) const = default;
};

// A host port a container asks for.
struct HostPort {
  std::string ip;        // "0.0.0.0" when unset
  std::string protocol;  // "TCP" when unset
  int32_t port = 0;
  bool operator==(const HostPort&) const = default;
};

// The host ports in use on a node (HostPortInfo), with Kubernetes' conflict rule: 0.0.0.0
// conflicts with every address on the same protocol and port.
class HostPortInfo {
 public:
  void Add(const HostPort& p);
  void Remove(const HostPort& p);
  bool Conflicts(const HostPort& p) const;
  size_t size() const { return ports_.size(); }
  const std::vector<HostPort>& ports() const { return ports_; }

 private:
  std::vector<HostPort> ports_;  // a multiset
};

struct ReservationInfo;  // scheduler/framework/reservation_info.h

// A pod plus what the scheduler derives from it once.
struct PodInfo {
  std::shared_ptr<const api::Pod> pod;
  Resource requests;           // what the pod needs (Filter)
  Resource non_zero_requests;  // with defaults for missing cpu / memory (scoring)
  int32_t priority = 0;

  // What few pods have, out of line (a pointer while unset instead of 72 bytes in each of
  // 50,000 PodInfos; docs/performance.md).
  struct Rare {
    std::vector<HostPort> host_ports;
    // Set only for a reserve pod: the reservation it places (framework/reservation_info.h).
    std::shared_ptr<const ReservationInfo> reservation;
    // The uid of the reservation this pod draws from: its reservation-allocated annotation,
    // or, for a pod the scheduler has assumed, the reservation it chose. Empty: none.
    std::string allocated_from;
  };
  const std::vector<HostPort>& host_ports() const { return rare().host_ports; }
  const std::shared_ptr<const ReservationInfo>& reservation() const { return rare().reservation; }
  const std::string& allocated_from() const { return rare().allocated_from; }
  const Rare& rare() const;
  Rare& edit_rare() { return rare_ ? *rare_ : rare_.emplace(); }

  static std::shared_ptr<const PodInfo> Make(std::shared_ptr<const api::Pod> pod);
  // A copy that draws from `reservation_uid` ("" for none).
  std::shared_ptr<const PodInfo> WithAllocatedFrom(std::string reservation_uid) const;
  bool IsReservePod() const { return reservation() != nullptr; }
  const std::string& uid() const { return pod->metadata.uid; }
  const std::string& name() const { return pod->metadata.name; }
  const std::string& namespace_() const { return pod->metadata.namespace_; }

 private:
  api::Boxed<Rare> rare_;
};
using PodInfoPtr = std::shared_ptr<const PodInfo>;

// The generation counter shared by NodeInfos: every change takes a new, larger number, so a
// snapshot can tell which NodeInfos changed since it was last updated.
int64_t NextGeneration();

// An Available reservation on its node. Its owners are pods on the node like any other;
// what it still holds for them, Remaining(), counts as used on the node, so the pods that are
// not its owners cannot take it.
struct ReservedSlot {
  std::shared_ptr<const ReservationInfo> info;
  Resource allocated;     // the owners' requests, for the resources the reservation holds
  int32_t owners = 0;     // owner pods counted on the node (bound or assumed)
  bool released = false;  // NodeInfo::ReleaseReservation: holds nothing in this view
  // allocatable - allocated, each resource at least 0: an Aligned owner larger than its
  // reservation takes the rest from the node's free capacity.
  Resource Remaining() const;
  // What it charges the node: Remaining(), or nothing once released.
  Resource Held() const { return released ? Resource{} : Remaining(); }
};

class NodeInfo {
 public:
  NodeInfo() : generation_(NextGeneration()) {}

  // nullptr while only pods are known (the node object has not arrived or was deleted).
  const api::Node* node() const { return node_.get(); }
  const std::shared_ptr<const api::Node>& node_ptr() const { return node_; }
  const std::string& name() const { return name_; }
  const std::vector<PodInfoPtr>& pods() const { return pods_; }
  const Resource& allocatable() const { return allocatable_; }
  const Resource& requested() const { return requested_; }
  const Resource& non_zero_requested() const { return non_zero_requested_; }
  const HostPortInfo& used_ports() const { return used_ports_; }
  // The Available reservations on the node; requested() includes their Remaining().
  const std::vector<ReservedSlot>& reservations() const { return reservations_; }
  const ReservedSlot* FindReservation(std::string_view uid) const;
  int64_t generation() const { return generation_; }
  // A small number the scheduler's cache gives the node while it knows it, reused once the node
  // is gone; copies (the snapshot's, a dry run's) keep it. For plugins' per-node tables, which
  // index by it instead of hashing the name (and check the name on a hit, since a number
  // outlives its node). kNoIndex for a NodeInfo made outside a cache.
  static constexpr uint32_t kNoIndex = UINT32_MAX;
  uint32_t index() const { return index_; }
  void set_index(uint32_t index) { index_ = index; }
  // Copies of the node's hot fields, so filters that run for every node need not touch the
  // (large, usually cold) Node object: spec.unschedulable and spec.taints.
  bool unschedulable() const { return unschedulable_; }
  const std::vector<api::Taint>& taints() const { return taints_; }

  void SetNode(std::shared_ptr<const api::Node> node);
  void ClearNode();
  void AddPod(PodInfoPtr pod);
  // Removes the pod with this uid; false when it is not on this node.
  bool RemovePod(std::string_view uid);
  // Adds (or replaces) an Available reservation; the pods already here that draw from it
  // (PodInfo::allocated_from) count as its owners.
  void AddReservation(std::shared_ptr<const ReservationInfo> info);
  bool RemoveReservation(std::string_view uid);
  // For a view of the node that one pod's cycle sees (the Reservation plugin): the reservation
  // stays listed but holds nothing any more, as if its owner were looking.
  void ReleaseReservation(std::string_view uid);
  // Takes a new generation (for changes made outside the methods above).
  void Touch() { generation_ = NextGeneration(); }

 private:
  std::shared_ptr<const api::Node> node_;
  std::string name_;
  std::vector<PodInfoPtr> pods_;
  Resource allocatable_;
  Resource requested_;
  Resource non_zero_requested_;
  HostPortInfo used_ports_;
  std::vector<ReservedSlot> reservations_;
  int64_t generation_;
  uint32_t index_ = kNoIndex;
  bool unschedulable_ = false;
  std::vector<api::Taint> taints_;

  ReservedSlot* MutableReservation(std::string_view uid);
  // Moves `slot`'s charge on requested_ from what it held before a change to what it holds now.
  void Recharge(const Resource& before, const ReservedSlot& slot);
};

// One node's score from one plugin, and the total.
struct NodeScore {
  const NodeInfo* node = nullptr;
  int64_t score = 0;
};

inline constexpr int64_t kMaxNodeScore = 100;
inline constexpr int64_t kMinNodeScore = 0;

// DefaultNormalizeScore: scales scores to [0, max_priority] by the highest score; with
// `reverse`, high raw scores become low ones. All zero -> 0 (or max_priority when reversed).
void DefaultNormalizeScore(int64_t max_priority, bool reverse, std::span<NodeScore> scores);

}  // namespace allot::scheduler
