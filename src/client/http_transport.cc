#include "client/http_transport.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <future>
#include <thread>

#include "api/protobuf.h"
#include "client/http_beast.h"
#include "common/process_stats.h"

namespace allot::client {

Status NetworkError(std::string_view what, const HttpEndpoint& ep, const beast::error_code& ec) {
  std::string where = ep.host + ":" + std::to_string(ep.port);
  if (ec == beast::error::timeout) {
    return Status(StatusCode::kTimeout, std::string(what) + " " + where + ": timed out");
  }
  return Status(StatusCode::kServiceUnavailable,
                std::string(what) + " " + where + ": " + ec.message());
}

Status ConnectStream(net::io_context& ioc, ClientStream& stream, const HttpEndpoint& ep) {
  tcp::resolver resolver(ioc);
  beast::error_code ec;
  auto endpoints = resolver.resolve(ep.host, std::to_string(ep.port), ec);
  if (ec) return NetworkError("resolve", ep, ec);
  beast::tcp_stream& tcp = stream.Lowest();
  tcp.expires_after(ep.connect_timeout);
  ec = RunOnce(ioc, [&](auto done) { tcp.async_connect(endpoints, done); });
  if (ec) return NetworkError("connect", ep, ec);
  tcp.socket().set_option(tcp::no_delay(true), ec);
  if (!stream.tls()) return Status::Ok();
  auto& tls = stream.tls_stream();
  if (!ep.tls_server_name.empty()) {
    // SNI for names (not addresses), and the name the certificate must carry.
    beast::error_code addr_ec;
    net::ip::make_address(ep.tls_server_name, addr_ec);
    if (addr_ec) SSL_set_tlsext_host_name(tls.native_handle(), ep.tls_server_name.c_str());
    tls.set_verify_callback(net::ssl::host_name_verification(ep.tls_server_name), ec);
  }
  tcp.expires_after(ep.connect_timeout);
  ec = RunOnce(ioc, [&](auto done) { tls.async_handshake(net::ssl::stream_base::client, done); });
  if (ec) {
    std::string where = ep.host + ":" + std::to_string(ep.port);
    if (ec == beast::error::timeout) {
      return Status(StatusCode::kTimeout, "TLS handshake with " + where + ": timed out");
    }
    // A certificate the client does not trust is not something a retry fixes.
    return Status(StatusCode::kUnauthorized, "TLS handshake with " + where + ": " + ec.message());
  }
  return Status::Ok();
}

Result<std::shared_ptr<net::ssl::context>> MakeClientTlsContext(std::string_view ca_pem,
                                                                std::string_view cert_pem,
                                                                std::string_view key_pem,
                                                                bool insecure) {
  auto ctx = std::make_shared<net::ssl::context>(net::ssl::context::tls_client);
  beast::error_code ec;
  ctx->set_options(net::ssl::context::default_workarounds | net::ssl::context::no_sslv2 |
                       net::ssl::context::no_sslv3 | net::ssl::context::no_tlsv1 |
                       net::ssl::context::no_tlsv1_1,
                   ec);
  if (insecure) {
    ctx->set_verify_mode(net::ssl::verify_none, ec);
  } else {
    ctx->set_verify_mode(net::ssl::verify_peer, ec);
    if (ca_pem.empty()) {
      ctx->set_default_verify_paths(ec);
    } else {
      ctx->add_certificate_authority(net::buffer(ca_pem.data(), ca_pem.size()), ec);
      if (ec) return BadRequestError("certificate-authority: " + ec.message());
    }
  }
  if (cert_pem.empty() != key_pem.empty()) {
    return BadRequestError("a client certificate needs its key, and a key its certificate");
  }
  if (!cert_pem.empty()) {
    ctx->use_certificate_chain(net::buffer(cert_pem.data(), cert_pem.size()), ec);
    if (ec) return BadRequestError("client-certificate: " + ec.message());
    ctx->use_private_key(net::buffer(key_pem.data(), key_pem.size()), net::ssl::context::pem, ec);
    if (ec) return BadRequestError("client-key: " + ec.message());
  }
  return ctx;
}

http::request<http::string_body> BuildRequest(const HttpEndpoint& ep, const HttpRequest& r) {
  http::request<http::string_body> req;
  req.method_string(r.method);
  req.target(r.target);
  req.version(11);
  req.set(http::field::host, ep.host + ":" + std::to_string(ep.port));
  req.set(http::field::user_agent, ep.user_agent);
  req.set(http::field::accept, r.accept.empty() ? std::string("application/json") : r.accept);
  if (!ep.bearer_token.empty()) req.set(http::field::authorization, "Bearer " + ep.bearer_token);
  if (!r.body.empty() || r.method == "POST" || r.method == "PUT" || r.method == "PATCH") {
    req.set(http::field::content_type,
            r.content_type.empty() ? std::string("application/json") : r.content_type);
  }
  req.body() = r.body;
  req.prepare_payload();
  return req;
}

namespace {

std::string StringMember(const rapidjson::Value& v, const char* name) {
  if (!v.IsObject()) return {};
  auto it = v.FindMember(name);
  return it != v.MemberEnd() && it->value.IsString() ? it->value.GetString() : std::string();
}

int IntMember(const rapidjson::Value& v, const char* name) {
  if (!v.IsObject()) return 0;
  auto it = v.FindMember(name);
  return it != v.MemberEnd() && it->value.IsInt() ? it->value.GetInt() : 0;
}

StatusDetails DetailsFromJson(const rapidjson::Value& d) {
  StatusDetails out;
  out.name = StringMember(d, "name");
  out.group = StringMember(d, "group");
  out.kind = StringMember(d, "kind");
  out.uid = StringMember(d, "uid");
  out.retry_after_seconds = IntMember(d, "retryAfterSeconds");
  auto causes = d.FindMember("causes");
  if (causes != d.MemberEnd() && causes->value.IsArray()) {
    for (const auto& c : causes->value.GetArray()) {
      out.causes.push_back(
          {StringMember(c, "reason"), StringMember(c, "message"), StringMember(c, "field")});
    }
  }
  return out;
}

}  // namespace

// --- status decoding --------------------------------------------------------------------------

StatusCode StatusCodeFor(std::string_view reason, int http_status) {
  if (!reason.empty()) {
    for (int c = static_cast<int>(StatusCode::kBadRequest);
         c <= static_cast<int>(StatusCode::kTimeout); ++c) {
      if (ReasonString(static_cast<StatusCode>(c)) == reason) return static_cast<StatusCode>(c);
    }
  }
  switch (http_status) {
    case 400:
      return StatusCode::kBadRequest;
    case 401:
      return StatusCode::kUnauthorized;
    case 403:
      return StatusCode::kForbidden;
    case 404:
      return StatusCode::kNotFound;
    case 405:
      return StatusCode::kMethodNotAllowed;
    case 406:
      return StatusCode::kNotAcceptable;
    case 409:
      return StatusCode::kConflict;
    case 410:
      return StatusCode::kGone;
    case 413:
      return StatusCode::kRequestEntityTooLarge;
    case 415:
      return StatusCode::kUnsupportedMediaType;
    case 422:
      return StatusCode::kInvalid;
    case 429:
      return StatusCode::kTooManyRequests;
    case 503:
      return StatusCode::kServiceUnavailable;
    case 504:
      return StatusCode::kTimeout;
    default:
      return StatusCode::kInternalError;
  }
}

Status StatusFromJson(const rapidjson::Value& value, int http_status) {
  if (StringMember(value, "status") == "Success") return Status::Ok();
  int code = IntMember(value, "code");
  if (code == 0) code = http_status;
  Status st(StatusCodeFor(StringMember(value, "reason"), code), StringMember(value, "message"));
  if (value.IsObject()) {  // MemberEnd() is only defined on objects
    auto details = value.FindMember("details");
    if (details != value.MemberEnd() && details->value.IsObject()) {
      st.WithDetails(DetailsFromJson(details->value));
    }
  }
  return st;
}

Status StatusFromProtobuf(const api::ProtobufStatus& status, int http_status) {
  if (status.status == "Success") return Status::Ok();
  Status st(StatusCodeFor(status.reason, status.code ? status.code : http_status), status.message);
  st.WithDetails(status.details);
  return st;
}

Status ErrorFromResponse(int http_status, std::string_view body) {
  if (body.starts_with(std::string_view("k8s\0", 4))) {
    if (auto st = api::DecodeProtobufStatus(body); st.ok()) {
      Status error = StatusFromProtobuf(*st, http_status);
      if (!error.ok()) return error;
    }
  }
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (!doc.HasParseError() && doc.IsObject() && StringMember(doc, "kind") == "Status") {
    Status st = StatusFromJson(doc, http_status);
    if (!st.ok()) return st;
  }
  std::string message = "the server answered " + std::to_string(http_status);
  if (!body.empty()) message += ": " + std::string(body.substr(0, 1024));
  return Status(StatusCodeFor("", http_status), std::move(message));
}

std::string QueryEscape(std::string_view value) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

// --- HttpConnection ---------------------------------------------------------------------------

class HttpConnection::Impl {
 public:
  explicit Impl(const HttpEndpoint& ep) : ep_(ep) {}
  ~Impl() { Reset(); }

  Result<HttpResponse> RoundTrip(const HttpRequest& req) {
    // An overloaded server (429 with Retry-After) is given the time it asks for.
    for (int throttled = 0;; ++throttled) {
      Result<HttpResponse> res = Send(req);
      if (!res.ok() || res->status != 429 || res->retry_after_seconds <= 0 ||
          throttled >= ep_.max_throttle_retries) {
        return res;
      }
      const std::chrono::seconds wait(std::min(res->retry_after_seconds, 10));
      if (ep_.sleep) {
        ep_.sleep(wait);
      } else {
        std::this_thread::sleep_for(wait);
      }
    }
  }

 private:
  Result<HttpResponse> Send(const HttpRequest& req) {
    for (int attempt = 0;; ++attempt) {
      const bool reused = connected_;
      bool got_response = false;
      auto res = Once(req, got_response);
      if (res.ok()) return res;
      Reset();
      // Only a stale keep-alive connection is retried, and only when the server sent nothing:
      // it closed the idle connection rather than process the request.
      if (attempt > 0 || !reused || got_response || res.status().code() == StatusCode::kTimeout) {
        return res;
      }
    }
  }

  Result<HttpResponse> Once(const HttpRequest& r, bool& got_response) {
    if (!connected_) {
      ALLOT_RETURN_IF_ERROR(ConnectStream(ioc_, stream_, ep_));
      connected_ = true;
    }
    auto req = BuildRequest(ep_, r);
    stream_.Lowest().expires_after(ep_.request_timeout);
    beast::error_code ec = RunOnce(ioc_, [&](auto done) { http::async_write(stream_, req, done); });
    if (ec) return NetworkError("write to", ep_, ec);
    http::response_parser<http::string_body> parser;
    parser.body_limit(kNoBodyLimit);
    if (r.method == "HEAD") parser.skip(true);
    ec = RunOnce(ioc_, [&](auto done) { http::async_read(stream_, buffer_, parser, done); });
    got_response = parser.got_some();
    if (ec) return NetworkError("read from", ep_, ec);
    stream_.Lowest().expires_never();
    HttpResponse res;
    res.status = static_cast<int>(parser.get().result_int());
    if (auto it = parser.get().find(http::field::content_type); it != parser.get().end()) {
      res.content_type.assign(it->value().data(), it->value().size());
    }
    res.body = std::move(parser.get().body());
    if (auto it = parser.get().find(http::field::retry_after); it != parser.get().end()) {
      int seconds = 0;
      std::string_view v(it->value().data(), it->value().size());
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), seconds);
      if (ec == std::errc() && end == v.data() + v.size() && seconds > 0) {
        res.retry_after_seconds = seconds;
      }
    }
    if (!parser.get().keep_alive()) Reset();
    return res;
  }

  void Reset() {
    stream_.Close();
    buffer_.clear();
    connected_ = false;
  }

  const HttpEndpoint& ep_;
  net::io_context ioc_;
  ClientStream stream_{ioc_, ep_};
  beast::flat_buffer buffer_;
  bool connected_ = false;
};

HttpConnection::HttpConnection(const HttpEndpoint& endpoint)
    : impl_(std::make_unique<Impl>(endpoint)) {}
HttpConnection::~HttpConnection() = default;

Result<HttpResponse> HttpConnection::RoundTrip(const HttpRequest& req) {
  return impl_->RoundTrip(req);
}

// --- HttpPool ---------------------------------------------------------------------------------

namespace {
// The pool and connection of the current worker thread (null elsewhere).
thread_local const HttpPool* tl_pool = nullptr;
thread_local HttpConnection* tl_conn = nullptr;
}  // namespace

HttpPool::HttpPool(HttpEndpoint endpoint, int workers)
    : endpoint_(std::move(endpoint)), max_workers_(workers > 0 ? workers : 1) {}

HttpPool::~HttpPool() {
  std::vector<std::thread> threads;
  std::deque<Task> orphans;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    orphans.swap(queue_);
    threads.swap(threads_);
  }
  cv_.notify_all();
  for (Task& t : orphans) t.done(Status(StatusCode::kServiceUnavailable, "client closed"));
  for (std::thread& t : threads) t.join();
}

void HttpPool::Submit(HttpRequest req, Done done) {
  std::unique_lock<std::mutex> lock(mu_);
  if (stopping_) {
    lock.unlock();
    return done(Status(StatusCode::kServiceUnavailable, "client closed"));
  }
  queue_.push_back(Task{std::move(req), std::move(done)});
  if (idle_ < queue_.size() && threads_.size() < max_workers_) {
    threads_.emplace_back([this] {
      NameThisThread("http-client");
      Work();
    });
  }
  lock.unlock();
  cv_.notify_one();
}

Result<HttpResponse> HttpPool::Do(HttpRequest req) {
  if (tl_pool == this && tl_conn) return tl_conn->RoundTrip(req);
  std::promise<Result<HttpResponse>> p;
  auto f = p.get_future();
  Submit(std::move(req), [&p](Result<HttpResponse> r) { p.set_value(std::move(r)); });
  return f.get();
}

void HttpPool::Work() {
  HttpConnection conn(endpoint_);
  tl_pool = this;
  tl_conn = &conn;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    ++idle_;
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    --idle_;
    if (stopping_) break;
    Task task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    task.done(conn.RoundTrip(task.req));
    lock.lock();
  }
  tl_pool = nullptr;
  tl_conn = nullptr;
}

}  // namespace allot::client
