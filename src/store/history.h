// History: the store's bounded record of committed change events, for watches that resume at
// a resourceVersion and for lists at an exact older one (docs/store.md, "History").
//
// Each event names the object's state after the change and the state before it. A state that
// is still current is the very object the store's index holds, so the history costs nothing
// extra for it. Once a newer version replaces it (or the object is deleted), the history keeps
// it encoded instead: Kubernetes' protobuf message where the kind has one and the object fits
// it, else JSON (the pod of bench/store_bench.cc encodes to 405 bytes; sizeof(api::Pod) alone
// is 2,200). Reading an old state back decodes it, which only resumed watches and exact lists
// do.
//
// Thread safety: none of its own. The store calls Record and Clear under its exclusive lock,
// and the readers under at least its shared lock.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include "api/machinery/object.h"
#include "api/machinery/resources.h"
#include "api/machinery/watch.h"
#include "common/status.h"

namespace allot::store {

class History {
 public:
  class Version;  // one state of an object: live, or encoded (history.cc)
  // Keeps at most `capacity` events; older ones are evicted (watches from before them get 410).
  explicit History(size_t capacity);
  ~History();
  History(const History&) = delete;
  History& operator=(const History&) = delete;

  // Records a committed change of an object of `resource` at `rv`. `object`: the state after
  // it (for DELETED, the last state); `before`: what the index held until now (null for
  // ADDED). `before` leaves the live set here, so the history encodes it. The event keeps no
  // key of its own (32 bytes and a heap block in each of 100,000 events): the object's
  // states name it. An undo reads the state before anyway; undoing an ADDED event decodes the
  // state after it only for its name, which only exact lists at an older revision pay.
  void Record(const api::ResourceInfo& resource, api::EventType type, const api::ObjectPtr& object,
              const api::ObjectPtr& before, uint64_t rv);

  // Forgets every event; watches and lists at or below `evicted_rv` get 410 from now on.
  void Clear(uint64_t evicted_rv);

  // The highest resourceVersion no longer covered (0: nothing was evicted).
  uint64_t evicted_rv() const { return evicted_rv_; }
  size_t size() const { return events_.size(); }
  // Bytes the events' encoded states hold (for tests and benchmarks: it walks every event).
  size_t encoded_bytes() const;

  // Calls `fn(resource, type, object, prev, rv)` for each event after `rv` of `resource` (null:
  // every resource), in the order recorded. `prev` is null for ADDED. It is decoded only with
  // `need_prev` (a watch with selectors, for which an object may enter or leave the selection);
  // without, `object` stands in for it, since then an earlier state of the object matches
  // exactly when `object` does. A state that cannot be decoded (a bug: it was encoded here)
  // stops the walk with its error. EventsAfter + Read in one step.
  using EventFn =
      std::function<void(const api::ResourceInfo&, api::EventType, const api::ObjectPtr& object,
                         const api::ObjectPtr& prev, uint64_t rv)>;
  Status ReplayAfter(uint64_t rv, const api::ResourceInfo* resource, bool need_prev,
                     const EventFn& fn) const;

  // A state taken under the store's lock, to be read without it: the object itself if it was
  // still current, else its encoding by reference (an encoded state never changes again).
  struct State {
    api::ObjectPtr live;
    std::shared_ptr<const Version> encoded;
    explicit operator bool() const { return live || encoded; }
    // The object; decodes an encoded state. Call only when set.
    Result<api::ObjectPtr> Read(const api::ResourceInfo& resource) const;
  };

  // The same in two steps, so that the decoding runs outside the store's lock: EventsAfter
  // takes the events under it, Read decodes and calls `fn` without it.
  struct Taken {
    const api::ResourceInfo* resource;
    api::EventType type;
    uint64_t rv;
    State object, prev;  // prev unset for ADDED
  };
  std::vector<Taken> EventsAfter(uint64_t rv, const api::ResourceInfo* resource) const;
  static Status Read(const std::vector<Taken>& events, bool need_prev, const EventFn& fn);

  // Undoes, newest first, the events of `resource` after `rv` on `table` (key -> object): the
  // table then holds the state as of `rv`. UndosAfter + Undo in one step.
  using Table = std::map<std::string, api::ObjectPtr>;
  Status UndoAfter(uint64_t rv, const api::ResourceInfo& resource, Table& table) const;

  // The same in two steps, as for replays: UndosAfter under the store's lock, Undo (which
  // decodes) without it.
  struct TakenUndo {
    State object;  // the state after the change: names the object when prev is unset
    State prev;    // unset: the object was not there
  };
  std::vector<TakenUndo> UndosAfter(uint64_t rv, const api::ResourceInfo& resource) const;
  static Status Undo(const std::vector<TakenUndo>& undos, const api::ResourceInfo& resource,
                     Table& table);

 private:
  struct Event {
    const api::ResourceInfo* resource;
    api::EventType type;
    std::shared_ptr<Version> object;
    std::shared_ptr<Version> prev;  // null for ADDED
    uint64_t rv;
  };
  // What a reader outside the lock may keep of `v` (unset for null).
  static State Take(const std::shared_ptr<Version>& v);
  // The history's live version of `obj`, made (and remembered in live_) if it has none.
  std::shared_ptr<Version> VersionOf(const api::ObjectPtr& obj);
  void Retire(const std::shared_ptr<Version>& v);
  void Evict();

  size_t capacity_;
  std::deque<Event> events_;
  uint64_t evicted_rv_ = 0;
  // Live versions the events share, by the object's address: the next change of that object
  // finds its version here and retires it. An entry lives while the object is current and
  // some event names it.
  std::unordered_map<const api::Object*, std::shared_ptr<Version>> live_;
};

}  // namespace allot::store
