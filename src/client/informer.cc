#include "client/informer.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "api/machinery/object_key_view.h"
#include "common/process_stats.h"

namespace allot::client {

namespace {

constexpr int64_t kListPageSize = 500;
constexpr std::chrono::milliseconds kMinBackoff{100};
constexpr std::chrono::milliseconds kMaxBackoff{10000};

// The cache's key for `obj`: views of its own namespace and name (api/machinery/
// object_key_view.h), re-pointed whenever the cache replaces the object.
api::ObjectKeyView KeyViewOf(const Object& obj) {
  return {obj.metadata.namespace_, obj.metadata.name};
}

// Object key -> object. Looked up by key, or by key string; Get() runs in every scheduling
// cycle and builds no key.
using Cache = std::unordered_map<api::ObjectKeyView, ObjectPtr, api::ObjectKeyViewHash,
                                 api::ObjectKeyViewEq>;
using Entry = Cache::value_type;  // a node of the cache: stays put until erased

// Orders entries as their keys.
struct EntryLess {
  bool operator()(const Entry* a, const Entry* b) const {
    return api::ObjectKeyViewLess()(a->first, b->first);
  }
};

// The cache entries of the objects an index holds under one value. Most values name one object
// (a pod's claim, a claim's owning pod), so the first entry is kept inline and a set is made
// only when a second arrives: a value costs 16 bytes here instead of a 48-byte set and its
// 48-byte node. Iteration is in key order either way.
class IndexedEntries {
 public:
  bool empty() const { return !more_ && one_ == nullptr; }

  void Insert(const Entry* e) {
    if (more_) {
      more_->insert(e);
    } else if (one_ == nullptr) {
      one_ = e;
    } else if (one_ != e) {
      more_ = std::make_unique<std::set<const Entry*, EntryLess>>();
      more_->insert(one_);
      more_->insert(e);
      one_ = nullptr;
    }
  }

  void Erase(const Entry* e) {
    if (!more_) {
      if (one_ == e) one_ = nullptr;
      return;
    }
    more_->erase(e);
    if (more_->size() == 1) {
      one_ = *more_->begin();
      more_.reset();
    }
  }

  template <class Fn>
  void ForEach(Fn&& fn) const {
    if (more_) {
      for (const Entry* e : *more_) fn(*e);
    } else if (one_ != nullptr) {
      fn(*one_);
    }
  }

 private:
  const Entry* one_ = nullptr;  // the only entry while more_ is null
  std::unique_ptr<std::set<const Entry*, EntryLess>> more_;
};

bool IsExpired(const Status& st) { return !st.ok() && HttpCode(st.code()) == 410; }

// The watch's wake-up signal. Shared with the watcher's notify callback, which may outlive the
// informer by a moment (a store may call a copy of it after Stop).
struct Signal {
  std::mutex mu;
  std::condition_variable cv;
  bool raised = false;  // guarded by mu

  void Raise() {
    {
      std::lock_guard<std::mutex> lock(mu);
      raised = true;
    }
    cv.notify_all();
  }
};

// One change for the handlers.
struct Delta {
  enum Kind { kAdd, kUpdate, kDelete } kind;
  ObjectPtr old_obj;  // update, delete
  ObjectPtr new_obj;  // add, update
};

}  // namespace

class Informer::Impl {
 public:
  Impl(Client& client, const ResourceInfo& resource, InformerOptions options)
      : client_(client), resource_(resource), options_(std::move(options)) {}

  ~Impl() { Stop(); }

  void AddHandler(EventHandler handler) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      new_handlers_.push_back(std::move(handler));
    }
    signal_->Raise();
  }

  void AddIndex(const std::string& name, IndexFn fn) {
    std::unique_lock lock(cache_mu_);
    Index& index = indexes_[name];
    index.fn = std::move(fn);
    index.by_value.clear();
    for (const Entry& e : cache_) IndexAdd(index, e);
  }

  Status Start() {
    std::lock_guard<std::mutex> lock(mu_);
    if (started_) return Status::Ok();
    ALLOT_ASSIGN_OR_RETURN(label_selector_, api::LabelSelectorExpr::Parse(options_.label_selector));
    ALLOT_ASSIGN_OR_RETURN(field_selector_, api::FieldSelectorExpr::Parse(options_.field_selector));
    started_ = true;
    thread_ = std::thread([this] { Run(); });
    return Status::Ok();
  }

  void Stop() {
    std::shared_ptr<api::Watcher> watcher;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
      watcher = watcher_;
    }
    if (watcher) watcher->Stop();
    {
      std::lock_guard<std::mutex> lock(rv_mu_);
      rv_stopped_ = true;
    }
    rv_cv_.notify_all();
    signal_->Raise();
    sync_cv_.notify_all();
    if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
  }

  bool WaitForSync(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return sync_cv_.wait_for(lock, timeout, [&] { return synced_ || stopping_; }) && synced_;
  }

  bool HasSynced() const {
    std::lock_guard<std::mutex> lock(mu_);
    return synced_;
  }

  const ResourceInfo& resource() const { return resource_; }

  Status LastListError() const {
    std::lock_guard<std::mutex> lock(mu_);
    return last_list_error_;
  }

  ObjectPtr Get(std::string_view ns, std::string_view name) const {
    std::shared_lock lock(cache_mu_);
    auto it = cache_.find(api::ObjectKeyView{resource_.namespaced ? ns : std::string_view(), name});
    return it == cache_.end() ? nullptr : it->second;
  }

  std::vector<ObjectPtr> List() const {
    std::shared_lock lock(cache_mu_);
    std::vector<ObjectPtr> out;
    out.reserve(cache_.size());
    for (const auto& [key, obj] : cache_) out.push_back(obj);
    lock.unlock();
    std::sort(out.begin(), out.end(), [](const ObjectPtr& a, const ObjectPtr& b) {
      return std::tie(a->metadata.namespace_, a->metadata.name) <
             std::tie(b->metadata.namespace_, b->metadata.name);
    });
    return out;
  }

  std::vector<ObjectPtr> ByIndex(const std::string& index, const std::string& value) const {
    std::shared_lock lock(cache_mu_);
    std::vector<ObjectPtr> out;
    auto i = indexes_.find(index);
    if (i == indexes_.end()) return out;
    auto v = i->second.by_value.find(value);
    if (v == i->second.by_value.end()) return out;
    v->second.ForEach([&](const Entry& e) { out.push_back(e.second); });
    return out;
  }

  uint64_t LastResourceVersion() const { return last_rv_.load(); }

  bool WaitForResourceVersion(uint64_t rv, std::chrono::milliseconds timeout) const {
    std::unique_lock<std::mutex> lock(rv_mu_);
    return rv_cv_.wait_for(lock, timeout, [&] { return last_rv_.load() >= rv || rv_stopped_; }) &&
           last_rv_.load() >= rv;
  }

 private:
  struct Index {
    IndexFn fn;
    // Index value -> the cache entries of the objects that have it (an entry stays put until
    // it is erased, and leaves the index before).
    std::unordered_map<std::string, IndexedEntries> by_value;
  };
  enum class WatchEnd { kResume, kRetry, kRelist };

  // --- the informer thread ---

  void Run() {
    NameThisThread("inf-" + resource_.resource);
    std::chrono::milliseconds backoff = kMinBackoff;
    bool need_list = true;
    while (!Stopping()) {
      if (need_list) {
        Status st = Relist();
        {
          std::lock_guard<std::mutex> lock(mu_);
          last_list_error_ = st;
        }
        if (!st.ok()) {
          Backoff(backoff);
          continue;
        }
        need_list = false;
      }
      switch (WatchOnce()) {
        case WatchEnd::kResume:
          backoff = kMinBackoff;
          break;
        case WatchEnd::kRetry:
          Backoff(backoff);
          break;
        case WatchEnd::kRelist:
          need_list = true;
          break;
      }
    }
  }

  // Lists every page at one resourceVersion, replaces the cache and delivers the difference.
  Status Relist() {
    std::map<std::string, ObjectPtr, std::less<>> fresh;
    uint64_t rv = 0;
    api::ListOptions opts;
    opts.namespace_ = options_.namespace_;
    opts.label_selector = label_selector_;
    opts.field_selector = field_selector_;
    opts.limit = kListPageSize;
    do {
      ALLOT_ASSIGN_OR_RETURN(api::ListResult page, client_.List(resource_, opts));
      if (opts.continue_token.empty()) rv = page.resource_version;
      for (ObjectPtr& obj : page.items) {
        std::string key = KeyViewOf(*obj).str();  // as Replace names the cache's keys
        fresh.emplace(std::move(key), std::move(obj));
      }
      opts.continue_token = std::move(page.continue_token);
    } while (!opts.continue_token.empty() && !Stopping());
    if (Stopping()) return Status(StatusCode::kServiceUnavailable, "informer stopped");
    AdoptNewHandlers();
    Deliver(Replace(std::move(fresh)));
    last_rv_.store(rv);  // may move back: a relist starts over from the list's snapshot
    { std::lock_guard<std::mutex> lock(rv_mu_); }
    rv_cv_.notify_all();
    return Status::Ok();
  }

  // Makes `fresh` the cache. Objects whose resourceVersion did not change keep their old value.
  std::vector<Delta> Replace(std::map<std::string, ObjectPtr, std::less<>> fresh) {
    std::vector<Delta> deltas;
    std::vector<std::pair<api::ObjectKeyView, ObjectPtr>> gone;
    std::unique_lock lock(cache_mu_);
    for (auto& [key, obj] : fresh) {
      auto old = cache_.find(std::string_view(key));
      if (old == cache_.end()) {
        deltas.push_back({Delta::kAdd, nullptr, obj});
      } else if (old->second->metadata.resourceVersion != obj->metadata.resourceVersion) {
        deltas.push_back({Delta::kUpdate, old->second, obj});
      } else {
        obj = old->second;
      }
    }
    for (const auto& [key, obj] : cache_) {
      if (!fresh.count(key.str())) gone.emplace_back(key, obj);
    }
    // Deltas in key order, as the adds.
    std::sort(gone.begin(), gone.end(), [](const auto& a, const auto& b) {
      return api::ObjectKeyViewLess()(a.first, b.first);
    });
    for (auto& [key, obj] : gone) deltas.push_back({Delta::kDelete, std::move(obj), nullptr});
    gone.clear();
    Cache next;
    next.reserve(fresh.size());
    for (auto& [key, obj] : fresh) next.emplace(KeyViewOf(*obj), std::move(obj));
    for (auto& [name, index] : indexes_) index.by_value.clear();  // before the entries go
    cache_ = std::move(next);
    for (auto& [name, index] : indexes_) {
      for (const Entry& e : cache_) IndexAdd(index, e);
    }
    return deltas;
  }

  WatchEnd WatchOnce() {
    api::WatchOptions opts;
    opts.namespace_ = options_.namespace_;
    opts.label_selector = label_selector_;
    opts.field_selector = field_selector_;
    opts.resource_version = last_rv_.load();
    auto opened = client_.Watch(resource_, opts);
    if (!opened.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      if (!synced_) last_list_error_ = opened.status();  // why it is not in sync yet
      return IsExpired(opened.status()) ? WatchEnd::kRelist : WatchEnd::kRetry;
    }
    std::shared_ptr<api::Watcher> watcher = std::move(opened).value();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return WatchEnd::kResume;
      watcher_ = watcher;
    }
    MarkSynced();  // listed and watching (informer.h WaitForSync); a no-op after the first time
    std::weak_ptr<Signal> signal = signal_;
    watcher->SetNotify([signal] {
      if (auto s = signal.lock()) s->Raise();
    });
    WatchEnd end = Consume(*watcher);
    watcher->Stop();
    std::lock_guard<std::mutex> lock(mu_);
    watcher_.reset();
    return end;
  }

  // Applies the watch's events until it ends.
  WatchEnd Consume(api::Watcher& watcher) {
    std::vector<api::WatchEvent> batch;
    while (!Stopping()) {
      // Progress first: every event up to it is then in the batch, unless the watch ended
      // (a stopped or overflowing watcher drops what it held).
      const uint64_t progress = watcher.Progress();
      const bool alive = watcher.Drain(batch);
      AdoptNewHandlers();
      for (api::WatchEvent& ev : batch) {
        if (ev.type == api::EventType::kError) {
          return IsExpired(ev.error) ? WatchEnd::kRelist : WatchEnd::kRetry;
        }
        Apply(ev);
      }
      const bool took = !batch.empty();
      batch.clear();
      if (!alive) return WatchEnd::kResume;
      AdvanceRv(progress);
      // Sleep only after a Drain found nothing: that Drain tells the watch we handled the last
      // batch (work in flight, api/machinery/watch.h).
      if (!took) WaitForSignal();
    }
    return WatchEnd::kResume;
  }

  void Apply(const api::WatchEvent& ev) {
    if (ev.type == api::EventType::kBookmark || !ev.object) {
      AdvanceRv(ev.resource_version);
      return;
    }
    Delta delta;
    {
      std::unique_lock lock(cache_mu_);
      auto it = cache_.find(KeyViewOf(*ev.object));
      ObjectPtr old = it == cache_.end() ? nullptr : it->second;
      if (ev.type == api::EventType::kDeleted) {
        if (!old) {
          lock.unlock();
          AdvanceRv(ev.resource_version);
          return;
        }
        for (auto& [name, index] : indexes_) IndexRemove(index, *it);
        cache_.erase(it);
        delta = {Delta::kDelete, old, nullptr};
      } else {
        if (old) {
          for (auto& [name, index] : indexes_) IndexUpdate(index, *it, *ev.object);
          it->second = ev.object;
          // The key views the new object; `old` may be freed once the handlers have it.
          it->first.ns = ev.object->metadata.namespace_;
          it->first.name = ev.object->metadata.name;
        } else {
          it = cache_.emplace(KeyViewOf(*ev.object), ev.object).first;
          for (auto& [name, index] : indexes_) IndexAdd(index, *it);
        }
        delta =
            old ? Delta{Delta::kUpdate, old, ev.object} : Delta{Delta::kAdd, nullptr, ev.object};
      }
    }
    AdvanceRv(ev.resource_version);
    Deliver(delta);
  }

  void Deliver(const std::vector<Delta>& deltas) {
    for (const Delta& d : deltas) Deliver(d);
  }

  void Deliver(const Delta& d) {
    for (const EventHandler& h : handlers_) Call(h, d);
  }

  static void Call(const EventHandler& h, const Delta& d) {
    switch (d.kind) {
      case Delta::kAdd:
        if (h.on_add) h.on_add(d.new_obj);
        break;
      case Delta::kUpdate:
        if (h.on_update) h.on_update(d.old_obj, d.new_obj);
        break;
      case Delta::kDelete:
        if (h.on_delete) h.on_delete(d.old_obj);
        break;
    }
  }

  // Handlers added since the last call join, after seeing the cache as adds.
  void AdoptNewHandlers() {
    std::vector<EventHandler> adopted;
    {
      std::lock_guard<std::mutex> lock(mu_);
      adopted.swap(new_handlers_);
    }
    if (adopted.empty()) return;
    std::vector<ObjectPtr> current = List();
    for (EventHandler& h : adopted) {
      for (const ObjectPtr& obj : current) Call(h, {Delta::kAdd, nullptr, obj});
      handlers_.push_back(std::move(h));
    }
  }

  void AdvanceRv(uint64_t rv) {
    uint64_t cur = last_rv_.load();
    while (rv > cur) {
      if (last_rv_.compare_exchange_weak(cur, rv)) {
        { std::lock_guard<std::mutex> lock(rv_mu_); }
        rv_cv_.notify_all();
        return;
      }
    }
  }

  void MarkSynced() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!synced_) last_list_error_ = Status::Ok();  // a failed first watch is behind us
      synced_ = true;
    }
    sync_cv_.notify_all();
  }

  bool Stopping() const {
    std::lock_guard<std::mutex> lock(mu_);
    return stopping_;
  }

  // Waits for the watcher's notification, a new handler or Stop.
  void WaitForSignal() {
    std::unique_lock<std::mutex> lock(signal_->mu);
    signal_->cv.wait(lock, [&] { return signal_->raised; });
    signal_->raised = false;
  }

  void Backoff(std::chrono::milliseconds& delay) {
    std::unique_lock<std::mutex> lock(mu_);
    sync_cv_.wait_for(lock, delay, [&] { return stopping_; });
    delay = std::min(delay * 2, kMaxBackoff);
  }

  // `e` is the cache's entry of an object (the index keeps a pointer to it).
  static void IndexAdd(Index& index, const Entry& e) {
    for (std::string& v : index.fn(*e.second)) index.by_value[std::move(v)].Insert(&e);
  }

  static void IndexRemove(Index& index, const Entry& e) {
    RemoveValues(index, e, index.fn(*e.second));
  }

  static void RemoveValues(Index& index, const Entry& e, const std::vector<std::string>& values) {
    for (const std::string& v : values) {
      auto it = index.by_value.find(v);
      if (it == index.by_value.end()) continue;
      it->second.Erase(&e);
      if (it->second.empty()) index.by_value.erase(it);
    }
  }

  // The entry `e` changes from the object it holds to `now`. Most updates leave the indexed
  // values as they were (a pod's status, its binding), and then nothing is touched.
  static void IndexUpdate(Index& index, const Entry& e, const Object& now) {
    std::vector<std::string> before = index.fn(*e.second);
    std::vector<std::string> after = index.fn(now);
    if (before == after) return;
    RemoveValues(index, e, before);
    for (std::string& v : after) index.by_value[std::move(v)].Insert(&e);
  }

  Client& client_;
  const ResourceInfo& resource_;
  const InformerOptions options_;
  // Parsed by Start(), then read only by the informer thread.
  api::LabelSelectorExpr label_selector_;
  api::FieldSelectorExpr field_selector_;

  // The cache and its indexes: written by the informer thread, read by anyone.
  mutable std::shared_mutex cache_mu_;
  Cache cache_;                           // guarded by cache_mu_
  std::map<std::string, Index> indexes_;  // guarded by cache_mu_

  // Lock order: mu_ before signal_->mu; cache_mu_ is never held with either.
  mutable std::mutex mu_;
  std::condition_variable sync_cv_;         // synced_ or stopping_ changed
  std::vector<EventHandler> new_handlers_;  // guarded by mu_
  std::shared_ptr<api::Watcher> watcher_;   // the open watch; guarded by mu_
  bool started_ = false;                    // guarded by mu_
  bool stopping_ = false;                   // guarded by mu_
  bool synced_ = false;                     // guarded by mu_
  Status last_list_error_;                  // guarded by mu_
  std::thread thread_;

  std::vector<EventHandler> handlers_;  // informer thread only
  const std::shared_ptr<Signal> signal_ = std::make_shared<Signal>();
  std::atomic<uint64_t> last_rv_{0};
  // Signals last_rv_ changes to WaitForResourceVersion.
  mutable std::mutex rv_mu_;
  mutable std::condition_variable rv_cv_;
  bool rv_stopped_ = false;  // guarded by rv_mu_
};

Informer::Informer(Client& client, const ResourceInfo& resource, InformerOptions options)
    : impl_(std::make_unique<Impl>(client, resource, std::move(options))) {}

Informer::~Informer() = default;

void Informer::AddHandler(EventHandler handler) { impl_->AddHandler(std::move(handler)); }
void Informer::AddIndex(const std::string& name, IndexFn fn) {
  impl_->AddIndex(name, std::move(fn));
}
Status Informer::Start() { return impl_->Start(); }
void Informer::Stop() { impl_->Stop(); }
bool Informer::WaitForSync(std::chrono::milliseconds timeout) {
  return impl_->WaitForSync(timeout);
}
bool Informer::HasSynced() const { return impl_->HasSynced(); }
ObjectPtr Informer::Get(std::string_view ns, std::string_view name) const {
  return impl_->Get(ns, name);
}
std::vector<ObjectPtr> Informer::List() const { return impl_->List(); }
Status Informer::LastListError() const { return impl_->LastListError(); }
const ResourceInfo& Informer::resource() const { return impl_->resource(); }
std::vector<ObjectPtr> Informer::ByIndex(const std::string& index, const std::string& value) const {
  return impl_->ByIndex(index, value);
}
uint64_t Informer::LastResourceVersion() const { return impl_->LastResourceVersion(); }
bool Informer::WaitForResourceVersion(uint64_t rv, std::chrono::milliseconds timeout) const {
  return impl_->WaitForResourceVersion(rv, timeout);
}

}  // namespace allot::client
