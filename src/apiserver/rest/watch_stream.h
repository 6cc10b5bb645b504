// A watch response: store events drained into newline-delimited JSON chunks
// (api-reference §4.4), or protobuf frames for clients that ask for them (api/protobuf.h),
// written by the connection without a thread per watch.
//
// The store's Watcher calls the connection's wake function (SetNotify) from the committer
// thread when events arrive; the connection then calls Next() on its strand, which drains the
// watcher and encodes a bounded batch. Backpressure is natural: Next() is not called again
// until the previous chunk has been written, so a slow client leaves events queued in the
// store's watcher (which ends the watch if the queue grows past its bound; the client
// re-watches). timeoutSeconds and bookmarks are deadlines on the server Clock's steady
// timeline, reported through Deadline(); tests with a FakeClock advance it and call
// StreamRegistry::WakeAll() instead of sleeping.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "apiserver/context.h"
#include "apiserver/rest/request_params.h"
#include "store/store.h"

namespace allot::apiserver {

struct WatchSpec {
  const api::ResourceInfo* resource = nullptr;  // as the request's version names it
  EncodeCache* cache = nullptr;                 // that version's encodings
  Output output;
  bool bookmarks = false;
  // Watch-list: after the initial events, a BOOKMARK annotated k8s.io/initial-events-end.
  bool initial_events_end = false;
  // Ends the stream (timeoutSeconds), on the Clock's steady timeline.
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

class WatchStream final : public StreamSource {
 public:
  WatchStream(ServerContext& ctx, std::unique_ptr<api::Watcher> watcher, WatchSpec spec);
  ~WatchStream() override;

  void Start(std::function<void()> wake) override;
  std::string Next(bool* finished) override;
  std::optional<std::chrono::steady_clock::time_point> Deadline() const override;
  void Cancel() override;

  // Schedules Next() on the connection (used by StreamRegistry::WakeAll).
  void Wake();

 private:
  // One event in the stream's encoding: a JSON line, or a protobuf frame.
  std::string EncodeEvent(const api::WatchEvent& ev);
  std::string ErrorEvent(const Status& status) const;
  std::string Bookmark(uint64_t rv, bool initial_events_end = false) const;
  std::string ObjectJson(const api::ObjectPtr& obj);

  ServerContext& ctx_;
  const std::unique_ptr<api::Watcher> watcher_;
  const WatchSpec spec_;
  metrics::Counter& events_sent_;

  // Strand-only state.
  std::deque<api::WatchEvent> pending_;
  bool ended_ = false;
  bool failed_ = false;  // an object could not be encoded: the stream ends after its ERROR
  bool first_table_ = true;
  bool initial_events_pending_ = false;
  uint64_t last_rv_ = 0;
  std::chrono::steady_clock::time_point next_bookmark_;

  mutable std::mutex mu_;
  std::function<void()> wake_;  // guarded by mu_
};

// The live watch streams, for metrics, tests (WakeAll after advancing a FakeClock) and
// shutdown (CancelAll). Thread-safe.
class StreamRegistry {
 public:
  void Add(const std::shared_ptr<WatchStream>& stream);
  void Remove(const WatchStream* stream);
  void WakeAll();
  void CancelAll();
  size_t size() const;

 private:
  std::vector<std::shared_ptr<WatchStream>> Snapshot() const;

  mutable std::mutex mu_;
  std::map<const WatchStream*, std::weak_ptr<WatchStream>> streams_;  // guarded by mu_
};

}  // namespace allot::apiserver
