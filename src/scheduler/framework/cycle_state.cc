#include "scheduler/framework/cycle_state.h"

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
  copy->skip_filter = skip_filter;
  copy->skip_score = skip_score;
  return copy;
}

}  // namespace allot::scheduler
