#include "apiserver/encode_cache.h"

#include "api/codec/codec.h"

namespace allot::apiserver {

std::shared_ptr<const std::string> EncodeCache::Encode(const api::ObjectPtr& obj) {
  const api::Object* key = obj.get();
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(key);
    if (it != entries_.end()) {
      // Same address and still the same live object (not a new one at a reused address).
      if (it->second.object.lock() == obj) {
        ++hits_;
        return it->second.json;
      }
      entries_.erase(it);
    }
    ++misses_;
  }
  auto json = std::make_shared<const std::string>(api::EncodeJson(*obj));
  std::lock_guard<std::mutex> lock(mu_);
  if (entries_.size() >= capacity_) EvictLocked();
  entries_[key] = Entry{obj, json};
  return json;
}

void EncodeCache::EvictLocked() {
  for (auto it = entries_.begin(); it != entries_.end();) {
    it = it->second.object.expired() ? entries_.erase(it) : std::next(it);
  }
  if (entries_.size() >= capacity_ / 2) entries_.clear();
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
