// Watch: initial events, replay from the history, and the handle callers hold (store/store_impl.h).
#include "store/store_impl.h"

namespace allot::store {

// The Watcher handed to callers: stops the watch when dropped.
class WatchHandle final : public Watcher {
 public:
  explicit WatchHandle(std::shared_ptr<WatcherImpl> w) : w_(std::move(w)) {}
  ~WatchHandle() override { w_->Stop(); }
  bool Drain(std::vector<WatchEvent>& out) override { return w_->Drain(out); }
  bool WaitNext(WatchEvent& out, std::chrono::milliseconds timeout) override {
    return w_->WaitNext(out, timeout);
  }
  void SetNotify(std::function<void()> notify) override { w_->SetNotify(std::move(notify)); }
  uint64_t Progress() const override { return w_->Progress(); }
  void Stop() override { w_->Stop(); }

 private:
  std::shared_ptr<WatcherImpl> w_;
};

Result<std::unique_ptr<Watcher>> Store::Impl::Watch(const ResourceInfo* r, WatchOptions opts) {
  ObjectFilter filter{r, opts.namespace_, opts.label_selector, opts.field_selector};
  auto w = std::make_shared<WatcherImpl>(filter, opts.max_queue, &clock_);
  std::vector<History::Taken> replay;  // decoded once the lock is released
  {
    std::unique_lock lock(mu_);
    const uint64_t current = rv_.load();
    if (opts.resource_version == 0) {
      if (opts.send_initial_events) {
        for (const auto& [res, table] : tables_) {
          if (r && res != r) continue;
          for (const auto& [key, obj] : table) {
            if (!filter.Matches(*res, *obj)) continue;
            w->Push(WatchEvent{
                EventType::kAdded, res, obj, ParseRv(obj->metadata.resourceVersion), {}});
          }
        }
      }
    } else if (opts.resource_version < history_.evicted_rv()) {
      WatchEvent ev;
      ev.type = EventType::kError;
      ev.error = Status(StatusCode::kExpired,
                        "too old resource version: " + std::to_string(opts.resource_version) +
                            " (" + std::to_string(history_.evicted_rv() + 1) + ")");
      w->Push(std::move(ev));
      w->Finish();
      return std::unique_ptr<Watcher>(new WatchHandle(w));
    } else {
      replay = history_.EventsAfter(opts.resource_version, r);
      // Changes committed while the replay is decoded queue up behind it.
      if (!replay.empty()) w->BeginReplay();
    }
    w->SetProgress(current);
    watchers_.push_back(w);
  }
  if (!replay.empty()) {
    // The state before a change matters only to selectors (an object may enter or leave the
    // selection); the namespace of an object never changes.
    bool need_prev = !opts.label_selector.Empty() || !opts.field_selector.Empty();
    Status st = History::Read(
        replay, need_prev,
        [&](const ResourceInfo& res, EventType type, const ObjectPtr& obj, const ObjectPtr& prev,
            uint64_t rv) { w->OfferReplayed(res, type, obj, prev, rv); });
    if (!st.ok()) {
      WatchEvent ev;
      ev.type = EventType::kError;
      ev.error = st;
      w->Push(std::move(ev));
      w->Finish();
    }
    w->EndReplay();
    w->Notify();
  }
  return std::unique_ptr<Watcher>(new WatchHandle(w));
}

}  // namespace allot::store
