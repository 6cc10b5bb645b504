#include "api/core/taints.h"

namespace allot::api {

bool ToleratesTaint(const Toleration& t, const Taint& taint) {
  if (!t.effect.empty() && t.effect != taint.effect) return false;
  if (!t.key.empty() && t.key != taint.key) return false;
  if (t.operator_.empty() || t.operator_ == "Equal") return t.value == taint.value;
  return t.operator_ == "Exists";
}

bool TolerationsTolerateTaint(const std::vector<Toleration>& tolerations, const Taint& taint) {
  for (const Toleration& t : tolerations) {
    if (ToleratesTaint(t, taint)) return true;
  }
  return false;
}

}  // namespace allot::api
