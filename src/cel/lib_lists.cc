// List functions of the Kubernetes lists library (isSorted, sum, min, max, indexOf,
// lastIndexOf) and cel-go's ext.Sets (sets.contains, sets.equivalent, sets.intersects).
#include "cel/ast.h"
#include "cel/library.h"

namespace allot::cel {

namespace {

using Args = std::span<const Value>;
using R = Result<Value>;

TypePtr A() { return types::Param("A"); }

void Reg(Library& lib, std::string_view name, std::string id, std::vector<TypePtr> params,
         TypePtr result, FunctionImpl impl, CostModel cost, bool member = true) {
  lib.Add(name, Overload{std::move(id), member, std::move(params), std::move(result), impl, cost});
}

Result<int> CompareElements(const Value& a, const Value& b) {
  bool nan = false;
  std::optional<int> c = Compare(a, b, &nan);
  if (!c) {
    if (nan) return 0;
    return NoSuchOverload();
  }
  return *c;
}

R IsSorted(const CallContext&, Args a) {
  const auto& l = a[0].list();
  for (size_t i = 1; i < l.size(); ++i) {
    ALLOT_ASSIGN_OR_RETURN(int c, CompareElements(l[i - 1], l[i]));
    if (c > 0) return Value::Bool(false);
  }
  return Value::Bool(true);
}

R Sum(const CallContext& ctx, Args a) {
  const auto& l = a[0].list();
  if (l.empty()) {
    TypePtr t = ctx.call && ctx.call->type ? ctx.call->type : types::Int();
    if (t->kind == TypeKind::kUint) return Value::Uint(0);
    if (t->kind == TypeKind::kDouble) return Value::Double(0);
    return Value::Int(0);
  }
  switch (l[0].kind()) {
    case ValueKind::kInt: {
      int64_t s = 0;
      for (const Value& v : l) {
        if (v.kind() != ValueKind::kInt) return NoSuchOverload();
        if (__builtin_add_overflow(s, v.int_value(), &s)) return EvalError("integer overflow");
      }
      return Value::Int(s);
    }
    case ValueKind::kUint: {
      uint64_t s = 0;
      for (const Value& v : l) {
        if (v.kind() != ValueKind::kUint) return NoSuchOverload();
        if (__builtin_add_overflow(s, v.uint_value(), &s)) {
          return EvalError("unsigned integer overflow");
        }
      }
      return Value::Uint(s);
    }
    case ValueKind::kDouble: {
      double s = 0;
      for (const Value& v : l) {
        if (v.kind() != ValueKind::kDouble) return NoSuchOverload();
        s += v.double_value();
      }
      return Value::Double(s);
    }
    default:
      return NoSuchOverload();
  }
}

template <bool kMin>
R MinMax(const CallContext&, Args a) {
  const auto& l = a[0].list();
  if (l.empty()) return EvalError(kMin ? "min called on empty list" : "max called on empty list");
  const Value* best = &l[0];
  for (size_t i = 1; i < l.size(); ++i) {
    ALLOT_ASSIGN_OR_RETURN(int c, CompareElements(l[i], *best));
    if (kMin ? c < 0 : c > 0) best = &l[i];
  }
  // A single element must still be comparable with itself.
  ALLOT_ASSIGN_OR_RETURN(int unused, CompareElements(*best, *best));
  (void)unused;
  return *best;
}

template <bool kLast>
R IndexOfElement(const CallContext&, Args a) {
  const auto& l = a[0].list();
  int64_t found = -1;
  for (size_t i = 0; i < l.size(); ++i) {
    ALLOT_ASSIGN_OR_RETURN(bool eq, Equal(l[i], a[1]));
    if (eq) {
      found = static_cast<int64_t>(i);
      if (!kLast) break;
    }
  }
  return Value::Int(found);
}

Result<bool> ListHas(const std::vector<Value>& l, const Value& v) {
  for (const Value& x : l) {
    ALLOT_ASSIGN_OR_RETURN(bool eq, Equal(x, v));
    if (eq) return true;
  }
  return false;
}

Result<bool> ContainsAll(const std::vector<Value>& a, const std::vector<Value>& b) {
  for (const Value& v : b) {
    ALLOT_ASSIGN_OR_RETURN(bool has, ListHas(a, v));
    if (!has) return false;
  }
  return true;
}

R SetsContains(const CallContext&, Args a) {
  ALLOT_ASSIGN_OR_RETURN(bool r, ContainsAll(a[0].list(), a[1].list()));
  return Value::Bool(r);
}

R SetsEquivalent(const CallContext&, Args a) {
  ALLOT_ASSIGN_OR_RETURN(bool r1, ContainsAll(a[0].list(), a[1].list()));
  if (!r1) return Value::Bool(false);
  ALLOT_ASSIGN_OR_RETURN(bool r2, ContainsAll(a[1].list(), a[0].list()));
  return Value::Bool(r2);
}

R SetsIntersects(const CallContext&, Args a) {
  for (const Value& v : a[1].list()) {
    ALLOT_ASSIGN_OR_RETURN(bool has, ListHas(a[0].list(), v));
    if (has) return Value::Bool(true);
  }
  return Value::Bool(false);
}

}  // namespace

void RegisterListFunctions(Library& lib) {
  TypePtr la = types::List(A());
  Reg(lib, "isSorted", "list_is_sorted", {la}, types::Bool(), IsSorted, CostModel::kLinear);
  for (TypePtr t : {types::Int(), types::Uint(), types::Double()}) {
    Reg(lib, "sum", "list_" + TypeName(*t) + "_sum", {types::List(t)}, t, Sum, CostModel::kLinear);
  }
  Reg(lib, "min", "list_min", {la}, A(), MinMax<true>, CostModel::kLinear);
  Reg(lib, "max", "list_max", {la}, A(), MinMax<false>, CostModel::kLinear);
  Reg(lib, "indexOf", "list_index_of", {la, A()}, types::Int(), IndexOfElement<false>,
      CostModel::kLinear);
  Reg(lib, "lastIndexOf", "list_last_index_of", {la, A()}, types::Int(), IndexOfElement<true>,
      CostModel::kLinear);
  Reg(lib, "sets.contains", "list_sets_contains_list", {la, la}, types::Bool(), SetsContains,
      CostModel::kProduct, /*member=*/false);
  Reg(lib, "sets.equivalent", "list_sets_equivalent_list", {la, la}, types::Bool(), SetsEquivalent,
      CostModel::kProduct, /*member=*/false);
  Reg(lib, "sets.intersects", "list_sets_intersects_list", {la, la}, types::Bool(), SetsIntersects,
      CostModel::kProduct, /*member=*/false);
}

}  // namespace allot::cel
