// The request handler behind the HTTP server: routes a parsed request to discovery, OpenAPI,
// health, metrics or the REST handlers, and owns what they share. Transport-agnostic (no
// Boost), so it can be driven directly in tests.
#pragma once

#include <memory>

#include "apiserver/context.h"
#include "apiserver/transport/http_types.h"
#include "common/metrics.h"
#include "store/store.h"

namespace allot::apiserver {

class Handler {
 public:
  // `store`, `clock` and `registry` must outlive the handler.
  Handler(store::Store& store, Clock& clock, metrics::Registry& registry, ServerConfig config);
  ~Handler();
  Handler(const Handler&) = delete;
  Handler& operator=(const Handler&) = delete;

  // Serves one request; `done` runs exactly once, from any thread. `server_address` is what
  // discovery advertises ("127.0.0.1:6443").
  void Handle(Request req, std::string server_address, ResponseCallback done);

  // Re-checks every open watch's deadlines (timeoutSeconds, bookmarks) now.
  void WakeStreams();
  // Ends every open watch (shutdown).
  void CancelStreams();
  // Blocks until every request has been answered and released.
  void WaitIdle();
  // From now on requests are refused with 503 without touching the store; then ends open
  // watches and waits until in-flight requests are done. After it returns no store callback
  // of this handler is pending.
  void Shutdown();
  size_t open_streams() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace allot::apiserver
