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
// Thread safety: Start and Stop from one owning thread. The client and the informer factory
// must outlive the controller; after Stop the handlers left in the shared informers do nothing.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "api/koordinator/reservation.h"
#include "client/client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "client/informer_factory.h"
#include "client/work_queue.h"
#include "common/status.h"
#include "common/time.h"
#include "common/handler_gate.h"

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
};

class ReservationController {
 public:
  using Options = ReservationControllerOptions;

  ReservationController(client::Client& client, client::InformerFactory& informers,
                        Options options = {});
  ~ReservationController();  // Stop()s
  ReservationController(const ReservationController&) = delete;
  ReservationController& operator=(const ReservationController&) = delete;

  // Registers indexes and handlers on the factory's reservation, pod and node informers and
  // starts the workers. Call at most once. The caller starts the factory.
  Status Start();
  // Stops the workers (a sync in progress finishes first) and detaches the handlers. Idempotent.
  void Stop();

 private:
  void RegisterHandlers();
  void OnPod(const api::Object& pod);
  Status Sync(const std::string& key);
  Status SyncReservation(const std::string& name);
  Status CleanOwners(const std::string& reservation_uid);
  Result<bool> NodeExists(const std::string& node);

  client::Client& client_;
  client::InformerFactory& informers_;
  const Options options_;
  Clock& clock_;
  std::unique_ptr<client::EventRecorder> own_events_;
  client::EventRecorder& events_;
  client::Informer* reservations_ = nullptr;  // set by Start
  client::Informer* pods_ = nullptr;
  client::Informer* nodes_ = nullptr;
  client::WorkQueue queue_;
  std::shared_ptr<HandlerGate<ReservationController>> gate_;
  std::vector<std::thread> workers_;
  bool started_ = false;
  std::atomic<bool> stopped_{false};
};

}  // namespace allot::controllers
