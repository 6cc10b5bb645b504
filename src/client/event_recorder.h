// Recording core/v1 Events (Scheduled, FailedScheduling, FailedResourceClaimCreation, ...), for
// every component: the scheduler, the controllers and the drivers.
//
//  - EventRecorder: the seam components record through; tests may substitute their own.
//  - ClientEventRecorder: writes Events through any Client (in-process or HTTP), with a simple
//    aggregation: an event identical to the last one recorded for the same object (same type,
//    reason and message) within `dedupe_window` is not written again. Names are
//    "<involved name>.<16 hex digits>", as kubectl describe expects.
//
// Thread safety: Record may be called from any thread and never blocks on the API (writes are
// asynchronous; a failed write is dropped, as client-go's recorder does after its retries).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "api/machinery/object.h"
#include "api/machinery/resources.h"
#include "common/time.h"

namespace allot::client {

class Client;

inline constexpr std::string_view kEventTypeNormal = "Normal";
inline constexpr std::string_view kEventTypeWarning = "Warning";

class EventRecorder {
 public:
  virtual ~EventRecorder() = default;
  // `involved`: the object the event is about (its TypeInfo gives kind and apiVersion).
  // `type`: kEventTypeNormal or kEventTypeWarning. `action`: the events.k8s.io action
  // ("Scheduling", "Binding"), empty for none.
  virtual void Record(const api::Object& involved, std::string_view type, std::string_view reason,
                      std::string_view action, std::string message) = 0;
};

class ClientEventRecorder final : public EventRecorder {
 public:
  struct Options {
    // source.component and reportingComponent ("default-scheduler", "resource_claim").
    std::string component;
    // reportingInstance; empty for none.
    std::string instance;
    // An identical event for the same object within this window is not written again (0: every
    // event is written).
    std::chrono::seconds dedupe_window{600};
  };
  // `client` and `clock` must outlive the recorder.
  ClientEventRecorder(Client& client, Clock& clock, Options options);

  void Record(const api::Object& involved, std::string_view type, std::string_view reason,
              std::string_view action, std::string message) override;
  // Events handed to the client so far (not deduplicated away).
  uint64_t written() const;

 private:
  // The last event written for an object: a hash of its type, reason and message, and when.
  struct Last {
    uint64_t key = 0;
    int64_t at_us = 0;
  };
  Client& client_;
  Clock& clock_;
  const Options options_;
  const api::ResourceInfo* events_;
  mutable std::mutex mu_;
  // By a hash of the involved object's uid; guarded by mu_. Two objects or two events whose
  // 64-bit hashes collide would only let one identical-looking event go unwritten.
  std::unordered_map<uint64_t, Last> last_;
  uint64_t counter_ = 0;              // guarded by mu_
  uint64_t written_ = 0;              // guarded by mu_
};

// For components that take an optional recorder: null when `given` is set, else a recorder of
// their own writing through `client` as `component` (keep it, and record to *given or to it).
std::unique_ptr<ClientEventRecorder> OwnRecorderUnless(EventRecorder* given, Client& client,
                                                       Clock& clock, std::string_view component);

}  // namespace allot::client
