#include "apiserver/transport/inflight.h"

namespace allot::apiserver {

bool InFlightLimits::TryAcquire(bool mutating) {
  std::atomic<int>& count = mutating ? mutating_ : readonly_;
  const int limit = mutating ? max_mutating_ : max_readonly_;
  if (count.fetch_add(1) >= limit) {
    count.fetch_sub(1);
    return false;
  }
  return true;
}

void InFlightLimits::Release(bool mutating) { (mutating ? mutating_ : readonly_).fetch_sub(1); }

}  // namespace allot::apiserver
