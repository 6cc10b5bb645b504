// Cost accounting in cel-go's units, shared by the compile-time estimate and the runtime
// counter so that both agree on what an operation costs.
//
// Units (cel-go style): 1 per identifier, field selection, index and plain function call;
// string operations add 1 per 10 bytes traversed (0.1 per byte); list operations add 1 per
// element; creating a list literal costs 10, a map literal 30; a comprehension costs its range
// plus, per iteration, 1 plus its body. Constants are free.
//
// The estimator (EstimateCost) assumes, like Kubernetes' DRA size estimator: attribute string
// values <= 64 bytes, domains <= 63 bytes, ids <= 32 bytes, driver <= 63 bytes, and at most 32
// attributes (and 32 capacities) per device; literals have their actual sizes; results of
// string/list functions are bounded from their inputs. Unknown sizes count as unbounded, so an
// expression whose cost cannot be bounded exceeds any limit.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <limits>
#include <span>

namespace allot::cel {

struct Expr;

inline constexpr uint64_t kUnbounded = std::numeric_limits<uint64_t>::max();

// How a function's cost depends on the sizes of its arguments (see CostSize in value.h: the
// bytes of a string, the entries of a list or map, 0 for scalars).
enum class CostModel : uint8_t {
  kOne,         // 1
  kCompare,     // 1 + 0.1 * min(size a0, size a1)   (==, <, ...)
  kStringScan,  // 1 + 0.1 * (sum of sizes)          (contains, lowerAscii, concat, ...)
  kLinear,      // 1 + size a0 + size a1 + ...       (sum, indexOf, list concat, in, split)
  kProduct,     // 1 + size a0 * size a1             (sets.contains, ...)
  kRegex,       // (1 + 0.1 * size a0) * (1 + 0.25 * size a1)
};

inline constexpr uint64_t kListCreateCost = 10;
inline constexpr uint64_t kMapCreateCost = 30;

uint64_t SatAdd(uint64_t a, uint64_t b);
uint64_t SatMul(uint64_t a, uint64_t b);

// The cost of one call with arguments of the given sizes.
uint64_t CallCost(CostModel model, std::span<const uint64_t> sizes);

// The estimated worst-case cost of a checked expression (the annotated AST).
uint64_t EstimateCost(const Expr& root);

}  // namespace allot::cel
