// Cluster events and queueing hints: how a pod that a plugin rejected gets back into the
// active queue.
//
// When a plugin rejects a pod (Unschedulable / UnschedulableAndUnresolvable / Pending), the pod
// waits among the unschedulable pods. Each plugin names the cluster events that could change
// its verdict (EventsToRegister), optionally with a QueueingHintFn that looks at the concrete
// change ("a node was added, but it is too small for this pod: skip"). An event moves a pod
// only if one of the plugins that rejected it registered for the event and its hint says
// kQueue. A periodic flush moves pods that waited too long regardless (the safety net).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "api/core/types.h"

namespace allot::scheduler {

// The resource an event is about. kPod in a registration matches kAssignedPod and
// kUnscheduledPod events; kWildCard matches everything.
enum class EventResource : uint8_t {
  kPod,
  kAssignedPod,
  kUnscheduledPod,
  kNode,
  kPersistentVolume,
  kPersistentVolumeClaim,
  kStorageClass,
  kCSINode,
  kResourceClaim,
  kResourceSlice,
  kDeviceClass,
  kPodSchedulingContext,
  kReservation,
  kWildCard,
};

// Bit flags: what happened. Node and pod updates are split by what changed so plugins can ask
// for only what matters to them.
enum ActionType : uint32_t {
  kAdd = 1u << 0,
  kDelete = 1u << 1,
  kUpdateNodeAllocatable = 1u << 2,
  kUpdateNodeLabel = 1u << 3,
  kUpdateNodeTaint = 1u << 4,
  kUpdateNodeCondition = 1u << 5,
  kUpdateNodeAnnotation = 1u << 6,
  kUpdatePodLabel = 1u << 7,
  kUpdatePodScaleDown = 1u << 8,
  kUpdatePodToleration = 1u << 9,
  kUpdatePodSchedulingGatesEliminated = 1u << 10,
  kUpdatePodGeneratedResourceClaim = 1u << 11,
  kUpdateOther = 1u << 12,  // any other update (resources without finer update kinds)
  kUpdate = (1u << 2) | (1u << 3) | (1u << 4) | (1u << 5) | (1u << 6) | (1u << 7) | (1u << 8) |
            (1u << 9) | (1u << 10) | (1u << 11) | (1u << 12),
  kAll = kAdd | kDelete | kUpdate,
};

struct ClusterEvent {
  EventResource resource = EventResource::kWildCard;
  uint32_t actions = kAll;

  // Whether this registration covers `event` (a concrete event: one resource, some actions).
  bool Matches(const ClusterEvent& event) const;
  // "Node/Add", "AssignedPod/Delete", "Node/UpdateNodeTaint|UpdateNodeLabel", for logs.
  std::string Label() const;
  bool operator==(const ClusterEvent&) const = default;
};

// Well-known events the scheduler itself generates.
inline constexpr ClusterEvent kEventNodeAdd{EventResource::kNode, kAdd};
inline constexpr ClusterEvent kEventAssignedPodDelete{EventResource::kAssignedPod, kDelete};
// The periodic flush and explicit "move everything" requests.
inline constexpr ClusterEvent kEventUnschedulableTimeout{EventResource::kWildCard, kAll};
inline constexpr ClusterEvent kEventForceActivate{EventResource::kWildCard, kAll};

enum class QueueingHint : uint8_t { kQueueSkip, kQueue };

// Decides whether the change old_obj -> new_obj (either may be null: add / delete) may make
// `pod` schedulable for this plugin. Must be fast and thread-safe; runs on the event thread.
using QueueingHintFn = std::function<QueueingHint(const api::Pod& pod, const api::Object* old_obj,
                                                  const api::Object* new_obj)>;

// Decides, before any pod is looked at, whether the change old_obj -> new_obj can help any pod
// at all (e.g. a claim update that changed only metadata cannot). Must be fast and
// thread-safe. False spares the queue a pass over every waiting pod.
using EventFilterFn = std::function<bool(const api::Object* old_obj, const api::Object* new_obj)>;

// Targeting: appends to `out` the keys ("namespace/name") of the objects of the registration's
// resource that `pod` waits for. A targeted registration lets an event reach only the waiting
// pods that name the changed object: the queue indexes waiting pods by these keys when they
// start to wait, so an event costs work in proportion to the pods it concerns, not to all
// waiting pods. The hint still runs for each of them. Must depend on the pod object alone
// (the queue recomputes it whenever the pod changes). Fast and thread-safe.
using PodTargetsFn = std::function<void(const api::Pod& pod, std::vector<std::string>& out)>;

// The key PodTargetsFn lists for `obj`: "namespace/name" ("name" for cluster-scoped objects is
// "/name").
std::string EventTargetKey(const api::Object& obj);

struct ClusterEventWithHint {
  ClusterEvent event;
  QueueingHintFn hint;   // empty: always kQueue
  EventFilterFn filter;  // empty: every change of this kind may help
  PodTargetsFn targets;  // empty: the event concerns every pod the plugin rejected
};

// The node update kinds between two versions of a node (kUpdateNode* bits; 0 if none).
uint32_t NodeUpdateActions(const api::Node& old_node, const api::Node& new_node);
// The pod update kinds between two versions of a pod (kUpdatePod* bits, else kUpdateOther).
uint32_t PodUpdateActions(const api::Pod& old_pod, const api::Pod& new_pod);

}  // namespace allot::scheduler
