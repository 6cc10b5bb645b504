// The etcd backend: a SharedBackend over etcd's v3 API (etcd/client.h). Objects live under the
// prefix as kube-apiserver lays them out (store/etcd_keys.h: "/registry/pods/default/p"), so
// `etcdctl get --prefix /registry/` lists them; a key's mod_revision is the object's
// resourceVersion. Each write is one transaction guarded by the key's mod_revision; the store
// follows one watch on the whole prefix (docs/ha.md). "<prefix>compact_rev_key" coordinates the
// replicas' periodic compaction (etcd/compactor.h); it is no object.
#include <mutex>
#include <thread>

#include "etcd/client.h"
#include "etcd/compactor.h"
#include "store/backend.h"
#include "store/etcd_keys.h"

namespace allot::store {

namespace {

constexpr int64_t kListPage = 1000;
constexpr char kCompactionKey[] = "compact_rev_key";

class EtcdBackend final : public Backend, public SharedBackend {
 public:
  EtcdBackend(std::unique_ptr<etcd::Client> client, std::string prefix,
              std::chrono::milliseconds compaction_interval)
      : client_(std::move(client)),
        prefix_(std::move(prefix)),
        layout_(api::ResourceRegistry::Default()) {
    if (compaction_interval.count() > 0) {
      compactor_ = std::make_unique<etcd::Compactor>(*client_, prefix_ + kCompactionKey);
      compactor_->Start(compaction_interval);
    }
  }

  SharedBackend* shared() override { return this; }
  std::string_view Name() const override { return "etcd"; }

  // The store calls the SharedBackend methods instead.
  Status Load(const std::function<Status(std::string_view, std::string_view, uint64_t)>&,
              uint64_t&) override {
    return InternalError("the etcd backend is shared: load a snapshot");
  }
  Status Commit(const std::vector<BackendWrite>&, uint64_t) override {
    return InternalError("the etcd backend is shared: write each");
  }

  Status LoadSnapshot(const std::function<Status(std::string_view, std::string_view, uint64_t)>& fn,
                      uint64_t& revision) override {
    // Page through the prefix at one revision: the first page's.
    std::string from = prefix_;
    const std::string end = etcd::PrefixEnd(prefix_);
    int64_t at = 0;
    for (;;) {
      ALLOT_ASSIGN_OR_RETURN(etcd::RangeResult page, client_->Range(from, end, at, kListPage));
      if (at == 0) at = page.revision;
      for (const etcd::KeyValue& kv : page.kvs) {
        std::optional<std::string> key = StoreKey(kv.key);
        if (!key) continue;
        ALLOT_RETURN_IF_ERROR(fn(*key, kv.value, static_cast<uint64_t>(kv.mod_revision)));
      }
      if (!page.more || page.kvs.empty()) break;
      from = page.kvs.back().key + std::string(1, '\0');
    }
    revision = static_cast<uint64_t>(at);
    return Status::Ok();
  }

  std::vector<Result<SharedWriteResult>> WriteEach(
      const std::vector<SharedWrite>& writes) override {
    // The writes of a batch touch distinct keys: they go out together, so a batch costs about
    // one round trip to etcd (and few fsyncs there) rather than one per write.
    std::vector<etcd::Txn> txns;
    txns.reserve(writes.size());
    for (const SharedWrite& w : writes) {
      etcd::Txn& txn = txns.emplace_back();
      const std::string key = prefix_ + layout_.ToEtcd(w.key);
      txn.compare.push_back(etcd::Compare::ModRevisionIs(key, static_cast<int64_t>(w.expected)));
      txn.success.push_back(w.value.empty() ? etcd::Op::Delete(key) : etcd::Op::Put(key, w.value));
    }
    std::vector<Result<SharedWriteResult>> out;
    out.reserve(writes.size());
    for (Result<etcd::TxnResult>& r : client_->CommitEach(txns)) {
      if (!r.ok()) {
        out.push_back(r.status());
      } else {
        out.push_back(SharedWriteResult{r->succeeded, static_cast<uint64_t>(r->revision)});
      }
    }
    return out;
  }

  Result<uint64_t> CurrentRevision() override {
    ALLOT_ASSIGN_OR_RETURN(etcd::RangeResult r, client_->Range(prefix_, "", 0, 1));
    return static_cast<uint64_t>(r.revision);
  }

  Status Follow(uint64_t after, const FollowFn& fn, const std::atomic<bool>& stop) override {
    uint64_t next = after + 1;
    auto backoff = std::chrono::milliseconds(100);
    while (!stop) {
      etcd::WatchOptions o;
      o.key = prefix_;
      o.range_end = etcd::PrefixEnd(prefix_);
      o.start_revision = static_cast<int64_t>(next);
      o.prev_kv = true;
      auto started = client_->StartWatch(o);
      if (!started.ok()) {
        std::this_thread::sleep_for(backoff);
        backoff = std::min(backoff * 2, std::chrono::milliseconds(2000));
        continue;
      }
      std::shared_ptr<etcd::Watch> w = std::move(started).value();
      {
        std::lock_guard<std::mutex> lock(watch_mu_);
        watch_ = w;
      }
      backoff = std::chrono::milliseconds(100);
      uint64_t reported = 0;  // the progress last reported to fn
      while (!stop) {
        int64_t progress = 0;
        auto events = w->Next(std::chrono::milliseconds(100), &progress);
        if (!events.ok()) {
          if (events.status().code() == StatusCode::kExpired) return events.status();
          break;  // the stream broke: watch again from `next`
        }
        std::vector<SharedChange> changes;
        changes.reserve(events->size());
        for (etcd::WatchEvent& e : *events) {
          SharedChange c;
          c.revision = static_cast<uint64_t>(e.kv.mod_revision);
          next = c.revision + 1;
          std::optional<std::string> key = StoreKey(e.kv.key);
          if (!key) {
            changes.push_back(std::move(c));  // no object: it moves the revision on
            continue;
          }
          c.key = std::move(*key);
          if (e.type == etcd::WatchEvent::Type::kPut) {
            c.value = std::move(e.kv.value);
          } else {
            c.prev_value = std::move(e.prev_kv.value);
          }
          changes.push_back(std::move(c));
        }
        uint64_t current = 0;
        if (progress > 0 && static_cast<uint64_t>(progress) > reported &&
            static_cast<uint64_t>(progress) + 1 >= next) {
          current = reported = static_cast<uint64_t>(progress);
          next = std::max(next, current + 1);
        }
        if (!changes.empty() || current > 0) fn(std::move(changes), current);
      }
      {
        std::lock_guard<std::mutex> lock(watch_mu_);
        watch_.reset();
      }
      w->Cancel();
    }
    return Status::Ok();
  }

  Status ListAt(
      std::string_view key_prefix, std::string_view start_after, uint64_t revision,
      const std::function<bool(std::string_view, std::string_view, uint64_t)>& fn) override {
    const std::string prefix = prefix_ + layout_.ToEtcd(key_prefix);
    const std::string end = etcd::PrefixEnd(prefix);
    std::string from = start_after.empty() ? prefix : prefix_ + layout_.ToEtcd(start_after) + '\0';
    for (;;) {
      ALLOT_ASSIGN_OR_RETURN(etcd::RangeResult page,
                             client_->Range(from, end, static_cast<int64_t>(revision), kListPage));
      for (const etcd::KeyValue& kv : page.kvs) {
        std::optional<std::string> key = StoreKey(kv.key);
        if (!key) continue;
        if (!fn(*key, kv.value, static_cast<uint64_t>(kv.mod_revision))) return Status::Ok();
      }
      if (!page.more || page.kvs.empty()) return Status::Ok();
      from = page.kvs.back().key + std::string(1, '\0');
    }
  }

  void RequestProgress() override {
    std::shared_ptr<etcd::Watch> w;
    {
      std::lock_guard<std::mutex> lock(watch_mu_);
      w = watch_;
    }
    if (w) w->RequestProgress();
  }

 private:
  // The store's key of an etcd key; nullopt for one that is no object (the compaction key).
  std::optional<std::string> StoreKey(std::string_view etcd_key) const {
    if (etcd_key.compare(0, prefix_.size(), prefix_) != 0) return std::nullopt;
    return layout_.ToStore(etcd_key.substr(prefix_.size()));
  }

  std::unique_ptr<etcd::Client> client_;
  const std::string prefix_;
  const EtcdKeyLayout layout_;
  std::mutex watch_mu_;
  std::shared_ptr<etcd::Watch> watch_;          // Follow's current watch; guarded by watch_mu_
  std::unique_ptr<etcd::Compactor> compactor_;  // destroyed before client_
};

}  // namespace

Result<std::unique_ptr<Backend>> NewEtcdBackend(const EtcdBackendOptions& options) {
  etcd::Options o;
  o.endpoints = options.endpoints;
  o.ca_pem = options.ca_pem;
  o.cert_pem = options.cert_pem;
  o.key_pem = options.key_pem;
  ALLOT_ASSIGN_OR_RETURN(auto client, etcd::Client::Connect(o));
  std::string prefix = options.prefix;
  if (prefix.empty() || prefix.back() != '/') prefix += '/';
  return std::unique_ptr<Backend>(
      new EtcdBackend(std::move(client), std::move(prefix), options.compaction_interval));
}

}  // namespace allot::store
