#include "store/event_recorder.h"

#include <cstdio>

#include "api/core.h"

namespace allot::store {

EventRecorder::EventRecorder(Store& store, Clock& clock, Options options)
    : store_(store), clock_(clock), options_(std::move(options)),
      events_(api::ResourceRegistry::Default().Find("", "v1", "events")) {}

bool EventRecorder::TakeToken(const std::string& uid, Time now) {
  auto [it, inserted] = buckets_.try_emplace(uid, Bucket{static_cast<double>(options_.burst), now});
  Bucket& b = it->second;
  double refill = static_cast<double>(now.unix_micros - b.refilled.unix_micros) /
                  static_cast<double>(std::chrono::microseconds(options_.refill_every).count());
  if (refill > 0) {
    b.tokens = std::min(static_cast<double>(options_.burst), b.tokens + refill);
    b.refilled = now;
  }
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

void EventRecorder::Record(const ResourceInfo& involved_resource, const Object& involved,
                           std::string type, std::string reason, std::string message) {
  if (!events_) return;
  const Time now = clock_.Now();
  Key key{involved.metadata.uid, type, reason, message};
  std::string ns = involved.metadata.namespace_.empty() ? "default" : involved.metadata.namespace_;
  std::unique_lock<std::mutex> lock(mu_);
  if (!TakeToken(involved.metadata.uid, now)) {
    ++dropped_;
    return;
  }
  auto it = seen_.find(key);
  if (it != seen_.end() &&
      now.unix_micros - it->second.last.unix_micros <
          std::chrono::duration_cast<std::chrono::microseconds>(options_.aggregation_window).count()) {
    it->second.last = now;
    ++aggregated_;
    Seen target = it->second;
    lock.unlock();
    store_.UpdateAsync(
        *events_, target.ns, target.name,
        [now](const Object& cur) -> Result<std::unique_ptr<Object>> {
          auto next = cur.Clone();
          auto* ev = api::As<api::Event>(*next);
          ev->count += 1;
          ev->lastTimestamp = now.TruncatedToSeconds();
          if (!ev->series) ev->series.emplace();
          ev->series->count = ev->count;
          ev->series->lastObservedTime = api::MicroTime{now};
          return next;
        },
        {}, [](Result<api::ObjectPtr>) {});
    return;
  }
  char suffix[20];
  std::snprintf(suffix, sizeof suffix, "%016llx",
                static_cast<unsigned long long>(now.unix_micros * 1000 + (counter_++ % 1000)));
  std::string name = involved.metadata.name + "." + suffix;
  seen_[key] = Seen{ns, name, now};
  lock.unlock();

  auto ev = std::make_unique<api::Event>();
  ev->metadata.name = name;
  ev->metadata.namespace_ = ns;
  ev->involvedObject.kind = involved_resource.type->kind;
  ev->involvedObject.apiVersion = involved_resource.type->api_version;
  ev->involvedObject.name = involved.metadata.name;
  ev->involvedObject.namespace_ = involved.metadata.namespace_;
  ev->involvedObject.uid = involved.metadata.uid;
  ev->involvedObject.resourceVersion = involved.metadata.resourceVersion;
  ev->type = std::move(type);
  ev->reason = std::move(reason);
  ev->message = std::move(message);
  ev->source.component = options_.component;
  ev->source.host = options_.host;
  ev->reportingComponent = options_.component;
  ev->reportingInstance = options_.host;
  ev->firstTimestamp = now.TruncatedToSeconds();
  ev->lastTimestamp = now.TruncatedToSeconds();
  ev->count = 1;
  store_.CreateAsync(*events_, std::move(ev), {}, [](Result<api::ObjectPtr>) {});
}

uint64_t EventRecorder::dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

uint64_t EventRecorder::aggregated() const {
  std::lock_guard<std::mutex> lock(mu_);
  return aggregated_;
}

}  // namespace allot::store
