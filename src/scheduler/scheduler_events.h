// Where the scheduler's Events go (Scheduled, FailedScheduling, ...).
//
//  - ClientEventSink writes core/v1 Events through any Client (in-process or over HTTP), with a
//    simple aggregation: an event identical to the last one recorded for the same pod (same
//    type, reason and message) within `dedupe_window` is not written again.
//  - RecorderEventSink hands events to a store::EventRecorder (in-process only; it aggregates
//    repeats into count/series as client-go does).
//
// Thread safety: Record may be called from any thread and never blocks on the API.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "api/core.h"
#include "common/time.h"

namespace allot::client {
class Client;
}  // namespace allot::client
namespace allot::store {
class EventRecorder;
}  // namespace allot::store

namespace allot::scheduler {

class EventSink {
 public:
  virtual ~EventSink() = default;
  // type: "Normal" | "Warning"; action: "Binding" | "Scheduling" (events.k8s.io action).
  virtual void Record(const api::Pod& pod, std::string_view type, std::string_view reason,
                      std::string_view action, std::string message) = 0;
};

class ClientEventSink final : public EventSink {
 public:
  // `component`: source.component and reportingComponent ("default-scheduler").
  ClientEventSink(client::Client& client, Clock& clock, std::string component, std::string instance,
                  std::chrono::seconds dedupe_window = std::chrono::seconds(600));
  void Record(const api::Pod& pod, std::string_view type, std::string_view reason,
              std::string_view action, std::string message) override;
  uint64_t written() const;

 private:
  struct Last {
    std::string key;  // type/reason/message
    Time at;
  };
  client::Client& client_;
  Clock& clock_;
  const std::string component_;
  const std::string instance_;
  const std::chrono::seconds window_;
  mutable std::mutex mu_;
  std::map<std::string, Last> last_;  // by pod uid; guarded by mu_
  uint64_t counter_ = 0;              // guarded by mu_
  uint64_t written_ = 0;              // guarded by mu_
};

class RecorderEventSink final : public EventSink {
 public:
  explicit RecorderEventSink(store::EventRecorder& recorder) : recorder_(recorder) {}
  void Record(const api::Pod& pod, std::string_view type, std::string_view reason,
              std::string_view action, std::string message) override;

 private:
  store::EventRecorder& recorder_;
};

}  // namespace allot::scheduler
