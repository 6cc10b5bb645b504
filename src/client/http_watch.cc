#include "client/http_watch.h"

#include <rapidjson/document.h>

#include <charconv>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include "api/codec/codec.h"
#include "api/protobuf.h"
#include "client/http_beast.h"
#include "common/process_stats.h"

namespace allot::client {

namespace {

uint64_t ParseRv(std::string_view s) {
  uint64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

// The metadata.resourceVersion of a JSON object, or 0.
uint64_t RvOf(const rapidjson::Value& obj) {
  if (!obj.IsObject()) return 0;
  auto meta = obj.FindMember("metadata");
  if (meta == obj.MemberEnd() || !meta->value.IsObject()) return 0;
  auto rv = meta->value.FindMember("resourceVersion");
  if (rv == meta->value.MemberEnd() || !rv->value.IsString()) return 0;
  return ParseRv(rv->value.GetString());
}

api::WatchEvent ErrorEvent(Status st) {
  api::WatchEvent ev;
  ev.type = api::EventType::kError;
  ev.error = std::move(st);
  return ev;
}

// What one line of the stream says.
struct ParsedLine {
  std::optional<api::WatchEvent> event;
  uint64_t bookmark_rv = 0;
};

ParsedLine ParseLine(std::string_view line, const api::ResourceInfo& r) {
  ParsedLine out;
  rapidjson::Document doc;
  doc.Parse(line.data(), line.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    out.event =
        ErrorEvent(InternalError("watch: malformed event: " + std::string(line.substr(0, 200))));
    return out;
  }
  auto type_it = doc.FindMember("type");
  auto obj_it = doc.FindMember("object");
  if (type_it == doc.MemberEnd() || !type_it->value.IsString() || obj_it == doc.MemberEnd()) {
    out.event = ErrorEvent(InternalError("watch: event without type or object"));
    return out;
  }
  std::string_view type = type_it->value.GetString();
  const rapidjson::Value& obj = obj_it->value;
  if (type == "BOOKMARK") {
    out.bookmark_rv = RvOf(obj);
    return out;
  }
  if (type == "ERROR") {
    Status st = StatusFromJson(obj);
    out.event = ErrorEvent(st.ok() ? InternalError("watch: ERROR event without a failure") : st);
    return out;
  }
  api::WatchEvent ev;
  if (type == "ADDED") {
    ev.type = api::EventType::kAdded;
  } else if (type == "MODIFIED") {
    ev.type = api::EventType::kModified;
  } else if (type == "DELETED") {
    ev.type = api::EventType::kDeleted;
  } else {
    out.event = ErrorEvent(InternalError("watch: unknown event type " + std::string(type)));
    return out;
  }
  api::DecodeOptions opts;
  opts.expected = r.type;
  auto decoded = api::DecodeJsonValue(obj, opts);
  if (!decoded.ok()) {
    out.event = ErrorEvent(InternalError("watch: cannot decode " + std::string(type) +
                                         " object: " + decoded.status().message()));
    return out;
  }
  ev.resource = &r;
  ev.resource_version = ParseRv(decoded->object->metadata.resourceVersion);
  ev.object = std::move(decoded->object);
  out.event = std::move(ev);
  return out;
}

// No object Allot serves comes near this (request bodies are capped at 3 MiB).
constexpr uint32_t kMaxFrameBytes = 64u << 20;

// What one protobuf frame says (api/protobuf.h: a meta.v1 WatchEvent holding an envelope).
ParsedLine ParseFrame(std::string_view frame, const api::ResourceInfo& r) {
  ParsedLine out;
  auto ev = api::ParseProtobufWatchEvent(frame);
  if (!ev.ok()) {
    out.event = ErrorEvent(InternalError("watch: " + ev.status().message()));
    return out;
  }
  if (ev->type == "ERROR") {
    auto st = api::DecodeProtobufStatus(ev->object);
    if (!st.ok()) {
      out.event = ErrorEvent(InternalError("watch: " + st.status().message()));
      return out;
    }
    out.event = ErrorEvent(StatusFromProtobuf(*st));
    return out;
  }
  bool dropped = false;
  auto decoded = api::DecodeProtobufObject(*r.type, ev->object, &dropped);
  if (decoded.ok() && dropped) {
    // The server (kube-apiserver, or a newer Allot) sent a subtree this client keeps as opaque
    // JSON: end the watch as a refusal, so that it is resumed in JSON from here.
    out.event = ErrorEvent(
        Status(StatusCode::kNotAcceptable,
               "watch: the " + r.type->kind + " holds fields this client reads only from JSON"));
    return out;
  }
  if (!decoded.ok()) {
    out.event = ErrorEvent(InternalError("watch: cannot decode " + std::string(ev->type) +
                                         " object: " + decoded.status().message()));
    return out;
  }
  const uint64_t rv = ParseRv((*decoded)->metadata.resourceVersion);
  if (ev->type == "BOOKMARK") {
    out.bookmark_rv = rv;
    return out;
  }
  api::WatchEvent watch_event;
  if (ev->type == "ADDED") {
    watch_event.type = api::EventType::kAdded;
  } else if (ev->type == "MODIFIED") {
    watch_event.type = api::EventType::kModified;
  } else if (ev->type == "DELETED") {
    watch_event.type = api::EventType::kDeleted;
  } else {
    out.event = ErrorEvent(InternalError("watch: unknown event type " + std::string(ev->type)));
    return out;
  }
  watch_event.resource = &r;
  watch_event.resource_version = rv;
  watch_event.object = std::move(decoded).value();
  out.event = std::move(watch_event);
  return out;
}

class HttpWatcher final : public api::Watcher {
 public:
  HttpWatcher(const HttpEndpoint& ep, const api::ResourceInfo& r, HttpWatchOptions opts)
      : ep_(ep), resource_(r), opts_(opts) {
    parser_.body_limit(kNoBodyLimit);  // no end in sight
  }

  ~HttpWatcher() override {
    Stop();
    if (thread_.joinable()) {
      if (thread_.get_id() == std::this_thread::get_id()) {
        thread_.detach();  // destroyed from its own notify callback: nothing left to wait for
      } else {
        thread_.join();
      }
    }
  }

  // Sends the request and reads the header. Non-200: the answer's Status.
  Status Open(const std::string& target) {
    ALLOT_RETURN_IF_ERROR(ConnectStream(ioc_, stream_, ep_));
    HttpRequest request{"GET", target};
    // fallback=json: this client watches on in JSON after a 406 (apiserver/rest/request_params.h).
    if (opts_.protobuf) {
      request.accept = "application/vnd.kubernetes.protobuf;fallback=json, application/json";
    }
    auto req = BuildRequest(ep_, request);
    stream_.Lowest().expires_after(ep_.request_timeout);
    beast::error_code ec = RunOnce(ioc_, [&](auto done) { http::async_write(stream_, req, done); });
    if (ec) return NetworkError("write to", ep_, ec);
    ec =
        RunOnce(ioc_, [&](auto done) { http::async_read_header(stream_, buffer_, parser_, done); });
    if (ec) return NetworkError("read from", ep_, ec);
    const int code = static_cast<int>(parser_.get().result_int());
    if (code != 200) return ErrorFromResponse(code, ReadWholeBody());
    if (auto it = parser_.get().find(http::field::content_type); it != parser_.get().end()) {
      frames_ = std::string_view(it->value().data(), it->value().size())
                    .starts_with(api::kProtobufContentType);
    }
    return Status::Ok();
  }

  void StartReading() {
    thread_ = std::thread([this] {
      NameThisThread("http-watch");
      ReadMore();
      ioc_.restart();
      ioc_.run();
    });
  }

  bool Drain(std::vector<api::WatchEvent>& out) override {
    std::lock_guard<std::mutex> lock(mu_);
    while (!queue_.empty()) {
      out.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    return !ended_;
  }

  bool WaitNext(api::WatchEvent& out, std::chrono::milliseconds timeout) override {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, timeout, [&] { return !queue_.empty() || ended_; });
    if (queue_.empty()) return false;
    out = std::move(queue_.front());
    queue_.pop_front();
    return true;
  }

  void SetNotify(std::function<void()> notify) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      notify_ = std::move(notify);
    }
    Notify();
  }

  uint64_t Progress() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return progress_;
  }

  void Stop() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ended_ = true;
      queue_.clear();
      notify_ = nullptr;
    }
    cv_.notify_all();
    // Closing the socket on the reader's io_context aborts its pending read.
    net::post(ioc_, [this] {
      beast::error_code ec;
      stream_.Lowest().socket().shutdown(tcp::socket::shutdown_both, ec);
      stream_.Lowest().socket().close(ec);
    });
  }

 private:
  std::string ReadWholeBody() {
    std::string body;
    char chunk[16384];
    while (!parser_.is_done() && body.size() < (1 << 20)) {
      parser_.get().body().data = chunk;
      parser_.get().body().size = sizeof(chunk);
      beast::error_code ec =
          RunOnce(ioc_, [&](auto done) { http::async_read_some(stream_, buffer_, parser_, done); });
      body.append(chunk, sizeof(chunk) - parser_.get().body().size);
      if (ec && ec != http::error::need_buffer) break;
    }
    return body;
  }

  void ReadMore() {
    parser_.get().body().data = chunk_;
    parser_.get().body().size = sizeof(chunk_);
    if (opts_.idle_timeout.count() > 0) {
      stream_.Lowest().expires_after(opts_.idle_timeout);
    } else {
      stream_.Lowest().expires_never();
    }
    http::async_read_some(stream_, buffer_, parser_,
                          [this](beast::error_code ec, size_t) { OnRead(ec); });
  }

  void OnRead(beast::error_code ec) {
    if (ec == http::error::need_buffer) ec = {};
    const size_t got = sizeof(chunk_) - parser_.get().body().size;
    bool more = Consume(std::string_view(chunk_, got));
    if (ec || parser_.is_done() || !more) {
      End();
      return;
    }
    ReadMore();
  }

  // Queues the complete lines (or protobuf frames) in `data` plus what was pending. False once
  // the watch ended.
  bool Consume(std::string_view data) {
    pending_.append(data);
    std::vector<ParsedLine> parsed;
    size_t start = 0;
    if (frames_) {
      // Frames: a 4-byte big-endian length, then that many bytes.
      while (pending_.size() - start >= 4) {
        uint32_t length = 0;
        for (int i = 0; i < 4; ++i)
          length = length << 8 | static_cast<uint8_t>(pending_[start + i]);
        if (length > kMaxFrameBytes) {  // not a stream we can follow: end the watch
          ParsedLine bad;
          bad.event = ErrorEvent(
              InternalError("watch: a protobuf frame of " + std::to_string(length) + " bytes"));
          parsed.push_back(std::move(bad));
          start = pending_.size();
          break;
        }
        if (pending_.size() - start - 4 < length) break;
        parsed.push_back(
            ParseFrame(std::string_view(pending_).substr(start + 4, length), resource_));
        start += 4 + length;
      }
    } else {
      for (size_t nl; (nl = pending_.find('\n', start)) != std::string::npos; start = nl + 1) {
        std::string_view line(pending_.data() + start, nl - start);
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
        parsed.push_back(ParseLine(line, resource_));
      }
    }
    pending_.erase(0, start);
    if (parsed.empty()) return true;
    bool alive = Queue(parsed);
    Notify();
    return alive;
  }

  bool Queue(std::vector<ParsedLine>& parsed) {
    std::lock_guard<std::mutex> lock(mu_);
    for (ParsedLine& p : parsed) {
      if (ended_) break;
      if (p.bookmark_rv > progress_) progress_ = p.bookmark_rv;
      if (!p.event) continue;
      if (queue_.size() >= opts_.max_queue) {
        // Too far behind: end rather than grow without bound (the consumer resumes).
        queue_.clear();
        ended_ = true;
        break;
      }
      const bool error = p.event->type == api::EventType::kError;
      if (error && frames_ && p.event->error.code() == StatusCode::kNotAcceptable &&
          opts_.on_protobuf_refused) {
        opts_.on_protobuf_refused();  // the next watch of this resource asks for JSON
      }
      if (p.event->resource_version > progress_) progress_ = p.event->resource_version;
      queue_.push_back(std::move(*p.event));
      if (error) ended_ = true;
    }
    return !ended_;
  }

  void End() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ended_ = true;
    }
    Notify();
    beast::error_code ec;
    stream_.Lowest().socket().close(ec);
  }

  void Notify() {
    std::function<void()> fn;
    {
      std::lock_guard<std::mutex> lock(mu_);
      fn = notify_;
    }
    cv_.notify_all();
    if (fn) fn();
  }

  const HttpEndpoint ep_;
  const api::ResourceInfo& resource_;
  const HttpWatchOptions opts_;
  // Reader state: used by Open on the caller's thread, then only by thread_.
  net::io_context ioc_;
  ClientStream stream_{ioc_, ep_};
  beast::flat_buffer buffer_;
  http::response_parser<http::buffer_body> parser_;
  char chunk_[65536];
  std::string pending_;
  bool frames_ = false;  // the server answered protobuf frames, not JSON lines
  std::thread thread_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<api::WatchEvent> queue_;  // guarded by mu_
  std::function<void()> notify_;       // guarded by mu_
  uint64_t progress_ = 0;              // guarded by mu_
  bool ended_ = false;                 // guarded by mu_
};

}  // namespace

Result<std::unique_ptr<api::Watcher>> OpenHttpWatch(const HttpEndpoint& endpoint,
                                                    std::string target,
                                                    const api::ResourceInfo& resource,
                                                    HttpWatchOptions options) {
  auto w = std::make_unique<HttpWatcher>(endpoint, resource, options);
  ALLOT_RETURN_IF_ERROR(w->Open(target));
  w->StartReading();
  return std::unique_ptr<api::Watcher>(std::move(w));
}

}  // namespace allot::client
