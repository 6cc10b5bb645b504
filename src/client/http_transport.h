// HTTP/1.1 plumbing for HttpClient (client/http_client.h); internal to client/.
//
// HttpConnection is one keep-alive Beast connection used synchronously by one thread.
// HttpPool runs requests on up to `workers` threads, each owning one HttpConnection, fed from
// one FIFO queue, so asynchronous calls from many threads proceed concurrently over a bounded
// number of connections. Errors from the network are Statuses: kServiceUnavailable for
// connection failures, kTimeout when the server did not answer in time. HTTP error codes are
// not errors here (see ErrorFromResponse).
#pragma once

#include <rapidjson/fwd.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/status.h"

namespace allot::api {
struct ProtobufStatus;
}

namespace boost::asio::ssl {
class context;
}  // namespace boost::asio::ssl

namespace allot::client {

struct HttpEndpoint {
  std::string host;  // name or address
  uint16_t port = 0;
  // https: the TLS context (trusted CAs, the client certificate); null for plain http.
  std::shared_ptr<boost::asio::ssl::context> tls;
  // The name the server's certificate must carry (defaults to `host`); "" with a context
  // that verifies nothing (insecure-skip-tls-verify).
  std::string tls_server_name;
  // Sent with every request.
  std::string bearer_token;
  std::string user_agent = "allot";
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds request_timeout{30000};
  // A 429 with Retry-After is sent again after that many seconds (at most 10 s), up to this
  // many times, as client-go does; then the 429 is the answer.
  int max_throttle_retries = 10;
  // How the client waits out a Retry-After (tests replace it; default: sleep).
  std::function<void(std::chrono::seconds)> sleep;
};

struct HttpRequest {
  std::string method;  // "GET", ...
  std::string target;  // "/api/v1/namespaces/default/pods?limit=500"
  std::string body;
  std::string content_type;  // defaults to application/json when there is a body
  std::string accept;        // defaults to application/json
};

struct HttpResponse {
  int status = 0;
  std::string content_type;
  std::string body;
  int retry_after_seconds = 0;  // the Retry-After header, when the server sent one
};

// A client TLS context: TLS 1.2 or newer, trusting the CAs in `ca_pem` ("" : the system's),
// presenting the client certificate when given, verifying the server unless `insecure`.
// Errors: 400 for PEM that does not load, or a certificate without its key.
Result<std::shared_ptr<boost::asio::ssl::context>> MakeClientTlsContext(std::string_view ca_pem,
                                                                        std::string_view cert_pem,
                                                                        std::string_view key_pem,
                                                                        bool insecure);

// One connection, reconnected on demand. Not thread-safe.
class HttpConnection {
 public:
  explicit HttpConnection(const HttpEndpoint& endpoint);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // Sends `req` and reads the whole response. A kept-alive connection the server closed
  // meanwhile (nothing of the response arrived) is reopened and the request sent once more.
  Result<HttpResponse> RoundTrip(const HttpRequest& req);

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

class HttpPool {
 public:
  using Done = std::function<void(Result<HttpResponse>)>;

  HttpPool(HttpEndpoint endpoint, int workers);
  // Fails queued requests with 503 and joins the workers (in-flight requests finish first).
  ~HttpPool();
  HttpPool(const HttpPool&) = delete;
  HttpPool& operator=(const HttpPool&) = delete;

  // Queues `req`; `done` runs on a worker thread once the response arrived.
  void Submit(HttpRequest req, Done done);
  // Sends `req` and waits. On a worker thread (inside a `done`), runs on that worker's own
  // connection instead of queueing, so callbacks may make synchronous calls without deadlock.
  Result<HttpResponse> Do(HttpRequest req);

  const HttpEndpoint& endpoint() const { return endpoint_; }

 private:
  struct Task {
    HttpRequest req;
    Done done;
  };
  void Work();

  const HttpEndpoint endpoint_;
  const size_t max_workers_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Task> queue_;            // guarded by mu_
  size_t idle_ = 0;                   // guarded by mu_
  bool stopping_ = false;             // guarded by mu_
  std::vector<std::thread> threads_;  // guarded by mu_; started on demand
};

// The Status a non-2xx response stands for: the metav1.Status in its body when there is one,
// in JSON or in protobuf (kube-apiserver answers a client that asked for protobuf with a
// protobuf Status; code from reason, falling back on the HTTP code; message; details with
// causes), otherwise an error of the HTTP code's kind carrying the body text.
Status ErrorFromResponse(int http_status, std::string_view body);
// A metav1.Status read from protobuf (api/protobuf.h) as a Status, the same way.
Status StatusFromProtobuf(const api::ProtobufStatus& status, int http_status = 0);
// A metav1.Status JSON object as a Status (kInternalError for a Failure without reason or
// code). Success statuses give an OK Status.
Status StatusFromJson(const rapidjson::Value& value, int http_status = 0);
// The StatusCode for a Kubernetes reason ("NotFound"), else for an HTTP code.
StatusCode StatusCodeFor(std::string_view reason, int http_status);

// Percent-encoding for a query parameter value (RFC 3986 unreserved characters kept).
std::string QueryEscape(std::string_view value);

}  // namespace allot::client
