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
// collector, registry/garbage_collector.h), namespaces that must exist.
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

#include "api/machinery/object.h"
#include "api/machinery/options.h"
#include "api/machinery/resources.h"
#include "api/machinery/selector.h"
#include "api/machinery/watch.h"
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
//   kBinding: the pods/binding write (registry/pod_binding.h) and nothing else: spec, metadata and
//     status all come from the UpdateFn; `validate` runs but not validate_update, whose
//     immutability rules (spec.nodeName) the binding function replaces with its own.
enum class Subresource { kMain, kStatus, kBinding };

// What a caller wants written, as a function of the current object: it receives the current
// object (never null) and returns the desired new object, usually current.Clone() modified.
// If the returned object carries a non-empty metadata.resourceVersion that differs from the
// current one, the update fails with 409 Conflict. Returning an error aborts the update.
using UpdateFn = std::function<Result<std::unique_ptr<Object>>(const Object& current)>;

// The API vocabulary of reads, writes and watches (api/machinery/options.h, watch.h), by the
// names the store has always used.
using api::DeleteOptions;
using api::DeleteResult;
using api::EventType;
using api::EventTypeName;
using api::ListOptions;
using api::ListResult;
using api::Watcher;
using api::WatchEvent;
using api::WatchOptions;
using api::WriteOptions;

struct UpdateOptions : WriteOptions {
  Subresource subresource = Subresource::kMain;
  // PUT semantics when the object does not exist: create it from UpdateFn's result applied to
  // an empty object (used by server-side apply and PUT-creates). Default: 404.
  bool create_if_missing = false;
};

struct StoreOptions {
  // Checks that validation of written objects needs from above api/ (CEL selector compilation:
  // cel::SelectorValidators()), passed to every ResourceInfo::validate hook. Whoever assembles
  // the system (src/cluster/) sets them; empty, selectors are checked only for shape.
  api::Validators validators;
  // Events kept for watch resume and exact lists.
  size_t history_size = 100000;
  // Most writes committed in one backend transaction.
  size_t max_batch = 4096;
  // Namespaces created at Open() when missing.
  std::vector<std::string> initial_namespaces = {"default", "kube-system", "kube-node-lease",
                                                 "kube-public"};
  // Set: uids and generated names are hashed from this seed and the object's identity (its
  // resource, namespace and name; the generateName prefix) instead of drawn at random, so
  // writers racing within one instant get the same names whoever commits first (the
  // simulator's runs repeat exactly).
  std::optional<uint64_t> seed;
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
  std::vector<std::pair<const ResourceInfo*, ObjectPtr>> Dependents(
      std::string_view owner_uid) const;
  // The object with this uid, if it exists (any resource).
  std::pair<const ResourceInfo*, ObjectPtr> FindByUid(std::string_view uid) const;

  struct Stats {
    uint64_t writes = 0;
    uint64_t batches = 0;
    uint64_t watchers = 0;
  };
  Stats GetStats() const;

  // Whether the store can serve: always, for a backend of its own; for a shared backend
  // (etcd), when the backend answers and the store is still following it. Errors: 503 naming
  // what is wrong.
  Status Ready() const;

  // For a consistent read (resourceVersion unset, as Kubernetes means it): waits until the
  // index holds every write acknowledged anywhere before the call — with a shared backend, its
  // current revision (another replica's writes included); at once for a backend of its own.
  // Errors: the backend unreachable (503), not caught up within seconds (504).
  Status WaitForLatest() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace allot::store
