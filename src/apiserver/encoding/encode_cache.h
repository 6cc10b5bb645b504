// Shares the encodings of stored objects (JSON, and the protobuf message for clients that ask for
// it) among watchers and lists.
//
// The store hands every watcher the same immutable ObjectPtr for one change, so a hundred
// watches of pods would otherwise encode the same pod a hundred times. The cache is keyed by the
// object's address and guarded against address reuse by a weak_ptr: an entry is valid only
// while that exact object is alive, so a recycled address can never return stale bytes.
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

namespace allot::apiserver {

class EncodeCache {
 public:
  explicit EncodeCache(size_t capacity = 8192) : capacity_(capacity) {}

  // Compact JSON of `obj` (api::EncodeJson), encoded at most once while `obj` lives.
  std::shared_ptr<const std::string> Encode(const api::ObjectPtr& obj);
  // The protobuf message of `obj` (api::EncodeProtobufMessage, no envelope), encoded at most
  // once while `obj` lives; null when `obj` cannot travel as protobuf.
  std::shared_ptr<const std::string> EncodeProtobuf(const api::ObjectPtr& obj);

  size_t hits() const;
  size_t misses() const;

 private:
  struct Entry {
    std::weak_ptr<const api::Object> object;
    std::shared_ptr<const std::string> bytes;  // null: the object has no such encoding
  };
  using Entries = std::unordered_map<const api::Object*, Entry>;
  std::shared_ptr<const std::string> Lookup(
      Entries& entries, const api::ObjectPtr& obj,
      std::shared_ptr<const std::string> (*encode)(const api::Object&));
  void EvictLocked(Entries& entries);

  const size_t capacity_;
  mutable std::mutex mu_;
  Entries entries_;        // JSON; guarded by mu_
  Entries proto_entries_;  // protobuf messages; guarded by mu_
  size_t hits_ = 0;        // guarded by mu_
  size_t misses_ = 0;      // guarded by mu_
};

}  // namespace allot::apiserver
