// Evaluates a checked expression against one device, with CEL's semantics:
//   * `&&` and `||` are commutative with respect to errors: false && error is false,
//     true || error is true, otherwise the error; all() and exists() absorb errors the same way;
//   * calls are strict (the first argument error is the result); the ternary evaluates one
//     branch; cel.bind values that are errors only matter if the body reads them;
//   * every operation adds to an actual cost counter (cost.h); going over the limit cancels the
//     whole evaluation with "operation cancelled: actual cost limit exceeded" — this error is
//     never absorbed by && or ||.
//
// Thread safety: Evaluate only reads the (immutable) tree; all state is per call.
#pragma once

#include <cstdint>
#include <string_view>

#include "cel/ast.h"
#include "common/status.h"

namespace allot::api {
struct Device;
}  // namespace allot::api

namespace allot::cel {

struct EvalOptions {
  int num_slots = 0;        // from Check()
  uint64_t cost_limit = 0;  // actual cost allowed
};

// The value of `root` for `device` of `driver`. `actual_cost` (optional) receives the cost
// spent, also on failure.
Result<Value> Evaluate(const Expr& root, const EvalOptions& options, const api::Device& device,
                       std::string_view driver, uint64_t* actual_cost = nullptr);

}  // namespace allot::cel
