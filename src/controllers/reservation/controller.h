// The reservation controller: keeps Koordinator Reservations (scheduling.koordinator.sh/v1alpha1)
// current once the scheduler has placed them (docs/reservations.md). The rules are in
// controllers/reservation/rules.h; this reads the objects and writes the answers.
//
//   client::InformerFactory factory(client);
//   controllers::ReservationController rc(client, factory, {.clock = &clock});
//   ALLOT_RETURN_IF_ERROR(rc.Start());  // registers handlers; returns at once
//   ALLOT_RETURN_IF_ERROR(factory.StartAll());
//
// What it does, per reservation (work-queue key "r:<name>"):
//  - a non-terminal reservation past its expiry, or whose node is gone (confirmed with a live
//    GET: the node informer may lag behind the scheduler that placed it), becomes Failed; an
//    Available one gets currentOwners / allocated from its owner pods, and Succeeded with its
//    first owner under allocateOnce. Each phase change is also an Event on the reservation.
//  - it is looked at again at its expiry (WorkQueue::AddAfter on the Clock, so a FakeClock
//    drives it in tests); a terminal one is deleted `retention` after it became terminal.
//  - once a reservation is gone, the reservation-allocated annotation naming its uid is removed
//    from the pods that still carry it (key "gone:<uid>").
// Events in: reservation add / update / delete; pod add / update / delete of pods whose
// annotation names a reservation (an index by reservation uid, so no scans); node delete (an
// index of reservations by node).
//
// Lifecycle, workers and thread safety: controllers/queue_controller.h.
#pragma once

#include <chrono>
#include <string>

#include "api/koordinator/reservation.h"
#include "client/client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "client/informer_factory.h"
#include "client/work_queue.h"
#include "common/status.h"
#include "common/time.h"
#include "controllers/queue_controller.h"

namespace allot::controllers {

// source.component of the controller's Events.
inline constexpr std::string_view kReservationEventComponent = "reservation-controller";

struct ReservationControllerOptions {
  int workers = 2;
  Clock* clock = nullptr;  // null: RealClock
  // How long a Succeeded or Failed reservation is kept before it is deleted (Koordinator: 24 h).
  std::chrono::seconds retention{24 * 3600};
  client::EventRecorder* events = nullptr;  // null: a ClientEventRecorder through the client
  client::WorkQueueOptions queue;
  OnSyncFn on_sync;  // sees every key and its result (tests)
};

class ReservationController : public QueueController {
 public:
  using Options = ReservationControllerOptions;

  ReservationController(client::Client& client, client::InformerFactory& informers,
                        Options options = {});
  ~ReservationController() override { Stop(); }

 private:
  // Indexes and handlers on the factory's reservation, pod and node informers.
  Status Setup() override;
  Status Sync(const std::string& key) override;
  void OnPod(const api::Object& pod);
  Status SyncReservation(const std::string& name);
  Status CleanOwners(const std::string& reservation_uid);
  Result<bool> NodeExists(const std::string& node);

  const std::chrono::seconds retention_;
  client::Informer* reservations_ = nullptr;  // set by Setup
  client::Informer* pods_ = nullptr;
  client::Informer* nodes_ = nullptr;
};

}  // namespace allot::controllers
