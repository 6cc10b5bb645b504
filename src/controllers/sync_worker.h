// The loops of a controller's worker threads, as kube-controller-manager's.
//
// RunSyncWorker waits until every informer in `caches` has synced (returning early if the queue
// shuts down), then takes keys from `queue` until it shuts down: a key whose `sync` succeeds has
// its backoff reset; a failed one is logged as detail under `component` and queued again with
// the queue's exponential backoff. `on_sync` (optional) sees every key and result (tests,
// tracing).
//
// RunAsyncSyncWorker does the same for a sync that may finish after it returns: `sync` begins
// the work and calls its SyncDone once it ended (from a client's completion callback, say), and
// the worker takes the next key at once. The key stays "processing" in the queue until then, so
// one key is still synced by one sync at a time. SyncsInFlight bounds how many syncs the workers
// sharing it have begun and not finished; the owner waits for them in WaitIdle before the queue
// and the SyncsInFlight go (`sync` and `on_sync` are copied where a sync's end needs them).
//
// Thread safety: run either on as many threads as the controller has workers; the work queue
// keeps one key on one worker at a time. SyncDone may be called from any thread, once.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "client/informer.h"
#include "client/work_queue.h"
#include "common/status.h"

namespace allot::controllers {

using SyncFn = std::function<Status(const std::string& key)>;
using OnSyncFn = std::function<void(const std::string& key, const Status& result)>;
// Ends one key's sync: call it exactly once, from any thread. It never blocks.
using SyncDone = std::function<void(Status)>;
// Begins the sync of `key` and ends it through `done`, before returning or later. It must not
// block on the API: a sync that has to should call `done(sync(key))` itself.
using AsyncSyncFn = std::function<void(const std::string& key, SyncDone done)>;

void RunSyncWorker(client::WorkQueue& queue, const std::vector<client::Informer*>& caches,
                   std::string_view component, const SyncFn& sync, const OnSyncFn& on_sync = {});

// Counts the syncs begun and not yet ended, up to a bound. Thread-safe.
class SyncsInFlight {
 public:
  explicit SyncsInFlight(size_t max)
      : max_(max == 0 ? 1 : max), resume_at_(max_ - std::max<size_t>(1, max_ / 4)) {}
  SyncsInFlight(const SyncsInFlight&) = delete;
  SyncsInFlight& operator=(const SyncsInFlight&) = delete;

  // Takes a slot. When all `max` are taken it blocks until a quarter of them are free again
  // (at least one), not until the first one is: the worker then begins that many syncs in a
  // row instead of sleeping after each, one wake-up per several keys. A worker takes its slot
  // before it waits for a key, so a key is never taken and then held back.
  void Begin();
  // Gives a slot back.
  void End();
  // Blocks until every slot is back.
  void WaitIdle();
  // Slots taken: the syncs in flight, and one per worker waiting for its next key.
  size_t Count() const;
  // Begins waiting for a slot.
  size_t Waiting() const;
  // How many slots may be taken when a waiting Begin goes on.
  size_t resume_at() const { return resume_at_; }

 private:
  const size_t max_;
  const size_t resume_at_;  // a Begin that waits goes on once count_ is down to this
  mutable std::mutex mu_;
  std::condition_variable slot_freed_;  // Begin waits on it
  std::condition_variable idle_;        // WaitIdle waits on it
  size_t count_ = 0;                    // guarded by mu_
  size_t waiting_ = 0;                  // Begins waiting; guarded by mu_
};

void RunAsyncSyncWorker(client::WorkQueue& queue, const std::vector<client::Informer*>& caches,
                        std::string_view component, const AsyncSyncFn& sync,
                        SyncsInFlight& in_flight, const OnSyncFn& on_sync = {});

}  // namespace allot::controllers
