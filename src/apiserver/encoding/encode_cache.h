// Shares the encodings of stored objects (JSON, and the protobuf message for clients that ask for
// it) among watchers and lists.
//
// The store hands every watcher the same immutable ObjectPtr for one change, so a hundred
// watches of pods would otherwise encode the same pod a hundred times. The cache is keyed by the
// object's address and guarded against address reuse by a weak_ptr: an entry is valid only
// while that exact object is alive, so a recycled address can never return stale bytes.
//
// One cache encodes in the stored versions; For(served) is the cache of a served version
// (resource.k8s.io/v1beta2, events.k8s.io/v1: api/machinery/resources.h ServedVersion), whose
// JSON is the stored JSON converted, and which has no protobuf (served versions travel as JSON).
//
// Thread-safe. Bounded: when full, dead entries are dropped, and if that is not enough the
// whole cache is cleared (objects are re-encoded on the next miss; correctness never depends
// on a hit).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "api/machinery/object.h"
#include "api/machinery/resources.h"

namespace allot::apiserver {

class EncodeCache {
 public:
  explicit EncodeCache(size_t capacity = 8192) : EncodeCache(capacity, nullptr, nullptr) {}
  // A served version's cache, made by For(); `parent` is the stored versions' cache.
  EncodeCache(size_t capacity, const api::ServedVersion* served, EncodeCache* parent)
      : capacity_(capacity), served_(served), parent_(parent) {}

  // Compact JSON of `obj` (api::EncodeJson, converted to the served version), encoded at most
  // once while `obj` lives.
  std::shared_ptr<const std::string> Encode(const api::ObjectPtr& obj);
  // The protobuf message of `obj` (api::EncodeProtobufMessage, no envelope), encoded at most
  // once while `obj` lives; null when `obj` cannot travel as protobuf (or in a served version of
  // another shape; one of the stored shape shares the stored versions' messages).
  std::shared_ptr<const std::string> EncodeProtobuf(const api::ObjectPtr& obj);

  // The JSON of an object answered once (a get, a write's result), in this cache's version,
  // without keeping it.
  std::string EncodeOnce(const api::Object& obj) const;

  // The cache for objects shown in `served` (this one when null), made on first use and kept.
  EncodeCache& For(const api::ServedVersion* served);
  // The served version this cache converts to; null for the stored versions.
  const api::ServedVersion* served() const { return served_; }

  size_t hits() const;
  size_t misses() const;

 private:
  struct Entry {
    std::weak_ptr<const api::Object> object;
    std::shared_ptr<const std::string> bytes;  // null: the object has no such encoding
  };
  using Entries = std::unordered_map<const api::Object*, Entry>;
  std::shared_ptr<const std::string> Lookup(
      Entries& entries, const api::ObjectPtr& obj, const api::ServedVersion* served,
      std::shared_ptr<const std::string> (*encode)(const api::Object&,
                                                   const api::ServedVersion*));
  void EvictLocked(Entries& entries);

  const size_t capacity_;
  const api::ServedVersion* const served_;
  EncodeCache* const parent_;
  mutable std::mutex mu_;
  std::unordered_map<const api::ServedVersion*, std::unique_ptr<EncodeCache>> children_;  // mu_
  Entries entries_;        // JSON; guarded by mu_
  Entries proto_entries_;  // protobuf messages; guarded by mu_
  size_t hits_ = 0;        // guarded by mu_
  size_t misses_ = 0;      // guarded by mu_
};

}  // namespace allot::apiserver
