// Optional values (cel-go's optional library): optional.of, optional.ofNonZeroValue,
// optional.none, and the methods hasValue, value, orValue, or. The `.?field` and `[?key]`
// forms are handled by the checker and interpreter (and the "_[?_]" overloads in lib_core.cc).
#include "cel/library.h"

namespace allot::cel {

namespace {

using Args = std::span<const Value>;
using R = Result<Value>;

TypePtr A() { return types::Param("A"); }

void Reg(Library& lib, std::string_view name, std::string id, std::vector<TypePtr> params,
         TypePtr result, FunctionImpl impl, bool member) {
  lib.Add(name, Overload{std::move(id), member, std::move(params), std::move(result), impl,
                         CostModel::kOne});
}

bool IsZero(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull:
      return true;
    case ValueKind::kBool:
      return !v.bool_value();
    case ValueKind::kInt:
      return v.int_value() == 0;
    case ValueKind::kUint:
      return v.uint_value() == 0;
    case ValueKind::kDouble:
      return v.double_value() == 0;
    case ValueKind::kString:
      return v.string_value().empty();
    case ValueKind::kBytes:
      return v.bytes_value().empty();
    case ValueKind::kList:
      return v.list().empty();
    case ValueKind::kMap:
    case ValueKind::kDeviceMap:
      return MapSize(v) == 0;
    default:
      return false;
  }
}

R Of(const CallContext&, Args a) { return Value::OptionalOf(a[0]); }
R OfNonZero(const CallContext&, Args a) {
  return IsZero(a[0]) ? Value::Optional(nullptr) : Value::OptionalOf(a[0]);
}
R None(const CallContext&, Args) { return Value::Optional(nullptr); }
R HasValue(const CallContext&, Args a) { return Value::Bool(a[0].optional_value() != nullptr); }
R GetValue(const CallContext&, Args a) {
  const Value* v = a[0].optional_value();
  if (!v) return EvalError("optional.none() dereference");
  return *v;
}
R OrValue(const CallContext&, Args a) {
  const Value* v = a[0].optional_value();
  return v ? *v : a[1];
}
R Or(const CallContext&, Args a) { return a[0].optional_value() ? a[0] : a[1]; }

}  // namespace

void RegisterOptionalFunctions(Library& lib) {
  TypePtr oa = types::Optional(A());
  Reg(lib, "optional.of", "optional_of", {A()}, oa, Of, false);
  Reg(lib, "optional.ofNonZeroValue", "optional_ofNonZeroValue", {A()}, oa, OfNonZero, false);
  Reg(lib, "optional.none", "optional_none", {}, oa, None, false);
  Reg(lib, "hasValue", "optional_hasValue", {oa}, types::Bool(), HasValue, true);
  Reg(lib, "value", "optional_value", {oa}, A(), GetValue, true);
  Reg(lib, "orValue", "optional_orValue_value", {oa, A()}, A(), OrValue, true);
  Reg(lib, "or", "optional_or_optional", {oa, oa}, oa, Or, true);
}

}  // namespace allot::cel
