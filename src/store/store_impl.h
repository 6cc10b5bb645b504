// Store::Impl: the storage engine behind store::Store (store/store.h), declared once for the
// files that implement it, one concern each:
//   store.cc           the Store facade; opening (the backend's snapshot), closing, readiness
//   commit.cc          the write queue and group commit: one committer thread, one batch a commit
//   writes.cc          staging a batch's creates, updates and deletes (admission, validation,
//                      strategies, finalizers, preconditions)
//   object_identity.cc uids and generateName suffixes (seeded for reproducible simulations)
//   shared_backend.cc  a backend shared by several stores (etcd): writes guarded by revision, and
//                      the follower thread that applies every change in the backend's order
//   index.cc           publishing a committed batch to the index, history and watchers; lookups
//                      by uid and owner
//   list.cc            reads: Get, paged List (continue_token.h), lists at older revisions
//   watch.cc           Watch: initial events, replay from history, the handle callers hold
// Internal to store/: nothing outside this folder includes it.
//
// Threads and locks: docs/store.md. The index (tables_, by_uid_, dependents_, history_,
// watchers_) is written only by the committer (or, with a shared backend, the follower) under
// mu_ held exclusively; readers take it shared.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/machinery/object_key_view.h"
#include "store/backend.h"
#include "store/history.h"
#include "store/object_key.h"
#include "store/store.h"
#include "store/watch_impl.h"

namespace allot::store {

using api::ObjectKeyView;
using api::ObjectKeyViewLess;

// generateName, as kube-apiserver's names.SimpleNameGenerator: at most 58 characters of the
// prefix, then five from an alphabet without vowels or look-alikes.
inline constexpr std::string_view kGenerateNameAlphabet = "bcdfghjklmnpqrstvwxz2456789";
inline constexpr size_t kMaxGenerateNamePrefix = 58;
inline constexpr int kGenerateNameAttempts = 8;

// The backend's key of an object: "<group|core>/<resource>/<object key>".
inline std::string BackendKey(const ResourceInfo& r, const std::string& key) {
  return (r.group.empty() ? std::string("core") : r.group) + "/" + r.resource + "/" + key;
}

// A resourceVersion as a number; 0 for anything but decimal digits.
inline uint64_t ParseRv(const std::string& rv) {
  uint64_t v = 0;
  for (char c : rv) {
    if (c < '0' || c > '9') return 0;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

inline bool HasFinalizer(const Object& obj, std::string_view f) {
  const auto& fs = obj.metadata.finalizers;
  return std::find(fs.begin(), fs.end(), f) != fs.end();
}

// One queued write.
struct Op {
  enum class Kind { kCreate, kUpdate, kDelete } kind;
  const ResourceInfo* resource = nullptr;
  std::unique_ptr<Object> object;  // create
  std::string ns, name;            // update, delete
  UpdateFn fn;
  UpdateOptions update_opts;
  WriteOptions create_opts;
  DeleteOptions delete_opts;
  std::function<void(Result<ObjectPtr>)> done;
  std::function<void(Result<DeleteResult>)> delete_done;
  // Outcome, filled while the batch is processed.
  Status status;
  ObjectPtr result;
  bool removed = false;
  // Shared backends: a write raced by another writer runs again on the fresher index; one that
  // found nothing runs again once the index has caught up with the backend (another replica
  // may have just created the object).
  int attempts = 0;
  bool requeue = false;
  bool caught_up = false;
};

// A staged change of the batch being committed.
struct Change {
  const ResourceInfo* resource;
  std::string key;
  ObjectPtr object;  // null: deleted
  ObjectPtr prev;
  uint64_t rv;
  uint64_t base_rv = 0;  // the revision the change replaces (0: none): a shared backend's guard
  Op* op = nullptr;      // the write that staged it
};

// A shared backend's write raced this many times in a row is given up (409). Kubernetes retries
// such a write without limit; this only keeps a livelock from lasting for ever.
constexpr int kMaxSharedAttempts = 1000;

class Store::Impl {
 public:
  // Admission's view of the store: the committed objects plus this batch's writes so far.
  class BatchReader final : public api::ObjectReader {
   public:
    explicit BatchReader(const Impl& impl) : impl_(impl) {}
    ObjectPtr Get(const ResourceInfo& r, std::string_view ns,
                  std::string_view name) const override {
      return impl_.Decoded(r, impl_.Lookup(r, ObjectKey(r, ns, name)));
    }
    std::vector<ObjectPtr> List(const ResourceInfo& r) const override;

   private:
    const Impl& impl_;
  };

  Impl(std::unique_ptr<Backend> backend, Clock& clock, StoreOptions options)
      : backend_(std::move(backend)),
        clock_(clock),
        options_(std::move(options)),
        history_(options_.history_size),
        rng_(std::random_device{}()) {}

  Status Open();
  void Close();
  void Enqueue(std::unique_ptr<Op> op);

  Result<ObjectPtr> Get(const ResourceInfo& r, std::string_view ns, std::string_view name) const;
  Result<ListResult> List(const ResourceInfo& r, const ListOptions& opts) const;
  Result<std::unique_ptr<Watcher>> Watch(const ResourceInfo* r, WatchOptions opts);
  uint64_t CurrentRv() const { return rv_.load(); }
  std::vector<std::pair<const ResourceInfo*, ObjectPtr>> Dependents(std::string_view uid) const;
  std::pair<const ResourceInfo*, ObjectPtr> FindByUid(std::string_view uid) const;
  Stats GetStats() const;
  Status Ready() const;
  Status WaitForLatest() const;

 private:
  // One resource's objects by key; the keys view the objects' own namespace and name.
  using Table = std::map<ObjectKeyView, ObjectPtr, ObjectKeyViewLess>;

  // --- committer thread -------------------------------------------------------------------
  void CommitLoop();
  void ProcessBatch(std::vector<std::unique_ptr<Op>>& ops);
  // Shared backends: stages what it can under the index lock, writes each change, waits until
  // the follower has applied them, requeues the raced ones.
  void ProcessSharedBatch(std::vector<std::unique_ptr<Op>>& ops);
  // The raced writes of a shared batch, and those that found nothing (after the follower has
  // caught up with the backend's newest revision), go back to the front of the queue.
  void RequeueSharedRetries(std::vector<std::unique_ptr<Op>>& ops);
  void CompleteOps(std::vector<std::unique_ptr<Op>>& ops);
  // The follower thread of a shared backend: every change, in the backend's order.
  void FollowLoop(uint64_t from);
  void ApplyShared(std::vector<SharedChange>& changes, uint64_t current);
  // A list at a revision older than the history, read from the shared backend.
  // The page of `table` (the index, or a list's own snapshot of it) that `opts` asks for, at
  // `list_rv`, after `start_after` (a continue token's key) when set.
  template <class T>
  Result<ListResult> ListFrom(const ResourceInfo& r, const ListOptions& opts,
                              const ObjectFilter& filter, const T& table, uint64_t list_rv,
                              const std::string& start_after) const;
  Result<ListResult> ListFromBackend(const ResourceInfo& r, const ListOptions& opts,
                                     const ObjectFilter& filter, uint64_t at_rv,
                                     const std::string& start_after) const;
  // Replaces the index with a fresh snapshot of the backend and ends every watch with 410.
  // Returns the snapshot's revision.
  Result<uint64_t> Reload();
  // A stored object as a change to apply to the index (none: a resource not served here).
  Result<std::optional<Change>> StoredChange(std::string_view key, std::string_view value,
                                             uint64_t rv) const;
  // "<group|core>/<resource>/<object key>" -> resource (null: not served) and object key.
  const ResourceInfo* ResourceOfKey(std::string_view key, std::string_view& object_key) const;
  Result<ObjectPtr> DecodeStored(const ResourceInfo& r, std::string_view key,
                                 std::string_view value, uint64_t rv) const;
  void RunCreate(Op& op);
  void RunUpdate(Op& op);
  void RunDelete(Op& op);
  // Validates and stages a new object; `op.result` is set on success.
  Status StageCreate(const ResourceInfo& r, std::unique_ptr<Object> obj, bool dry_run,
                     ObjectPtr& result);
  Status StageUpdate(const ResourceInfo& r, const ObjectPtr& current, std::unique_ptr<Object> obj,
                     Subresource sub, bool dry_run, ObjectPtr& result, bool& removed);
  void Stage(const ResourceInfo& r, std::string key, ObjectPtr obj, ObjectPtr prev,
             uint64_t base_rv);
  // The object at `key` as the committer sees it (this batch's writes first), as the index
  // holds it: an Event is an EncodedObject there. Decoded() before handing it to anyone.
  ObjectPtr Lookup(const ResourceInfo& r, const std::string& key) const;
  // `obj` decoded (Materialize). A kept encoding that no longer decodes is a bug: logged, and
  // the object reads as absent.
  ObjectPtr Decoded(const ResourceInfo& r, const ObjectPtr& obj) const;
  Status CheckNamespace(const std::string& ns) const;
  // Creates `obj` unless an object of its name exists (Open: well-known objects).
  Status EnsureExists(const ResourceInfo& r, std::unique_ptr<Object> obj);
  // The uid of the object created at `key` (ObjectKey); random unless options_.seed is set.
  std::string NewUid(const ResourceInfo& r, const std::string& key);
  // Five characters for generateName `prefix`; random unless options_.seed is set.
  std::string RandomSuffix(const std::string& prefix);
  // Publishes a committed batch to the index, history and watchers.
  void Publish(std::vector<Change>& changes);
  // Returns what the index now holds for c.key: c.object, or its EncodedObject for a kind kept
  // encoded (null when c deletes).
  ObjectPtr ApplyToIndex(const Change& c);

  std::unique_ptr<Backend> backend_;
  SharedBackend* shared_ = nullptr;
  Clock& clock_;
  const StoreOptions options_;
  const ResourceInfo* namespaces_ = nullptr;

  // Index, history and watchers. Written only by the committer, under an exclusive lock.
  mutable std::shared_mutex mu_;
  std::unordered_map<const ResourceInfo*, Table> tables_;
  // uid -> (resource, key in its table). The views point into the current version of the
  // object the entry names (its metadata.uid, the ownerReference's uid) and the key into its
  // table's node: re-pointed whenever ApplyToIndex replaces the object, so nothing is copied.
  std::unordered_map<std::string_view, std::pair<const ResourceInfo*, const ObjectKeyView*>>
      by_uid_;
  std::unordered_multimap<std::string_view, std::string_view> dependents_;  // owner -> dependent
  History history_;
  std::vector<std::shared_ptr<WatcherImpl>> watchers_;
  std::atomic<uint64_t> rv_{0};

  // Committer state (committer thread only).
  std::map<std::pair<const ResourceInfo*, std::string>, ObjectPtr> overlay_;
  std::vector<Change> changes_;
  uint64_t next_rv_ = 0;
  Op* current_op_ = nullptr;
  std::mt19937_64 rng_;
  // With options_.seed: how often each key was created, each generateName prefix used.
  std::unordered_map<std::string, uint64_t> seeded_creations_, seeded_suffixes_;

  // The follower of a shared backend; rv_ is what it has applied.
  std::thread follower_;
  std::atomic<bool> stop_follow_{false};
  mutable std::mutex applied_mu_;
  mutable std::condition_variable applied_cv_;

  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::deque<std::unique_ptr<Op>> queue_;
  bool closing_ = false;
  std::thread committer_;
  std::atomic<uint64_t> writes_{0};
  std::atomic<uint64_t> batches_{0};
};

}  // namespace allot::store
