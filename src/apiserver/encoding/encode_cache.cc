#include "apiserver/encoding/encode_cache.h"

#include "api/codec/codec.h"
#include "api/protobuf.h"
#include "apiserver/encoding/served_version.h"

namespace allot::apiserver {

std::shared_ptr<const std::string> EncodeCache::Encode(const api::ObjectPtr& obj) {
  if (served_) {
    return Lookup(entries_, obj, served_, [](const api::Object& o, const api::ServedVersion* sv) {
      return std::make_shared<const std::string>(FromStorageJson(api::EncodeJson(o), *sv));
    });
  }
  return Lookup(entries_, obj, nullptr, [](const api::Object& o, const api::ServedVersion*) {
    return std::make_shared<const std::string>(api::EncodeJson(o));
  });
}

std::shared_ptr<const std::string> EncodeCache::EncodeProtobuf(const api::ObjectPtr& obj) {
  // A served version of the stored shape uses the stored kind's messages, encoded (and cached)
  // once, by the stored version's cache; one of another shape, its own, from its JSON.
  if (served_ && served_->same_shape) return parent_->EncodeProtobuf(obj);
  if (served_) {
    if (served_->protobuf_message.empty()) return nullptr;
    return Lookup(proto_entries_, obj, served_,
                  [](const api::Object& o,
                     const api::ServedVersion* sv) -> std::shared_ptr<const std::string> {
                    std::string message;
                    if (!ServedProtobufMessage(api::EncodeJson(o), *sv, message)) return nullptr;
                    return std::make_shared<const std::string>(std::move(message));
                  });
  }
  return Lookup(proto_entries_, obj, nullptr,
                [](const api::Object& o,
                   const api::ServedVersion*) -> std::shared_ptr<const std::string> {
                  std::string message;
                  if (!api::EncodeProtobufMessage(o, message)) return nullptr;
                  return std::make_shared<const std::string>(std::move(message));
                });
}

std::string EncodeCache::EncodeOnce(const api::Object& obj) const {
  if (served_) return FromStorageJson(api::EncodeJson(obj), *served_);
  return api::EncodeJson(obj);
}

EncodeCache& EncodeCache::For(const api::ServedVersion* served) {
  if (!served) return *this;
  std::lock_guard<std::mutex> lock(mu_);
  std::unique_ptr<EncodeCache>& child = children_[served];
  if (!child) child = std::make_unique<EncodeCache>(capacity_, served, this);
  return *child;
}

std::shared_ptr<const std::string> EncodeCache::Lookup(
    Entries& entries, const api::ObjectPtr& obj, const api::ServedVersion* served,
    std::shared_ptr<const std::string> (*encode)(const api::Object&, const api::ServedVersion*)) {
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
  auto bytes = encode(*obj, served);
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
