// Beast helpers shared by HttpConnection and the HTTP watcher; internal to client/.
//
// Both use one io_context per connection, driven by the thread that owns the connection: an
// operation is started asynchronously and the io_context run until it completes, with the
// tcp_stream's expiry as the timeout.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "client/http_transport.h"

namespace allot::client {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// Parsers take this body limit, not boost::none: Beast 1.74 compares a Content-Length with an
// empty optional limit as exceeding it.
constexpr uint64_t kNoBodyLimit = std::numeric_limits<uint64_t>::max();

// Runs one asynchronous operation to completion on the calling thread.
template <class Start>
beast::error_code RunOnce(net::io_context& ioc, Start start) {
  beast::error_code result = net::error::would_block;
  start([&result](beast::error_code ec, auto&&...) { result = ec; });
  ioc.restart();
  ioc.run();
  return result;
}

// "connect 127.0.0.1:6443: Connection refused" (kServiceUnavailable) or "...: timed out"
// (kTimeout).
Status NetworkError(std::string_view what, const HttpEndpoint& ep, const beast::error_code& ec);

// Resolves and connects `stream` within the endpoint's connect timeout.
Status ConnectStream(net::io_context& ioc, beast::tcp_stream& stream, const HttpEndpoint& ep);

// The request with Host, User-Agent, Accept, Authorization and Content-Type set.
http::request<http::string_body> BuildRequest(const HttpEndpoint& ep, const HttpRequest& r);

}  // namespace allot::client
