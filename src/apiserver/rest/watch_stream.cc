#include "apiserver/rest/watch_stream.h"

#include <algorithm>

#include "api/protobuf.h"
#include "apiserver/encoding/output.h"
#include "apiserver/encoding/status_json.h"

namespace allot::apiserver {

namespace {

// Upper bound on one chunk; the rest waits for the next Next() after the write completes.
constexpr size_t kMaxChunkBytes = 256 * 1024;

std::string Line(std::string_view type, std::string_view object_json) {
  std::string out;
  out.reserve(object_json.size() + 32);
  out += "{\"type\":\"";
  out.append(type);
  out += "\",\"object\":";
  out.append(object_json);
  out += "}\n";
  return out;
}

}  // namespace

WatchStream::WatchStream(ServerContext& ctx, std::unique_ptr<api::Watcher> watcher, WatchSpec spec)
    : ctx_(ctx),
      watcher_(std::move(watcher)),
      spec_(std::move(spec)),
      events_sent_(ctx.metrics.watch_events.With(
          {spec_.resource->group, spec_.resource->type->kind, spec_.resource->version})) {
  const api::ResourceInfo& r = *spec_.resource;
  ctx_.metrics.registered_watchers.With({r.group, r.type->kind, r.version}).Inc();
  ctx_.metrics.longrunning.With({r.resource, "WATCH"}).Inc();
  next_bookmark_ = ctx_.clock.Steady() + ctx_.config.bookmark_interval;
  initial_events_pending_ = spec_.initial_events_end;
}

WatchStream::~WatchStream() {
  watcher_->Stop();
  const api::ResourceInfo& r = *spec_.resource;
  ctx_.metrics.registered_watchers.With({r.group, r.type->kind, r.version}).Dec();
  ctx_.metrics.longrunning.With({r.resource, "WATCH"}).Dec();
  ctx_.streams.Remove(this);
}

void WatchStream::Start(std::function<void()> wake) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    wake_ = wake;
  }
  // The store calls this from its committer thread; it only posts to the connection.
  watcher_->SetNotify(std::move(wake));
}

void WatchStream::Wake() {
  std::function<void()> wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    wake = wake_;
  }
  if (wake) wake();
}

void WatchStream::Cancel() {
  watcher_->Stop();
  Wake();
}

std::optional<std::chrono::steady_clock::time_point> WatchStream::Deadline() const {
  std::optional<std::chrono::steady_clock::time_point> d = spec_.deadline;
  if (spec_.bookmarks && (!d || next_bookmark_ < *d)) d = next_bookmark_;
  return d;
}

std::string WatchStream::Next(bool* finished) {
  std::string out;
  if (!ended_) {
    // Read progress before draining: every event up to it is then in `drained`, so a bookmark
    // can never run ahead of an event the client has not been sent.
    const uint64_t progress = watcher_->Progress();
    std::vector<api::WatchEvent> drained;
    bool alive = watcher_->Drain(drained);
    for (auto& ev : drained) pending_.push_back(std::move(ev));
    while (!pending_.empty() && out.size() < kMaxChunkBytes) {
      api::WatchEvent ev = std::move(pending_.front());
      pending_.pop_front();
      out += EncodeEvent(ev);
      if (ev.type == api::EventType::kError || failed_) {
        pending_.clear();
        alive = false;
        break;
      }
    }
    if (initial_events_pending_ && alive && pending_.empty()) {
      // Every initial event was queued before the watch was registered, so the first drain
      // holds them all (possibly followed by early changes, which the client may treat as
      // part of the initial state: the bookmark's RV covers them).
      last_rv_ = std::max(progress, last_rv_);
      out += Bookmark(last_rv_, true);
      initial_events_pending_ = false;
    }
    const auto now = ctx_.clock.Steady();
    if (spec_.deadline && now >= *spec_.deadline) alive = false;
    if (alive && spec_.bookmarks && now >= next_bookmark_) {
      if (progress > last_rv_ && pending_.empty()) {
        out += Bookmark(progress);
        last_rv_ = progress;
      }
      next_bookmark_ = now + ctx_.config.bookmark_interval;
    }
    // Events already drained are still delivered before the stream ends.
    if (!alive && pending_.empty()) ended_ = true;
  }
  *finished = ended_;
  return out;
}

std::string WatchStream::ObjectJson(const api::ObjectPtr& obj) {
  const Output& out = spec_.output;
  if (out.kind == OutputKind::kObject) return *spec_.cache->Encode(obj);  // shared by watchers
  std::string json =
      ObjectOutputJson(*spec_.resource, obj, out, ctx_.clock.Now(), *spec_.cache, first_table_);
  if (out.kind == OutputKind::kTable) first_table_ = false;
  return json;
}

std::string WatchStream::EncodeEvent(const api::WatchEvent& ev) {
  if (ev.type == api::EventType::kError) return ErrorEvent(ev.error);
  if (!ev.object) return {};
  if (ev.resource_version > last_rv_) last_rv_ = ev.resource_version;
  events_sent_.Inc();
  if (ev.type == api::EventType::kBookmark) return Bookmark(last_rv_);
  if (!spec_.output.protobuf) return Line(api::EventTypeName(ev.type), ObjectJson(ev.object));
  auto message = spec_.cache->EncodeProtobuf(ev.object);
  if (!message) {
    // Kept verbatim JSON that protobuf cannot carry: end the stream, so the client watches on
    // in JSON from its last resourceVersion.
    failed_ = true;
    return ErrorEvent(Status(
        StatusCode::kNotAcceptable,
        std::string(spec_.resource->resource) + " \"" + ev.object->metadata.name +
            "\" holds fields that cannot be encoded as " + std::string(api::kProtobufContentType) +
            "; watch with Accept: application/json"));
  }
  std::string envelope;
  const api::ServedVersion* served = spec_.cache->served();
  api::AppendProtobufEnvelope(served ? served->view_type : ev.object->type(), *message, envelope);
  std::string out;
  api::AppendProtobufWatchFrame(api::EventTypeName(ev.type), envelope, out);
  return out;
}

std::string WatchStream::ErrorEvent(const Status& status) const {
  if (!spec_.output.protobuf) return Line("ERROR", StatusJson(status));
  std::string envelope;
  api::AppendProtobufStatus(status, envelope);
  std::string out;
  api::AppendProtobufWatchFrame("ERROR", envelope, out);
  return out;
}

std::string WatchStream::Bookmark(uint64_t rv, bool initial_events_end) const {
  const api::TypeInfo& t = *spec_.resource->type;
  if (spec_.output.protobuf) {
    // An object of the kind holding only metadata.resourceVersion (and the annotation).
    std::unique_ptr<api::Object> obj = t.make();
    obj->metadata.resourceVersion = std::to_string(rv);
    if (initial_events_end) obj->metadata.annotations["k8s.io/initial-events-end"] = "true";
    std::string message;
    if (!api::EncodeProtobufMessage(*obj, message)) return {};  // (an empty object always is)
    std::string envelope;
    api::AppendProtobufEnvelope(t, message, envelope);
    std::string out;
    api::AppendProtobufWatchFrame("BOOKMARK", envelope, out);
    return out;
  }
  std::string annotations =
      initial_events_end ? ",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}" : "";
  return Line("BOOKMARK", "{\"kind\":\"" + t.kind + "\",\"apiVersion\":\"" + t.api_version +
                              "\",\"metadata\":{\"resourceVersion\":\"" + std::to_string(rv) +
                              "\"" + annotations + "}}");
}

// --- StreamRegistry ---------------------------------------------------------------------------

void StreamRegistry::Add(const std::shared_ptr<WatchStream>& stream) {
  std::lock_guard<std::mutex> lock(mu_);
  streams_[stream.get()] = stream;
}

void StreamRegistry::Remove(const WatchStream* stream) {
  std::lock_guard<std::mutex> lock(mu_);
  streams_.erase(stream);
}

std::vector<std::shared_ptr<WatchStream>> StreamRegistry::Snapshot() const {
  std::vector<std::shared_ptr<WatchStream>> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [ptr, weak] : streams_) {
    if (auto s = weak.lock()) out.push_back(std::move(s));
  }
  return out;
}

void StreamRegistry::WakeAll() {
  for (const auto& s : Snapshot()) s->Wake();
}

void StreamRegistry::CancelAll() {
  for (const auto& s : Snapshot()) s->Cancel();
}

size_t StreamRegistry::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return streams_.size();
}

}  // namespace allot::apiserver
