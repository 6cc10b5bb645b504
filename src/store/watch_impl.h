// The store's side of a watch: a filtered, bounded event queue. Internal to store/.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>

#include "store/store.h"

namespace allot::store {

// Which objects a watch (or list) selects.
struct ObjectFilter {
  const ResourceInfo* resource = nullptr;  // null: every resource
  std::string namespace_;
  api::LabelSelectorExpr label_selector;
  api::FieldSelectorExpr field_selector;

  bool Matches(const ResourceInfo& r, const Object& obj) const;
};

// The value of a selectable field: metadata.name, metadata.namespace, or the resource's own.
std::optional<std::string> FieldValue(const ResourceInfo& r, const Object& obj,
                                      std::string_view field);

class WatcherImpl final : public Watcher {
 public:
  // `clock` (optional) counts events in flight (api/machinery/watch.h).
  WatcherImpl(ObjectFilter filter, size_t max_queue, Clock* clock = nullptr)
      : filter_(std::move(filter)), max_queue_(max_queue), clock_(clock) {}
  ~WatcherImpl() override;

  bool Drain(std::vector<WatchEvent>& out) override;
  bool WaitNext(WatchEvent& out, std::chrono::milliseconds timeout) override;
  void SetNotify(std::function<void()> notify) override;
  uint64_t Progress() const override;
  void Stop() override;

  // Store side. Offers a change (prev may be null for ADDED, obj is the last state for
  // DELETED); the watcher turns it into what its filter sees. Returns true when something was
  // queued (the caller then notifies after releasing its locks).
  bool Offer(const ResourceInfo& r, EventType type, const ObjectPtr& obj, const ObjectPtr& prev,
             uint64_t rv);
  // A watch resumed from the history is replayed outside the store's lock (decoding is not
  // free). From BeginReplay (called under the store's lock, before the watcher is registered)
  // until EndReplay, what Offer and SetProgress bring is held back and follows the replayed
  // events, which come through OfferReplayed; the consumer sees the history's order.
  void BeginReplay();
  bool OfferReplayed(const ResourceInfo& r, EventType type, const ObjectPtr& obj,
                     const ObjectPtr& prev, uint64_t rv);
  void EndReplay();
  // Queues an event unconditionally (initial state, errors).
  void Push(WatchEvent ev);
  void SetProgress(uint64_t rv);
  // Ends the watch after the queued events.
  void Finish();
  bool ended() const;
  void Notify();

 private:
  const ObjectFilter filter_;
  const size_t max_queue_;
  Clock* const clock_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<WatchEvent> queue_;
  bool replaying_ = false;
  std::deque<WatchEvent> held_;  // while replaying_: the changes committed meanwhile
  uint64_t held_progress_ = 0;
  std::function<void()> notify_;
  uint64_t progress_ = 0;
  bool ended_ = false;
  size_t taken_ = 0;  // events the consumer took last and has not acknowledged by taking again

  bool Enqueue(const ResourceInfo& r, EventType type, const ObjectPtr& obj, const ObjectPtr& prev,
               uint64_t rv, bool replayed);
  // The consumer takes again: what it took before is done. Called with mu_ held.
  void AcknowledgeLocked();
  void CountLocked(int64_t n);
  void UncountLocked(int64_t n);
};

}  // namespace allot::store
