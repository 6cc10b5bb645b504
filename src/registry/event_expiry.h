// Event expiry: deletes each Event a fixed time (the TTL) after its last write, as
// kube-apiserver does with --event-ttl (one hour by default), so a cluster that runs for weeks
// keeps its recent Events, not every Event it ever recorded.
//
// kube-apiserver attaches each Event write to an etcd lease that runs out TTL plus a reuse
// window (the lesser of 60 s and 5 % of the TTL) later; etcd then deletes the key and watchers
// see the Event DELETED. EventExpiry keeps that contract without leases, on every backend:
//  - It watches Events through the store::Store and notes, for each version written, when it is
//  due.
//    Writes are noted in commit order and the TTL is fixed, so the notes form a queue, oldest
//    first; a note is the due time, the Event's namespace/name and that version's
//    resourceVersion. (The store keeps Events encoded, store/encoded_object.h, so there is no
//    decoded version to refer to.)
//  - When a note falls due, the Event is deleted through the store::Store with that resourceVersion
//    as a precondition: if a later write replaced the version, or the Event is gone, the store
//    answers 409 or 404 and nothing happens (the later write has its own, later note).
//    Watchers see the usual DELETED event.
//  - A note is taken on the thread that commits the write (the watch's notify), so it is due TTL
//    after the commit, give or take the wake-up of this class's own thread.
//
// Restart: the Events already stored when Start() runs carry no write time. Each is due TTL
// after the latest of its own timestamps (creationTimestamp, firstTimestamp, lastTimestamp,
// eventTime, series.lastObservedTime), and never before now: a server down for a day expires
// that day's Events as soon as it starts, and never an Event a clock in the future claims.
//
// A watch the store ends (an etcd follower's 410 after compaction) is opened again from a new
// list, at most once a second.
//
// Several replicas on one etcd each expire Events; the precondition turns the second delete of
// an Event into a 404 or 409 that is ignored.
//
// Not for a virtual clock (sim/clock.h): the notes it takes on the commit thread are not
// counted as work in flight, so a virtual clock could jump past them.
//
// Thread safety: Start and Stop from one thread. One thread of its own waits for the next due
// note (Clock::WaitUntil, so a FakeClock drives it in tests).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/handler_gate.h"
#include "common/time.h"
#include "store/store.h"

namespace allot::registry {

using api::DeleteOptions;
using api::DeleteResult;
using api::EventType;
using api::ListOptions;
using api::Object;
using api::ObjectPtr;
using api::ResourceInfo;
using api::Watcher;
using api::WatchEvent;
using api::WatchOptions;

class EventExpiry {
 public:
  // kube-apiserver's --event-ttl default.
  static constexpr std::chrono::seconds kDefaultTtl{3600};

  // `ttl` must be positive.
  EventExpiry(store::Store& store, Clock& clock, std::chrono::microseconds ttl = kDefaultTtl);
  ~EventExpiry() { Stop(); }
  EventExpiry(const EventExpiry&) = delete;
  EventExpiry& operator=(const EventExpiry&) = delete;

  // Notes the Events already stored, starts watching for new writes and starts the thread.
  // Errors: the store's, for the list or the watch.
  Status Start();
  // Stops the thread and the watch, and waits for the deletes already sent. Idempotent.
  void Stop();

  // Events this instance deleted (for tests and metrics).
  uint64_t expired() const { return expired_.load(); }
  // Notes waiting to fall due (for tests).
  size_t pending() const;

 private:
  using SteadyPoint = Clock::SteadyPoint;
  struct Note {
    SteadyPoint due;
    uint64_t resource_version;
    std::string key;  // "<namespace>/<name>"
  };
  // The note for `event` as written, due at `due`.
  static Note NoteFor(const Object& event, SteadyPoint due);

  // Notes the stored Events and opens the watch (at Start, and again whenever the store ends
  // the watch).
  Status ListAndWatch();
  void TakeWrites();  // the watch's notify: runs on the committer thread
  void Run();
  void Expire(const Note& note);

  store::Store& store_;
  Clock& clock_;
  const std::chrono::microseconds ttl_;
  const ResourceInfo* events_ = nullptr;
  std::unique_ptr<Watcher> watcher_;
  // What the watch's notify calls into: a watch may call a notify it copied just before it
  // was stopped, so the notify holds the gate, not this.
  std::shared_ptr<HandlerGate<EventExpiry>> gate_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Note> notes_;           // oldest due first
  std::vector<WatchEvent> drained_;  // TakeWrites' buffer, reused
  bool woken_ = false;               // a note arrived at an empty queue: wait again
  bool watch_ended_ = false;         // the store ended the watch: list and watch again
  SteadyPoint next_watch_{};         // ... not before this
  bool stopping_ = false;
  std::thread thread_;

  // Deletes sent and not yet answered: Stop waits for them, since their callbacks use `this`.
  std::mutex deletes_mu_;
  std::condition_variable deletes_cv_;
  int64_t deletes_in_flight_ = 0;
  std::atomic<uint64_t> expired_{0};
};

}  // namespace allot::registry
