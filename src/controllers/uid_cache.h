// A bounded set of object uids, oldest evicted first: the resourceclaim controller remembers
// the pods it saw being removed, so a reservedFor entry for one of them can be dropped without
// asking the API server whether the pod still exists (Kubernetes' uidCache, 500 entries).
//
// Thread-safe.
#pragma once

#include <cstddef>
#include <list>
#include <mutex>
#include <string>
#include <unordered_map>

namespace allot::controllers {

class UidCache {
 public:
  explicit UidCache(size_t capacity) : capacity_(capacity) {}

  // Adds `uid` (or makes it the newest); evicts the oldest entry beyond capacity.
  void Add(const std::string& uid);
  bool Has(const std::string& uid) const;
  size_t Size() const;

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  std::list<std::string> order_;  // guarded by mu_: newest first
  std::unordered_map<std::string, std::list<std::string>::iterator> index_;  // guarded by mu_
};

}  // namespace allot::controllers
