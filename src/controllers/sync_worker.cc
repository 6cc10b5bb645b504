#include "controllers/sync_worker.h"

#include <chrono>
#include <optional>

#include "common/log.h"
#include "common/process_stats.h"

namespace allot::controllers {

void RunSyncWorker(client::WorkQueue& queue, const std::vector<client::Informer*>& caches,
                   std::string_view component, const SyncFn& sync, const OnSyncFn& on_sync) {
  NameThisThread("ctl-" + std::string(component));
  for (client::Informer* inf : caches) {
    while (!inf->WaitForSync(std::chrono::milliseconds(50))) {
      if (queue.ShuttingDown()) return;
    }
  }
  while (std::optional<std::string> key = queue.Get()) {
    Status st = sync(*key);
    if (st.ok()) {
      queue.Forget(*key);
    } else {
      // A persistent failure also shows in the controller's own Events.
      log::Detail(2, std::string(component),
                  "syncing " + *key + " failed, retrying: " + st.message());
      queue.AddRateLimited(*key);
    }
    if (on_sync) on_sync(*key, st);
    queue.Done(*key);
  }
}

}  // namespace allot::controllers
