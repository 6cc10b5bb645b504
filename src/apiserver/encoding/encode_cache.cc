#include "apiserver/encoding/encode_cache.h"

#include "api/codec/codec.h"
#include "api/protobuf.h"

namespace allot::apiserver {

std::shared_ptr<const std::string> EncodeCache::Encode(const api::ObjectPtr& obj) {
  return Lookup(entries_, obj, [](const api::Object& o) {
    return std::make_shared<const std::string>(api::EncodeJson(o));
  });
}

std::shared_ptr<const std::string> EncodeCache::EncodeProtobuf(const api::ObjectPtr& obj) {
  return Lookup(proto_entries_, obj,
                [](const api::Object& o) -> std::shared_ptr<const std::string> {
                  std::string message;
                  if (!api::EncodeProtobufMessage(o, message)) return nullptr;
                  return std::make_shared<const std::string>(std::move(message));
                });
}

std::shared_ptr<const std::string> EncodeCache::Lookup(
    Entries& entries, const api::ObjectPtr& obj,
    std::shared_ptr<const std::string> (*encode)(const api::Object&)) {
  const api::Object* key = obj.get();
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries.find(key);
    if (it != entries.end()) {
      // Same address and still the same live object (not a new one at a reused address).
      if (it->second.object.lock() == obj) {
        ++hits_;
        return it->second.bytes;
      }
      entries.erase(it);
    }
    ++misses_;
  }
  auto bytes = encode(*obj);
  std::lock_guard<std::mutex> lock(mu_);
  if (entries.size() >= capacity_) EvictLocked(entries);
  entries[key] = Entry{obj, bytes};
  return bytes;
}

void EncodeCache::EvictLocked(Entries& entries) {
  for (auto it = entries.begin(); it != entries.end();) {
    it = it->second.object.expired() ? entries.erase(it) : std::next(it);
  }
  if (entries.size() >= capacity_ / 2) entries.clear();
}

size_t EncodeCache::hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hits_;
}

size_t EncodeCache::misses() const {
  std::lock_guard<std::mutex> lock(mu_);
  return misses_;
}

}  // namespace allot::apiserver
