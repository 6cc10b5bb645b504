// PrioritySort: QueueSort: higher spec.priority first, then the earlier queue timestamp
// (kube-scheduler's PrioritySort).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "scheduler/framework/interface.h"
#include "scheduler/plugins/names.h"

namespace allot::scheduler {

class PrioritySort final : public QueueSortPlugin {
 public:
  std::string_view Name() const override { return names::kPrioritySort; }
  bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const override;
};

}  // namespace allot::scheduler
