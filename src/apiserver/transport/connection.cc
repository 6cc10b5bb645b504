// HTTP/1.1 connections with Boost.Beast: keep-alive request/response, 100-continue, body
// limits (413), and chunked streaming of watch responses without a thread per watch.
//
// Every completion handler of a connection runs on its strand (the socket's executor), so the
// connection's state needs no lock. The only cross-thread entry points are the response
// callback and the stream's wake function, which both post to the strand.
#include "apiserver/transport/connection.h"

#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "apiserver/encoding/status_json.h"
#include "pki/pki.h"

namespace allot::apiserver {

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

constexpr size_t kHeaderLimit = 64 * 1024;
constexpr std::chrono::seconds kWriteTimeout{60};
// Longest wait between Next() calls of a stream with a deadline: deadlines live on the
// server Clock's timeline (possibly a FakeClock), so the real timer only bounds the delay.
constexpr std::chrono::milliseconds kMaxTimerWait{1000};
// Bytes a client may send while it receives a watch (nothing, normally).
constexpr size_t kMaxUnreadWhileStreaming = 64 * 1024;

using TlsStream = beast::ssl_stream<beast::tcp_stream>;

// The subject of the certificate the peer presented (already verified by the handshake).
std::optional<Request::Certificate> PeerCertificate(TlsStream& stream) {
  X509* cert = SSL_get1_peer_certificate(stream.native_handle());
  if (!cert) return std::nullopt;
  std::string pem;
  if (BIO* bio = BIO_new(BIO_s_mem())) {
    if (PEM_write_bio_X509(bio, cert) == 1) {
      char* data = nullptr;
      long n = BIO_get_mem_data(bio, &data);
      if (n > 0) pem.assign(data, static_cast<size_t>(n));
    }
    BIO_free(bio);
  }
  X509_free(cert);
  auto info = pki::Inspect(pem);
  if (!info.ok()) return std::nullopt;
  return Request::Certificate{std::move(info->common_name), std::move(info->organizations)};
}

// Stream: beast::tcp_stream (plain HTTP) or TlsStream.
template <class Stream>
class Connection : public std::enable_shared_from_this<Connection<Stream>> {
 public:
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

  template <class... StreamArgs>
  Connection(Handler& handler, Clock& clock, const ConnectionOptions& opts, StreamArgs&&... args)
      : stream_(std::forward<StreamArgs>(args)...),
        timer_(stream_.get_executor()),
        handler_(handler),
        clock_(clock),
        opts_(opts) {
    beast::error_code ec;
    auto local = Lowest().socket().local_endpoint(ec);
    if (!ec) server_address_ = local.address().to_string() + ":" + std::to_string(local.port());
  }

  void Start() {
    if constexpr (kTls) {
      // A client that connects and never finishes the handshake holds nothing for long.
      Lowest().expires_after(opts_.handshake_timeout);
      stream_.async_handshake(net::ssl::stream_base::server,
                              [self = this->shared_from_this()](beast::error_code ec) {
                                if (ec) return self->Close();
                                self->client_certificate_ = PeerCertificate(self->stream_);
                                self->ReadHeader();
                              });
    } else {
      ReadHeader();
    }
  }

 private:
  beast::tcp_stream& Lowest() { return beast::get_lowest_layer(stream_); }

  void ReadHeader();
  void OnHeader(beast::error_code ec);
  void ReadBody();
  void OnRequest(beast::error_code ec);
  Request Convert();
  void Send(Response res);
  void SendError(const Status& status);

  void StartStream(Response res);
  void Wake();
  void Pump();
  void ArmTimer();
  void WatchForDisconnect();
  void FinishStream();
  void Close();

  Stream stream_;
  net::steady_timer timer_;
  std::optional<Request::Certificate> client_certificate_;  // TLS only
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  Handler& handler_;
  Clock& clock_;
  const ConnectionOptions opts_;
  std::string server_address_;
  bool keep_alive_ = true;
  bool head_ = false;

  // Streaming state.
  std::shared_ptr<StreamSource> source_;
  std::string chunk_;
  bool writing_ = false;
  bool closed_ = false;
  std::atomic<bool> wake_pending_{false};
};

template <class Stream>
void Connection<Stream>::ReadHeader() {
  parser_.emplace();
  parser_->header_limit(kHeaderLimit);
  parser_->body_limit(opts_.max_body_bytes);
  Lowest().expires_after(opts_.idle_timeout);
  http::async_read_header(
      stream_, buffer_, *parser_,
      [self = this->shared_from_this()](beast::error_code ec, size_t) { self->OnHeader(ec); });
}

template <class Stream>
void Connection<Stream>::OnHeader(beast::error_code ec) {
  if (ec == http::error::body_limit) return SendError(RequestTooLargeError(opts_.max_body_bytes));
  if (ec == http::error::header_limit) {
    return SendError(BadRequestError("request header fields too large"));
  }
  if (ec == http::error::end_of_stream || ec == beast::error::timeout || ec == net::error::eof ||
      ec == net::error::operation_aborted || ec == net::error::connection_reset) {
    return Close();
  }
  if (ec) return SendError(BadRequestError("malformed HTTP request: " + ec.message()));
  keep_alive_ = parser_->get().keep_alive();
  auto length = parser_->content_length();
  if (length && *length > opts_.max_body_bytes) {
    return SendError(RequestTooLargeError(opts_.max_body_bytes));
  }
  if (beast::iequals(parser_->get()[http::field::expect], "100-continue")) {
    static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
    net::async_write(stream_, net::buffer(kContinue),
                     [self = this->shared_from_this()](beast::error_code ec, size_t) {
                       if (ec) return self->Close();
                       self->ReadBody();
                     });
    return;
  }
  ReadBody();
}

template <class Stream>
void Connection<Stream>::ReadBody() {
  http::async_read(
      stream_, buffer_, *parser_,
      [self = this->shared_from_this()](beast::error_code ec, size_t) { self->OnRequest(ec); });
}

template <class Stream>
Request Connection<Stream>::Convert() {
  http::request<http::string_body> msg = parser_->release();
  Request r;
  r.method = std::string(msg.method_string());
  r.target = std::string(msg.target());
  SplitTarget(r.target, r.path, r.query);
  for (const auto& field : msg) {
    r.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  r.body = std::move(msg.body());
  r.client_certificate = client_certificate_;
  beast::error_code ec;
  auto remote = Lowest().socket().remote_endpoint(ec);
  if (!ec) r.remote = remote.address().to_string() + ":" + std::to_string(remote.port());
  return r;
}

template <class Stream>
void Connection<Stream>::OnRequest(beast::error_code ec) {
  if (ec == http::error::body_limit) return SendError(RequestTooLargeError(opts_.max_body_bytes));
  if (ec == http::error::end_of_stream || ec == beast::error::timeout || ec == net::error::eof) {
    return Close();
  }
  if (ec) return SendError(BadRequestError("malformed HTTP request: " + ec.message()));
  Lowest().expires_never();  // the handler may wait for the store
  Request req = Convert();
  head_ = req.method == "HEAD";
  auto self = this->shared_from_this();
  handler_.Handle(std::move(req), server_address_, [self](Response res) {
    net::post(self->stream_.get_executor(),
              [self, res = std::move(res)]() mutable { self->Send(std::move(res)); });
  });
}

template <class Stream>
void Connection<Stream>::SendError(const Status& status) {
  Response res = ErrorResponse(status);
  res.close = true;
  Send(std::move(res));
}

template <class Stream>
void Connection<Stream>::Send(Response res) {
  if (closed_) return;
  if (res.stream) return StartStream(std::move(res));
  auto msg = std::make_shared<http::response<http::string_body>>(
      static_cast<http::status>(res.status), 11);
  msg->set(http::field::content_type, res.content_type);
  msg->set(http::field::cache_control, "no-cache, private");
  for (const auto& [name, value] : res.headers) msg->insert(name, value);
  if (!head_) msg->body() = std::move(res.body);
  const bool keep = keep_alive_ && !res.close;
  msg->keep_alive(keep);
  msg->prepare_payload();
  Lowest().expires_after(kWriteTimeout);
  http::async_write(stream_, *msg,
                    [self = this->shared_from_this(), msg, keep](beast::error_code ec, size_t) {
                      if (ec || !keep) return self->Close();
                      self->ReadHeader();
                    });
}

// --- streaming --------------------------------------------------------------------------------

template <class Stream>
void Connection<Stream>::StartStream(Response res) {
  source_ = std::move(res.stream);
  auto msg =
      std::make_shared<http::response<http::empty_body>>(static_cast<http::status>(res.status), 11);
  msg->set(http::field::content_type, res.content_type);
  msg->set(http::field::cache_control, "no-cache, private");
  for (const auto& [name, value] : res.headers) msg->insert(name, value);
  msg->chunked(true);
  // The stream ends the connection: a client cannot reuse it while the watch runs anyway.
  msg->keep_alive(false);
  auto serializer = std::make_shared<http::response_serializer<http::empty_body>>(*msg);
  Lowest().expires_never();
  http::async_write_header(
      stream_, *serializer,
      [self = this->shared_from_this(), msg, serializer](beast::error_code ec, size_t) {
        if (ec) return self->Close();
        std::weak_ptr<Connection> weak = self;
        self->source_->Start([weak] {
          if (auto c = weak.lock()) c->Wake();
        });
        self->WatchForDisconnect();
        self->Pump();
      });
}

template <class Stream>
void Connection<Stream>::Wake() {
  if (wake_pending_.exchange(true)) return;
  net::post(stream_.get_executor(), [self = this->shared_from_this()] {
    self->wake_pending_.store(false);
    self->Pump();
  });
}

template <class Stream>
void Connection<Stream>::Pump() {
  if (closed_ || writing_ || !source_) return;
  bool finished = false;
  std::string data = source_->Next(&finished);
  if (!data.empty()) {
    writing_ = true;
    chunk_ = std::move(data);
    // A client that stops reading is dropped instead of holding the watch forever. (The
    // pending disconnect read was started without a deadline and is not affected.)
    Lowest().expires_after(kWriteTimeout);
    net::async_write(stream_, http::make_chunk(net::buffer(chunk_)),
                     [self = this->shared_from_this()](beast::error_code ec, size_t) {
                       self->writing_ = false;
                       if (ec) return self->Close();
                       self->Lowest().expires_never();
                       self->Pump();
                     });
    return;
  }
  if (finished) return FinishStream();
  ArmTimer();
}

template <class Stream>
void Connection<Stream>::ArmTimer() {
  auto deadline = source_->Deadline();
  if (!deadline) return;
  auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - clock_.Steady());
  if (wait < std::chrono::milliseconds(0)) wait = std::chrono::milliseconds(0);
  if (wait > kMaxTimerWait) wait = kMaxTimerWait;
  timer_.expires_after(wait);
  timer_.async_wait([self = this->shared_from_this()](beast::error_code ec) {
    if (!ec) self->Pump();
  });
}

template <class Stream>
void Connection<Stream>::WatchForDisconnect() {
  // Clients send nothing during a watch; a read that completes with an error means they left.
  stream_.async_read_some(buffer_.prepare(4096),
                          [self = this->shared_from_this()](beast::error_code ec, size_t n) {
                            if (ec) return self->Close();
                            self->buffer_.commit(n);
                            if (self->buffer_.size() > kMaxUnreadWhileStreaming) {
                              return self->Close();
                            }
                            self->WatchForDisconnect();
                          });
}

template <class Stream>
void Connection<Stream>::FinishStream() {
  writing_ = true;  // no more Pump() writes
  Lowest().expires_after(kWriteTimeout);
  net::async_write(stream_, http::make_chunk_last(),
                   [self = this->shared_from_this()](beast::error_code, size_t) { self->Close(); });
}

template <class Stream>
void Connection<Stream>::Close() {
  if (closed_) return;
  closed_ = true;
  if (source_) source_->Cancel();
  timer_.cancel();
  beast::error_code ec;
  Lowest().socket().shutdown(tcp::socket::shutdown_both, ec);
  Lowest().socket().close(ec);
}

}  // namespace

void StartConnection(tcp::socket socket, Handler& handler, Clock& clock,
                     const ConnectionOptions& options) {
  std::make_shared<Connection<beast::tcp_stream>>(handler, clock, options, std::move(socket))
      ->Start();
}

void StartTlsConnection(tcp::socket socket, net::ssl::context& tls, Handler& handler, Clock& clock,
                        const ConnectionOptions& options) {
  std::make_shared<Connection<TlsStream>>(handler, clock, options, std::move(socket), tls)->Start();
}

}  // namespace allot::apiserver
