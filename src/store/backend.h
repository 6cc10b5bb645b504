// Durable storage below the store's in-memory index.
//
// A backend persists encoded objects keyed by "<resource-key>/<namespace>/<name>" and the
// resourceVersion of the last committed batch. The Store calls Commit from one thread only;
// Load runs once at startup before any Commit.
#pragma once

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
  std::string value;  // encoded object (JSON); empty for a delete
  uint64_t resource_version = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Calls `fn` for every stored object. Returns the highest resourceVersion ever committed
  // (0 for an empty store) in `max_rv`.
  virtual Status Load(const std::function<Status(std::string_view key, std::string_view value,
                                                 uint64_t resource_version)>& fn,
                      uint64_t& max_rv) = 0;
  // Atomically and durably applies all writes. On error nothing was applied.
  virtual Status Commit(const std::vector<BackendWrite>& writes, uint64_t max_rv) = 0;
  virtual std::string_view Name() const = 0;
};

// Keeps nothing across restarts: for tests and the simulator.
std::unique_ptr<Backend> NewMemoryBackend();
// SQLite in WAL mode with synchronous=FULL: a Commit returns only after its transaction is on
// disk. `path` is the database file (created if missing).
Result<std::unique_ptr<Backend>> NewSqliteBackend(const std::string& path);

}  // namespace allot::store
