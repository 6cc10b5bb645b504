// A client of etcd's v3 API (gRPC; the messages in etcd/etcd_api.proto): the key-value
// operations, transactions, compaction, watches and member status that a Kubernetes-style
// store needs. Keys and values are bytes (std::string).
//
// Connection: one gRPC channel over every endpoint (`--etcd-servers`), plain or TLS with a
// client certificate. gRPC picks a reachable member and moves to another when one fails; a
// request in flight when its member dies fails (and may be retried by the caller).
//
// Errors, as the store reports them (Kubernetes' mapping of etcd failures):
//   etcd unreachable, no leader            503 ServiceUnavailable
//   a request past its deadline            504 Timeout
//   a revision older than the compaction   410 Expired ("required revision has been
//                                          compacted")
//   anything else                          500
//
// Thread safety: all methods are thread-safe; a Watch is read from one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace allot::etcd {

struct Options {
  // "http://127.0.0.1:2379" or "https://host:2379"; at least one.
  std::vector<std::string> endpoints;
  // TLS (for https endpoints): the CA that signed the members' certificates, and the client's
  // own certificate and key when the members ask for one (PEM).
  std::string ca_pem;
  std::string cert_pem;
  std::string key_pem;
  // Every unary request; a watch has none.
  std::chrono::milliseconds request_timeout{5000};
};

struct KeyValue {
  std::string key;
  std::string value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
  int64_t version = 0;  // writes since creation; 0: the key does not exist
};

struct RangeResult {
  std::vector<KeyValue> kvs;
  bool more = false;     // a limit cut the range short
  int64_t count = 0;     // keys in the range, not cut by the limit
  int64_t revision = 0;  // the store's revision the range was read at
};

// One operation of a transaction's branch.
struct Op {
  enum class Kind { kGet, kPut, kDelete };
  Kind kind = Kind::kGet;
  std::string key;
  std::string value;      // kPut
  std::string range_end;  // kGet / kDelete over [key, range_end); "" : the key alone

  static Op Get(std::string key) { return {Kind::kGet, std::move(key), {}, {}}; }
  static Op Put(std::string key, std::string value) {
    return {Kind::kPut, std::move(key), std::move(value), {}};
  }
  static Op Delete(std::string key) { return {Kind::kDelete, std::move(key), {}, {}}; }
};

// A guard on one key: its mod_revision (0 means "does not exist") or its version (writes
// since creation; 0 likewise) compared with `value`.
struct Compare {
  enum class Result { kEqual, kGreater, kLess, kNotEqual };
  enum class Target { kModRevision, kVersion };
  std::string key;
  Result result = Result::kEqual;
  int64_t value = 0;
  Target target = Target::kModRevision;

  static Compare ModRevisionIs(std::string key, int64_t rev) {
    return {std::move(key), Result::kEqual, rev, Target::kModRevision};
  }
  static Compare VersionIs(std::string key, int64_t version) {
    return {std::move(key), Result::kEqual, version, Target::kVersion};
  }
};

struct Txn {
  std::vector<Compare> compare;  // all must hold for `success` to run
  std::vector<Op> success;
  std::vector<Op> failure;
};

struct OpResult {
  std::vector<KeyValue> kvs;  // kGet: the keys read; kDelete: the keys deleted (prev_kv)
  int64_t deleted = 0;
};

struct TxnResult {
  bool succeeded = false;
  int64_t revision = 0;           // the revision after the transaction (its writes carry it)
  std::vector<OpResult> results;  // of the branch that ran
};

struct WatchEvent {
  enum class Type { kPut, kDelete };
  Type type = Type::kPut;
  KeyValue kv;       // for a delete: the key, and mod_revision = the deletion's revision
  KeyValue prev_kv;  // when asked for and not compacted away
};

struct WatchOptions {
  std::string key;
  std::string range_end;       // "" : the key alone; PrefixEnd(key): every key under it
  int64_t start_revision = 0;  // inclusive; 0: from now
  bool prev_kv = false;
  bool progress_notify = false;  // etcd's periodic empty responses carry the revision
};

// A live watch. Next() delivers the events in revision order, then a final error: 410 when the
// start revision was compacted away, 503 when the stream broke (the caller watches again from
// the revision after the last it saw).
class Watch {
 public:
  virtual ~Watch() = default;
  // Up to `timeout` for events. Returns the events (possibly none: a progress notification or
  // the timeout), or the error that ended the watch. `*progress` is the newest revision a
  // progress notification reported (0: none yet): every event up to it has been returned by
  // this or an earlier call. Responses that carry events or confirm the watch's creation do
  // not count: their header revision may run ahead of events still to come.
  virtual Result<std::vector<WatchEvent>> Next(std::chrono::milliseconds timeout,
                                               int64_t* progress = nullptr) = 0;
  // Asks etcd for a progress notification (etcd >= 3.4). Thread-safe; best effort.
  virtual void RequestProgress() = 0;
  // Ends the watch; Next() returns at once afterwards.
  virtual void Cancel() = 0;
};

struct MemberStatus {
  std::string version;
  uint64_t member_id = 0;
  uint64_t leader = 0;
  int64_t revision = 0;
  int64_t db_size = 0;
};

class Client {
 public:
  static Result<std::unique_ptr<Client>> Connect(const Options& options);
  virtual ~Client() = default;

  // Keys in [key, range_end) ("" range_end: the key alone), at `revision` (0: the newest),
  // at most `limit` (0: all).
  virtual Result<RangeResult> Range(const std::string& key, const std::string& range_end,
                                    int64_t revision = 0, int64_t limit = 0) = 0;
  // The revision of the write.
  virtual Result<int64_t> Put(const std::string& key, const std::string& value) = 0;
  // The number of keys deleted.
  virtual Result<int64_t> Delete(const std::string& key, const std::string& range_end = "") = 0;
  virtual Result<TxnResult> Commit(const Txn& txn) = 0;
  // Sends every transaction at once to one member and waits for all: each is applied on its
  // own (its own revision), in no promised order. One result per transaction, in order. As
  // with Commit, a failed one is not retried (it may have been applied).
  virtual std::vector<Result<TxnResult>> CommitEach(const std::vector<Txn>& txns) = 0;
  // Drops the history before `revision`; waits until it is gone from disk when `physical`.
  virtual Status Compact(int64_t revision, bool physical = false) = 0;
  virtual Result<std::unique_ptr<Watch>> StartWatch(const WatchOptions& options) = 0;
  // The status of the member the request reached.
  virtual Result<MemberStatus> GetMemberStatus() = 0;
};

// The range end that covers every key starting with `prefix` (etcd's "prefix + 1").
std::string PrefixEnd(const std::string& prefix);

}  // namespace allot::etcd
