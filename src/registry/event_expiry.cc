#include "registry/event_expiry.h"

#include <algorithm>
#include <cstdlib>

#include "api/core/types.h"
#include "common/log.h"
#include "common/process_stats.h"

namespace allot::registry {

namespace {

// The latest instant an Event says something about itself: a stand-in for its last write when
// the write time itself is not known (Events stored before Start).
Time LatestTimestamp(const Object& obj) {
  Time latest = obj.metadata.creationTimestamp.value_or(Time{});
  auto later = [&latest](const Time& t) { latest = std::max(latest, t); };
  if (const auto* event = api::As<api::Event>(obj)) {
    if (event->firstTimestamp) later(*event->firstTimestamp);
    if (event->lastTimestamp) later(*event->lastTimestamp);
    if (event->eventTime) later(event->eventTime->time);
    if (event->series && event->series->lastObservedTime) {
      later(event->series->lastObservedTime->time);
    }
  }
  return latest;
}

}  // namespace

EventExpiry::EventExpiry(store::Store& store, Clock& clock, std::chrono::microseconds ttl)
    : store_(store), clock_(clock), ttl_(ttl) {}

Status EventExpiry::Start() {
  if (ttl_.count() <= 0) return BadRequestError("the event TTL must be positive");
  events_ = api::ResourceRegistry::Default().Find("", "v1", "events");
  if (!events_) return InternalError("the events resource is not registered");
  gate_ = std::make_shared<HandlerGate<EventExpiry>>();
  gate_->Open(this);
  ALLOT_RETURN_IF_ERROR(ListAndWatch());
  thread_ = std::thread([this] {
    NameThisThread("event-expiry");
    Run();
  });
  return Status::Ok();
}

Status EventExpiry::ListAndWatch() {
  auto stored = store_.List(*events_, ListOptions{});
  if (!stored.ok()) return stored.status();
  const Time now = clock_.Now();
  const SteadyPoint steady_now = clock_.Steady();
  std::vector<Note> listed;
  listed.reserve(stored->items.size());
  for (const ObjectPtr& event : stored->items) {
    const Time last = std::min(LatestTimestamp(*event), now);
    const std::chrono::microseconds age(now.unix_micros - last.unix_micros);
    listed.push_back(
        NoteFor(*event, steady_now + std::max(ttl_ - age, std::chrono::microseconds(0))));
  }

  WatchOptions watch;
  watch.resource_version = stored->resource_version;
  watch.send_initial_events = false;
  watch.max_queue = SIZE_MAX;  // drained on every commit: it never grows
  auto w = store_.Watch(events_, watch);
  if (!w.ok()) return w.status();
  {
    std::lock_guard<std::mutex> lock(mu_);
    // A re-list notes versions that already have notes; the second delete finds the Event
    // gone (404) and does nothing.
    notes_.insert(notes_.end(), std::make_move_iterator(listed.begin()),
                  std::make_move_iterator(listed.end()));
    std::stable_sort(notes_.begin(), notes_.end(),
                     [](const Note& a, const Note& b) { return a.due < b.due; });
    watcher_ = std::move(w).value();
    watch_ended_ = false;
    woken_ = true;
  }
  cv_.notify_one();
  watcher_->SetNotify([gate = gate_] { gate->Call([](EventExpiry& e) { e.TakeWrites(); }); });
  return Status::Ok();
}

void EventExpiry::Stop() {
  if (gate_) gate_->Close();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (watcher_) watcher_->Stop();  // after the thread, which may have been replacing it
  std::unique_lock<std::mutex> lock(deletes_mu_);
  deletes_cv_.wait(lock, [this] { return deletes_in_flight_ == 0; });
}

size_t EventExpiry::pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return notes_.size();
}

void EventExpiry::TakeWrites() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!watcher_ || watch_ended_) return;
  const bool open = watcher_->Drain(drained_);
  const SteadyPoint due = clock_.Steady() + ttl_;
  const bool was_empty = notes_.empty();
  bool ended = !open;
  for (WatchEvent& ev : drained_) {
    // A DELETED Event needs nothing: its last note finds the version gone.
    if ((ev.type == EventType::kAdded || ev.type == EventType::kModified) && ev.object) {
      notes_.push_back(NoteFor(*ev.object, due));
    } else if (ev.type == EventType::kError) {
      ended = true;
    }
  }
  drained_.clear();
  if (ended && !stopping_) {
    // The store ended the watch (410 Expired, or it is closing): Run lists and watches again.
    watch_ended_ = true;
    woken_ = true;
    cv_.notify_one();
  } else if (was_empty && !notes_.empty()) {
    woken_ = true;
    cv_.notify_one();
  }
}

EventExpiry::Note EventExpiry::NoteFor(const Object& event, SteadyPoint due) {
  std::string key = event.metadata.namespace_;
  key += '/';
  key += event.metadata.name;
  return Note{due, std::strtoull(event.metadata.resourceVersion.c_str(), nullptr, 10),
              std::move(key)};
}

void EventExpiry::Run() {
  std::vector<Note> due;
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    SteadyPoint deadline = notes_.empty() ? SteadyPoint::max() : notes_.front().due;
    if (watch_ended_) deadline = std::min(deadline, next_watch_);
    clock_.WaitUntil(cv_, lock, deadline, [this] { return stopping_ || woken_; });
    woken_ = false;
    if (stopping_) break;
    if (watch_ended_ && clock_.Steady() >= next_watch_) {
      // At most once a second: a store whose index is behind its backend's compaction answers
      // each new watch with 410 until it caught up.
      next_watch_ = clock_.Steady() + std::chrono::seconds(1);
      lock.unlock();
      Status st = ListAndWatch();
      if (!st.ok()) log::Error("event-expiry", "watching Events again: " + st.ToString());
      lock.lock();
      continue;
    }
    const SteadyPoint now = clock_.Steady();
    while (!notes_.empty() && notes_.front().due <= now) {
      due.push_back(std::move(notes_.front()));
      notes_.pop_front();
    }
    if (due.empty()) continue;
    lock.unlock();
    for (const Note& note : due) Expire(note);
    due.clear();
    lock.lock();
  }
}

void EventExpiry::Expire(const Note& note) {
  const size_t slash = note.key.find('/');  // neither a namespace nor a name holds one
  // Only the version the note was taken for: a later write has a later note.
  DeleteOptions opts;
  opts.precondition_resource_version = std::to_string(note.resource_version);
  {
    std::lock_guard<std::mutex> lock(deletes_mu_);
    ++deletes_in_flight_;
  }
  store_.DeleteAsync(*events_, note.key.substr(0, slash), note.key.substr(slash + 1),
                     std::move(opts), [this](Result<DeleteResult> result) {
                       // 404 and 409: deleted or written again meanwhile; nothing to do.
                       if (result.ok()) expired_.fetch_add(1);
                       std::lock_guard<std::mutex> lock(deletes_mu_);
                       if (--deletes_in_flight_ == 0) deletes_cv_.notify_all();
                     });
}

}  // namespace allot::registry
