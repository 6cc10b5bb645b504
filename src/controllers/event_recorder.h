// Where controllers' core/v1 Events go (FailedResourceClaimCreation, ...).
//
//  - EventRecorder: the seam. `allot serve` may hand controllers an adapter over
//    store::EventRecorder (which aggregates repeats into count/series); tests may record calls.
//  - ClientEventRecorder: writes Events through any client::Client (in-process or HTTP), with a
//    simple aggregation: an event identical to the last one recorded for the same object (same
//    type, reason and message) within `dedupe_window` is not written again.
//
// Thread safety: Record may be called from any thread and never blocks on the API (writes are
// asynchronous; a failed write is dropped, as client-go's recorder does after its retries).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "api/object.h"
#include "client/client.h"
#include "common/time.h"

namespace allot::controllers {

inline constexpr std::string_view kEventTypeNormal = "Normal";
inline constexpr std::string_view kEventTypeWarning = "Warning";

class EventRecorder {
 public:
  virtual ~EventRecorder() = default;
  // `involved`: the object the event is about (its TypeInfo gives kind and apiVersion).
  virtual void Record(const api::Object& involved, std::string_view type, std::string_view reason,
                      std::string message) = 0;
};

class ClientEventRecorder final : public EventRecorder {
 public:
  // `component`: source.component and reportingComponent (Kubernetes' resourceclaim controller
  // uses "resource_claim").
  ClientEventRecorder(client::Client& client, Clock& clock, std::string component,
                      std::chrono::seconds dedupe_window = std::chrono::seconds(600));

  void Record(const api::Object& involved, std::string_view type, std::string_view reason,
              std::string message) override;
  // Events handed to the client so far (not deduplicated away).
  uint64_t written() const;

 private:
  struct Last {
    std::string key;  // type/reason/message
    Time at;
  };
  client::Client& client_;
  Clock& clock_;
  const std::string component_;
  const std::chrono::seconds window_;
  const api::ResourceInfo* events_;
  mutable std::mutex mu_;
  std::map<std::string, Last> last_;  // by involved uid; guarded by mu_
  uint64_t counter_ = 0;              // guarded by mu_
  uint64_t written_ = 0;              // guarded by mu_
};

}  // namespace allot::controllers
