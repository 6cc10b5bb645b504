// One HTTP/1.1 connection of the API server. Internal to server.cc and connection.cc (it pulls
// in Asio; Beast stays in connection.cc).
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstddef>

#include "apiserver/handler.h"
#include "common/time.h"

namespace boost::asio::ssl {
class context;
}  // namespace boost::asio::ssl

namespace allot::apiserver {

struct ConnectionOptions {
  size_t max_body_bytes = 3 * 1024 * 1024;
  std::chrono::seconds idle_timeout{300};
  std::chrono::milliseconds handshake_timeout{10000};
};

// Starts serving `socket` (whose executor must be a strand); the connection keeps itself
// alive until the peer goes away or the io_context stops.
void StartConnection(boost::asio::ip::tcp::socket socket, Handler& handler, Clock& clock,
                     const ConnectionOptions& options);

// The same over TLS: the handshake (bounded by options.handshake_timeout) comes first; a client
// certificate `tls` verified is passed on with every request of the connection.
void StartTlsConnection(boost::asio::ip::tcp::socket socket, boost::asio::ssl::context& tls,
                        Handler& handler, Clock& clock, const ConnectionOptions& options);

}  // namespace allot::apiserver
