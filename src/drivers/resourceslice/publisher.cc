#include "drivers/resourceslice/publisher.h"

#include <algorithm>

namespace allot::drivers::resourceslice {

namespace {

bool SamePool(const api::ResourceSlice& s, const api::ResourceSlice& desired) {
  return s.spec.pool.name == desired.spec.pool.name;
}

bool IsOurs(const api::ResourceSlice& s, const api::ResourceSlice& desired) {
  return s.metadata.name == desired.metadata.name && SamePool(s, desired) &&
         s.spec.perDeviceNodeSelection.value_or(false) ==
             desired.spec.perDeviceNodeSelection.value_or(false);
}

}  // namespace

PoolPlan PlanPool(const std::vector<const api::ResourceSlice*>& existing,
                  const api::ResourceSlice& desired, const PoolOptions& options) {
  PoolPlan plan;
  const api::ResourceSlice* ours = nullptr;
  for (const api::ResourceSlice* s : existing) {
    if (IsOurs(*s, desired)) {
      ours = s;
      break;
    }
  }
  if (ours == nullptr && options.adopt) {
    for (const api::ResourceSlice* s : existing) {
      if (SamePool(*s, desired)) {
        ours = s;
        break;
      }
    }
  }
  // Above every generation the pool had: a changed or new slice gets newest + 1.
  int64_t newest = options.remembered_generation;
  for (const api::ResourceSlice* s : existing) {
    if (SamePool(*s, desired)) newest = std::max(newest, s->spec.pool.generation);
    if (s == ours) continue;
    SliceWrite del;
    del.kind = SliceWrite::Kind::kDelete;
    del.name = s->metadata.name;
    del.uid = s->metadata.uid;
    plan.writes.push_back(std::move(del));
  }
  auto slice = std::make_unique<api::ResourceSlice>(ours ? *ours : desired);
  slice->spec = desired.spec;
  if (options.metadata) options.metadata(slice->metadata);
  SliceWrite write;
  if (ours == nullptr) {
    slice->spec.pool.generation = newest + 1;
    write.kind = SliceWrite::Kind::kCreate;
  } else {
    slice->spec.pool.generation = ours->spec.pool.generation;
    if (slice->spec != ours->spec) slice->spec.pool.generation = newest + 1;
    if (*slice == *ours) {  // up to date
      plan.generation = slice->spec.pool.generation;
      plan.remember = std::max(newest, plan.generation);
      return plan;
    }
    write.kind = SliceWrite::Kind::kUpdate;
  }
  plan.generation = slice->spec.pool.generation;
  plan.remember = std::max(newest, plan.generation);
  write.slice = std::move(slice);
  plan.writes.push_back(std::move(write));
  return plan;
}

}  // namespace allot::drivers::resourceslice
