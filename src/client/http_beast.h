// Beast helpers shared by HttpConnection and the HTTP watcher; internal to client/.
//
// Both use one io_context per connection, driven by the thread that owns the connection: an
// operation is started asynchronously and the io_context run until it completes, with the
// tcp_stream's expiry as the timeout.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cstdint>
#include <limits>
#include <optional>
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

// A client connection's byte stream: TCP, or TLS over TCP when the endpoint has a TLS context.
// It is an AsyncReadStream / AsyncWriteStream, so Beast's HTTP operations take it as they are.
class ClientStream {
 public:
  using executor_type = beast::tcp_stream::executor_type;

  ClientStream(net::io_context& ioc, const HttpEndpoint& ep) : ioc_(ioc), ep_(ep) { Renew(); }

  executor_type get_executor() { return Lowest().get_executor(); }
  beast::tcp_stream& Lowest() { return tls_ ? beast::get_lowest_layer(*tls_) : *tcp_; }
  bool tls() const { return tls_.has_value(); }
  beast::ssl_stream<beast::tcp_stream>& tls_stream() { return *tls_; }

  // Closes the socket; the stream can be connected again (a TLS session starts anew).
  void Close() {
    beast::error_code ec;
    Lowest().socket().shutdown(tcp::socket::shutdown_both, ec);
    Lowest().socket().close(ec);
    Renew();
  }

  template <class MutableBuffers, class Handler>
  void async_read_some(const MutableBuffers& buffers, Handler&& handler) {
    if (tls_) return tls_->async_read_some(buffers, std::forward<Handler>(handler));
    tcp_->async_read_some(buffers, std::forward<Handler>(handler));
  }
  template <class ConstBuffers, class Handler>
  void async_write_some(const ConstBuffers& buffers, Handler&& handler) {
    if (tls_) return tls_->async_write_some(buffers, std::forward<Handler>(handler));
    tcp_->async_write_some(buffers, std::forward<Handler>(handler));
  }

 private:
  void Renew() {
    tcp_.reset();
    tls_.reset();
    if (ep_.tls) {
      tls_.emplace(ioc_, *ep_.tls);
    } else {
      tcp_.emplace(ioc_);
    }
  }

  net::io_context& ioc_;
  const HttpEndpoint& ep_;
  std::optional<beast::tcp_stream> tcp_;
  std::optional<beast::ssl_stream<beast::tcp_stream>> tls_;
};

// Resolves and connects `stream` within the endpoint's connect timeout; over TLS, the handshake
// too, checking that the server's certificate names the endpoint's host.
Status ConnectStream(net::io_context& ioc, ClientStream& stream, const HttpEndpoint& ep);

// The request with Host, User-Agent, Accept, Authorization and Content-Type set.
http::request<http::string_body> BuildRequest(const HttpEndpoint& ep, const HttpRequest& r);

}  // namespace allot::client
