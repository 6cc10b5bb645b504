#include "scheduler/scheduler_events.h"

#include <cstdio>

#include "api/resources.h"
#include "client/client.h"
#include "store/event_recorder.h"

namespace allot::scheduler {

namespace {

const api::ResourceInfo& Resource(std::string_view plural) {
  return *api::ResourceRegistry::Default().Find("", "v1", plural);
}

}  // namespace

ClientEventSink::ClientEventSink(client::Client& client, Clock& clock, std::string component,
                                 std::string instance, std::chrono::seconds dedupe_window)
    : client_(client),
      clock_(clock),
      component_(std::move(component)),
      instance_(std::move(instance)),
      window_(dedupe_window) {}

void ClientEventSink::Record(const api::Pod& pod, std::string_view type, std::string_view reason,
                             std::string_view action, std::string message) {
  Time now = clock_.Now();
  std::string key = std::string(type) + "/" + std::string(reason) + "/" + message;
  uint64_t n;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Last& last = last_[pod.metadata.uid];
    if (last.key == key &&
        now.unix_micros - last.at.unix_micros <
            std::chrono::duration_cast<std::chrono::microseconds>(window_).count()) {
      return;
    }
    last = Last{key, now};
    n = ++counter_;
    ++written_;
    if (last_.size() > 100000) last_.clear();  // bound memory; worst case a repeat is written
  }
  auto ev = std::make_unique<api::Event>();
  char suffix[40];
  std::snprintf(suffix, sizeof suffix, ".%016llx",
                static_cast<unsigned long long>(now.unix_micros * 1000 + n % 1000));
  ev->metadata.name = pod.metadata.name + suffix;
  ev->metadata.namespace_ = pod.metadata.namespace_;
  ev->involvedObject = api::ObjectReference{"Pod",
                                            pod.metadata.namespace_,
                                            pod.metadata.name,
                                            pod.metadata.uid,
                                            "v1",
                                            pod.metadata.resourceVersion,
                                            ""};
  ev->reason = std::string(reason);
  ev->message = std::move(message);
  ev->source.component = component_;
  ev->firstTimestamp = now.TruncatedToSeconds();
  ev->lastTimestamp = now.TruncatedToSeconds();
  ev->count = 1;
  ev->type = std::string(type);
  ev->action = std::string(action);
  ev->reportingComponent = component_;
  ev->reportingInstance = instance_;
  client_.CreateAsync(Resource("events"), std::move(ev), [](Result<api::ObjectPtr>) {});
}

uint64_t ClientEventSink::written() const {
  std::lock_guard<std::mutex> lock(mu_);
  return written_;
}

void RecorderEventSink::Record(const api::Pod& pod, std::string_view type, std::string_view reason,
                               std::string_view, std::string message) {
  recorder_.Record(Resource("pods"), pod, std::string(type), std::string(reason),
                   std::move(message));
}

}  // namespace allot::scheduler
