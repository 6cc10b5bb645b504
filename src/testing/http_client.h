// A small blocking HTTP/1.1 client for tests of the API server.
//
//   testing::HttpClient client("127.0.0.1", server.port());
//   auto res = client.Get("/api/v1/namespaces/default/pods");
//   ASSERT_TRUE(res.ok()) << res.status().ToString();
//   EXPECT_EQ(res->status, 200);
//
//   auto watch = client.Stream("/api/v1/namespaces/default/pods?watch=true");
//   auto line = (*watch)->ReadLine(std::chrono::seconds(5));  // one watch event
//
// Requests on one HttpClient reuse a keep-alive connection (reconnecting when the server closed
// it); each Stream() opens its own connection. Not thread-safe: one client per thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace allot::testing {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpResponse {
  int status = 0;
  HttpHeaders headers;
  std::string body;

  // First header with this name (case-insensitive), or "".
  std::string Header(std::string_view name) const;
  // Every header with this name, in order (e.g. Warning).
  std::vector<std::string> Headers(std::string_view name) const;
};

// A streamed response (a watch): the status and headers, then the body as it arrives.
class HttpStream {
 public:
  virtual ~HttpStream() = default;
  virtual int status() const = 0;
  virtual const HttpHeaders& headers() const = 0;
  // The next "\n"-terminated line of the body (without the "\n"). Errors: kTimeout when no
  // complete line arrived in time; kGone once the server ended the body (end of stream).
  virtual Result<std::string> ReadLine(std::chrono::milliseconds timeout) = 0;
  // The next `n` bytes of the body (protobuf watch frames); errors as ReadLine's.
  virtual Result<std::string> ReadBytes(size_t n, std::chrono::milliseconds timeout) = 0;
  // True once the server has ended the body and every line was read.
  virtual bool finished() const = 0;
  // Closes the connection (the server then sees the client go away).
  virtual void Close() = 0;
};

class HttpClient {
 public:
  HttpClient(std::string host, uint16_t port);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends one request and reads the whole response. `headers` are sent as given;
  // Content-Type defaults to application/json when there is a body. Errors are transport
  // failures (connection refused, timeout), never HTTP status codes.
  Result<HttpResponse> Do(std::string_view method, std::string_view target,
                          std::string_view body = {}, const HttpHeaders& headers = {},
                          std::chrono::milliseconds timeout = std::chrono::seconds(30));

  Result<HttpResponse> Get(std::string_view target, const HttpHeaders& headers = {});
  Result<HttpResponse> Post(std::string_view target, std::string_view body,
                            const HttpHeaders& headers = {});
  Result<HttpResponse> Put(std::string_view target, std::string_view body,
                           const HttpHeaders& headers = {});
  Result<HttpResponse> Patch(std::string_view target, std::string_view body,
                             std::string_view content_type, const HttpHeaders& headers = {});
  Result<HttpResponse> Delete(std::string_view target, std::string_view body = {},
                              const HttpHeaders& headers = {});

  // Sends a request on a new connection and returns once the response headers arrived.
  Result<std::unique_ptr<HttpStream>> Stream(
      std::string_view target, const HttpHeaders& headers = {},
      std::chrono::milliseconds timeout = std::chrono::seconds(30));

  // Sends raw bytes on a new connection and returns everything the server answers until it
  // closes the connection or `timeout` passes (for malformed-request tests).
  Result<std::string> Raw(std::string_view bytes,
                          std::chrono::milliseconds timeout = std::chrono::seconds(10));

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace allot::testing
