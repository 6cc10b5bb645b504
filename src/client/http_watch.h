// The HTTP side of a watch: a api::Watcher fed by a streaming GET ?watch=true; internal to
// client/ (HttpClient::Watch returns it).
//
// The request and the response header are handled on the calling thread; a non-200 answer is
// returned as the Status in its body. Then a thread of the watcher's own reads the chunked
// stream, one JSON event per line:
//   ADDED / MODIFIED / DELETED: decoded with the resource's TypeInfo (unknown fields dropped);
//   BOOKMARK: advances Progress(), queues nothing;
//   ERROR: a WatchEvent kError carrying the Status in the event (e.g. 410 Expired), after
//     which the watch ends;
// and the end of the stream, a broken connection or `idle_timeout` without a byte ends the
// watch (Drain returns false). A line that does not decode is an ERROR (500) and ends it too.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "api/machinery/options.h"
#include "api/machinery/watch.h"
#include "client/http_transport.h"

namespace allot::client {

struct HttpWatchOptions {
  size_t max_queue = 100000;  // as api::WatchOptions::max_queue
  // 0: no limit.
  std::chrono::milliseconds idle_timeout{0};
  // Ask for protobuf frames first (api/protobuf.h); the server's Content-Type decides.
  bool protobuf = false;
  // Called when a protobuf watch ends because the server met an object protobuf cannot carry
  // (an ERROR event with a 406 Status): the caller watches on in JSON.
  std::function<void()> on_protobuf_refused;
};

Result<std::unique_ptr<api::Watcher>> OpenHttpWatch(const HttpEndpoint& endpoint,
                                                      std::string target,
                                                      const api::ResourceInfo& resource,
                                                      HttpWatchOptions options);

}  // namespace allot::client
