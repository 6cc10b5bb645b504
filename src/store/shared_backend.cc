// A backend shared by several stores: guarded writes and the follower (store/store_impl.h).
#include "api/codec/codec.h"
#include "common/log.h"
#include "store/encoded_object.h"
#include "store/store_impl.h"

namespace allot::store {

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
  RequeueSharedRetries(ops);
  CompleteOps(ops);
}

void Store::Impl::RequeueSharedRetries(std::vector<std::unique_ptr<Op>>& ops) {
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

}  // namespace allot::store
