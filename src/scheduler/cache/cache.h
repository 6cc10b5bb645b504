// Cache: the scheduler's model of the cluster, fed by the pod and node informers, plus the pods
// the scheduler has placed but the API server has not confirmed yet ("assumed" pods).
//
// Pod lifecycle in the cache (kube-scheduler's cache state machine):
//
//   AssumePod (Reserve)  ->  assumed, counted on its node
//       | FinishBinding (bind succeeded)  -> may now expire
//       | ForgetPod (binding failed)      -> removed
//   AddPod from the informer (the bound pod arrives) -> confirmed ("added"), the assumption ends
//   An assumed pod whose binding finished more than `assumed_ttl` ago and was never confirmed
//   is dropped by CleanupExpiredAssumedPods (its Add event was lost).
//
// Why assume: the informer learns of a binding only after the API round trip. Without assumed
// pods the next scheduling cycle would still see the node's old free capacity and over-commit
// it. The race this closes: cycle N reserves 3 cpu on node A and hands the pod to binding;
// cycle N+1 starts before the bind lands; it must already see A with 3 cpu less.
//
// Snapshots are incremental: every NodeInfo change takes a new generation number and moves the
// node to the head of a recency list; UpdateSnapshot copies only the NodeInfos newer than the
// snapshot's generation (a handful per cycle instead of all nodes).
//
// Thread safety: all methods are thread-safe (one mutex). Informer handlers, the scheduling
// thread and binding completions call in concurrently.
#pragma once

#include <chrono>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/time.h"
#include "scheduler/framework/reservation_info.h"
#include "scheduler/framework/snapshot.h"
#include "scheduler/framework/types.h"

namespace allot::scheduler {

class Cache final : public ReservationLedger {
 public:
  Cache(Clock& clock, std::chrono::milliseconds assumed_ttl);
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;

  // Counts the pod on `node` until it is confirmed or forgotten (the pod object need not have
  // spec.nodeName set yet). AlreadyExists if the pod is already known.
  allot::Status AssumePod(PodInfoPtr pod, const std::string& node);
  // The binding of an assumed pod finished: its expiry clock starts.
  void FinishBinding(const std::string& uid);
  // Drops an assumed pod (binding failed). No-op when the pod is not assumed.
  void ForgetPod(const std::string& uid);

  // Informer events for pods bound to a node (spec.nodeName set).
  void AddPod(PodInfoPtr pod);
  void UpdatePod(PodInfoPtr pod);
  void RemovePod(const api::Pod& pod);

  // Available reservations: counted on their node (NodeInfo::AddReservation) until removed.
  // Adding one replaces its earlier placement and the reserve pod assumed for it (the binding
  // of a reserve pod is the reservation becoming Available). Removing one leaves its owners
  // counted as plain pods.
  void AddReservation(ReservationInfoPtr reservation);
  void RemoveReservation(const std::string& uid);
  size_t ReservationCount() const;

  // ReservationLedger (the Reservation plugin's Reserve / Unreserve).
  allot::Status AssignToReservation(const std::string& pod_uid,
                                    const std::string& reservation_uid) override;
  void UnassignFromReservation(const std::string& pod_uid) override;

  void AddNode(std::shared_ptr<const api::Node> node);
  void UpdateNode(std::shared_ptr<const api::Node> node);
  void RemoveNode(const std::string& name);

  // Brings `snapshot` up to date (see the file comment).
  void UpdateSnapshot(Snapshot& snapshot);
  // Drops assumed pods whose binding finished more than assumed_ttl ago.
  void CleanupExpiredAssumedPods();

  bool IsAssumed(const std::string& uid) const;
  // The node a known pod is counted on; nullopt when unknown.
  std::optional<std::string> NodeOf(const std::string& uid) const;
  size_t NodeCount() const;
  size_t PodCount() const;
  size_t AssumedPodCount() const;
  // A copy of one node's NodeInfo (tests, debugging); nullopt when unknown.
  std::optional<NodeInfo> GetNodeInfo(const std::string& name) const;

 private:
  struct NodeItem {
    std::unique_ptr<NodeInfo> info;
    std::list<std::string>::iterator recency;
  };
  struct PodState {
    PodInfoPtr pod;
    std::string node;  // the node it is counted on
    bool assumed = false;
    bool binding_finished = false;
    std::optional<std::chrono::steady_clock::time_point> deadline;
  };
  // pods_'s key: a view of the uid in the entry's own PodInfo, so the uid is not copied.
  // SetPodLocked re-points it whenever the entry's PodInfo is replaced (the uid is the same;
  // only its storage moves), so it never outlives what it views.
  struct UidKey {
    mutable std::string_view uid;
  };
  struct UidLess {
    using is_transparent = void;
    static std::string_view View(const UidKey& k) { return k.uid; }
    static std::string_view View(std::string_view s) { return s; }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return View(a) < View(b);
    }
  };
  using PodMap = std::map<UidKey, PodState, UidLess>;

  NodeItem& ItemFor(const std::string& name);  // creates a node-less item if needed
  void Touched(NodeItem& item);                // moves the item to the recency head
  void AddPodLocked(const PodInfoPtr& pod, const std::string& node);
  void RemovePodLocked(std::string_view uid, const std::string& node);
  void MaybeDropItem(const std::string& name);  // drops a node-less item without pods
  void RemoveReservationLocked(const std::string& uid);
  // The entry of `pod`'s uid (made if new) now holding `pod`; its other fields are kept.
  PodState& SetPodLocked(PodInfoPtr pod);
  // Replaces a known pod's PodInfo (same node) with `pod`.
  void ReplacePodLocked(PodState& st, PodInfoPtr pod);

  Clock& clock_;
  const std::chrono::milliseconds assumed_ttl_;
  mutable std::mutex mu_;
  std::map<std::string, NodeItem, std::less<>> nodes_;  // guarded by mu_
  std::list<std::string> recency_;                      // most recently changed first
  uint32_t next_index_ = 0;              // NodeInfo::index() for the next node; guarded by mu_
  std::vector<uint32_t> free_indexes_;  // those of nodes gone; guarded by mu_
  std::vector<std::string> node_order_;                 // nodes with a Node object
  bool order_changed_ = true;                           // node_order_ changed since snapshot
  bool items_dropped_ = false;                          // items erased since snapshot
  PodMap pods_;                                         // by uid; guarded by mu_
  std::map<std::string, std::string, std::less<>> reservations_;  // uid -> node; guarded by mu_
  size_t assumed_count_ = 0;
};

}  // namespace allot::scheduler
