// Core operators and functions: equality, ordering (with cross-type numeric comparison),
// arithmetic with overflow errors, indexing, `in`, size() and the type conversions, with
// cel-go's runtime error messages ("integer overflow", "division by zero", "no such key: k").
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "cel/library.h"
#include "common/utf8.h"

namespace allot::cel {

namespace {

using Args = std::span<const Value>;
using R = Result<Value>;

TypePtr A() { return types::Param("A"); }
TypePtr K() { return types::Param("K"); }
TypePtr V() { return types::Param("V"); }

void Reg(Library& lib, std::string_view name, std::string id, std::vector<TypePtr> params,
         TypePtr result, FunctionImpl impl, CostModel cost = CostModel::kOne, bool member = false) {
  lib.Add(name, Overload{std::move(id), member, std::move(params), std::move(result), impl, cost});
}

Status IntOverflow() { return EvalError("integer overflow"); }
Status UintOverflow() { return EvalError("unsigned integer overflow"); }

// --- equality and ordering -----------------------------------------------------------------

R EqualImpl(const CallContext&, Args a) {
  ALLOT_ASSIGN_OR_RETURN(bool eq, Equal(a[0], a[1]));
  return Value::Bool(eq);
}
R NotEqualImpl(const CallContext&, Args a) {
  ALLOT_ASSIGN_OR_RETURN(bool eq, Equal(a[0], a[1]));
  return Value::Bool(!eq);
}

template <int kOp>  // 0 <, 1 <=, 2 >, 3 >=
R CompareImpl(const CallContext&, Args a) {
  bool nan = false;
  std::optional<int> c = Compare(a[0], a[1], &nan);
  if (!c) {
    if (nan) return Value::Bool(false);
    return NoSuchOverload();
  }
  switch (kOp) {
    case 0:
      return Value::Bool(*c < 0);
    case 1:
      return Value::Bool(*c <= 0);
    case 2:
      return Value::Bool(*c > 0);
    default:
      return Value::Bool(*c >= 0);
  }
}

void RegisterOrdering(Library& lib) {
  struct Op {
    const char* name;
    const char* id;
    FunctionImpl impl;
  };
  const Op ops[] = {{"_<_", "less", CompareImpl<0>},
                    {"_<=_", "less_equals", CompareImpl<1>},
                    {"_>_", "greater", CompareImpl<2>},
                    {"_>=_", "greater_equals", CompareImpl<3>}};
  struct Pair {
    const char* suffix;
    TypePtr a, b;
  };
  const Pair pairs[] = {
      {"bool", types::Bool(), types::Bool()},
      {"int64", types::Int(), types::Int()},
      {"uint64", types::Uint(), types::Uint()},
      {"double", types::Double(), types::Double()},
      {"string", types::String(), types::String()},
      {"bytes", types::Bytes(), types::Bytes()},
      {"int64_uint64", types::Int(), types::Uint()},
      {"int64_double", types::Int(), types::Double()},
      {"uint64_int64", types::Uint(), types::Int()},
      {"uint64_double", types::Uint(), types::Double()},
      {"double_int64", types::Double(), types::Int()},
      {"double_uint64", types::Double(), types::Uint()},
  };
  for (const Op& op : ops) {
    for (const Pair& p : pairs) {
      Reg(lib, op.name, std::string(op.id) + "_" + p.suffix, {p.a, p.b}, types::Bool(), op.impl,
          CostModel::kCompare);
    }
  }
}

// --- arithmetic ------------------------------------------------------------------------------

R AddInt(const CallContext&, Args a) {
  int64_t r;
  if (__builtin_add_overflow(a[0].int_value(), a[1].int_value(), &r)) return IntOverflow();
  return Value::Int(r);
}
R SubInt(const CallContext&, Args a) {
  int64_t r;
  if (__builtin_sub_overflow(a[0].int_value(), a[1].int_value(), &r)) return IntOverflow();
  return Value::Int(r);
}
R MulInt(const CallContext&, Args a) {
  int64_t r;
  if (__builtin_mul_overflow(a[0].int_value(), a[1].int_value(), &r)) return IntOverflow();
  return Value::Int(r);
}
R DivInt(const CallContext&, Args a) {
  int64_t x = a[0].int_value(), y = a[1].int_value();
  if (y == 0) return EvalError("division by zero");
  if (x == std::numeric_limits<int64_t>::min() && y == -1) return IntOverflow();
  return Value::Int(x / y);
}
R ModInt(const CallContext&, Args a) {
  int64_t x = a[0].int_value(), y = a[1].int_value();
  if (y == 0) return EvalError("modulus by zero");
  if (x == std::numeric_limits<int64_t>::min() && y == -1) return IntOverflow();
  return Value::Int(x % y);
}
R NegInt(const CallContext&, Args a) {
  if (a[0].int_value() == std::numeric_limits<int64_t>::min()) return IntOverflow();
  return Value::Int(-a[0].int_value());
}
R AddUint(const CallContext&, Args a) {
  uint64_t r;
  if (__builtin_add_overflow(a[0].uint_value(), a[1].uint_value(), &r)) return UintOverflow();
  return Value::Uint(r);
}
R SubUint(const CallContext&, Args a) {
  uint64_t r;
  if (__builtin_sub_overflow(a[0].uint_value(), a[1].uint_value(), &r)) return UintOverflow();
  return Value::Uint(r);
}
R MulUint(const CallContext&, Args a) {
  uint64_t r;
  if (__builtin_mul_overflow(a[0].uint_value(), a[1].uint_value(), &r)) return UintOverflow();
  return Value::Uint(r);
}
R DivUint(const CallContext&, Args a) {
  if (a[1].uint_value() == 0) return EvalError("division by zero");
  return Value::Uint(a[0].uint_value() / a[1].uint_value());
}
R ModUint(const CallContext&, Args a) {
  if (a[1].uint_value() == 0) return EvalError("modulus by zero");
  return Value::Uint(a[0].uint_value() % a[1].uint_value());
}
R AddDouble(const CallContext&, Args a) {
  return Value::Double(a[0].double_value() + a[1].double_value());
}
R SubDouble(const CallContext&, Args a) {
  return Value::Double(a[0].double_value() - a[1].double_value());
}
R MulDouble(const CallContext&, Args a) {
  return Value::Double(a[0].double_value() * a[1].double_value());
}
R DivDouble(const CallContext&, Args a) {
  return Value::Double(a[0].double_value() / a[1].double_value());
}
R NegDouble(const CallContext&, Args a) { return Value::Double(-a[0].double_value()); }
R AddString(const CallContext&, Args a) {
  std::string s(a[0].string_value());
  s.append(a[1].string_value());
  return Value::OwnedString(std::move(s));
}
R AddBytes(const CallContext&, Args a) {
  std::string s(a[0].bytes_value());
  s.append(a[1].bytes_value());
  return Value::Bytes(StringRef::Own(std::move(s)));
}
R AddList(const CallContext&, Args a) {
  if (a[1].list().empty()) return a[0];
  if (a[0].list().empty()) return a[1];
  std::vector<Value> out;
  out.reserve(a[0].list().size() + a[1].list().size());
  out.insert(out.end(), a[0].list().begin(), a[0].list().end());
  out.insert(out.end(), a[1].list().begin(), a[1].list().end());
  return Value::List(std::move(out));
}
R NotBool(const CallContext&, Args a) { return Value::Bool(!a[0].bool_value()); }

void RegisterArithmetic(Library& lib) {
  TypePtr i = types::Int(), u = types::Uint(), d = types::Double();
  Reg(lib, "_+_", "add_int64", {i, i}, i, AddInt);
  Reg(lib, "_+_", "add_uint64", {u, u}, u, AddUint);
  Reg(lib, "_+_", "add_double", {d, d}, d, AddDouble);
  Reg(lib, "_+_", "add_string", {types::String(), types::String()}, types::String(), AddString,
      CostModel::kStringScan);
  Reg(lib, "_+_", "add_bytes", {types::Bytes(), types::Bytes()}, types::Bytes(), AddBytes,
      CostModel::kStringScan);
  Reg(lib, "_+_", "add_list", {types::List(A()), types::List(A())}, types::List(A()), AddList,
      CostModel::kLinear);
  Reg(lib, "_-_", "subtract_int64", {i, i}, i, SubInt);
  Reg(lib, "_-_", "subtract_uint64", {u, u}, u, SubUint);
  Reg(lib, "_-_", "subtract_double", {d, d}, d, SubDouble);
  Reg(lib, "_*_", "multiply_int64", {i, i}, i, MulInt);
  Reg(lib, "_*_", "multiply_uint64", {u, u}, u, MulUint);
  Reg(lib, "_*_", "multiply_double", {d, d}, d, MulDouble);
  Reg(lib, "_/_", "divide_int64", {i, i}, i, DivInt);
  Reg(lib, "_/_", "divide_uint64", {u, u}, u, DivUint);
  Reg(lib, "_/_", "divide_double", {d, d}, d, DivDouble);
  Reg(lib, "_%_", "modulo_int64", {i, i}, i, ModInt);
  Reg(lib, "_%_", "modulo_uint64", {u, u}, u, ModUint);
  Reg(lib, "-_", "negate_int64", {i}, i, NegInt);
  Reg(lib, "-_", "negate_double", {d}, d, NegDouble);
  Reg(lib, "!_", "logical_not", {types::Bool()}, types::Bool(), NotBool);
}

// --- indexing, in, size ---------------------------------------------------------------------

Result<std::optional<Value>> ListAt(const Value& list, const Value& index) {
  const auto& items = list.list();
  int64_t i;
  if (index.kind() == ValueKind::kInt) {
    i = index.int_value();
  } else if (index.kind() == ValueKind::kUint) {
    if (index.uint_value() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      i = -1;
    } else {
      i = static_cast<int64_t>(index.uint_value());
    }
  } else if (index.kind() == ValueKind::kDouble) {
    double d = index.double_value();
    if (d != std::trunc(d) || std::isnan(d) || std::abs(d) > 9e18) {
      return EvalError("unsupported index value " + FormatDouble(d) + " in list");
    }
    i = static_cast<int64_t>(d);
  } else {
    return NoSuchOverload();
  }
  if (i < 0 || i >= static_cast<int64_t>(items.size())) return std::optional<Value>();
  return std::optional<Value>(items[static_cast<size_t>(i)]);
}

std::string IndexText(const Value& index) {
  return index.kind() == ValueKind::kString ? std::string(index.string_value())
                                            : DebugString(index);
}

R IndexImpl(const CallContext&, Args a) {
  if (a[0].kind() == ValueKind::kList) {
    ALLOT_ASSIGN_OR_RETURN(std::optional<Value> v, ListAt(a[0], a[1]));
    if (!v) {
      return EvalError("index '" + IndexText(a[1]) + "' out of range in list size '" +
                       std::to_string(a[0].list().size()) + "'");
    }
    return std::move(*v);
  }
  if (a[0].IsMap()) {
    ALLOT_ASSIGN_OR_RETURN(std::optional<Value> v, MapFind(a[0], a[1]));
    if (!v) return EvalError("no such key: " + IndexText(a[1]));
    return std::move(*v);
  }
  return NoSuchOverload();
}

R OptIndexImpl(const CallContext&, Args a) {
  std::optional<Value> v;
  if (a[0].kind() == ValueKind::kList) {
    ALLOT_ASSIGN_OR_RETURN(v, ListAt(a[0], a[1]));
  } else if (a[0].IsMap()) {
    ALLOT_ASSIGN_OR_RETURN(v, MapFind(a[0], a[1]));
  } else {
    return NoSuchOverload();
  }
  if (!v) return Value::Optional(nullptr);
  return Value::OptionalOf(std::move(*v));
}

R InList(const CallContext&, Args a) {
  for (const Value& item : a[1].list()) {
    ALLOT_ASSIGN_OR_RETURN(bool eq, Equal(a[0], item));
    if (eq) return Value::Bool(true);
  }
  return Value::Bool(false);
}

R InMap(const CallContext&, Args a) {
  Result<std::optional<Value>> v = MapFind(a[1], a[0]);
  // A present attribute whose value cannot be converted still counts as present.
  return Value::Bool(!v.ok() || v->has_value());
}

R SizeImpl(const CallContext&, Args a) {
  switch (a[0].kind()) {
    case ValueKind::kString:
      return Value::Int(CodePointCount(a[0].string_value()));
    case ValueKind::kBytes:
      return Value::Int(static_cast<int64_t>(a[0].bytes_value().size()));
    case ValueKind::kList:
      return Value::Int(static_cast<int64_t>(a[0].list().size()));
    case ValueKind::kMap:
    case ValueKind::kDeviceMap:
      return Value::Int(MapSize(a[0]));
    default:
      return NoSuchOverload();
  }
}

void RegisterContainers(Library& lib) {
  Reg(lib, "_[_]", "index_list", {types::List(A()), types::Int()}, A(), IndexImpl);
  Reg(lib, "_[_]", "index_list_uint", {types::List(A()), types::Uint()}, A(), IndexImpl);
  Reg(lib, "_[_]", "index_map", {types::Map(K(), V()), K()}, V(), IndexImpl);
  Reg(lib, "_[?_]", "optional_list_index", {types::List(A()), types::Int()}, types::Optional(A()),
      OptIndexImpl);
  Reg(lib, "_[?_]", "optional_map_index", {types::Map(K(), V()), K()}, types::Optional(V()),
      OptIndexImpl);
  Reg(lib, "@in", "in_list", {A(), types::List(A())}, types::Bool(), InList, CostModel::kLinear);
  Reg(lib, "@in", "in_map", {K(), types::Map(K(), V())}, types::Bool(), InMap);
  for (bool member : {false, true}) {
    Reg(lib, "size", member ? "string_size" : "size_string", {types::String()}, types::Int(),
        SizeImpl, CostModel::kOne, member);
    Reg(lib, "size", member ? "bytes_size" : "size_bytes", {types::Bytes()}, types::Int(), SizeImpl,
        CostModel::kOne, member);
    Reg(lib, "size", member ? "list_size" : "size_list", {types::List(A())}, types::Int(), SizeImpl,
        CostModel::kOne, member);
    Reg(lib, "size", member ? "map_size" : "size_map", {types::Map(K(), V())}, types::Int(),
        SizeImpl, CostModel::kOne, member);
  }
}

// --- conversions -----------------------------------------------------------------------------

Status ConversionError(std::string_view from, std::string_view to) {
  return EvalError("type conversion error from '" + std::string(from) + "' to '" + std::string(to) +
                   "'");
}

R ToInt(const CallContext&, Args a) {
  const Value& v = a[0];
  switch (v.kind()) {
    case ValueKind::kInt:
      return v;
    case ValueKind::kUint:
      if (v.uint_value() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return IntOverflow();
      }
      return Value::Int(static_cast<int64_t>(v.uint_value()));
    case ValueKind::kDouble: {
      double d = v.double_value();
      if (std::isnan(d) || d <= -9223372036854775808.0 || d >= 9223372036854775808.0) {
        return IntOverflow();
      }
      return Value::Int(static_cast<int64_t>(d));
    }
    case ValueKind::kString: {
      std::string s(v.string_value());
      char* end = nullptr;
      errno = 0;
      long long r = std::strtoll(s.c_str(), &end, 10);
      if (s.empty() || *end != '\0' || errno != 0 ||
          std::isspace(static_cast<unsigned char>(s[0]))) {
        return ConversionError("string", "int");
      }
      return Value::Int(r);
    }
    default:
      return NoSuchOverload();
  }
}

R ToUint(const CallContext&, Args a) {
  const Value& v = a[0];
  switch (v.kind()) {
    case ValueKind::kUint:
      return v;
    case ValueKind::kInt:
      if (v.int_value() < 0) return UintOverflow();
      return Value::Uint(static_cast<uint64_t>(v.int_value()));
    case ValueKind::kDouble: {
      double d = v.double_value();
      if (std::isnan(d) || d < 0 || d >= 18446744073709551616.0) return UintOverflow();
      return Value::Uint(static_cast<uint64_t>(d));
    }
    case ValueKind::kString: {
      std::string s(v.string_value());
      char* end = nullptr;
      errno = 0;
      unsigned long long r = std::strtoull(s.c_str(), &end, 10);
      if (s.empty() || *end != '\0' || errno != 0 || !(s[0] >= '0' && s[0] <= '9')) {
        return ConversionError("string", "uint");
      }
      return Value::Uint(r);
    }
    default:
      return NoSuchOverload();
  }
}

R ToDouble(const CallContext&, Args a) {
  const Value& v = a[0];
  switch (v.kind()) {
    case ValueKind::kDouble:
      return v;
    case ValueKind::kInt:
      return Value::Double(static_cast<double>(v.int_value()));
    case ValueKind::kUint:
      return Value::Double(static_cast<double>(v.uint_value()));
    case ValueKind::kString: {
      std::string s(v.string_value());
      char* end = nullptr;
      double d = std::strtod(s.c_str(), &end);
      if (s.empty() || *end != '\0' || std::isspace(static_cast<unsigned char>(s[0]))) {
        return ConversionError("string", "double");
      }
      return Value::Double(d);
    }
    default:
      return NoSuchOverload();
  }
}

R ToString(const CallContext&, Args a) {
  const Value& v = a[0];
  switch (v.kind()) {
    case ValueKind::kString:
      return v;
    case ValueKind::kInt:
      return Value::OwnedString(std::to_string(v.int_value()));
    case ValueKind::kUint:
      return Value::OwnedString(std::to_string(v.uint_value()));
    case ValueKind::kDouble:
      return Value::OwnedString(FormatDouble(v.double_value()));
    case ValueKind::kBool:
      return Value::OwnedString(v.bool_value() ? "true" : "false");
    case ValueKind::kBytes:
      if (!utf8::Valid(v.bytes_value())) {
        return EvalError("invalid UTF-8 in bytes, cannot convert to string");
      }
      return Value::OwnedString(std::string(v.bytes_value()));
    default:
      return NoSuchOverload();
  }
}

R ToBool(const CallContext&, Args a) {
  const Value& v = a[0];
  if (v.kind() == ValueKind::kBool) return v;
  if (v.kind() != ValueKind::kString) return NoSuchOverload();
  std::string_view s = v.string_value();
  if (s == "1" || s == "t" || s == "T" || s == "true" || s == "TRUE" || s == "True") {
    return Value::Bool(true);
  }
  if (s == "0" || s == "f" || s == "F" || s == "false" || s == "FALSE" || s == "False") {
    return Value::Bool(false);
  }
  return ConversionError("string", "bool");
}

R ToBytes(const CallContext&, Args a) {
  if (a[0].kind() == ValueKind::kBytes) return a[0];
  return Value::Bytes(StringRef::Own(std::string(a[0].string_value())));
}

R Identity(const CallContext&, Args a) { return a[0]; }
R TypeOfImpl(const CallContext&, Args a) { return Value::Type(RuntimeType(a[0])); }

void RegisterConversions(Library& lib) {
  TypePtr i = types::Int(), u = types::Uint(), d = types::Double(), s = types::String(),
          b = types::Bool(), y = types::Bytes();
  for (TypePtr from : {i, u, d, s}) Reg(lib, "int", TypeName(*from) + "_to_int", {from}, i, ToInt);
  for (TypePtr from : {i, u, d, s}) {
    Reg(lib, "uint", TypeName(*from) + "_to_uint", {from}, u, ToUint);
  }
  for (TypePtr from : {i, u, d, s}) {
    Reg(lib, "double", TypeName(*from) + "_to_double", {from}, d, ToDouble);
  }
  for (TypePtr from : {i, u, d, s, b, y}) {
    Reg(lib, "string", TypeName(*from) + "_to_string", {from}, s, ToString, CostModel::kStringScan);
  }
  for (TypePtr from : {b, s}) Reg(lib, "bool", TypeName(*from) + "_to_bool", {from}, b, ToBool);
  for (TypePtr from : {y, s}) {
    Reg(lib, "bytes", TypeName(*from) + "_to_bytes", {from}, y, ToBytes, CostModel::kStringScan);
  }
  Reg(lib, "dyn", "to_dyn", {A()}, types::Dyn(), Identity);
  Reg(lib, "type", "type", {A()}, types::TypeOf(A()), TypeOfImpl);
}

}  // namespace

void RegisterCoreFunctions(Library& lib) {
  Reg(lib, "_==_", "equals", {A(), A()}, types::Bool(), EqualImpl, CostModel::kCompare);
  Reg(lib, "_!=_", "not_equals", {A(), A()}, types::Bool(), NotEqualImpl, CostModel::kCompare);
  RegisterOrdering(lib);
  RegisterArithmetic(lib);
  RegisterContainers(lib);
  RegisterConversions(lib);
}

}  // namespace allot::cel
