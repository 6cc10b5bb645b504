#include "controllers/uid_cache.h"

namespace allot::controllers {

void UidCache::Add(const std::string& uid) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(uid);
  if (it != index_.end()) {
    order_.splice(order_.begin(), order_, it->second);
    return;
  }
  order_.push_front(uid);
  index_.emplace(uid, order_.begin());
  while (order_.size() > capacity_) {
    index_.erase(order_.back());
    order_.pop_back();
  }
}

bool UidCache::Has(const std::string& uid) const {
  std::lock_guard<std::mutex> lock(mu_);
  return index_.count(uid) > 0;
}

size_t UidCache::Size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return order_.size();
}

}  // namespace allot::controllers
