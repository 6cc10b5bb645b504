#include "etcd/compactor.h"

#include "common/log.h"

namespace allot::etcd {

Result<int64_t> Compactor::Step() {
  Txn txn;
  txn.compare.push_back(Compare::VersionIs(key_, seen_version_));
  txn.success.push_back(Op::Put(key_, std::to_string(seen_revision_)));
  txn.failure.push_back(Op::Get(key_));
  ALLOT_ASSIGN_OR_RETURN(TxnResult r, client_.Commit(txn));
  const int64_t compact_at = seen_revision_;
  seen_revision_ = r.revision;
  if (!r.succeeded) {
    // Another replica took this round; start over from what it wrote.
    const bool found = !r.results.empty() && !r.results[0].kvs.empty();
    seen_version_ = found ? r.results[0].kvs[0].version : 0;
    return 0;
  }
  ++seen_version_;
  if (compact_at == 0) return 0;  // the first round only records where the next one compacts
  Status st = client_.Compact(compact_at);
  // A revision already compacted (by hand, or a restore) is not a failure of this round.
  if (!st.ok() && st.code() != StatusCode::kExpired) return st;
  return compact_at;
}

void Compactor::Start(std::chrono::milliseconds interval) {
  thread_ = std::thread([this, interval] {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      if (cv_.wait_for(lock, interval, [&] { return stop_; })) return;
      lock.unlock();
      auto compacted = Step();
      if (!compacted.ok()) {
        log::Warning("etcd", "compaction: " + compacted.status().ToString());
      } else if (*compacted > 0) {
        log::Info("etcd", "compacted history before revision " + std::to_string(*compacted));
      }
      lock.lock();
    }
  });
}

void Compactor::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace allot::etcd
