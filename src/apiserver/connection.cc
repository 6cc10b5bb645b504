// HTTP/1.1 connections with Boost.Beast: keep-alive request/response, 100-continue, body
// limits (413), and chunked streaming of watch responses without a thread per watch.
//
// Every completion handler of a connection runs on its strand (the socket's executor), so the
// connection's state needs no lock. The only cross-thread entry points are the response
// callback and the stream's wake function, which both post to the strand.
#include "apiserver/connection.h"

#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <memory>
#include <optional>
#include <string>

#include "apiserver/status_json.h"

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

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, Handler& handler, Clock& clock, const ConnectionOptions& opts)
      : stream_(std::move(socket)),
        timer_(stream_.get_executor()),
        handler_(handler),
        clock_(clock),
        opts_(opts) {
    beast::error_code ec;
    auto local = stream_.socket().local_endpoint(ec);
    if (!ec) server_address_ = local.address().to_string() + ":" + std::to_string(local.port());
  }

  void Start() { ReadHeader(); }

 private:
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

  beast::tcp_stream stream_;
  net::steady_timer timer_;
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

void Connection::ReadHeader() {
  parser_.emplace();
  parser_->header_limit(kHeaderLimit);
  parser_->body_limit(opts_.max_body_bytes);
  stream_.expires_after(opts_.idle_timeout);
  http::async_read_header(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](beast::error_code ec, size_t) { self->OnHeader(ec); });
}

void Connection::OnHeader(beast::error_code ec) {
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
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       if (ec) return self->Close();
                       self->ReadBody();
                     });
    return;
  }
  ReadBody();
}

void Connection::ReadBody() {
  http::async_read(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](beast::error_code ec, size_t) { self->OnRequest(ec); });
}

Request Connection::Convert() {
  http::request<http::string_body> msg = parser_->release();
  Request r;
  r.method = std::string(msg.method_string());
  r.target = std::string(msg.target());
  SplitTarget(r.target, r.path, r.query);
  for (const auto& field : msg) {
    r.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  r.body = std::move(msg.body());
  beast::error_code ec;
  auto remote = stream_.socket().remote_endpoint(ec);
  if (!ec) r.remote = remote.address().to_string() + ":" + std::to_string(remote.port());
  return r;
}

void Connection::OnRequest(beast::error_code ec) {
  if (ec == http::error::body_limit) return SendError(RequestTooLargeError(opts_.max_body_bytes));
  if (ec == http::error::end_of_stream || ec == beast::error::timeout || ec == net::error::eof) {
    return Close();
  }
  if (ec) return SendError(BadRequestError("malformed HTTP request: " + ec.message()));
  stream_.expires_never();  // the handler may wait for the store
  Request req = Convert();
  head_ = req.method == "HEAD";
  auto self = shared_from_this();
  handler_.Handle(std::move(req), server_address_, [self](Response res) {
    net::post(self->stream_.get_executor(),
              [self, res = std::move(res)]() mutable { self->Send(std::move(res)); });
  });
}

void Connection::SendError(const Status& status) {
  Response res = ErrorResponse(status);
  res.close = true;
  Send(std::move(res));
}

void Connection::Send(Response res) {
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
  stream_.expires_after(kWriteTimeout);
  http::async_write(stream_, *msg,
                    [self = shared_from_this(), msg, keep](beast::error_code ec, size_t) {
                      if (ec || !keep) return self->Close();
                      self->ReadHeader();
                    });
}

// --- streaming --------------------------------------------------------------------------------

void Connection::StartStream(Response res) {
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
  stream_.expires_never();
  http::async_write_header(
      stream_, *serializer,
      [self = shared_from_this(), msg, serializer](beast::error_code ec, size_t) {
        if (ec) return self->Close();
        std::weak_ptr<Connection> weak = self;
        self->source_->Start([weak] {
          if (auto c = weak.lock()) c->Wake();
        });
        self->WatchForDisconnect();
        self->Pump();
      });
}

void Connection::Wake() {
  if (wake_pending_.exchange(true)) return;
  net::post(stream_.get_executor(), [self = shared_from_this()] {
    self->wake_pending_.store(false);
    self->Pump();
  });
}

void Connection::Pump() {
  if (closed_ || writing_ || !source_) return;
  bool finished = false;
  std::string data = source_->Next(&finished);
  if (!data.empty()) {
    writing_ = true;
    chunk_ = std::move(data);
    // A client that stops reading is dropped instead of holding the watch forever. (The
    // pending disconnect read was started without a deadline and is not affected.)
    stream_.expires_after(kWriteTimeout);
    net::async_write(stream_, http::make_chunk(net::buffer(chunk_)),
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       self->writing_ = false;
                       if (ec) return self->Close();
                       self->stream_.expires_never();
                       self->Pump();
                     });
    return;
  }
  if (finished) return FinishStream();
  ArmTimer();
}

void Connection::ArmTimer() {
  auto deadline = source_->Deadline();
  if (!deadline) return;
  auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - clock_.Steady());
  if (wait < std::chrono::milliseconds(0)) wait = std::chrono::milliseconds(0);
  if (wait > kMaxTimerWait) wait = kMaxTimerWait;
  timer_.expires_after(wait);
  timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
    if (!ec) self->Pump();
  });
}

void Connection::WatchForDisconnect() {
  // Clients send nothing during a watch; a read that completes with an error means they left.
  stream_.async_read_some(buffer_.prepare(4096),
                          [self = shared_from_this()](beast::error_code ec, size_t n) {
                            if (ec) return self->Close();
                            self->buffer_.commit(n);
                            if (self->buffer_.size() > kMaxUnreadWhileStreaming) {
                              return self->Close();
                            }
                            self->WatchForDisconnect();
                          });
}

void Connection::FinishStream() {
  writing_ = true;  // no more Pump() writes
  stream_.expires_after(kWriteTimeout);
  net::async_write(stream_, http::make_chunk_last(),
                   [self = shared_from_this()](beast::error_code, size_t) { self->Close(); });
}

void Connection::Close() {
  if (closed_) return;
  closed_ = true;
  if (source_) source_->Cancel();
  timer_.cancel();
  beast::error_code ec;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
  stream_.socket().close(ec);
}

}  // namespace

void StartConnection(tcp::socket socket, Handler& handler, Clock& clock,
                     const ConnectionOptions& options) {
  std::make_shared<Connection>(std::move(socket), handler, clock, options)->Start();
}

}  // namespace allot::apiserver
