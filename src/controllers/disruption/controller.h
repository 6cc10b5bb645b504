// The disruption controller: keeps each PodDisruptionBudget's status (policy/v1) current with the
// pods it selects, so the pods/eviction subresource (registry/pod_eviction.h) and the scheduler's
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
// Lifecycle, workers and thread safety: controllers/queue_controller.h.
#pragma once

#include <string>

#include "client/client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "client/informer_factory.h"
#include "client/work_queue.h"
#include "common/status.h"
#include "common/time.h"
#include "controllers/queue_controller.h"
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

class DisruptionController : public QueueController {
 public:
  using Options = DisruptionControllerOptions;

  DisruptionController(client::Client& client, client::InformerFactory& informers,
                       Options options = {});
  ~DisruptionController() override { Stop(); }

 private:
  // An index and handlers on the factory's budget and pod informers.
  Status Setup() override;
  Status Sync(const std::string& key) override;
  void OnPod(const api::Object& pod);

  client::Informer* budgets_ = nullptr;  // set by Setup
  client::Informer* pods_ = nullptr;
};

}  // namespace allot::controllers
