#include "scheduler/framework/cycle_state.h"

#include <algorithm>

namespace allot::scheduler {

namespace internal {
int NextStateKeyId() {
  static std::atomic<int> next{0};
  return next.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace internal

std::unique_ptr<CycleState> CycleState::Clone() const {
  auto copy = std::make_unique<CycleState>();
  copy->slots_.resize(slots_.size());
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].value) {
      copy->slots_[i].value = slots_[i].clone(slots_[i].value.get());
      copy->slots_[i].clone = slots_[i].clone;
    }
  }
  copy->node_views_ = node_views_;
  copy->skip_filter = skip_filter;
  copy->skip_score = skip_score;
  return copy;
}

void CycleState::SetNodeView(const NodeInfo* original, std::shared_ptr<const NodeInfo> view) {
  auto it = std::lower_bound(node_views_.begin(), node_views_.end(), original,
                             [](const auto& e, const NodeInfo* n) { return e.first < n; });
  if (it != node_views_.end() && it->first == original) {
    it->second = std::move(view);
  } else {
    node_views_.emplace(it, original, std::move(view));
  }
}

const NodeInfo* CycleState::FindNodeView(const NodeInfo* original) const {
  auto it = std::lower_bound(node_views_.begin(), node_views_.end(), original,
                             [](const auto& e, const NodeInfo* n) { return e.first < n; });
  return it != node_views_.end() && it->first == original ? it->second.get() : original;
}

}  // namespace allot::scheduler
