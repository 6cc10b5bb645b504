#include "store/store.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <random>
#include <shared_mutex>
#include <thread>
#include <unordered_map>

#include "api/codec/codec.h"
#include "api/machinery/object_key_view.h"
#include "common/await.h"
#include "common/log.h"
#include "common/process_stats.h"
#include "store/encoded_object.h"
#include "store/history.h"
#include "store/object_key.h"
#include "store/watch_impl.h"

namespace allot::store {

using api::ObjectKeyView;
using api::ObjectKeyViewLess;

namespace {

constexpr std::string_view kGenerateNameAlphabet = "bcdfghjklmnpqrstvwxz2456789";
constexpr size_t kMaxGenerateNamePrefix = 58;
constexpr int kGenerateNameAttempts = 8;

std::string BackendKey(const ResourceInfo& r, const std::string& key) {
  return (r.group.empty() ? std::string("core") : r.group) + "/" + r.resource + "/" + key;
}

uint64_t ParseRv(const std::string& rv) {
  uint64_t v = 0;
  for (char c : rv) {
    if (c < '0' || c > '9') return 0;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

// Continue tokens: base64url("<rv>:<last key>").
constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Base64Url(std::string_view in) {
  std::string out;
  uint32_t buf = 0;
  int bits = 0;
  for (unsigned char c : in) {
    buf = (buf << 8) | c;
    bits += 8;
    while (bits >= 6) {
      out += kB64[(buf >> (bits - 6)) & 63];
      bits -= 6;
    }
  }
  if (bits > 0) out += kB64[(buf << (6 - bits)) & 63];
  return out;
}

bool UnBase64Url(std::string_view in, std::string& out) {
  uint32_t buf = 0;
  int bits = 0;
  for (char c : in) {
    const char* p = std::char_traits<char>::find(kB64, 64, c);
    if (!p) return false;
    buf = (buf << 6) | static_cast<uint32_t>(p - kB64);
    bits += 6;
    if (bits >= 8) {
      out += static_cast<char>((buf >> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return true;
}

Status ExpiredContinue() {
  return Status(StatusCode::kExpired,
                "The provided continue parameter is too old to display a consistent list result. "
                "You can start a new list without the continue parameter.");
}

bool HasFinalizer(const Object& obj, std::string_view f) {
  const auto& fs = obj.metadata.finalizers;
  return std::find(fs.begin(), fs.end(), f) != fs.end();
}

}  // namespace

// ---------------------------------------------------------------------------------------------

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

// The Watcher handed to callers: stops the watch when dropped.
class WatchHandle final : public Watcher {
 public:
  explicit WatchHandle(std::shared_ptr<WatcherImpl> w) : w_(std::move(w)) {}
  ~WatchHandle() override { w_->Stop(); }
  bool Drain(std::vector<WatchEvent>& out) override { return w_->Drain(out); }
  bool WaitNext(WatchEvent& out, std::chrono::milliseconds timeout) override {
    return w_->WaitNext(out, timeout);
  }
  void SetNotify(std::function<void()> notify) override { w_->SetNotify(std::move(notify)); }
  uint64_t Progress() const override { return w_->Progress(); }
  void Stop() override { w_->Stop(); }

 private:
  std::shared_ptr<WatcherImpl> w_;
};

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
  std::unordered_map<std::string_view, std::pair<const ResourceInfo*, const ObjectKeyView*>> by_uid_;
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

// --- startup and shutdown ---------------------------------------------------------------------

const ResourceInfo* Store::Impl::ResourceOfKey(std::string_view key,
                                               std::string_view& object_key) const {
  size_t a = key.find('/');
  size_t b = a == std::string_view::npos ? a : key.find('/', a + 1);
  if (b == std::string_view::npos) return nullptr;
  std::string_view group = key.substr(0, a);
  if (group == "core") group = "";
  std::string_view resource = key.substr(a + 1, b - a - 1);
  object_key = key.substr(b + 1);
  for (const auto& ri : api::ResourceRegistry::Default().All()) {
    if (ri.group == group && ri.resource == resource) return &ri;
  }
  return nullptr;
}

Result<ObjectPtr> Store::Impl::DecodeStored(const ResourceInfo& r, std::string_view key,
                                            std::string_view value, uint64_t rv) const {
  api::DecodeOptions dopts;
  dopts.expected = r.type;
  auto decoded = api::DecodeJson(value, dopts);
  if (!decoded.ok()) {
    return InternalError("corrupt stored object " + std::string(key) + ": " +
                         decoded.status().message());
  }
  // The index keys an object by views of its own name (ObjectKeyView): one stored under
  // another object's key would be filed in the wrong place.
  const api::ObjectMeta& meta = decoded->object->metadata;
  if (BackendKey(r, ObjectKey(r, meta.namespace_, meta.name)) != key) {
    return InternalError("corrupt stored object " + std::string(key) + ": it names " +
                         ObjectKey(r, meta.namespace_, meta.name));
  }
  // A shared backend stores objects without resourceVersion: it is the key's revision.
  decoded->object->metadata.resourceVersion = std::to_string(rv);
  return ObjectPtr(std::move(decoded->object));
}

Result<std::optional<Change>> Store::Impl::StoredChange(std::string_view key,
                                                        std::string_view value, uint64_t rv) const {
  // key: <group|core>/<resource>/<object key>
  std::string_view object_key;
  const ResourceInfo* r = ResourceOfKey(key, object_key);
  if (!r) {
    if (key.find('/') == std::string_view::npos) {
      return InternalError("bad stored key " + std::string(key));
    }
    return std::optional<Change>();  // a resource this build no longer serves
  }
  ALLOT_ASSIGN_OR_RETURN(ObjectPtr obj, DecodeStored(*r, key, value, rv));
  return std::optional<Change>(Change{r, std::string(object_key), std::move(obj), nullptr, rv});
}

Status Store::Impl::Open() {
  const auto& registry = api::ResourceRegistry::Default();
  namespaces_ = registry.Find("", "v1", "namespaces");
  shared_ = backend_->shared();
  uint64_t max_rv = 0;
  auto load = [&](std::string_view key, std::string_view value, uint64_t rv) -> Status {
    ALLOT_ASSIGN_OR_RETURN(std::optional<Change> c, StoredChange(key, value, rv));
    if (c) ApplyToIndex(*c);
    return Status::Ok();
  };
  Status st = shared_ ? shared_->LoadSnapshot(load, max_rv) : backend_->Load(load, max_rv);
  ALLOT_RETURN_IF_ERROR(st);
  rv_ = max_rv;
  history_.Clear(max_rv);  // history before a restart is gone
  if (shared_) follower_ = std::thread([this, max_rv] { FollowLoop(max_rv); });
  committer_ = std::thread([this] {
    NameThisThread("store-commit");
    CommitLoop();
  });
  // Well-known namespaces, and the objects resources ask for (the system PriorityClasses).
  if (namespaces_) {
    for (const auto& name : options_.initial_namespaces) {
      auto ns = namespaces_->type->make();
      ns->metadata.name = name;
      ALLOT_RETURN_IF_ERROR(EnsureExists(*namespaces_, std::move(ns)));
    }
  }
  for (const ResourceInfo& r : api::ResourceRegistry::Default().All()) {
    if (!r.bootstrap) continue;
    for (const ObjectPtr& obj : r.bootstrap()) {
      ALLOT_RETURN_IF_ERROR(EnsureExists(r, obj->Clone()));
    }
  }
  return Status::Ok();
}

Status Store::Impl::EnsureExists(const ResourceInfo& r, std::unique_ptr<Object> obj) {
  {
    std::shared_lock lock(mu_);
    auto t = tables_.find(&r);
    if (t != tables_.end() &&
        t->second.count(ObjectKey(r, obj->metadata.namespace_, obj->metadata.name))) {
      return Status::Ok();
    }
  }
  std::promise<Result<ObjectPtr>> p;
  auto op = std::make_unique<Op>();
  op->kind = Op::Kind::kCreate;
  op->resource = &r;
  op->object = std::move(obj);
  op->done = [&p](Result<ObjectPtr> res) { p.set_value(std::move(res)); };
  auto f = p.get_future();
  Enqueue(std::move(op));
  auto res = f.get();
  if (!res.ok() && res.status().code() != StatusCode::kAlreadyExists) return res.status();
  return Status::Ok();
}

void Store::Impl::Close() {
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    if (closing_) return;
    closing_ = true;
  }
  queue_cv_.notify_all();
  if (committer_.joinable()) committer_.join();
  stop_follow_ = true;
  if (follower_.joinable()) follower_.join();
  std::vector<std::shared_ptr<WatcherImpl>> ws;
  {
    std::unique_lock lock(mu_);
    ws.swap(watchers_);
  }
  for (auto& w : ws) {
    w->Finish();
    w->Notify();
  }
}

void Store::Impl::Enqueue(std::unique_ptr<Op> op) {
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    if (!closing_) {
      clock_.BeginWork();  // until CompleteOps ran its callback
      queue_.push_back(std::move(op));
      queue_cv_.notify_one();
      return;
    }
  }
  Status st(StatusCode::kServiceUnavailable, "the store is shutting down");
  if (op->done) op->done(st);
  if (op->delete_done) op->delete_done(st);
}

void Store::Impl::CommitLoop() {
  std::vector<std::unique_ptr<Op>> batch;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(queue_mu_);
      queue_cv_.wait(lock, [&] { return closing_ || !queue_.empty(); });
      if (queue_.empty() && closing_) return;
      while (!queue_.empty() && batch.size() < options_.max_batch) {
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    ProcessBatch(batch);
    batch.clear();
  }
}

void Store::Impl::ProcessBatch(std::vector<std::unique_ptr<Op>>& ops) {
  if (shared_) return ProcessSharedBatch(ops);
  overlay_.clear();
  changes_.clear();
  next_rv_ = rv_.load();
  for (auto& op : ops) {
    switch (op->kind) {
      case Op::Kind::kCreate:
        RunCreate(*op);
        break;
      case Op::Kind::kUpdate:
        RunUpdate(*op);
        break;
      case Op::Kind::kDelete:
        RunDelete(*op);
        break;
    }
  }
  if (!changes_.empty()) {
    std::vector<BackendWrite> writes;
    writes.reserve(changes_.size());
    const bool encode = backend_->ReadsValues();
    for (const Change& c : changes_) {
      writes.push_back({BackendKey(*c.resource, c.key),
                        c.object && encode ? api::EncodeJson(*c.object) : std::string(), c.rv});
    }
    Status st = backend_->Commit(writes, next_rv_);
    if (!st.ok()) {
      Status fail(StatusCode::kInternalError, "storage write failed: " + st.message());
      for (auto& op : ops) {
        if (op->status.ok() && op->result) op->status = fail;
      }
    } else {
      writes_ += changes_.size();
      batches_ += 1;
      Publish(changes_);
    }
  }
  CompleteOps(ops);
}

void Store::Impl::CompleteOps(std::vector<std::unique_ptr<Op>>& ops) {
  int64_t completed = 0;
  for (auto& op : ops) {
    if (!op) continue;
    ++completed;
    if (op->kind == Op::Kind::kDelete) {
      if (!op->delete_done) continue;
      if (op->status.ok()) {
        op->delete_done(DeleteResult{op->result, op->removed});
      } else {
        op->delete_done(op->status);
      }
    } else if (op->done) {
      if (op->status.ok()) {
        op->done(op->result);
      } else {
        op->done(op->status);
      }
    }
  }
  clock_.EndWork(completed);
}

void Store::Impl::ProcessSharedBatch(std::vector<std::unique_ptr<Op>>& ops) {
  overlay_.clear();
  changes_.clear();
  size_t ran = 0;
  {
    // The follower writes the index too: staging reads it under the lock.
    std::shared_lock lock(mu_);
    next_rv_ = rv_.load();
    for (; ran < ops.size(); ++ran) {
      Op& op = *ops[ran];
      // One write per key per batch: a second one's guard needs the first one's revision.
      const std::string key =
          op.kind == Op::Kind::kCreate
              ? (op.object ? ObjectKey(*op.resource, op.object->metadata.namespace_,
                                       op.object->metadata.name)
                           : std::string())
              : ObjectKey(*op.resource, op.ns, op.name);
      if (!key.empty() && overlay_.count({op.resource, key})) break;
      current_op_ = &op;
      switch (op.kind) {
        case Op::Kind::kCreate:
          RunCreate(op);
          break;
        case Op::Kind::kUpdate:
          RunUpdate(op);
          break;
        case Op::Kind::kDelete:
          RunDelete(op);
          break;
      }
    }
    current_op_ = nullptr;
  }
  if (ran < ops.size()) {
    std::lock_guard<std::mutex> lock(queue_mu_);
    for (size_t i = ops.size(); i-- > ran;) queue_.push_front(std::move(ops[i]));
    ops.resize(ran);
  }
  if (!changes_.empty()) {
    std::vector<SharedWrite> writes;
    writes.reserve(changes_.size());
    for (const Change& c : changes_) {
      std::string value;
      if (c.object) {
        auto stored = c.object->Clone();
        stored->metadata.resourceVersion.clear();
        value = api::EncodeJson(*stored);
      }
      writes.push_back({BackendKey(*c.resource, c.key), std::move(value), c.base_rv});
    }
    std::vector<Result<SharedWriteResult>> results = shared_->WriteEach(writes);
    uint64_t wait_for = 0;
    for (size_t i = 0; i < changes_.size(); ++i) {
      const Change& c = changes_[i];
      Op& op = *c.op;
      const Result<SharedWriteResult>& r = results[i];
      if (!r.ok()) {
        op.status = r.status();
        continue;
      }
      wait_for = std::max(wait_for, r->revision);
      if (!r->applied) {
        if (op.kind == Op::Kind::kCreate) {
          op.status = AlreadyExistsError(c.resource->QualifiedResource(),
                                         (c.object ? c.object : c.prev)->metadata.name);
        } else if (++op.attempts >= kMaxSharedAttempts) {
          op.status = ConflictError(c.resource->QualifiedResource(),
                                    (c.object ? c.object : c.prev)->metadata.name,
                                    "the object is being written by others too often");
        } else {
          op.requeue = true;  // raced: again, once the index has the other write
        }
        continue;
      }
      auto written = (c.object ? c.object : c.prev)->Clone();
      written->metadata.resourceVersion = std::to_string(r->revision);
      op.result = ObjectPtr(std::move(written));
      writes_ += 1;
    }
    batches_ += 1;
    // Acknowledged once the follower has applied them: the caller's next read sees its write,
    // and watchers got every change in the backend's order.
    std::unique_lock<std::mutex> lock(applied_mu_);
    if (!applied_cv_.wait_for(lock, std::chrono::seconds(30),
                              [&] { return rv_.load() >= wait_for || stop_follow_; })) {
      for (const Change& c : changes_) {
        if (c.op->status.ok() && !c.op->requeue) {
          c.op->status = Status(StatusCode::kTimeout,
                                "the write was stored but the store did not see it in time");
        }
      }
    }
  }
  // A write that found no object: confirmed against the backend's newest revision first.
  bool missed = false;
  for (auto& op : ops) {
    if (op->kind != Op::Kind::kCreate && !op->caught_up &&
        op->status.code() == StatusCode::kNotFound) {
      op->caught_up = true;
      op->requeue = true;
      missed = true;
    }
  }
  if (missed) {
    auto newest = shared_->CurrentRevision();
    if (newest.ok()) {
      std::unique_lock<std::mutex> lock(applied_mu_);
      applied_cv_.wait_for(lock, std::chrono::seconds(30),
                           [&] { return rv_.load() >= *newest || stop_follow_; });
    }
  }
  std::vector<std::unique_ptr<Op>> again;
  for (auto& op : ops) {
    if (op->requeue) {
      op->requeue = false;
      op->status = Status::Ok();
      op->result = nullptr;
      op->removed = false;
      again.push_back(std::move(op));
    }
  }
  if (!again.empty()) {
    std::lock_guard<std::mutex> lock(queue_mu_);
    for (size_t i = again.size(); i-- > 0;) queue_.push_front(std::move(again[i]));
  }
  CompleteOps(ops);
}

void Store::Impl::FollowLoop(uint64_t from) {
  auto apply = [this](std::vector<SharedChange> changes, uint64_t current) {
    ApplyShared(changes, current);
  };
  while (!stop_follow_) {
    Status st = shared_->Follow(from, apply, stop_follow_);
    if (st.ok()) return;  // stopped
    // The changes after `from` were compacted away (this replica fell behind by more than the
    // compaction interval, or etcd was restored): the index cannot be brought up to date
    // change by change. Load it again; watchers list again.
    log::Warning("store",
                 "following the shared backend: " + st.ToString() + "; loading a snapshot again");
    auto reloaded = Reload();
    if (reloaded.ok()) {
      from = *reloaded;
      continue;
    }
    log::Error("store", "loading a snapshot again: " + reloaded.status().ToString());
    std::unique_lock<std::mutex> lock(applied_mu_);
    applied_cv_.wait_for(lock, std::chrono::seconds(1), [&] { return stop_follow_.load(); });
  }
}

Result<uint64_t> Store::Impl::Reload() {
  std::vector<Change> loaded;
  uint64_t revision = 0;
  ALLOT_RETURN_IF_ERROR(shared_->LoadSnapshot(
      [&](std::string_view key, std::string_view value, uint64_t rv) -> Status {
        ALLOT_ASSIGN_OR_RETURN(std::optional<Change> c, StoredChange(key, value, rv));
        if (c) loaded.push_back(std::move(*c));
        return Status::Ok();
      },
      revision));
  std::vector<std::shared_ptr<WatcherImpl>> ended;
  {
    std::unique_lock lock(mu_);
    tables_.clear();
    by_uid_.clear();
    dependents_.clear();
    for (const Change& c : loaded) ApplyToIndex(c);
    // Nothing before the snapshot can be replayed: watches from before it get 410.
    history_.Clear(revision);
    rv_ = revision;
    ended.swap(watchers_);
  }
  for (auto& w : ended) {
    WatchEvent ev;
    ev.type = EventType::kError;
    ev.error = Status(StatusCode::kExpired,
                      "the store's history was compacted away; list again (resourceVersion " +
                          std::to_string(revision) + ")");
    w->Push(std::move(ev));
    w->Finish();
    w->Notify();
  }
  std::lock_guard<std::mutex> lock(applied_mu_);
  applied_cv_.notify_all();
  return revision;
}

void Store::Impl::ApplyShared(std::vector<SharedChange>& changes, uint64_t current) {
  std::vector<Change> out;
  out.reserve(changes.size());
  for (SharedChange& sc : changes) {
    std::string_view object_key;
    const ResourceInfo* r = ResourceOfKey(sc.key, object_key);
    if (!r) continue;
    if (!sc.value.empty()) {
      auto obj = DecodeStored(*r, sc.key, sc.value, sc.revision);
      if (!obj.ok()) continue;
      out.push_back(Change{r, std::string(object_key), *obj, nullptr, sc.revision});
      continue;
    }
    // Deleted: watchers get the last state, at the deletion's revision.
    ObjectPtr last;
    {
      std::shared_lock lock(mu_);
      auto t = tables_.find(r);
      if (t != tables_.end()) {
        auto o = t->second.find(object_key);
        if (o != t->second.end()) last = Decoded(*r, o->second);
      }
    }
    if (!last && !sc.prev_value.empty()) {
      auto obj = DecodeStored(*r, sc.key, sc.prev_value, sc.revision);
      if (obj.ok()) last = *obj;
    }
    if (!last) continue;  // never known here: nothing to tell
    auto copy = last->Clone();
    copy->metadata.resourceVersion = std::to_string(sc.revision);
    out.push_back(
        Change{r, std::string(object_key), nullptr, ObjectPtr(std::move(copy)), sc.revision});
  }
  if (!out.empty()) Publish(out);
  // Keys of resources not served here, and revisions the backend reports as passed, still move
  // the revision on (a consistent read waits for it).
  uint64_t last = std::max(current, changes.empty() ? 0 : changes.back().revision);
  std::lock_guard<std::mutex> lock(applied_mu_);
  if (rv_.load() < last) rv_ = last;
  applied_cv_.notify_all();
}

// --- staging ----------------------------------------------------------------------------------

ObjectPtr Store::Impl::Lookup(const ResourceInfo& r, const std::string& key) const {
  auto it = overlay_.find({&r, key});
  if (it != overlay_.end()) return it->second;
  auto t = tables_.find(&r);
  if (t == tables_.end()) return nullptr;
  auto o = t->second.find(key);
  return o == t->second.end() ? nullptr : o->second;
}

ObjectPtr Store::Impl::Decoded(const ResourceInfo& r, const ObjectPtr& obj) const {
  auto decoded = Materialize(r, obj);
  if (decoded.ok()) return *decoded;
  log::Error("store", decoded.status().ToString());
  return nullptr;
}

std::vector<ObjectPtr> Store::Impl::BatchReader::List(const ResourceInfo& r) const {
  std::vector<ObjectPtr> out;
  auto t = impl_.tables_.find(&r);
  if (t != impl_.tables_.end()) {
    // This batch's writes of `r`, if any, stand in for the index's objects (below).
    auto first = impl_.overlay_.lower_bound({&r, std::string()});
    const bool overlaid = first != impl_.overlay_.end() && first->first.first == &r;
    for (const auto& [key, obj] : t->second) {
      if (overlaid && impl_.overlay_.count({&r, key.str()})) continue;
      if (ObjectPtr decoded = impl_.Decoded(r, obj)) out.push_back(std::move(decoded));
    }
  }
  for (const auto& [rk, obj] : impl_.overlay_) {
    if (rk.first == &r && obj) out.push_back(obj);
  }
  return out;
}

void Store::Impl::Stage(const ResourceInfo& r, std::string key, ObjectPtr obj, ObjectPtr prev,
                        uint64_t base_rv) {
  overlay_[{&r, key}] = obj;
  changes_.push_back(
      Change{&r, std::move(key), std::move(obj), std::move(prev), next_rv_, base_rv, current_op_});
}

Status Store::Impl::CheckNamespace(const std::string& ns) const {
  if (!namespaces_) return Status::Ok();
  ObjectPtr obj = Lookup(*namespaces_, ns);
  if (!obj) return NotFoundError("namespaces", ns);
  if (obj->metadata.rare->deletionTimestamp) {
    Status s(StatusCode::kForbidden,
             "unable to create new content in namespace " + ns + " because it is being terminated");
    return s;
  }
  return Status::Ok();
}

namespace {

// FNV-1a over `parts`, then splitmix64: a stable 64-bit hash.
uint64_t SeededHash(uint64_t seed, std::initializer_list<std::string_view> parts) {
  uint64_t h = 1469598103934665603ULL ^ seed;
  for (std::string_view p : parts) {
    for (unsigned char c : p) h = (h ^ c) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;  // separator
  }
  h += 0x9e3779b97f4a7c15ULL;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

}  // namespace

std::string Store::Impl::NewUid(const ResourceInfo& r, const std::string& key) {
  uint64_t a, b;
  if (options_.seed) {
    // The n-th object created at this key: a name reused later gets a new uid.
    const std::string n = std::to_string(++seeded_creations_[r.resource + "/" + key]);
    a = SeededHash(*options_.seed, {r.resource, key, n});
    b = SeededHash(*options_.seed + 1, {r.resource, key, n});
  } else {
    a = rng_();
    b = rng_();
  }
  a = (a & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  b = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // variant 1
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xffff),
                static_cast<unsigned>(b >> 48),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

std::string Store::Impl::RandomSuffix(const std::string& prefix) {
  std::string s;
  if (options_.seed) {
    uint64_t h = SeededHash(*options_.seed, {prefix, std::to_string(++seeded_suffixes_[prefix])});
    for (int i = 0; i < 5; ++i, h /= kGenerateNameAlphabet.size()) {
      s += kGenerateNameAlphabet[h % kGenerateNameAlphabet.size()];
    }
    return s;
  }
  for (int i = 0; i < 5; ++i) s += kGenerateNameAlphabet[rng_() % kGenerateNameAlphabet.size()];
  return s;
}

Status Store::Impl::StageCreate(const ResourceInfo& r, std::unique_ptr<Object> obj, bool dry_run,
                                ObjectPtr& result) {
  api::ObjectMeta& meta = obj->metadata;
  if (!r.namespaced) {
    meta.namespace_.clear();
  } else if (meta.namespace_.empty()) {
    return BadRequestError("the namespace of the provided object is empty");
  }
  if (!meta.resourceVersion.empty()) {
    return BadRequestError("resourceVersion should not be set on objects to be created");
  }
  // Status belongs to controllers: dropped on create unless the kind says otherwise.
  if (r.status_subresource && !r.create_keeps_status && obj->type().copy_status) {
    auto fresh = obj->type().make();
    obj->type().copy_status(*fresh, *obj);
  }
  if (r.admit_create) ALLOT_RETURN_IF_ERROR(r.admit_create(*obj, BatchReader(*this)));
  if (r.default_fn) r.default_fn(*obj);
  bool generated = meta.name.empty() && !meta.generateName.empty();
  if (generated) {
    std::string prefix = meta.generateName.substr(0, kMaxGenerateNamePrefix);
    meta.name = prefix + RandomSuffix(prefix);
  }
  api::FieldErrors errs;
  if (r.validate) r.validate(*obj, errs, options_.validators);
  if (meta.name.empty() && errs.empty()) {
    errs.Required(api::Path("metadata").Child("name"), "name or generateName is required");
  }
  ALLOT_RETURN_IF_ERROR(errs.ToStatus(r.type->kind, r.group, meta.name));
  if (r.namespaced) ALLOT_RETURN_IF_ERROR(CheckNamespace(meta.namespace_));
  std::string key = ObjectKey(r, meta.namespace_, meta.name);
  for (int attempt = 1; Lookup(r, key); ++attempt) {
    if (!generated || attempt >= kGenerateNameAttempts) {
      return AlreadyExistsError(r.QualifiedResource(), meta.name);
    }
    std::string prefix = meta.generateName.substr(0, kMaxGenerateNamePrefix);
    meta.name = prefix + RandomSuffix(prefix);
    key = ObjectKey(r, meta.namespace_, meta.name);
  }
  meta.uid = NewUid(r, key);
  meta.creationTimestamp = clock_.Now().TruncatedToSeconds();
  meta.rare.set(&api::ObjectMetaRare::deletionTimestamp, std::nullopt);
  meta.rare.set(&api::ObjectMetaRare::deletionGracePeriodSeconds, std::nullopt);
  meta.generation = 1;
  if (!meta.rare->selfLink.empty()) meta.rare.edit().selfLink.clear();
  meta.rare.compact();  // nothing allocated for fields the server cleared
  if (dry_run) {
    result = ObjectPtr(std::move(obj));
    return Status::Ok();
  }
  ++next_rv_;
  meta.resourceVersion = std::to_string(next_rv_);
  result = ObjectPtr(std::move(obj));
  Stage(r, key, result, nullptr, 0);
  return Status::Ok();
}

void Store::Impl::RunCreate(Op& op) {
  op.status = StageCreate(*op.resource, std::move(op.object), op.create_opts.dry_run, op.result);
}

Status Store::Impl::StageUpdate(const ResourceInfo& r, const ObjectPtr& current,
                                std::unique_ptr<Object> obj, Subresource sub, bool dry_run,
                                ObjectPtr& result, bool& removed) {
  const api::TypeInfo& type = *r.type;
  const api::ObjectMeta& cur = current->metadata;
  api::ObjectMeta& meta = obj->metadata;
  if (!meta.resourceVersion.empty() && meta.resourceVersion != cur.resourceVersion) {
    return ConflictError(r.QualifiedResource(), cur.name,
                         "the object has been modified; please apply your changes to the latest "
                         "version and try again");
  }
  if (!meta.uid.empty() && meta.uid != cur.uid) {
    return ConflictError(r.QualifiedResource(), cur.name,
                         "Precondition failed: UID in precondition: " + meta.uid +
                             ", UID in object meta: " + cur.uid);
  }
  if (sub == Subresource::kStatus) {
    // A status write changes status only.
    if (type.copy_spec) type.copy_spec(*current, *obj);
    meta = cur;
  } else {
    if (sub == Subresource::kMain && r.status_subresource && type.copy_status) {
      type.copy_status(*current, *obj);
    }
    if (cur.rare->deletionTimestamp) {
      for (const auto& f : meta.finalizers) {
        if (!HasFinalizer(*current, f)) {
          api::FieldErrors errs;
          errs.Forbidden(api::Path("metadata").Child("finalizers"),
                         "no new finalizers can be added if the object is being deleted, found "
                         "new finalizers []string{" +
                             api::Quote(f) + "}");
          return errs.ToStatus(type.kind, r.group, cur.name);
        }
      }
    }
  }
  // Fields the server owns.
  meta.name = cur.name;
  meta.namespace_ = cur.namespace_;
  meta.uid = cur.uid;
  meta.creationTimestamp = cur.creationTimestamp;
  meta.rare.set(&api::ObjectMetaRare::deletionTimestamp, cur.rare->deletionTimestamp);
  meta.rare.set(&api::ObjectMetaRare::deletionGracePeriodSeconds,
                cur.rare->deletionGracePeriodSeconds);
  meta.generation = cur.generation;
  if (!meta.rare->selfLink.empty()) meta.rare.edit().selfLink.clear();
  meta.rare.compact();  // nothing allocated for fields the server cleared
  if (meta.generateName.empty()) meta.generateName = cur.generateName;
  if (sub == Subresource::kMain && r.admit_update) {
    ALLOT_RETURN_IF_ERROR(r.admit_update(*obj, *current, BatchReader(*this)));
  }
  if (r.default_fn) r.default_fn(*obj);
  api::FieldErrors errs;
  if (sub == Subresource::kStatus) {
    if (r.validate_status) r.validate_status(*obj, *current, errs);
  } else {
    if (r.validate) r.validate(*obj, errs, options_.validators);
    if (sub == Subresource::kMain && r.validate_update) r.validate_update(*obj, *current, errs);
  }
  ALLOT_RETURN_IF_ERROR(errs.ToStatus(type.kind, r.group, cur.name));
  // Binding writes storage directly in Kubernetes, bypassing the strategy that counts
  // generations: a bind does not bump metadata.generation.
  if (sub != Subresource::kBinding && type.spec_equal && !type.spec_equal(*obj, *current)) {
    meta.generation = cur.generation + 1;
  }
  meta.resourceVersion = cur.resourceVersion;
  const bool finalized = cur.rare->deletionTimestamp && meta.finalizers.empty();
  if (!finalized && type.equal(*obj, *current)) {
    result = current;  // nothing changed: no write, no new resourceVersion
    return Status::Ok();
  }
  if (dry_run) {
    result = ObjectPtr(std::move(obj));
    return Status::Ok();
  }
  ++next_rv_;
  meta.resourceVersion = std::to_string(next_rv_);
  result = ObjectPtr(std::move(obj));
  std::string key = ObjectKey(r, cur.namespace_, cur.name);
  const uint64_t base_rv = ParseRv(cur.resourceVersion);
  if (finalized) {
    // The last finalizer is gone: deletion completes.
    removed = true;
    Stage(r, key, nullptr, result, base_rv);
  } else {
    Stage(r, key, result, current, base_rv);
  }
  return Status::Ok();
}

void Store::Impl::RunUpdate(Op& op) {
  const ResourceInfo& r = *op.resource;
  ObjectPtr current = Decoded(r, Lookup(r, ObjectKey(r, op.ns, op.name)));
  if (!current) {
    if (!op.update_opts.create_if_missing) {
      op.status = NotFoundError(r.QualifiedResource(), op.name);
      return;
    }
    auto empty = r.type->make();
    empty->metadata.name = op.name;
    empty->metadata.namespace_ = op.ns;
    auto desired = op.fn(*empty);
    if (!desired.ok()) {
      op.status = desired.TakeStatus();
      return;
    }
    std::unique_ptr<Object> obj = std::move(desired).value();
    obj->metadata.name = op.name;
    if (r.namespaced) obj->metadata.namespace_ = op.ns;
    obj->metadata.resourceVersion.clear();
    op.status = StageCreate(r, std::move(obj), op.update_opts.dry_run, op.result);
    return;
  }
  auto desired = op.fn(*current);
  if (!desired.ok()) {
    op.status = desired.TakeStatus();
    return;
  }
  bool removed = false;
  op.status = StageUpdate(r, current, std::move(desired).value(), op.update_opts.subresource,
                          op.update_opts.dry_run, op.result, removed);
  op.removed = removed;
}

void Store::Impl::RunDelete(Op& op) {
  const ResourceInfo& r = *op.resource;
  const DeleteOptions& opts = op.delete_opts;
  std::string key = ObjectKey(r, op.ns, op.name);
  ObjectPtr current = Decoded(r, Lookup(r, key));
  if (!current) {
    op.status = NotFoundError(r.QualifiedResource(), op.name);
    return;
  }
  const api::ObjectMeta& cur = current->metadata;
  if (r.admit_delete) {
    op.status = r.admit_delete(*current);
    if (!op.status.ok()) return;
  }
  if (opts.precondition_uid && *opts.precondition_uid != cur.uid) {
    op.status =
        ConflictError(r.QualifiedResource(), op.name,
                      "Precondition failed: UID in precondition: " + *opts.precondition_uid +
                          ", UID in object meta: " + cur.uid);
    return;
  }
  if (opts.precondition_resource_version &&
      *opts.precondition_resource_version != cur.resourceVersion) {
    op.status = ConflictError(r.QualifiedResource(), op.name,
                              "Precondition failed: ResourceVersion in precondition: " +
                                  *opts.precondition_resource_version +
                                  ", ResourceVersion in object meta: " + cur.resourceVersion);
    return;
  }
  const std::string& policy = opts.propagation_policy;
  if (!policy.empty() && policy != "Background" && policy != "Foreground" && policy != "Orphan") {
    api::FieldErrors errs;
    errs.NotSupported(api::Path("propagationPolicy"), policy,
                      {"Foreground", "Background", "Orphan"});
    op.status = errs.ToStatus("DeleteOptions", "", "");
    return;
  }
  std::unique_ptr<Object> next = current->Clone();
  api::ObjectMeta& meta = next->metadata;
  // Foreground and orphan deletion are carried out by the garbage collector through these
  // finalizers; they are added only while the object is not yet being deleted.
  if (!cur.rare->deletionTimestamp) {
    if (policy == "Foreground" && !HasFinalizer(*current, "foregroundDeletion")) {
      meta.finalizers.push_back("foregroundDeletion");
    } else if (policy == "Orphan" && !HasFinalizer(*current, "orphan")) {
      meta.finalizers.push_back("orphan");
    }
  }
  if (meta.finalizers.empty()) {
    op.removed = true;
    op.result = current;
    if (opts.dry_run) return;
    ++next_rv_;
    auto last = current->Clone();
    last->metadata.resourceVersion = std::to_string(next_rv_);
    ObjectPtr last_ptr(std::move(last));
    op.result = last_ptr;
    Stage(r, key, nullptr, last_ptr, ParseRv(cur.resourceVersion));
    return;
  }
  if (!meta.rare->deletionTimestamp) {
    meta.rare.edit().deletionTimestamp = clock_.Now().TruncatedToSeconds();
    meta.rare.edit().deletionGracePeriodSeconds = 0;
  }
  if (opts.dry_run || r.type->equal(*next, *current)) {
    op.result = opts.dry_run ? ObjectPtr(std::move(next)) : current;
    return;
  }
  ++next_rv_;
  meta.resourceVersion = std::to_string(next_rv_);
  op.result = ObjectPtr(std::move(next));
  Stage(r, key, op.result, current, ParseRv(cur.resourceVersion));
}

// --- publishing -------------------------------------------------------------------------------

ObjectPtr Store::Impl::ApplyToIndex(const Change& c) {
  Table& table = tables_[c.resource];
  auto unindex = [&](const ObjectPtr& o) {
    if (!o) return;
    by_uid_.erase(o->metadata.uid);
    for (const auto& ref : o->metadata.ownerReferences) {
      auto range = dependents_.equal_range(ref.uid);
      for (auto it = range.first; it != range.second; ++it) {
        if (it->second == o->metadata.uid) {
          dependents_.erase(it);
          break;
        }
      }
    }
  };
  auto it = table.find(c.key);
  if (it != table.end()) unindex(it->second);  // before the old version may be freed
  if (c.object) {
    ObjectPtr stored = KeptEncoded(*c.resource) && !EncodedObject::Of(*c.object)
                           ? EncodedObject::Make(*c.object)
                           : c.object;
    // The key views the stored object: a replaced one may be freed once nothing else holds it.
    const ObjectKeyView key{
        c.resource->namespaced ? std::string_view(stored->metadata.namespace_) : "",
        stored->metadata.name};
    auto node = it;
    if (node != table.end()) {
      node->second = stored;
      node->first.ns = key.ns;
      node->first.name = key.name;
    } else {
      node = table.emplace_hint(table.lower_bound(key), key, stored);
    }
    const std::string_view uid = stored->metadata.uid;
    by_uid_.erase(uid);  // a stale entry's key may point into another object
    by_uid_.emplace(uid, std::make_pair(c.resource, &node->first));
    for (const auto& ref : stored->metadata.ownerReferences) {
      dependents_.emplace(std::string_view(ref.uid), uid);
    }
    return stored;
  }
  if (it != table.end()) table.erase(it);
  return nullptr;
}

void Store::Impl::Publish(std::vector<Change>& changes) {
  std::vector<std::shared_ptr<WatcherImpl>> to_notify;
  {
    std::unique_lock lock(mu_);
    for (const Change& c : changes) {
      ObjectPtr before;
      {
        auto t = tables_.find(c.resource);
        if (t != tables_.end()) {
          auto o = t->second.find(c.key);
          if (o != t->second.end()) before = o->second;
        }
      }
      EventType type =
          !c.object ? EventType::kDeleted : (before ? EventType::kModified : EventType::kAdded);
      ObjectPtr stored = ApplyToIndex(c);
      // The history names what the index holds (`stored`, and `before`), so that it can tell
      // a current version from a replaced one; for DELETED, the last state.
      history_.Record(*c.resource, type, c.object ? stored : c.prev, before, c.rv);
      if (watchers_.empty()) continue;
      // Watchers see decoded objects: the written one, and the one it replaced (for a
      // selection it may leave), which for a kind kept encoded the writer decoded already.
      const ObjectPtr& obj = c.object ? c.object : c.prev;
      ObjectPtr replaced = before;
      if (before && EncodedObject::Of(*before)) {
        replaced = c.prev && !EncodedObject::Of(*c.prev) ? c.prev : Decoded(*c.resource, before);
      }
      for (auto& w : watchers_) {
        if (w->Offer(*c.resource, type, obj, replaced, c.rv)) to_notify.push_back(w);
      }
    }
    rv_ = changes.back().rv;
    for (auto& w : watchers_) w->SetProgress(rv_);
    watchers_.erase(std::remove_if(watchers_.begin(), watchers_.end(),
                                   [](const auto& w) { return w->ended(); }),
                    watchers_.end());
  }
  std::sort(to_notify.begin(), to_notify.end());
  to_notify.erase(std::unique(to_notify.begin(), to_notify.end()), to_notify.end());
  for (auto& w : to_notify) w->Notify();
}

// --- reads ------------------------------------------------------------------------------------

Result<ObjectPtr> Store::Impl::Get(const ResourceInfo& r, std::string_view ns,
                                   std::string_view name) const {
  ObjectPtr found;
  {
    std::shared_lock lock(mu_);
    auto t = tables_.find(&r);
    if (t != tables_.end()) {
      auto o = t->second.find(ObjectKeyView{r.namespaced ? ns : std::string_view(), name});
      if (o != t->second.end()) found = o->second;
    }
  }
  if (!found) return NotFoundError(r.QualifiedResource(), name);
  return Materialize(r, found);  // outside the lock: an Event decodes here
}

Result<ListResult> Store::Impl::List(const ResourceInfo& r, const ListOptions& opts) const {
  uint64_t at_rv = opts.resource_version;
  std::string start_after;
  if (!opts.continue_token.empty()) {
    std::string raw;
    size_t colon;
    if (!UnBase64Url(opts.continue_token, raw) || (colon = raw.find(':')) == std::string::npos ||
        ParseRv(raw.substr(0, colon)) == 0) {
      return BadRequestError("continue key is not valid: incorrect encoded start resourceVersion");
    }
    at_rv = ParseRv(raw.substr(0, colon));
    start_after = raw.substr(colon + 1);
  }
  ObjectFilter filter{&r, opts.namespace_, opts.label_selector, opts.field_selector};
  std::shared_lock lock(mu_);
  const uint64_t current = rv_.load();
  if (at_rv > current) {
    return Status(StatusCode::kTimeout, "Too large resource version: " + std::to_string(at_rv) +
                                            ", current: " + std::to_string(current));
  }
  static const Table kEmpty;
  auto t = tables_.find(&r);
  const Table* table = t == tables_.end() ? &kEmpty : &t->second;
  if (at_rv != 0 && at_rv < current) {
    if (at_rv < history_.evicted_rv()) {
      if (shared_) {
        // Older than this replica's history: etcd may still have it.
        lock.unlock();
        return ListFromBackend(r, opts, filter, at_rv, start_after);
      }
      if (!opts.continue_token.empty()) return ExpiredContinue();
      return Status(StatusCode::kExpired, "too old resource version: " + std::to_string(at_rv) +
                                              " (" + std::to_string(history_.evicted_rv() + 1) +
                                              ")");
    }
    // Rebuild the state as of at_rv by undoing newer events of this resource. The snapshot is
    // this list's own, with keys of its own (the older states it takes in are its own too):
    // the undos, which decode old states, need no lock.
    History::Table past;
    for (const auto& [key, obj] : *table) past.emplace_hint(past.end(), key.str(), obj);
    std::vector<History::TakenUndo> undos = history_.UndosAfter(at_rv, r);
    lock.unlock();
    ALLOT_RETURN_IF_ERROR(History::Undo(undos, r, past));
    return ListFrom(r, opts, filter, past, at_rv, start_after);
  }
  if (KeptEncoded(r)) {
    // Decoding every kept object under the lock would hold the committer back: copy the
    // index's (encoded, shared) objects and decode them without it. The copy holds the
    // objects its keys view.
    Table snapshot = *table;
    lock.unlock();
    return ListFrom(r, opts, filter, snapshot, current, start_after);
  }
  return ListFrom(r, opts, filter, *table, at_rv != 0 ? at_rv : current, start_after);
}

namespace {

// A key of the index (ObjectKeyView) or of a list's own snapshot (the ObjectKey string).
std::string KeyString(const ObjectKeyView& k) { return k.str(); }
const std::string& KeyString(const std::string& k) { return k; }
// Whether the key is in namespace `ns`.
bool KeyInNamespace(const ObjectKeyView& k, std::string_view ns) { return k.ns == ns; }
bool KeyInNamespace(const std::string& k, std::string_view ns) {
  return k.size() > ns.size() && k.compare(0, ns.size(), ns) == 0 && k[ns.size()] == '/';
}

}  // namespace

template <class T>
Result<ListResult> Store::Impl::ListFrom(const ResourceInfo& r, const ListOptions& opts,
                                         const ObjectFilter& filter, const T& table,
                                         uint64_t list_rv, const std::string& start_after) const {
  ListResult out;
  out.resource_version = list_rv;
  auto it = table.begin();
  std::string prefix;
  const bool one_namespace = r.namespaced && !opts.namespace_.empty();
  if (one_namespace) {
    prefix = opts.namespace_ + "/";
    it = table.lower_bound(prefix);
  }
  if (!start_after.empty()) it = table.upper_bound(std::max(start_after, prefix));
  for (; it != table.end(); ++it) {
    if (one_namespace && !KeyInNamespace(it->first, opts.namespace_)) break;
    ALLOT_ASSIGN_OR_RETURN(ObjectPtr obj, Materialize(r, it->second));
    if (!filter.Matches(r, *obj)) continue;
    if (opts.limit > 0 && static_cast<int64_t>(out.items.size()) == opts.limit) {
      out.continue_token =
          Base64Url(std::to_string(list_rv) + ":" + KeyString(std::prev(it)->first));
      break;
    }
    out.items.push_back(std::move(obj));
  }
  return out;
}

Result<ListResult> Store::Impl::ListFromBackend(const ResourceInfo& r, const ListOptions& opts,
                                                const ObjectFilter& filter, uint64_t at_rv,
                                                const std::string& start_after) const {
  const std::string resource_prefix = BackendKey(r, "");
  std::string object_prefix;
  if (r.namespaced && !opts.namespace_.empty()) object_prefix = opts.namespace_ + "/";
  ListResult out;
  out.resource_version = at_rv;
  std::string last_key;
  Status decoded;
  Status st = shared_->ListAt(
      resource_prefix + object_prefix, start_after.empty() ? "" : BackendKey(r, start_after), at_rv,
      [&](std::string_view key, std::string_view value, uint64_t rv) {
        const std::string object_key(key.substr(resource_prefix.size()));
        auto obj = DecodeStored(r, key, value, rv);
        if (!obj.ok()) {
          decoded = obj.status();
          return false;
        }
        if (filter.Matches(r, **obj)) {
          if (opts.limit > 0 && static_cast<int64_t>(out.items.size()) == opts.limit) {
            out.continue_token = Base64Url(std::to_string(at_rv) + ":" + last_key);
            return false;
          }
          out.items.push_back(std::move(obj).value());
        }
        last_key = object_key;
        return true;
      });
  if (st.code() == StatusCode::kExpired) {
    if (!opts.continue_token.empty()) return ExpiredContinue();
    return Status(StatusCode::kExpired,
                  "too old resource version: " + std::to_string(at_rv) + " (" + st.message() + ")");
  }
  ALLOT_RETURN_IF_ERROR(st);
  ALLOT_RETURN_IF_ERROR(decoded);
  return out;
}

Result<std::unique_ptr<Watcher>> Store::Impl::Watch(const ResourceInfo* r, WatchOptions opts) {
  ObjectFilter filter{r, opts.namespace_, opts.label_selector, opts.field_selector};
  auto w = std::make_shared<WatcherImpl>(filter, opts.max_queue, &clock_);
  std::vector<History::Taken> replay;  // decoded once the lock is released
  {
    std::unique_lock lock(mu_);
    const uint64_t current = rv_.load();
    if (opts.resource_version == 0) {
      if (opts.send_initial_events) {
        for (const auto& [res, table] : tables_) {
          if (r && res != r) continue;
          for (const auto& [key, obj] : table) {
            if (!filter.Matches(*res, *obj)) continue;
            w->Push(WatchEvent{
                EventType::kAdded, res, obj, ParseRv(obj->metadata.resourceVersion), {}});
          }
        }
      }
    } else if (opts.resource_version < history_.evicted_rv()) {
      WatchEvent ev;
      ev.type = EventType::kError;
      ev.error = Status(StatusCode::kExpired,
                        "too old resource version: " + std::to_string(opts.resource_version) +
                            " (" + std::to_string(history_.evicted_rv() + 1) + ")");
      w->Push(std::move(ev));
      w->Finish();
      return std::unique_ptr<Watcher>(new WatchHandle(w));
    } else {
      replay = history_.EventsAfter(opts.resource_version, r);
      // Changes committed while the replay is decoded queue up behind it.
      if (!replay.empty()) w->BeginReplay();
    }
    w->SetProgress(current);
    watchers_.push_back(w);
  }
  if (!replay.empty()) {
    // The state before a change matters only to selectors (an object may enter or leave the
    // selection); the namespace of an object never changes.
    bool need_prev = !opts.label_selector.Empty() || !opts.field_selector.Empty();
    Status st = History::Read(
        replay, need_prev,
        [&](const ResourceInfo& res, EventType type, const ObjectPtr& obj, const ObjectPtr& prev,
            uint64_t rv) { w->OfferReplayed(res, type, obj, prev, rv); });
    if (!st.ok()) {
      WatchEvent ev;
      ev.type = EventType::kError;
      ev.error = st;
      w->Push(std::move(ev));
      w->Finish();
    }
    w->EndReplay();
    w->Notify();
  }
  return std::unique_ptr<Watcher>(new WatchHandle(w));
}

std::vector<std::pair<const ResourceInfo*, ObjectPtr>> Store::Impl::Dependents(
    std::string_view uid) const {
  std::vector<std::pair<const ResourceInfo*, ObjectPtr>> out;
  std::shared_lock lock(mu_);
  auto range = dependents_.equal_range(uid);
  for (auto it = range.first; it != range.second; ++it) {
    auto u = by_uid_.find(it->second);
    if (u == by_uid_.end()) continue;
    auto t = tables_.find(u->second.first);
    if (t == tables_.end()) continue;
    auto o = t->second.find(*u->second.second);
    if (o == t->second.end()) continue;
    if (ObjectPtr obj = Decoded(*u->second.first, o->second)) {
      out.emplace_back(u->second.first, std::move(obj));
    }
  }
  return out;
}

std::pair<const ResourceInfo*, ObjectPtr> Store::Impl::FindByUid(std::string_view uid) const {
  std::shared_lock lock(mu_);
  auto u = by_uid_.find(uid);
  if (u == by_uid_.end()) return {nullptr, nullptr};
  auto t = tables_.find(u->second.first);
  if (t == tables_.end()) return {nullptr, nullptr};
  auto o = t->second.find(*u->second.second);
  if (o == t->second.end()) return {nullptr, nullptr};
  ObjectPtr obj = Decoded(*u->second.first, o->second);
  if (!obj) return {nullptr, nullptr};
  return {u->second.first, std::move(obj)};
}

Store::Stats Store::Impl::GetStats() const {
  Stats s;
  s.writes = writes_.load();
  s.batches = batches_.load();
  std::shared_lock lock(mu_);
  s.watchers = watchers_.size();
  return s;
}

// --- Store ------------------------------------------------------------------------------------

Store::Store(std::unique_ptr<Backend> backend, Clock& clock, StoreOptions options)
    : impl_(std::make_unique<Impl>(std::move(backend), clock, std::move(options))) {}

Store::~Store() { impl_->Close(); }

Status Store::Impl::Ready() const {
  if (!shared_) return Status::Ok();
  if (stop_follow_) {
    return Status(StatusCode::kServiceUnavailable, "the store stopped following etcd");
  }
  auto newest = shared_->CurrentRevision();
  if (!newest.ok()) {
    return Status(StatusCode::kServiceUnavailable, "etcd: " + newest.status().message());
  }
  return Status::Ok();
}

Status Store::Impl::WaitForLatest() const {
  if (!shared_) return Status::Ok();
  ALLOT_ASSIGN_OR_RETURN(uint64_t newest, shared_->CurrentRevision());
  auto caught_up = [&] { return rv_.load() >= newest || stop_follow_; };
  std::unique_lock<std::mutex> lock(applied_mu_);
  if (!applied_cv_.wait_for(lock, std::chrono::milliseconds(200), caught_up)) {
    // Every revision of the store's own keys comes with a change; one spent on other keys
    // (another user of the etcd cluster) does not: ask the backend to report its progress.
    lock.unlock();
    shared_->RequestProgress();
    lock.lock();
    if (!applied_cv_.wait_for(lock, std::chrono::seconds(3), caught_up)) {
      return Status(StatusCode::kTimeout, "Too large resource version: " + std::to_string(newest) +
                                              ", current: " + std::to_string(rv_.load()));
    }
  }
  if (stop_follow_) {
    return Status(StatusCode::kServiceUnavailable, "the store stopped following etcd");
  }
  return Status::Ok();
}

Status Store::Ready() const { return impl_->Ready(); }
Status Store::WaitForLatest() const { return impl_->WaitForLatest(); }
Status Store::Open() { return impl_->Open(); }
void Store::Close() { impl_->Close(); }

void Store::CreateAsync(const ResourceInfo& resource, std::unique_ptr<Object> obj,
                        WriteOptions opts, std::function<void(Result<ObjectPtr>)> done) {
  auto op = std::make_unique<Op>();
  op->kind = Op::Kind::kCreate;
  op->resource = &resource;
  op->object = std::move(obj);
  op->create_opts = std::move(opts);
  op->done = std::move(done);
  impl_->Enqueue(std::move(op));
}

void Store::UpdateAsync(const ResourceInfo& resource, std::string ns, std::string name, UpdateFn fn,
                        UpdateOptions opts, std::function<void(Result<ObjectPtr>)> done) {
  auto op = std::make_unique<Op>();
  op->kind = Op::Kind::kUpdate;
  op->resource = &resource;
  op->ns = std::move(ns);
  op->name = std::move(name);
  op->fn = std::move(fn);
  op->update_opts = std::move(opts);
  op->done = std::move(done);
  impl_->Enqueue(std::move(op));
}

void Store::DeleteAsync(const ResourceInfo& resource, std::string ns, std::string name,
                        DeleteOptions opts, std::function<void(Result<DeleteResult>)> done) {
  auto op = std::make_unique<Op>();
  op->kind = Op::Kind::kDelete;
  op->resource = &resource;
  op->ns = std::move(ns);
  op->name = std::move(name);
  op->delete_opts = std::move(opts);
  op->delete_done = std::move(done);
  impl_->Enqueue(std::move(op));
}

Result<ObjectPtr> Store::Create(const ResourceInfo& resource, std::unique_ptr<Object> obj,
                                WriteOptions opts) {
  return Await<ObjectPtr>(
      [&](auto done) { CreateAsync(resource, std::move(obj), std::move(opts), std::move(done)); });
}

Result<ObjectPtr> Store::Update(const ResourceInfo& resource, std::string ns, std::string name,
                                UpdateFn fn, UpdateOptions opts) {
  return Await<ObjectPtr>([&](auto done) {
    UpdateAsync(resource, std::move(ns), std::move(name), std::move(fn), std::move(opts),
                std::move(done));
  });
}

Result<DeleteResult> Store::Delete(const ResourceInfo& resource, std::string ns, std::string name,
                                   DeleteOptions opts) {
  return Await<DeleteResult>([&](auto done) {
    DeleteAsync(resource, std::move(ns), std::move(name), std::move(opts), std::move(done));
  });
}

Result<ObjectPtr> Store::Get(const ResourceInfo& resource, std::string_view ns,
                             std::string_view name) const {
  return impl_->Get(resource, ns, name);
}

Result<ListResult> Store::List(const ResourceInfo& resource, const ListOptions& opts) const {
  return impl_->List(resource, opts);
}

Result<std::unique_ptr<Watcher>> Store::Watch(const ResourceInfo* resource, WatchOptions opts) {
  return impl_->Watch(resource, std::move(opts));
}

uint64_t Store::CurrentResourceVersion() const { return impl_->CurrentRv(); }

std::vector<std::pair<const ResourceInfo*, ObjectPtr>> Store::Dependents(
    std::string_view owner_uid) const {
  return impl_->Dependents(owner_uid);
}

std::pair<const ResourceInfo*, ObjectPtr> Store::FindByUid(std::string_view uid) const {
  return impl_->FindByUid(uid);
}

Store::Stats Store::GetStats() const { return impl_->GetStats(); }

}  // namespace allot::store
