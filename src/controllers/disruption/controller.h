// The disruption controller: keeps each PodDisruptionBudget's status (policy/v1) current with the
// pods it selects, so the pods/eviction subresource (store/pod_eviction.h) and the scheduler's
// preemption can trust it. The arithmetic is in controllers/disruption/rules.h; this reads the
// objects and writes the answers (docs/preemption.md).
//
//   client::InformerFactory factory(client);
//   controllers::DisruptionController dc(client, factory, {.clock = &clock});
//   ALLOT_RETURN_IF_ERROR(dc.Start());  // registers handlers; returns at once
//   ALLOT_RETURN_IF_ERROR(factory.StartAll());
//
// Work-queue key "<namespace>/<name>" of a budget. Events in: budget add / update (not delete:
// nothing is left to write); pod add / update / delete → the budgets of its namespace whose
// selector selects it (before or after an update). A budget with evictions in disruptedPods is
// looked at again when the earliest of them expires (WorkQueue::AddAfter on the Clock, so a
// FakeClock drives it in tests). A status write that meets a 409 is retried from the work queue
// with the current objects; any other failure to compute the status fails safe (rules.h).
// Events out: NoPods (Normal) on a budget that selects no pod, UnmanagedPods and
// CalculateExpectedPodCountFailed (Warning) on a budget, NotDeleted (Warning) on a pod evicted
// long ago that still exists — each deduplicated by the event recorder.
//
// Thread safety: Start and Stop from one owning thread. The client and the informer factory
// must outlive the controller; after Stop the handlers left in the shared informers do nothing.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "client/client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "client/informer_factory.h"
#include "client/work_queue.h"
#include "common/status.h"
#include "common/time.h"
#include "common/handler_gate.h"
#include "controllers/sync_worker.h"

namespace allot::controllers {

// source.component of the controller's Events.
inline constexpr std::string_view kDisruptionEventComponent = "controllermanager";

struct DisruptionControllerOptions {
  int workers = 2;
  Clock* clock = nullptr;                   // null: RealClock
  client::EventRecorder* events = nullptr;  // null: a ClientEventRecorder through the client
  client::WorkQueueOptions queue;
  OnSyncFn on_sync;  // sees every key and its result (tests)
};

class DisruptionController {
 public:
  using Options = DisruptionControllerOptions;

  DisruptionController(client::Client& client, client::InformerFactory& informers,
                       Options options = {});
  ~DisruptionController();  // Stop()s
  DisruptionController(const DisruptionController&) = delete;
  DisruptionController& operator=(const DisruptionController&) = delete;

  // Registers an index and handlers on the factory's budget and pod informers and starts the
  // workers. Call at most once. The caller starts the factory.
  Status Start();
  // Stops the workers (a sync in progress finishes first) and detaches the handlers. Idempotent.
  void Stop();

 private:
  void RegisterHandlers();
  void OnPod(const api::Object& pod);
  Status Sync(const std::string& key);

  client::Client& client_;
  client::InformerFactory& informers_;
  const Options options_;
  Clock& clock_;
  std::unique_ptr<client::EventRecorder> own_events_;
  client::EventRecorder& events_;
  client::Informer* budgets_ = nullptr;  // set by Start
  client::Informer* pods_ = nullptr;
  client::WorkQueue queue_;
  std::shared_ptr<HandlerGate<DisruptionController>> gate_;
  std::vector<std::thread> workers_;
  bool started_ = false;
  std::atomic<bool> stopped_{false};
};

}  // namespace allot::controllers
