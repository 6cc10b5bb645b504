// QueueController: what every controller here shares, so that one writes only its informers,
// its handlers and its sync. A controller is informers feeding a work queue of keys, and worker
// threads that sync one key at a time (kube-controller-manager's shape):
//
//   class BudgetController : public QueueController {
//    public:
//     BudgetController(client::Client& c, client::InformerFactory& f)
//         : QueueController(c, f, {.name = "budget", .event_component = "budget-controller"}) {}
//     ~BudgetController() override { Stop(); }  // before this class's members go
//
//    private:
//     Status Setup() override {
//       client::Informer& budgets = Watch<api::PodDisruptionBudget>();
//       budgets.AddHandler(EnqueueOnChange([](const api::Object& o) { return NameOf(o); }));
//       return Status::Ok();
//     }
//     Status Sync(const std::string& key) override;  // reads the caches, writes through client()
//   };
//
//   BudgetController c(client, factory);
//   ALLOT_RETURN_IF_ERROR(c.Start());  // Setup, then the workers; returns at once
//   ALLOT_RETURN_IF_ERROR(factory.StartAll());
//
// Start runs Setup once and starts `workers` threads; each waits until every informer taken
// with Watch has synced, then syncs keys until Stop (controllers/sync_worker.h: a failed key is
// retried with the queue's backoff, logged under `name`). With max_syncs_in_flight > 0 a sync
// may end after it returns: the workers call BeginSync, which ends the key through its SyncDone
// (RunAsyncSyncWorker), and at most that many are in flight at once.
//
// Handlers stay registered in the shared informers after Stop (informers have no
// RemoveHandler), so every handler built here reaches the controller through a gate that Stop
// closes: after Stop they do nothing. The gate is open while Setup runs, since a handler added
// to a running informer is called at once for each object it holds.
//
// Thread safety: Start and Stop from one owning thread. Sync, BeginSync and the handlers run on
// worker and informer threads; the work queue is thread-safe. The client and the informer
// factory must outlive the controller. A derived class's destructor must call Stop() (its
// members go before this base's destructor runs, and the workers use them).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "api/machinery/resources.h"
#include "client/client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "client/informer_factory.h"
#include "client/work_queue.h"
#include "common/handler_gate.h"
#include "common/status.h"
#include "common/time.h"
#include "controllers/sync_worker.h"

namespace allot::controllers {

struct QueueControllerConfig {
  std::string_view name;             // in logs and errors ("disruption", "resourceclaim")
  std::string_view event_component;  // source.component of Events; empty: the controller has none
  int workers = 2;                   // at least one runs
  Clock* clock = nullptr;            // null: RealClock (the queue's backoff, Events' times)
  client::EventRecorder* events = nullptr;  // null: a ClientEventRecorder through the client
  client::WorkQueueOptions queue;
  OnSyncFn on_sync;  // sees every key and its result (tests, tracing)
  // 0: Sync runs on the worker. More: BeginSync, with at most this many syncs in flight.
  size_t max_syncs_in_flight = 0;
};

// The config of a controller whose Options carry the common fields (workers, clock, events,
// queue, on_sync, and max_syncs_in_flight for one that syncs asynchronously) under those names;
// `event_component` empty for a controller without Events.
template <class Options>
QueueControllerConfig ConfigOf(std::string_view name, std::string_view event_component,
                               const Options& o) {
  QueueControllerConfig c{.name = name, .event_component = event_component};
  c.workers = o.workers;
  c.clock = o.clock;
  if constexpr (requires { o.events; }) c.events = o.events;
  c.queue = o.queue;
  c.on_sync = o.on_sync;
  if constexpr (requires { o.max_syncs_in_flight; }) {
    c.max_syncs_in_flight = std::max<size_t>(1, o.max_syncs_in_flight);
  }
  return c;
}

class QueueController {
 public:
  QueueController(const QueueController&) = delete;
  QueueController& operator=(const QueueController&) = delete;
  virtual ~QueueController();  // Stop()s; see the header comment for derived classes

  // Runs Setup and starts the workers. Call at most once; the caller starts the factory
  // (before or after). Errors: a second call; whatever Setup returns (no worker started then).
  Status Start();
  // Closes the handlers' gate, shuts the queue down, joins the workers (a sync in progress
  // finishes first), waits for asynchronous syncs still in flight, then OnStop. Idempotent.
  void Stop();

 protected:
  QueueController(client::Client& client, client::InformerFactory& informers,
                  QueueControllerConfig config);

  // Takes the informers, adds indexes, then handlers (in that order: a handler may read an
  // index at once). Called once, by Start.
  virtual Status Setup() = 0;
  // Syncs one key; an error retries it with backoff. Controllers with max_syncs_in_flight == 0
  // override it (the default is an internal error).
  virtual Status Sync(const std::string& key);
  // Begins the sync of `key` and ends it through `done` (controllers/sync_worker.h). The
  // default ends it with Sync(key) at once.
  virtual void BeginSync(const std::string& key, SyncDone done) { done(Sync(key)); }
  // After the workers and the syncs in flight are gone (withdraw metrics, say).
  virtual void OnStop() {}

  // The factory's informer for `res`, waited for by the workers before their first sync.
  client::Informer& Watch(const api::ResourceInfo& res);
  template <class T>
  client::Informer& Watch() {
    return Watch(api::ResourceFor<T>());
  }

  // Handlers for an informer, each through the gate. `f(controller, args...)` gets this
  // controller as `Self&` and the handler's arguments (an ObjectPtr; for updates old and new).
  template <class Self, class F>
  auto Guarded(F f) {
    return [gate = gate_, f = std::move(f)](const auto&... args) {
      gate->Call([&](QueueController& c) { f(static_cast<Self&>(c), args...); });
    };
  }
  // Queues key(object) for each add and update (and delete, with `deletes`).
  client::EventHandler EnqueueOnChange(std::function<std::string(const api::Object&)> key,
                                       bool deletes = false);

  client::Client& client() { return client_; }
  Clock& clock() { return clock_; }
  client::WorkQueue& queue() { return queue_; }
  // The controller's Event recorder; only with an event_component.
  client::EventRecorder& events() { return *events_; }
  std::string_view name() const { return config_.name; }

 private:
  void RunWorker();

  client::Client& client_;
  client::InformerFactory& informers_;
  const QueueControllerConfig config_;
  Clock& clock_;
  std::unique_ptr<client::EventRecorder> own_events_;
  client::EventRecorder* events_ = nullptr;
  client::WorkQueue queue_;
  std::unique_ptr<SyncsInFlight> in_flight_;  // with max_syncs_in_flight > 0
  std::shared_ptr<HandlerGate<QueueController>> gate_;
  std::vector<client::Informer*> watched_;  // set by Setup
  std::vector<std::thread> workers_;
  bool started_ = false;
  std::atomic<bool> stopped_{false};
};

}  // namespace allot::controllers
