// The write queue and group commit (store/store_impl.h).
#include "api/codec/codec.h"
#include "common/log.h"
#include "common/process_stats.h"
#include "store/store_impl.h"

namespace allot::store {

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

}  // namespace allot::store
