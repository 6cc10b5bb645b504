// The Kubernetes Quantity library: quantity(), isQuantity() and the Quantity methods. Values
// are api::Quantity (exact); there are deliberately no <, >, + overloads for quantities.
#include <cmath>
#include <limits>

#include "api/machinery/quantity.h"
#include "cel/library.h"

namespace allot::cel {

namespace {

using Args = std::span<const Value>;
using R = Result<Value>;

void Reg(Library& lib, std::string_view name, std::string id, std::vector<TypePtr> params,
         TypePtr result, FunctionImpl impl, bool member = true, CostModel cost = CostModel::kOne) {
  lib.Add(name, Overload{std::move(id), member, std::move(params), std::move(result), impl, cost});
}

R ParseQuantity(const CallContext&, Args a) {
  Result<api::Quantity> q = api::Quantity::Parse(a[0].string_value());
  if (!q.ok()) return EvalError(q.status().message());
  return Value::OwnedQuantity(std::move(*q));
}

R IsQuantity(const CallContext&, Args a) {
  return Value::Bool(api::Quantity::Parse(a[0].string_value()).ok());
}

R CompareTo(const CallContext&, Args a) {
  return Value::Int(a[0].quantity().Compare(a[1].quantity()));
}
R IsGreaterThan(const CallContext&, Args a) {
  return Value::Bool(a[0].quantity().Compare(a[1].quantity()) > 0);
}
R IsLessThan(const CallContext&, Args a) {
  return Value::Bool(a[0].quantity().Compare(a[1].quantity()) < 0);
}

api::Quantity Operand(const Value& v) {
  return v.kind() == ValueKind::kInt ? api::Quantity::FromInt(v.int_value()) : v.quantity();
}

R AddImpl(const CallContext&, Args a) {
  return Value::OwnedQuantity(a[0].quantity() + Operand(a[1]));
}
R SubImpl(const CallContext&, Args a) {
  return Value::OwnedQuantity(a[0].quantity() - Operand(a[1]));
}
R SignImpl(const CallContext&, Args a) { return Value::Int(a[0].quantity().Sign()); }

// The value as an int64 when it is an integer that fits (resource.Quantity.AsInt64).
std::optional<int64_t> AsInt64(const api::Quantity& q) {
  int64_t v = q.Value();
  if (q.Compare(api::Quantity::FromInt(v)) != 0) return std::nullopt;
  return v;
}

R IsInteger(const CallContext&, Args a) {
  return Value::Bool(AsInt64(a[0].quantity()).has_value());
}

R AsInteger(const CallContext&, Args a) {
  std::optional<int64_t> v = AsInt64(a[0].quantity());
  if (!v) return EvalError("cannot convert value to integer");
  return Value::Int(*v);
}

R AsApproximateFloat(const CallContext&, Args a) {
  const api::Quantity& q = a[0].quantity();
  // The finest decimal scale whose scaled value does not saturate int64.
  for (int32_t scale = -9; scale <= 30; scale += 3) {
    int64_t v = q.ScaledValue(scale);
    if (v != std::numeric_limits<int64_t>::max() && v != std::numeric_limits<int64_t>::min()) {
      return Value::Double(static_cast<double>(v) * std::pow(10.0, scale));
    }
  }
  return Value::Double(q.Sign() > 0 ? HUGE_VAL : -HUGE_VAL);
}

}  // namespace

void RegisterQuantityFunctions(Library& lib) {
  TypePtr q = types::Quantity(), s = types::String(), i = types::Int(), b = types::Bool();
  Reg(lib, "quantity", "string_to_quantity", {s}, q, ParseQuantity, false, CostModel::kStringScan);
  Reg(lib, "isQuantity", "is_quantity_string", {s}, b, IsQuantity, false, CostModel::kStringScan);
  Reg(lib, "compareTo", "quantity_compareTo", {q, q}, i, CompareTo);
  Reg(lib, "isGreaterThan", "quantity_isGreaterThan", {q, q}, b, IsGreaterThan);
  Reg(lib, "isLessThan", "quantity_isLessThan", {q, q}, b, IsLessThan);
  Reg(lib, "add", "quantity_add", {q, q}, q, AddImpl);
  Reg(lib, "add", "quantity_add_int", {q, i}, q, AddImpl);
  Reg(lib, "sub", "quantity_sub", {q, q}, q, SubImpl);
  Reg(lib, "sub", "quantity_sub_int", {q, i}, q, SubImpl);
  Reg(lib, "sign", "quantity_sign", {q}, i, SignImpl);
  Reg(lib, "isInteger", "quantity_is_integer", {q}, b, IsInteger);
  Reg(lib, "asInteger", "quantity_get_integer", {q}, i, AsInteger);
  Reg(lib, "asApproximateFloat", "quantity_get_float", {q}, types::Double(), AsApproximateFloat);
}

}  // namespace allot::cel
