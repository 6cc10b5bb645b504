#include "controllers/event_recorder.h"

#include <cstdio>

#include "api/core.h"
#include "api/resources.h"

namespace allot::controllers {

ClientEventRecorder::ClientEventRecorder(client::Client& client, Clock& clock,
                                         std::string component, std::chrono::seconds dedupe_window)
    : client_(client),
      clock_(clock),
      component_(std::move(component)),
      window_(dedupe_window),
      events_(api::ResourceRegistry::Default().Find("", "v1", "events")) {}

void ClientEventRecorder::Record(const api::Object& involved, std::string_view type,
                                 std::string_view reason, std::string message) {
  const Time now = clock_.Now();
  const std::string key = std::string(type) + "/" + std::string(reason) + "/" + message;
  const auto window_us = std::chrono::duration_cast<std::chrono::microseconds>(window_).count();
  uint64_t n;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Last& last = last_[involved.metadata.uid];
    if (last.key == key && now.unix_micros - last.at.unix_micros < window_us) return;
    last = Last{key, now};
    n = ++counter_;
    ++written_;
    if (last_.size() > 100000) last_.clear();  // bounds memory; worst case a repeat is written
  }
  auto ev = std::make_unique<api::Event>();
  char suffix[40];
  std::snprintf(suffix, sizeof suffix, ".%016llx",
                static_cast<unsigned long long>(now.unix_micros * 1000 + n % 1000));
  ev->metadata.name = involved.metadata.name + suffix;
  ev->metadata.namespace_ =
      involved.metadata.namespace_.empty() ? "default" : involved.metadata.namespace_;
  ev->involvedObject = api::ObjectReference{involved.type().kind,
                                            involved.metadata.namespace_,
                                            involved.metadata.name,
                                            involved.metadata.uid,
                                            involved.type().api_version,
                                            involved.metadata.resourceVersion,
                                            ""};
  ev->reason = std::string(reason);
  ev->message = std::move(message);
  ev->source.component = component_;
  ev->firstTimestamp = now.TruncatedToSeconds();
  ev->lastTimestamp = now.TruncatedToSeconds();
  ev->count = 1;
  ev->type = std::string(type);
  ev->reportingComponent = component_;
  client_.CreateAsync(*events_, std::move(ev), [](Result<api::ObjectPtr>) {});
}

uint64_t ClientEventRecorder::written() const {
  std::lock_guard<std::mutex> lock(mu_);
  return written_;
}

}  // namespace allot::controllers
