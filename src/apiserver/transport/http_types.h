// The API server's view of HTTP: a parsed request, a response (whole or streamed), and the
// stream interface watches implement. Free of Boost so that handlers compile quickly; only the
// connection code (connection.cc) speaks Beast.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace allot::apiserver {

// Ordered name/value pairs; lookups are case-insensitive for header names and exact for query
// parameter names.
using Pairs = std::vector<std::pair<std::string, std::string>>;

struct Request {
  std::string method;  // "GET", "POST", ...
  std::string target;  // as received: "/api/v1/pods?limit=5"
  std::string path;    // the path part, not decoded
  Pairs query;         // decoded query parameters, in order
  Pairs headers;
  std::string body;
  std::string remote;  // "127.0.0.1:5555", for logs
  // The client certificate the TLS handshake verified against the client CA: its subject's
  // common name and organizations (user name and groups, as kube-apiserver reads them).
  struct Certificate {
    std::string common_name;
    std::vector<std::string> organizations;
  };
  std::optional<Certificate> client_certificate;

  // First header with this name (case-insensitive), or "".
  std::string_view Header(std::string_view name) const;
  // First query parameter with this name, or nullopt.
  std::optional<std::string_view> Query(std::string_view name) const;
  // Every value of a query parameter (dryRun=All&dryRun=All).
  std::vector<std::string_view> QueryAll(std::string_view name) const;
};

// Splits "/a/b?x=1&y=%20" into path and decoded query pairs ('+' decodes to a space, as Go's
// url.ParseQuery does). Malformed escapes are kept literally.
void SplitTarget(std::string_view target, std::string& path, Pairs& query);
// Percent-decoding of one path segment or query component.
std::string PercentDecode(std::string_view s, bool plus_is_space);

// A response body produced over time (a watch). The connection drives it on its strand:
//   Start(wake) once, then Next() whenever wake() was called, a write finished or Deadline()
//   passed; Cancel() when the client goes away or the server stops.
// Next/Deadline/Start run on the connection's strand only; wake and Cancel may be called from
// any thread.
class StreamSource {
 public:
  virtual ~StreamSource() = default;
  // `wake` schedules a call to Next(); it is cheap, thread-safe and may be called any time,
  // even after the connection has gone (it then does nothing).
  virtual void Start(std::function<void()> wake) = 0;
  // The bytes to write now (possibly empty). Sets *finished once nothing more will follow.
  virtual std::string Next(bool* finished) = 0;
  // When Next() must be called again even without a wake (timeouts, bookmarks), on the
  // steady timeline of the server's Clock.
  virtual std::optional<std::chrono::steady_clock::time_point> Deadline() const = 0;
  virtual void Cancel() = 0;
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  Pairs headers;  // extra headers (Warning, ...)
  std::string body;
  // When set, the body is streamed with chunked encoding and `body` is ignored.
  std::shared_ptr<StreamSource> stream;
  // Close the connection after this response (e.g. after a 413 whose body was not read).
  bool close = false;
};

// Called exactly once per request, from any thread.
using ResponseCallback = std::function<void(Response)>;

}  // namespace allot::apiserver
