// Small helpers the plugins' queueing hints share: the typed view of an event's objects, and the
// hint for "the event is an update of the pod being scheduled itself".
#pragma once

#include "api/core/node.h"
#include "api/core/pod.h"
#include "scheduler/framework/interface.h"

namespace allot::scheduler::helper {

// The event's object as a Node / Pod; null when absent or of another kind.
inline const api::Node* AsNode(const api::Object* o) {
  return o ? api::As<api::Node>(*o) : nullptr;
}
inline const api::Pod* AsPod(const api::Object* o) { return o ? api::As<api::Pod>(*o) : nullptr; }

// kQueue when the new object is `pod` itself (same uid), kQueueSkip otherwise.
inline QueueingHint SelfUpdate(const api::Pod& pod, const api::Object*,
                               const api::Object* new_obj) {
  const api::Pod* p = AsPod(new_obj);
  return p && p->metadata.uid == pod.metadata.uid ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
}

}  // namespace allot::scheduler::helper
