#include "apiserver/server.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/strand.hpp>
#include <charconv>
#include <cstdio>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "apiserver/handler.h"
#include "apiserver/transport/connection.h"
#include "common/process_stats.h"

namespace allot::apiserver {

namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

ServerConfig MakeConfig(const ApiServerOptions& o, store::Store& store, Executor executor) {
  ServerConfig c;
  c.executor = std::move(executor);
  c.authenticator = o.authenticator;
  if (o.authorization == Authorization::kRbac) {
    auto rbac = authz::RbacAuthorizer::Create(store, api::ResourceRegistry::Default());
    if (!rbac.ok()) throw std::runtime_error(rbac.status().message());
    c.rbac = *rbac;
    c.authorizer = std::make_shared<authz::AuthorizerChain>(
        std::vector<std::shared_ptr<const authz::Authorizer>>{
            std::make_shared<authz::PrivilegedGroupAuthorizer>(), *rbac});
  }
  c.audit = o.audit_log;
  c.max_readonly_inflight = o.max_requests_inflight;
  c.max_mutating_inflight = o.max_mutating_requests_inflight;
  c.git_version = o.git_version;
  c.bookmark_interval = o.bookmark_interval;
  // "v1.34.0-allot" -> major 1, minor 34
  std::string_view v = c.git_version;
  if (!v.empty() && v[0] == 'v') v.remove_prefix(1);
  size_t dot = v.find('.');
  if (dot != std::string_view::npos) {
    c.major = std::string(v.substr(0, dot));
    std::string_view rest = v.substr(dot + 1);
    c.minor = std::string(rest.substr(0, rest.find_first_not_of("0123456789")));
  }
  return c;
}

Result<tcp::endpoint> ParseListenAddress(const std::string& address) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos) {
    return BadRequestError("listen address \"" + address + "\" is not host:port");
  }
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty()) host = "0.0.0.0";
  if (host == "localhost") host = "127.0.0.1";
  unsigned port = 0;
  std::string_view p = std::string_view(address).substr(colon + 1);
  auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), port);
  if (ec != std::errc() || end != p.data() + p.size() || port > 65535) {
    return BadRequestError("invalid port in listen address \"" + address + "\"");
  }
  boost::system::error_code aec;
  auto ip = net::ip::make_address(host, aec);
  if (aec) return BadRequestError("invalid host in listen address \"" + address + "\"");
  return tcp::endpoint(ip, static_cast<uint16_t>(port));
}

// The server side of TLS: 1.2 or newer, the serving certificate, and client certificates
// verified against the client CA when the client offers one.
Result<std::unique_ptr<net::ssl::context>> MakeTlsContext(const ApiServerTls& tls) {
  auto ctx = std::make_unique<net::ssl::context>(net::ssl::context::tls_server);
  boost::system::error_code ec;
  ctx->set_options(net::ssl::context::default_workarounds | net::ssl::context::no_sslv2 |
                       net::ssl::context::no_sslv3 | net::ssl::context::no_tlsv1 |
                       net::ssl::context::no_tlsv1_1 | net::ssl::context::single_dh_use,
                   ec);
  if (!ec) ctx->use_certificate_chain(net::buffer(tls.cert_pem), ec);
  if (ec) return BadRequestError("TLS serving certificate: " + ec.message());
  ctx->use_private_key(net::buffer(tls.key_pem), net::ssl::context::pem, ec);
  if (ec) return BadRequestError("TLS private key: " + ec.message());
  if (!tls.client_ca_pem.empty()) {
    ctx->add_certificate_authority(net::buffer(tls.client_ca_pem), ec);
    if (ec) return BadRequestError("client CA: " + ec.message());
    ctx->set_verify_mode(net::ssl::verify_peer, ec);
    if (ec) return BadRequestError("client CA: " + ec.message());
    // Clients resume sessions for their next connections (browsers, Go's and Python's TLS).
    // OpenSSL resumes a session of a server that verifies peers only within a named session
    // context, and without one fails every resumption with an internal_error alert.
    static constexpr unsigned char kSessionContext[] = "allot-apiserver";
    if (SSL_CTX_set_session_id_context(ctx->native_handle(), kSessionContext,
                                       sizeof(kSessionContext) - 1) != 1) {
      return InternalError("TLS session context could not be set");
    }
  }
  return ctx;
}

}  // namespace

class ApiServer::Impl {
 public:
  Impl(store::Store& store, Clock& clock, ApiServerOptions options)
      : options_(std::move(options)),
        owned_registry_(options_.metrics ? nullptr : std::make_unique<metrics::Registry>()),
        registry_(options_.metrics ? *options_.metrics : *owned_registry_),
        clock_(clock),
        handler_(store, clock, registry_,
                 MakeConfig(options_, store,
                            [this](std::function<void()> f) { net::post(ioc_, std::move(f)); })),
        ioc_(std::max(1, options_.threads)),
        acceptor_(net::make_strand(ioc_)) {
    conn_options_.max_body_bytes = options_.max_body_bytes;
    conn_options_.idle_timeout = options_.idle_timeout;
    conn_options_.handshake_timeout = options_.handshake_timeout;
  }

  ~Impl() { Stop(); }

  Status Start();
  void Stop();
  uint16_t port() const { return port_; }
  metrics::Registry& registry() { return registry_; }
  Handler& handler() { return handler_; }

 private:
  void Accept();
  void RunIo();

  const ApiServerOptions options_;
  std::unique_ptr<metrics::Registry> owned_registry_;
  metrics::Registry& registry_;
  Clock& clock_;
  ConnectionOptions conn_options_;
  std::unique_ptr<net::ssl::context> tls_;  // null: plain HTTP
  // Destroyed after the io_context: connections and their watch streams still reference it
  // while the io_context destroys their pending handlers.
  Handler handler_;
  net::io_context ioc_;
  tcp::acceptor acceptor_;
  std::vector<std::thread> threads_;
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work_;
  uint16_t port_ = 0;
  std::mutex mu_;  // Start/Stop
  bool started_ = false;
  bool stopped_ = false;
};

Status ApiServer::Impl::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (started_) return Status(StatusCode::kInternalError, "the server was already started");
  ALLOT_ASSIGN_OR_RETURN(tcp::endpoint endpoint, ParseListenAddress(options_.listen_address));
  if (options_.tls) {
    ALLOT_ASSIGN_OR_RETURN(tls_, MakeTlsContext(*options_.tls));
  }
  boost::system::error_code ec;
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status(StatusCode::kInternalError,
                  "cannot listen on " + options_.listen_address + ": " + ec.message());
  }
  port_ = acceptor_.local_endpoint().port();
  started_ = true;
  work_.emplace(net::make_work_guard(ioc_));
  Accept();
  for (int i = 0; i < std::max(1, options_.threads); ++i) {
    threads_.emplace_back([this] {
      NameThisThread("api-io");
      RunIo();
    });
  }
  return Status::Ok();
}

void ApiServer::Impl::RunIo() {
  // A handler that throws must not take the io thread (and with it the server) down.
  while (true) {
    try {
      ioc_.run();
      return;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "apiserver: io handler failed: %s\n", e.what());
    }
  }
}

void ApiServer::Impl::Accept() {
  acceptor_.async_accept(
      net::make_strand(ioc_), [this](boost::system::error_code ec, tcp::socket socket) {
        if (ec == net::error::operation_aborted || !acceptor_.is_open()) return;
        if (!ec) {
          socket.set_option(tcp::no_delay(true), ec);
          if (tls_) {
            StartTlsConnection(std::move(socket), *tls_, handler_, clock_, conn_options_);
          } else {
            StartConnection(std::move(socket), handler_, clock_, conn_options_);
          }
        }
        Accept();
      });
}

void ApiServer::Impl::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!started_ || stopped_) return;
  stopped_ = true;
  net::post(acceptor_.get_executor(), [this] {
    boost::system::error_code ec;
    acceptor_.close(ec);
  });
  // New requests are refused from here on; open watches end; in-flight writes complete.
  handler_.Shutdown();
  work_.reset();
  ioc_.stop();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

ApiServer::ApiServer(store::Store& store, Clock& clock, ApiServerOptions options)
    : impl_(std::make_unique<Impl>(store, clock, std::move(options))) {}

ApiServer::~ApiServer() = default;

Status ApiServer::Start() { return impl_->Start(); }
uint16_t ApiServer::port() const { return impl_->port(); }
void ApiServer::Stop() { impl_->Stop(); }
metrics::Registry& ApiServer::metrics() { return impl_->registry(); }
void ApiServer::WakeStreams() { impl_->handler().WakeStreams(); }
size_t ApiServer::open_watches() const { return impl_->handler().open_streams(); }

}  // namespace allot::apiserver
