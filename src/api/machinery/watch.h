// Watch vocabulary shared by the store, the clients and the API server: event types, the event,
// the options of a watch and the Watcher interface every watch implements (the store's in-process
// watch, the HTTP client's streaming watch).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/object.h"
#include "api/machinery/resources.h"
#include "api/machinery/selector.h"
#include "common/status.h"

namespace allot::api {

enum class EventType { kAdded, kModified, kDeleted, kBookmark, kError };
std::string_view EventTypeName(EventType type);  // "ADDED", ...

struct WatchEvent {
  EventType type = EventType::kAdded;
  const ResourceInfo* resource = nullptr;  // the object's resource (null for ERROR)
  ObjectPtr object;  // the new state (for DELETED: the last state); null for ERROR
  uint64_t resource_version = 0;
  Status error;  // kError only: e.g. 410 Expired
};

struct WatchOptions {
  std::string namespace_;
  api::LabelSelectorExpr label_selector;
  api::FieldSelectorExpr field_selector;
  // 0 with send_initial_events: synthetic ADDED events for every matching object, then changes.
  // N > 0: only changes after N; N older than the history window -> a single ERROR event with
  // a 410 Expired Status, then the watch ends.
  uint64_t resource_version = 0;
  bool send_initial_events = true;  // only meaningful when resource_version == 0
  // A watcher whose queue grows beyond this is closed (the client must re-list) rather than
  // letting memory grow without bound.
  size_t max_queue = 100000;
};

// A live watch. Events arrive in resourceVersion order. Thread-safe.
//
// Work in flight (common/time.h): the store counts each event from the moment it is queued
// until the consumer takes again (Drain, WaitNext) or stops the watch, so a consumer that has
// handled what it took takes again before it sleeps; finding nothing tells the store it is done.
class Watcher {
 public:
  virtual ~Watcher() = default;
  // Moves every queued event into `out` (appending); returns false once the watch has ended
  // and no events remain.
  virtual bool Drain(std::vector<WatchEvent>& out) = 0;
  // Blocks until an event is available, the watch ends or `timeout` passes.
  virtual bool WaitNext(WatchEvent& out, std::chrono::milliseconds timeout) = 0;
  // Called (from the committer thread, without locks held) whenever new events are queued or
  // the watch ends. Set it once, before relying on it; it may be called spuriously.
  virtual void SetNotify(std::function<void()> notify) = 0;
  // The highest resourceVersion this watcher is known to be up to date with (for bookmarks).
  virtual uint64_t Progress() const = 0;
  // Ends the watch; pending events are dropped.
  virtual void Stop() = 0;
};

}  // namespace allot::api
