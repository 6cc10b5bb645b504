// Records core/v1 Events for in-process components (scheduler, controllers, drivers), with the
// aggregation client-go's recorder does, so repeated events do not flood the store:
//
//  - An event identical to one recorded recently (same involved object, type, reason, message
//    and component) is not created again: the existing Event's `count` is incremented and its
//    `lastTimestamp` and `series` {count, lastObservedTime} are updated (one write, no new
//    object).
//  - A token bucket per involved object (burst 25, refill one per 5 minutes, as client-go's
//    spam filter) drops events beyond that rate; drops are counted.
//
// Names are "<involved name>.<16 hex digits>", as kubectl describe expects nothing more.
// Thread-safe. Writes are asynchronous: Record never blocks on the store.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "common/time.h"
#include "store/store.h"

namespace allot::store {

class EventRecorder {
 public:
  struct Options {
    std::string component;  // source.component and reportingComponent, e.g. "allot-scheduler"
    std::string host;
    // An identical event within this window updates the existing one.
    std::chrono::seconds aggregation_window{600};
    int burst = 25;
    std::chrono::seconds refill_every{300};
  };

  EventRecorder(Store& store, Clock& clock, Options options);

  // type: "Normal" or "Warning". `involved` is the object the event is about (its resource
  // gives apiVersion and kind).
  void Record(const ResourceInfo& involved_resource, const Object& involved, std::string type,
              std::string reason, std::string message);

  uint64_t dropped() const;
  uint64_t aggregated() const;

 private:
  struct Key {
    std::string uid, type, reason, message;
    auto operator<=>(const Key&) const = default;
  };
  struct Seen {
    std::string ns, name;  // the Event object
    Time last;
  };
  struct Bucket {
    double tokens;
    Time refilled;
  };
  bool TakeToken(const std::string& uid, Time now);

  Store& store_;
  Clock& clock_;
  const Options options_;
  const ResourceInfo* events_;
  mutable std::mutex mu_;
  std::map<Key, Seen> seen_;
  std::map<std::string, Bucket> buckets_;
  uint64_t dropped_ = 0;
  uint64_t aggregated_ = 0;
  uint64_t counter_ = 0;
};

}  // namespace allot::store
