// The function library of the DRA selector environment: every function and operator the
// checker can resolve, with its overloads (signature, implementation, cost model).
//
// Operators use cel-go's internal names ("_+_", "_==_", "@in", "_[_]", "-_", "!_"), so that
// checker messages match cel-go: "found no matching overload for '_<_' applied to
// '(kubernetes.Quantity, kubernetes.Quantity)'". The logical operators, the ternary, field
// selection and the macros are special forms handled by the checker and interpreter directly.
//
// The overloads are registered by the lib_*.cc files (core operators and conversions, strings
// and regular expressions, lists and sets, quantity, semver, optionals).
//
// Thread safety: the library is built once (thread-safe static) and immutable afterwards;
// Overload pointers stay valid for the life of the process.
#pragma once

#include <deque>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cel/cost.h"
#include "cel/types.h"
#include "cel/value.h"
#include "common/status.h"

namespace allot::cel {

struct Expr;

// What an implementation may see besides its arguments.
struct CallContext {
  const Expr* call = nullptr;  // the call node (precompiled regex, positions)
  // Cost proportional to the size of a result the arguments do not bound (replace, join): the
  // implementation adds it here before building the result (ChargeOutput).
  uint64_t* extra_cost = nullptr;
  uint64_t remaining = kUnbounded;  // budget left before the runtime cost limit
};

// Charges 0.1 per output byte; fails with the cost-limit error (building nothing) when that
// exceeds the remaining budget.
Status ChargeOutput(const CallContext& ctx, uint64_t bytes);

inline constexpr std::string_view kCostLimitExceeded =
    "operation cancelled: actual cost limit exceeded";

// Arguments include the receiver first for member-style overloads. Arguments are never errors
// (calls are strict): the interpreter returns the first argument error before dispatch.
using FunctionImpl = Result<Value> (*)(const CallContext& ctx, std::span<const Value> args);

struct Overload {
  std::string id;
  bool member = false;  // receiver-style: args[0].fn(args[1...])
  std::vector<TypePtr> params;
  TypePtr result;
  FunctionImpl impl = nullptr;
  CostModel cost = CostModel::kOne;
};

struct Function {
  std::string name;
  std::deque<Overload> overloads;  // deque: addresses stay stable while registering
};

class Library {
 public:
  static const Library& Get();

  const Function* Find(std::string_view name) const;

  // Registration (lib_*.cc).
  void Add(std::string_view name, Overload overload);

 private:
  std::map<std::string, Function, std::less<>> functions_;
};

// Whether a runtime value can be passed for a parameter of type `t` (shallow: list and map
// element types are not inspected; dyn and type parameters accept anything).
bool ValueMatches(const Value& v, const Type& t);

// Registration entry points, one per library file.
void RegisterCoreFunctions(Library& lib);
void RegisterStringFunctions(Library& lib);
void RegisterListFunctions(Library& lib);
void RegisterQuantityFunctions(Library& lib);
void RegisterSemverFunctions(Library& lib);
void RegisterOptionalFunctions(Library& lib);

// Helpers shared by the lib_*.cc files.
Status NoSuchOverload();

}  // namespace allot::cel
