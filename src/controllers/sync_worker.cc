#include "controllers/sync_worker.h"

#include <chrono>
#include <memory>
#include <optional>

#include "common/log.h"
#include "common/process_stats.h"

namespace allot::controllers {

namespace {

// Names the thread and waits for the caches; false if the queue shut down first.
bool StartWorker(client::WorkQueue& queue, const std::vector<client::Informer*>& caches,
                 std::string_view component) {
  NameThisThread("ctl-" + std::string(component));
  for (client::Informer* inf : caches) {
    while (!inf->WaitForSync(std::chrono::milliseconds(50))) {
      if (queue.ShuttingDown()) return false;
    }
  }
  return true;
}

// What a worker does once the sync of `key` ended.
void EndSync(client::WorkQueue& queue, std::string_view component, const std::string& key,
             const Status& st, const OnSyncFn& on_sync) {
  if (st.ok()) {
    queue.Forget(key);
  } else {
    // A persistent failure also shows in the controller's own Events.
    log::Detail(2, std::string(component), "syncing " + key + " failed, retrying: " + st.message());
    queue.AddRateLimited(key);
  }
  if (on_sync) on_sync(key, st);
  queue.Done(key);
}

}  // namespace

void RunSyncWorker(client::WorkQueue& queue, const std::vector<client::Informer*>& caches,
                   std::string_view component, const SyncFn& sync, const OnSyncFn& on_sync) {
  if (!StartWorker(queue, caches, component)) return;
  while (std::optional<std::string> key = queue.Get()) {
    EndSync(queue, component, *key, sync(*key), on_sync);
  }
}

void SyncsInFlight::Begin() {
  std::unique_lock<std::mutex> lock(mu_);
  if (count_ >= max_) {
    ++waiting_;
    slot_freed_.wait(lock, [&] { return count_ <= resume_at_; });
    --waiting_;
  }
  ++count_;
}

void SyncsInFlight::End() {
  std::lock_guard<std::mutex> lock(mu_);
  --count_;
  // Whenever the waiters' condition holds, not only as the count crosses it: a waiter woken at
  // the crossing may take its slot after more Ends, and those left waiting must hear them.
  if (waiting_ > 0 && count_ <= resume_at_) slot_freed_.notify_all();
  if (count_ == 0) idle_.notify_all();
}

void SyncsInFlight::WaitIdle() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_.wait(lock, [&] { return count_ == 0; });
}

size_t SyncsInFlight::Waiting() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waiting_;
}

size_t SyncsInFlight::Count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return count_;
}

void RunAsyncSyncWorker(client::WorkQueue& queue, const std::vector<client::Informer*>& caches,
                        std::string_view component, const AsyncSyncFn& sync,
                        SyncsInFlight& in_flight, const OnSyncFn& on_sync) {
  if (!StartWorker(queue, caches, component)) return;
  // What every sync's end needs besides the queue and `in_flight`, which must outlive them:
  // the syncs may end after this loop returned.
  struct Ending {
    std::string component;
    OnSyncFn on_sync;
  };
  auto ending = std::make_shared<const Ending>(Ending{std::string(component), on_sync});
  for (;;) {
    in_flight.Begin();  // a slot first, so a key is never taken and then held back
    std::optional<std::string> key = queue.Get();
    if (!key) {
      in_flight.End();
      return;
    }
    sync(*key, [&queue, &in_flight, ending, k = *key](Status st) {
      EndSync(queue, ending->component, k, st, ending->on_sync);
      in_flight.End();
    });
  }
}

}  // namespace allot::controllers
