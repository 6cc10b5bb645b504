// RunSyncWorker: the loop of a controller's worker thread, as kube-controller-manager's.
//
// It waits until every informer in `caches` has synced (returning early if the queue shuts
// down), then takes keys from `queue` until it shuts down: a key whose `sync` succeeds has its
// backoff reset; a failed one is logged as detail under `component` and queued again with the
// queue's exponential backoff. `on_sync` (optional) sees every key and result (tests, tracing).
//
// Thread safety: run it on as many threads as the controller has workers; the work queue keeps
// one key on one worker at a time.
#pragma once

#include <functional>
#include <vector>
#include <string>
#include <string_view>

#include "client/informer.h"
#include "client/work_queue.h"
#include "common/status.h"

namespace allot::controllers {

using SyncFn = std::function<Status(const std::string& key)>;
using OnSyncFn = std::function<void(const std::string& key, const Status& result)>;

void RunSyncWorker(client::WorkQueue& queue, const std::vector<client::Informer*>& caches,
                   std::string_view component, const SyncFn& sync, const OnSyncFn& on_sync = {});

}  // namespace allot::controllers
