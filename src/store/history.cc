#include "store/history.h"

#include <cstring>
#include <unordered_set>
#include <utility>

#include "store/encoded_object.h"
#include "store/object_key.h"

namespace allot::store {

using api::EventType;
using api::ObjectPtr;
using api::ResourceInfo;

// One state of an object as events name it: the object itself while it is current (as the
// store's index holds it: an Event is an EncodedObject already), its encoding once retired
// (EncodeForKeeping).
class History::Version {
 public:
  explicit Version(ObjectPtr live) : live_(std::move(live)) {}

  bool live() const { return live_ != nullptr; }
  const api::Object* address() const { return live_.get(); }
  const ObjectPtr& live_object() const { return live_; }
  size_t encoded_size() const { return size_; }

  // Encodes the object (an EncodedObject is kept as it is) and lets go of it.
  void Retire() {
    const EncodedObject* kept = EncodedObject::Of(*live_);
    if (kept) {
      Keep(kept->encoded());
    } else {
      Keep(EncodeForKeeping(*live_));  // the temporary lives until Keep returns
    }
    live_.reset();
  }

  Result<ObjectPtr> Get(const ResourceInfo& r) const {
    if (live_) return Materialize(r, live_);
    return DecodeKept(r, std::string_view(encoded_.get(), size_));
  }

 private:
  void Keep(std::string_view encoded) {
    encoded_ = std::make_unique_for_overwrite<char[]>(encoded.size());
    std::memcpy(encoded_.get(), encoded.data(), encoded.size());
    size_ = static_cast<uint32_t>(encoded.size());
  }

  ObjectPtr live_;
  // The encoding once retired: a block of exactly its size, and no string header (one of these
  // per event in the history: 48 bytes with its control block, not 64).
  std::unique_ptr<char[]> encoded_;
  uint32_t size_ = 0;
};

History::History(size_t capacity) : capacity_(capacity) {}
History::~History() = default;

std::shared_ptr<History::Version> History::VersionOf(const ObjectPtr& obj) {
  if (auto it = live_.find(obj.get()); it != live_.end()) return it->second;
  auto v = std::make_shared<Version>(obj);
  live_.emplace(obj.get(), v);
  return v;
}

History::State History::Take(const std::shared_ptr<Version>& v) {
  if (!v) return {};
  if (v->live()) return {v->live_object(), nullptr};
  return {nullptr, v};
}

Result<ObjectPtr> History::State::Read(const ResourceInfo& resource) const {
  if (live) return Materialize(resource, live);
  return encoded->Get(resource);
}

void History::Retire(const std::shared_ptr<Version>& v) {
  if (!v->live()) return;
  live_.erase(v->address());
  v->Retire();
}

void History::Record(const ResourceInfo& resource, EventType type, const ObjectPtr& object,
                     const ObjectPtr& before, uint64_t rv) {
  std::shared_ptr<Version> prev;
  std::shared_ptr<Version> now;
  if (before) prev = VersionOf(before);
  if (before && object.get() == before.get()) {
    now = prev;  // a write that left the object as it was, or the last state of a deleted one
  } else {
    now = VersionOf(object);
  }
  if (prev && prev != now) Retire(prev);
  if (type == EventType::kDeleted) Retire(now);
  events_.push_back(Event{&resource, type, std::move(now), std::move(prev), rv});
  while (events_.size() > capacity_) Evict();
}

void History::Evict() {
  Event ev = std::move(events_.front());
  events_.pop_front();
  evicted_rv_ = ev.rv;
  // Drops one event's hold on a version: a live one leaves live_ when no other event names it
  // (only events and live_ hold live versions, and both change under the store's exclusive
  // lock); an encoded one is freed with its last holder.
  auto release = [this](std::shared_ptr<Version> v) {
    if (v && v->live() && v.use_count() == 2) live_.erase(v->address());  // this and live_'s
  };
  release(std::move(ev.prev));
  release(std::move(ev.object));
}

void History::Clear(uint64_t evicted_rv) {
  events_.clear();
  live_.clear();
  evicted_rv_ = evicted_rv;
}

size_t History::encoded_bytes() const {
  std::unordered_set<const Version*> counted;
  size_t bytes = 0;
  for (const Event& ev : events_) {
    for (const Version* v : {ev.object.get(), ev.prev.get()}) {
      if (v && !v->live() && counted.insert(v).second) bytes += v->encoded_size();
    }
  }
  return bytes;
}

std::vector<History::Taken> History::EventsAfter(uint64_t rv, const ResourceInfo* resource) const {
  std::vector<Taken> out;
  // Every event is looked at: with a shared backend, what this replica committed and what it
  // followed from the others may be recorded out of resourceVersion order.
  for (const Event& ev : events_) {
    if (ev.rv <= rv || (resource && ev.resource != resource)) continue;
    out.push_back(Taken{ev.resource, ev.type, ev.rv, Take(ev.object), Take(ev.prev)});
  }
  return out;
}

Status History::Read(const std::vector<Taken>& events, bool need_prev, const EventFn& fn) {
  for (const Taken& t : events) {
    ALLOT_ASSIGN_OR_RETURN(ObjectPtr object, t.object.Read(*t.resource));
    ObjectPtr prev;
    if (t.prev.live && !EncodedObject::Of(*t.prev.live)) {
      prev = t.prev.live;  // decoded already: free to pass on
    } else if (t.prev && need_prev) {
      ALLOT_ASSIGN_OR_RETURN(prev, t.prev.Read(*t.resource));
    } else if (t.prev) {
      prev = object;  // stands in: without selectors it matches exactly when `object` does
    }
    fn(*t.resource, t.type, object, prev, t.rv);
  }
  return Status::Ok();
}

Status History::ReplayAfter(uint64_t rv, const ResourceInfo* resource, bool need_prev,
                            const EventFn& fn) const {
  return Read(EventsAfter(rv, resource), need_prev, fn);
}

std::vector<History::TakenUndo> History::UndosAfter(uint64_t rv,
                                                    const ResourceInfo& resource) const {
  std::vector<TakenUndo> out;
  for (auto it = events_.rbegin(); it != events_.rend() && it->rv > rv; ++it) {
    if (it->resource != &resource) continue;
    out.push_back(TakenUndo{Take(it->object), Take(it->prev)});
  }
  return out;
}

Status History::Undo(const std::vector<TakenUndo>& undos, const ResourceInfo& resource,
                     Table& table) {
  for (const TakenUndo& u : undos) {
    if (u.prev) {
      ALLOT_ASSIGN_OR_RETURN(ObjectPtr prev, u.prev.Read(resource));
      std::string key = ObjectKey(resource, prev->metadata.namespace_, prev->metadata.name);
      table[std::move(key)] = std::move(prev);
    } else {
      ALLOT_ASSIGN_OR_RETURN(ObjectPtr object, u.object.Read(resource));
      table.erase(ObjectKey(resource, object->metadata.namespace_, object->metadata.name));
    }
  }
  return Status::Ok();
}

Status History::UndoAfter(uint64_t rv, const ResourceInfo& resource, Table& table) const {
  return Undo(UndosAfter(rv, resource), resource, table);
}

}  // namespace allot::store
