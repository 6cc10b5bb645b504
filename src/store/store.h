// The versioned object store: Kubernetes storage semantics over a pluggable durable backend.
//
// One Store holds every resource. It owns:
//  - an in-memory index of the current objects (shared_ptr<const Object>, never mutated),
//  - a single monotonic resourceVersion across all resources,
//  - a bounded history of change events for watches, and
//  - a Backend (sqlite, memory) that makes each write durable before it is acknowledged.
//
// Kubernetes semantics live here, not in the HTTP layer, so in-process clients (scheduler,
// controllers) get exactly what HTTP clients get: defaulting and validation through the
// ResourceInfo hooks, uid / creationTimestamp / generation, generateName, compare-and-swap on
// resourceVersion (409 Conflict), spec/status separation by subresource, finalizers with
// deletionTimestamp, DeleteOptions preconditions and propagation policy (with the garbage
// collector, store/garbage_collector.h), namespaces that must exist.
//
// Write path: each write is queued to a single committer thread, which takes every queued write
// at once (group commit), applies them in order against the current state plus the batch so
// far, persists the batch in one backend transaction, and only then publishes the new objects
// to readers and watchers and completes the callers. Readers never see a write that is not yet
// durable. If the backend fails, every write of the batch fails with 500 and nothing changes.
//
// Thread safety: all methods are thread-safe. Completion callbacks run on the committer thread
// and must not block; they may call back into the Store only through the async methods.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/object.h"
#include "api/resources.h"
#include "api/selector.h"
#include "common/status.h"
#include "common/time.h"
#include "store/backend.h"

namespace allot::store {

using api::Object;
using api::ObjectPtr;
using api::ResourceInfo;

// Which part of an object an update may change.
//   kMain: spec and metadata (status is kept as stored; validate + validate_update run).
//   kStatus: status only (spec and metadata are kept as stored; validate_status runs).
//   kBinding: the pods/binding write (store/pod_binding.h) and nothing else: spec, metadata and
//     status all come from the UpdateFn; `validate` runs but not validate_update, whose
//     immutability rules (spec.nodeName) the binding function replaces with its own.
enum class Subresource { kMain, kStatus, kBinding };

// What a caller wants written, as a function of the current object: it receives the current
// object (never null) and returns the desired new object, usually current.Clone() modified.
// If the returned object carries a non-empty metadata.resourceVersion that differs from the
// current one, the update fails with 409 Conflict. Returning an error aborts the update.
using UpdateFn = std::function<Result<std::unique_ptr<Object>>(const Object& current)>;

struct WriteOptions {
  bool dry_run = false;
  // Field manager, recorded for information only (no managedFields tracking yet).
  std::string field_manager;
};

struct UpdateOptions : WriteOptions {
  Subresource subresource = Subresource::kMain;
  // PUT semantics when the object does not exist: create it from UpdateFn's result applied to
  // an empty object (used by server-side apply and PUT-creates). Default: 404.
  bool create_if_missing = false;
};

struct DeleteOptions : WriteOptions {
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  // "Background" (default), "Foreground" or "Orphan".
  std::string propagation_policy;
  std::optional<int64_t> grace_period_seconds;
};

struct DeleteResult {
  // The object as last stored: with deletionTimestamp set when deletion waits for finalizers,
  // or its final state when it was removed.
  ObjectPtr object;
  bool removed = false;
};

struct ListOptions {
  std::string namespace_;  // empty: all namespaces (or cluster-scoped)
  api::LabelSelectorExpr label_selector;
  api::FieldSelectorExpr field_selector;
  int64_t limit = 0;            // 0: no limit
  std::string continue_token;   // from a previous page
  // 0: the latest state. Otherwise the list is served as of that resourceVersion when it is
  // still within the watch history (exact), else 410 Expired.
  uint64_t resource_version = 0;
};

struct ListResult {
  std::vector<ObjectPtr> items;
  uint64_t resource_version = 0;  // the snapshot this list reflects
  std::string continue_token;     // non-empty when more items remain
  int64_t remaining_item_count = -1;  // >= 0 when known and continue_token is set
};

enum class EventType { kAdded, kModified, kDeleted, kBookmark, kError };
std::string_view EventTypeName(EventType type);  // "ADDED", ...

struct WatchEvent {
  EventType type = EventType::kAdded;
  const ResourceInfo* resource = nullptr;  // the object's resource (null for ERROR)
  ObjectPtr object;          // the new state (for DELETED: the last state); null for ERROR
  uint64_t resource_version = 0;
  Status error;              // kError only: e.g. 410 Expired
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

struct StoreOptions {
  // Events kept for watch resume and exact lists.
  size_t history_size = 100000;
  // Most writes committed in one backend transaction.
  size_t max_batch = 4096;
  // Namespaces created at Open() when missing.
  std::vector<std::string> initial_namespaces = {"default", "kube-system", "kube-node-lease",
                                                 "kube-public"};
};

class Store {
 public:
  Store(std::unique_ptr<Backend> backend, Clock& clock, StoreOptions options = {});
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Loads every object from the backend and starts the committer. Call once.
  Status Open();
  // Stops the committer after the queued writes finish; ends all watches.
  void Close();

  // Asynchronous writes: `done` runs once the write is durable (or failed).
  void CreateAsync(const ResourceInfo& resource, std::unique_ptr<Object> obj, WriteOptions opts,
                   std::function<void(Result<ObjectPtr>)> done);
  void UpdateAsync(const ResourceInfo& resource, std::string ns, std::string name, UpdateFn fn,
                   UpdateOptions opts, std::function<void(Result<ObjectPtr>)> done);
  void DeleteAsync(const ResourceInfo& resource, std::string ns, std::string name,
                   DeleteOptions opts, std::function<void(Result<DeleteResult>)> done);

  // Synchronous forms of the above.
  Result<ObjectPtr> Create(const ResourceInfo& resource, std::unique_ptr<Object> obj,
                           WriteOptions opts = {});
  Result<ObjectPtr> Update(const ResourceInfo& resource, std::string ns, std::string name,
                           UpdateFn fn, UpdateOptions opts = {});
  Result<DeleteResult> Delete(const ResourceInfo& resource, std::string ns, std::string name,
                              DeleteOptions opts = {});

  Result<ObjectPtr> Get(const ResourceInfo& resource, std::string_view ns,
                        std::string_view name) const;
  Result<ListResult> List(const ResourceInfo& resource, const ListOptions& opts) const;
  // Watches one resource (all resources when `resource` is null: used by the garbage
  // collector). Errors: 410 is delivered as an ERROR event, not returned.
  Result<std::unique_ptr<Watcher>> Watch(const ResourceInfo* resource, WatchOptions opts);

  // The resourceVersion of the latest durable write.
  uint64_t CurrentResourceVersion() const;
  // Objects whose ownerReferences name `owner_uid` (any resource).
  std::vector<std::pair<const ResourceInfo*, ObjectPtr>> Dependents(std::string_view owner_uid) const;
  // The object with this uid, if it exists (any resource).
  std::pair<const ResourceInfo*, ObjectPtr> FindByUid(std::string_view uid) const;

  struct Stats {
    uint64_t writes = 0;
    uint64_t batches = 0;
    uint64_t watchers = 0;
  };
  Stats GetStats() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace allot::store
