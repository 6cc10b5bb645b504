// The Store facade; opening, closing and readiness of the engine (store/store_impl.h).
#include <future>

#include "api/codec/codec.h"
#include "common/await.h"
#include "common/log.h"
#include "common/process_stats.h"
#include "store/encoded_object.h"
#include "store/store_impl.h"

namespace allot::store {

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
