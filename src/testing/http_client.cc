#include "testing/http_client.h"

#include <strings.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <functional>
#include <optional>

namespace allot::testing {

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using Done = std::function<void(beast::error_code)>;

bool IEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

Status TransportError(std::string_view what, const beast::error_code& ec) {
  return Status(StatusCode::kServiceUnavailable, std::string(what) + ": " + ec.message());
}

// Runs one asynchronous operation on `ioc` for at most `timeout`; on timeout the socket's
// operations are cancelled (the connection stays open) and kTimeout is returned.
Status RunOp(net::io_context& ioc, beast::tcp_stream& stream, std::chrono::milliseconds timeout,
             const std::function<void(Done)>& start, std::string_view what) {
  bool done = false;
  beast::error_code result;
  ioc.restart();
  start([&](beast::error_code ec) {
    done = true;
    result = ec;
  });
  ioc.run_for(timeout);
  if (!done) {
    stream.socket().cancel();
    ioc.restart();
    ioc.run();
    if (!done || result == net::error::operation_aborted) {
      return Status(StatusCode::kTimeout, std::string(what) + ": timed out");
    }
  }
  if (result) return TransportError(what, result);
  return Status::Ok();
}

HttpHeaders CopyHeaders(const http::fields& fields) {
  HttpHeaders out;
  for (const auto& f : fields)
    out.emplace_back(std::string(f.name_string()), std::string(f.value()));
  return out;
}

struct Connection {
  net::io_context ioc;
  beast::tcp_stream stream{ioc};
  beast::flat_buffer buffer;
  bool connected = false;

  Status Connect(const std::string& host, uint16_t port, std::chrono::milliseconds timeout) {
    beast::error_code ec;
    auto address = net::ip::make_address(host, ec);
    if (ec) return TransportError("bad host " + host, ec);
    tcp::endpoint endpoint(address, port);
    ALLOT_RETURN_IF_ERROR(RunOp(
        ioc, stream, timeout,
        [&](Done done) {
          stream.async_connect(endpoint, [done](beast::error_code e) { done(e); });
        },
        "connect"));
    connected = true;
    return Status::Ok();
  }

  void Reset() {
    beast::error_code ec;
    stream.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream.socket().close(ec);
    buffer.clear();
    connected = false;
  }

  http::request<http::string_body> MakeRequest(std::string_view method, std::string_view target,
                                               std::string_view body, const HttpHeaders& headers,
                                               const std::string& host) {
    http::request<http::string_body> req;
    req.method_string(beast::string_view(method.data(), method.size()));
    req.target(beast::string_view(target.data(), target.size()));
    req.version(11);
    req.set(http::field::host, host);
    bool has_type = false;
    for (const auto& [k, v] : headers) {
      req.insert(k, v);
      has_type = has_type || IEquals(k, "Content-Type");
    }
    if (!body.empty() && !has_type) req.set(http::field::content_type, "application/json");
    req.body() = std::string(body);
    req.prepare_payload();
    return req;
  }
};

class StreamImpl final : public HttpStream {
 public:
  explicit StreamImpl(std::unique_ptr<Connection> conn) : conn_(std::move(conn)) {
    parser_.body_limit(boost::none);
  }

  Status ReadHeader(std::chrono::milliseconds timeout) {
    ALLOT_RETURN_IF_ERROR(RunOp(
        conn_->ioc, conn_->stream, timeout,
        [&](Done done) {
          http::async_read_header(conn_->stream, conn_->buffer, parser_,
                                  [done](beast::error_code e, size_t) { done(e); });
        },
        "read header"));
    status_ = static_cast<int>(parser_.get().result_int());
    headers_ = CopyHeaders(parser_.get().base());
    return Status::Ok();
  }

  int status() const override { return status_; }
  const HttpHeaders& headers() const override { return headers_; }
  bool finished() const override {
    return ended_ && parser_.get().body().find('\n', consumed_) == std::string::npos;
  }

  Result<std::string> ReadLine(std::chrono::milliseconds timeout) override {
    auto line = ReadUntil(timeout, "no line", [](std::string_view pending) -> size_t {
      size_t nl = pending.find('\n');
      return nl == std::string_view::npos ? 0 : nl + 1;
    });
    if (line.ok()) line->pop_back();  // the "\n"
    return line;
  }

  Result<std::string> ReadBytes(size_t n, std::chrono::milliseconds timeout) override {
    return ReadUntil(timeout, "too few bytes", [n](std::string_view pending) -> size_t {
      return pending.size() >= n ? n : 0;
    });
  }

  void Close() override { conn_->Reset(); }

 private:
  // Reads the body until `take(unread)` says how many of its bytes to return (0: not yet).
  template <class Take>
  Result<std::string> ReadUntil(std::chrono::milliseconds timeout, const char* what, Take take) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      const std::string& body = parser_.get().body();
      if (size_t n = take(std::string_view(body).substr(consumed_)); n > 0) {
        std::string out = body.substr(consumed_, n);
        consumed_ += n;
        return out;
      }
      if (ended_) return Status(StatusCode::kGone, "end of stream");
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left <= std::chrono::milliseconds(0)) return Status(StatusCode::kTimeout, what);
      Status s = RunOp(
          conn_->ioc, conn_->stream, left,
          [&](Done done) {
            http::async_read_some(conn_->stream, conn_->buffer, parser_,
                                  [done](beast::error_code e, size_t) { done(e); });
          },
          "read body");
      if (s.code() == StatusCode::kTimeout) return s;
      if (!s.ok() || parser_.is_done()) ended_ = true;
    }
  }

  std::unique_ptr<Connection> conn_;
  http::response_parser<http::string_body> parser_;
  int status_ = 0;
  HttpHeaders headers_;
  size_t consumed_ = 0;
  bool ended_ = false;
};

}  // namespace

std::string HttpResponse::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (IEquals(k, name)) return v;
  }
  return "";
}

std::vector<std::string> HttpResponse::Headers(std::string_view name) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : headers) {
    if (IEquals(k, name)) out.push_back(v);
  }
  return out;
}

class HttpClient::Impl {
 public:
  Impl(std::string host, uint16_t port)
      : host_(std::move(host)), port_(port), host_header_(host_ + ":" + std::to_string(port)) {}

  Result<HttpResponse> Do(std::string_view method, std::string_view target, std::string_view body,
                          const HttpHeaders& headers, std::chrono::milliseconds timeout) {
    // A kept-alive connection may have been closed by the server meanwhile: retry once.
    for (int attempt = 0; attempt < 2; ++attempt) {
      bool reused = conn_.connected;
      auto res = Once(method, target, body, headers, timeout);
      if (res.ok() || !reused || res.status().code() == StatusCode::kTimeout) return res;
      conn_.Reset();
    }
    return Status(StatusCode::kServiceUnavailable, "unreachable");
  }

  Result<std::unique_ptr<HttpStream>> Stream(std::string_view target, const HttpHeaders& headers,
                                             std::chrono::milliseconds timeout) {
    auto conn = std::make_unique<Connection>();
    ALLOT_RETURN_IF_ERROR(conn->Connect(host_, port_, timeout));
    auto req = conn->MakeRequest("GET", target, {}, headers, host_header_);
    ALLOT_RETURN_IF_ERROR(RunOp(
        conn->ioc, conn->stream, timeout,
        [&](Done done) {
          http::async_write(conn->stream, req, [done](beast::error_code e, size_t) { done(e); });
        },
        "write"));
    auto stream = std::make_unique<StreamImpl>(std::move(conn));
    ALLOT_RETURN_IF_ERROR(stream->ReadHeader(timeout));
    return std::unique_ptr<HttpStream>(std::move(stream));
  }

  Result<std::string> Raw(std::string_view bytes, std::chrono::milliseconds timeout) {
    Connection conn;
    ALLOT_RETURN_IF_ERROR(conn.Connect(host_, port_, timeout));
    std::string data(bytes);
    ALLOT_RETURN_IF_ERROR(RunOp(
        conn.ioc, conn.stream, timeout,
        [&](Done done) {
          net::async_write(conn.stream, net::buffer(data),
                           [done](beast::error_code e, size_t) { done(e); });
        },
        "write"));
    std::string out;
    char chunk[4096];
    while (true) {
      size_t n = 0;
      Status s = RunOp(
          conn.ioc, conn.stream, timeout,
          [&](Done done) {
            conn.stream.async_read_some(net::buffer(chunk),
                                        [&n, done](beast::error_code e, size_t k) {
                                          n = k;
                                          done(e);
                                        });
          },
          "read");
      out.append(chunk, n);
      if (!s.ok()) break;
    }
    return out;
  }

 private:
  Result<HttpResponse> Once(std::string_view method, std::string_view target, std::string_view body,
                            const HttpHeaders& headers, std::chrono::milliseconds timeout) {
    if (!conn_.connected) ALLOT_RETURN_IF_ERROR(conn_.Connect(host_, port_, timeout));
    auto req = conn_.MakeRequest(method, target, body, headers, host_header_);
    Status w = RunOp(
        conn_.ioc, conn_.stream, timeout,
        [&](Done done) {
          http::async_write(conn_.stream, req, [done](beast::error_code e, size_t) { done(e); });
        },
        "write");
    if (!w.ok()) {
      conn_.Reset();
      return w;
    }
    http::response_parser<http::string_body> parser;
    parser.body_limit(boost::none);
    if (method == "HEAD") parser.skip(true);
    Status r = RunOp(
        conn_.ioc, conn_.stream, timeout,
        [&](Done done) {
          http::async_read(conn_.stream, conn_.buffer, parser,
                           [done](beast::error_code e, size_t) { done(e); });
        },
        "read");
    if (!r.ok()) {
      conn_.Reset();
      return r;
    }
    HttpResponse res;
    res.status = static_cast<int>(parser.get().result_int());
    res.headers = CopyHeaders(parser.get().base());
    res.body = std::move(parser.get().body());
    if (!parser.get().keep_alive()) conn_.Reset();
    return res;
  }

  const std::string host_;
  const uint16_t port_;
  const std::string host_header_;
  Connection conn_;
};

HttpClient::HttpClient(std::string host, uint16_t port)
    : impl_(std::make_unique<Impl>(std::move(host), port)) {}
HttpClient::~HttpClient() = default;

Result<HttpResponse> HttpClient::Do(std::string_view method, std::string_view target,
                                    std::string_view body, const HttpHeaders& headers,
                                    std::chrono::milliseconds timeout) {
  return impl_->Do(method, target, body, headers, timeout);
}

Result<HttpResponse> HttpClient::Get(std::string_view target, const HttpHeaders& headers) {
  return Do("GET", target, {}, headers);
}

Result<HttpResponse> HttpClient::Post(std::string_view target, std::string_view body,
                                      const HttpHeaders& headers) {
  return Do("POST", target, body, headers);
}

Result<HttpResponse> HttpClient::Put(std::string_view target, std::string_view body,
                                     const HttpHeaders& headers) {
  return Do("PUT", target, body, headers);
}

Result<HttpResponse> HttpClient::Patch(std::string_view target, std::string_view body,
                                       std::string_view content_type, const HttpHeaders& headers) {
  HttpHeaders all = headers;
  all.emplace_back("Content-Type", std::string(content_type));
  return Do("PATCH", target, body, all);
}

Result<HttpResponse> HttpClient::Delete(std::string_view target, std::string_view body,
                                        const HttpHeaders& headers) {
  return Do("DELETE", target, body, headers);
}

Result<std::unique_ptr<HttpStream>> HttpClient::Stream(std::string_view target,
                                                       const HttpHeaders& headers,
                                                       std::chrono::milliseconds timeout) {
  return impl_->Stream(target, headers, timeout);
}

Result<std::string> HttpClient::Raw(std::string_view bytes, std::chrono::milliseconds timeout) {
  return impl_->Raw(bytes, timeout);
}

}  // namespace allot::testing
