#include "store/watch_impl.h"

namespace allot::store {

std::optional<std::string> FieldValue(const ResourceInfo& r, const Object& obj,
                                      std::string_view field) {
  if (field == "metadata.name") return obj.metadata.name;
  if (field == "metadata.namespace") return obj.metadata.namespace_;
  if (r.field_value) return r.field_value(obj, field);
  return std::nullopt;
}

bool ObjectFilter::Matches(const ResourceInfo& r, const Object& obj) const {
  if (resource && resource != &r) return false;
  if (!namespace_.empty() && obj.metadata.namespace_ != namespace_) return false;
  if (!label_selector.Empty() && !label_selector.Matches(obj.metadata.labels)) return false;
  if (!field_selector.Empty() &&
      !field_selector.Matches([&](std::string_view f) { return FieldValue(r, obj, f); })) {
    return false;
  }
  return true;
}

WatcherImpl::~WatcherImpl() {
  std::lock_guard<std::mutex> lock(mu_);
  UncountLocked(static_cast<int64_t>(queue_.size() + held_.size() + taken_));
}

void WatcherImpl::CountLocked(int64_t n) {
  if (clock_ && n > 0) clock_->BeginWork(n);
}

void WatcherImpl::UncountLocked(int64_t n) {
  if (clock_ && n > 0) clock_->EndWork(n);
}

void WatcherImpl::AcknowledgeLocked() {
  UncountLocked(static_cast<int64_t>(taken_));
  taken_ = 0;
}

bool WatcherImpl::Offer(const ResourceInfo& r, EventType type, const ObjectPtr& obj,
                        const ObjectPtr& prev, uint64_t rv) {
  return Enqueue(r, type, obj, prev, rv, /*replayed=*/false);
}

bool WatcherImpl::OfferReplayed(const ResourceInfo& r, EventType type, const ObjectPtr& obj,
                                const ObjectPtr& prev, uint64_t rv) {
  return Enqueue(r, type, obj, prev, rv, /*replayed=*/true);
}

void WatcherImpl::BeginReplay() {
  std::lock_guard<std::mutex> lock(mu_);
  replaying_ = true;
}

void WatcherImpl::EndReplay() {
  std::lock_guard<std::mutex> lock(mu_);
  replaying_ = false;
  if (ended_) return;
  for (WatchEvent& ev : held_) queue_.push_back(std::move(ev));
  held_.clear();
  if (held_progress_ > progress_) progress_ = held_progress_;
}

bool WatcherImpl::Enqueue(const ResourceInfo& r, EventType type, const ObjectPtr& obj,
                          const ObjectPtr& prev, uint64_t rv, bool replayed) {
  if (filter_.resource && filter_.resource != &r) return false;
  WatchEvent ev;
  ev.resource = &r;
  ev.resource_version = rv;
  switch (type) {
    case EventType::kAdded:
      if (!filter_.Matches(r, *obj)) return false;
      ev.type = EventType::kAdded;
      ev.object = obj;
      break;
    case EventType::kModified: {
      bool now = filter_.Matches(r, *obj);
      bool before = prev && filter_.Matches(r, *prev);
      if (now && before) {
        ev.type = EventType::kModified;
        ev.object = obj;
      } else if (now) {
        ev.type = EventType::kAdded;
        ev.object = obj;
      } else if (before) {
        // The object left the selection: watchers see it deleted, in its last matching state.
        ev.type = EventType::kDeleted;
        ev.object = prev;
      } else {
        return false;
      }
      break;
    }
    case EventType::kDeleted:
      if (!filter_.Matches(r, *obj)) return false;
      ev.type = EventType::kDeleted;
      ev.object = obj;
      break;
    default:
      return false;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (ended_) return false;
  if (queue_.size() + held_.size() >= max_queue_) {
    // Too far behind: end the watch rather than grow without bound. The client re-watches
    // from the last resourceVersion it saw, which the history still holds.
    ended_ = true;
    UncountLocked(static_cast<int64_t>(queue_.size() + held_.size()));
    queue_.clear();
    held_.clear();
    return true;
  }
  CountLocked(1);
  if (replaying_ && !replayed) {
    held_.push_back(std::move(ev));
    if (rv > held_progress_) held_progress_ = rv;
    return false;  // nothing to take yet: EndReplay's caller notifies
  }
  queue_.push_back(std::move(ev));
  progress_ = rv;
  return true;
}

void WatcherImpl::Push(WatchEvent ev) {
  std::lock_guard<std::mutex> lock(mu_);
  if (ended_) return;
  if (ev.resource_version > progress_) progress_ = ev.resource_version;
  queue_.push_back(std::move(ev));
  CountLocked(1);
}

void WatcherImpl::SetProgress(uint64_t rv) {
  std::lock_guard<std::mutex> lock(mu_);
  // While replaying, the replayed events are not all queued: a bookmark must not pass them.
  uint64_t& progress = replaying_ ? held_progress_ : progress_;
  if (rv > progress) progress = rv;
}

void WatcherImpl::Finish() {
  std::lock_guard<std::mutex> lock(mu_);
  ended_ = true;
}

bool WatcherImpl::ended() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ended_;
}

void WatcherImpl::Notify() {
  std::function<void()> fn;
  {
    std::lock_guard<std::mutex> lock(mu_);
    fn = notify_;
  }
  cv_.notify_all();
  if (fn) fn();
}

bool WatcherImpl::Drain(std::vector<WatchEvent>& out) {
  std::lock_guard<std::mutex> lock(mu_);
  AcknowledgeLocked();
  taken_ = queue_.size();
  while (!queue_.empty()) {
    out.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  return !ended_;
}

bool WatcherImpl::WaitNext(WatchEvent& out, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  AcknowledgeLocked();
  cv_.wait_for(lock, timeout, [&] { return !queue_.empty() || ended_; });
  if (queue_.empty()) return false;
  out = std::move(queue_.front());
  queue_.pop_front();
  taken_ = 1;
  return true;
}

void WatcherImpl::SetNotify(std::function<void()> notify) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    notify_ = std::move(notify);
  }
  Notify();
}

uint64_t WatcherImpl::Progress() const {
  std::lock_guard<std::mutex> lock(mu_);
  return progress_;
}

void WatcherImpl::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ended_ = true;
    UncountLocked(static_cast<int64_t>(queue_.size() + taken_));
    taken_ = 0;
    queue_.clear();
    notify_ = nullptr;
  }
  cv_.notify_all();
}

}  // namespace allot::store
