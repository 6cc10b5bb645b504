// Snapshot: the cluster as one scheduling cycle sees it. Taken from the Cache at the start of
// every cycle (Cache::UpdateSnapshot), incrementally: only NodeInfos whose generation is newer
// than the snapshot's are copied.
//
// Thread safety: owned and updated by the scheduling thread; Filter / Score plugins read it
// concurrently during a cycle, when nobody writes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/framework/types.h"

namespace allot::scheduler {

class Snapshot {
 public:
  Snapshot() = default;
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

  // Nodes that have a Node object, in a stable order (the cache's insertion order).
  const std::vector<const NodeInfo*>& nodes() const { return list_; }
  size_t NumNodes() const { return list_.size(); }
  // nullptr when unknown or when only pods are known for that name.
  const NodeInfo* Get(std::string_view name) const;
  // The largest NodeInfo generation this snapshot reflects.
  int64_t generation() const { return generation_; }

  // For tests and simulators: a snapshot straight from nodes and pods (each pod's nodeName
  // says where it runs).
  static std::unique_ptr<Snapshot> FromObjects(
      const std::vector<std::shared_ptr<const api::Node>>& nodes,
      const std::vector<std::shared_ptr<const api::Pod>>& pods);

 private:
  friend class Cache;
  std::map<std::string, std::unique_ptr<NodeInfo>, std::less<>> map_;
  std::vector<const NodeInfo*> list_;
  int64_t generation_ = 0;
};

}  // namespace allot::scheduler
