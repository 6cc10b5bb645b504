// Which tolerations tolerate a taint: Kubernetes' v1helper.TolerationsTolerateTaint, shared by
// the scheduler's TaintToleration and NodeUnschedulable plugins and the test invariants. Pure.
#pragma once

#include <vector>

#include "api/machinery/meta.h"

namespace allot::api {

// One toleration against one taint: the effect matches (empty tolerates all effects), the key
// matches (empty with Exists tolerates all keys), and the value matches for Equal (the default
// operator); Exists ignores the value.
bool ToleratesTaint(const Toleration& toleration, const Taint& taint);
// Some toleration of `tolerations` tolerates `taint`.
bool TolerationsTolerateTaint(const std::vector<Toleration>& tolerations, const Taint& taint);

}  // namespace allot::api
