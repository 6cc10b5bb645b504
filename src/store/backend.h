// Durable storage below the store's in-memory index.
//
// A backend persists encoded objects keyed by "<resource-key>/<namespace>/<name>" and the
// resourceVersion of the last committed batch. The Store calls Commit from one thread only;
// Load runs once at startup before any Commit.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace allot::store {

struct BackendWrite {
  std::string key;    // "<group>/<resource>/<namespace>/<name>"
  std::string value;  // encoded object (JSON); empty for a delete, and always for a backend
                      // that does not ReadsValues()
  uint64_t resource_version = 0;
};

class SharedBackend;

class Backend {
 public:
  virtual ~Backend() = default;
  // A backend whose contents other writers share (etcd): the store then writes through it and
  // follows its changes instead of calling Load and Commit (SharedBackend below). Null for a
  // backend the store owns alone.
  virtual SharedBackend* shared() { return nullptr; }
  // Calls `fn` for every stored object. Returns the highest resourceVersion ever committed
  // (0 for an empty store) in `max_rv`.
  virtual Status Load(const std::function<Status(std::string_view key, std::string_view value,
                                                 uint64_t resource_version)>& fn,
                      uint64_t& max_rv) = 0;
  // Atomically and durably applies all writes. On error nothing was applied.
  virtual Status Commit(const std::vector<BackendWrite>& writes, uint64_t max_rv) = 0;
  // Whether Commit reads the writes' values. False: the store leaves them empty instead of
  // encoding every object (the memory backend keeps nothing).
  virtual bool ReadsValues() const { return true; }
  virtual std::string_view Name() const = 0;
};

// --- shared backends ---------------------------------------------------------------------------
//
// With a shared backend the backend is the truth and its revisions are the resourceVersions:
// every object carries the revision of its last write (an etcd key's mod_revision). The store
// loads a snapshot, then applies every change the backend reports (its own writes included,
// in the backend's order); a write of its own is acknowledged once it has been applied so.

// One write, guarded: it happens only if the key's current revision is `expected` (0: the key
// must not exist).
struct SharedWrite {
  std::string key;    // as BackendWrite
  std::string value;  // the encoded object without resourceVersion; empty: delete
  uint64_t expected = 0;
};

struct SharedWriteResult {
  bool applied = false;   // false: the guard failed (someone else wrote the key)
  uint64_t revision = 0;  // the write's revision; for a failed guard, the backend's revision then
};

struct SharedChange {
  std::string key;
  std::string value;       // empty: deleted
  std::string prev_value;  // for a delete: the last value (when the backend still has it)
  uint64_t revision = 0;
};

class SharedBackend {
 public:
  virtual ~SharedBackend() = default;
  // Every stored object with its revision, at one revision of the backend (returned).
  virtual Status LoadSnapshot(
      const std::function<Status(std::string_view key, std::string_view value, uint64_t revision)>&
          fn,
      uint64_t& revision) = 0;
  // Applies the writes, each on its own (each gets a revision of its own). One result per
  // write, in order, or the error that kept it from being tried (unreachable: 503).
  virtual std::vector<Result<SharedWriteResult>> WriteEach(
      const std::vector<SharedWrite>& writes) = 0;
  // The backend's newest revision (what a consistent read must have applied).
  virtual Result<uint64_t> CurrentRevision() = 0;
  // Calls `fn` with the changes after revision `after`, in order, until `stop` is set; resumes
  // by itself after a broken connection. `current` (0: not known) is a revision the backend
  // has reported every change up to, possibly beyond the last change (revisions spent outside
  // the store's keys); `changes` may then be empty. Returns when stopped, or with 410 when the
  // changes after `after` are compacted away (the store must load a snapshot again).
  using FollowFn = std::function<void(std::vector<SharedChange> changes, uint64_t current)>;
  virtual Status Follow(uint64_t after, const FollowFn& fn, const std::atomic<bool>& stop) = 0;
  // Asks Follow to report `current` soon, even without changes (best effort).
  virtual void RequestProgress() = 0;
  // The objects whose keys start with `key_prefix` ("core/pods/" or "core/pods/default/"), in
  // key order after `start_after` (a key; "" : from the first), as they were at `revision`:
  // calls `fn` with each until it returns false. For lists older than the store's history.
  // Errors: 410 Expired when the revision was compacted away; unreachable 503.
  virtual Status ListAt(std::string_view key_prefix, std::string_view start_after,
                        uint64_t revision,
                        const std::function<bool(std::string_view key, std::string_view value,
                                                 uint64_t revision)>& fn) = 0;
};

// Keeps nothing across restarts: for tests and the simulator.
std::unique_ptr<Backend> NewMemoryBackend();
// SQLite in WAL mode with synchronous=FULL: a Commit returns only after its transaction is on
// disk. `path` is the database file (created if missing).
Result<std::unique_ptr<Backend>> NewSqliteBackend(const std::string& path);
// etcd (`--store etcd --etcd-servers`): objects under /registry/, shared by every API server
// replica on the same cluster (store/etcd_backend.cc, docs/ha.md).
struct EtcdBackendOptions {
  std::vector<std::string> endpoints;
  std::string ca_pem, cert_pem, key_pem;
  std::string prefix = "/registry/";
  // How often etcd's history is compacted (etcd/compactor.h; kube-apiserver's
  // --etcd-compaction-interval). Zero: never.
  std::chrono::milliseconds compaction_interval = std::chrono::minutes(5);
};
Result<std::unique_ptr<Backend>> NewEtcdBackend(const EtcdBackendOptions& options);

}  // namespace allot::store
