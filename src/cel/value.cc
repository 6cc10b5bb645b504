#include "cel/value.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "api/machinery/quantity.h"
#include "cel/device_value.h"
#include "cel/semver.h"

namespace allot::cel {

namespace {

int Sign(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

template <class T>
int Cmp(T a, T b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

constexpr double kTwoTo63 = 9223372036854775808.0;
constexpr double kTwoTo64 = 18446744073709551616.0;

// int vs double, exactly. nullopt for NaN.
std::optional<int> CompareIntDouble(int64_t i, double d) {
  if (std::isnan(d)) return std::nullopt;
  if (d < -kTwoTo63) return 1;
  if (d >= kTwoTo63) return -1;
  double t = std::trunc(d);
  auto ti = static_cast<int64_t>(t);
  if (i != ti) return Cmp(i, ti);
  return Cmp(0.0, d - t);
}

std::optional<int> CompareUintDouble(uint64_t u, double d) {
  if (std::isnan(d)) return std::nullopt;
  if (d < 0) return 1;
  if (d >= kTwoTo64) return -1;
  double t = std::trunc(d);
  auto tu = static_cast<uint64_t>(t);
  if (u != tu) return Cmp(u, tu);
  return Cmp(0.0, d - t);
}

int CompareIntUint(int64_t i, uint64_t u) {
  if (i < 0) return -1;
  return Cmp(static_cast<uint64_t>(i), u);
}

std::optional<int> CompareNumbers(const Value& a, const Value& b, bool* nan) {
  auto flip = [](std::optional<int> c) { return c ? std::optional<int>(-*c) : c; };
  std::optional<int> r;
  switch (a.kind()) {
    case ValueKind::kInt:
      if (b.kind() == ValueKind::kInt) return Cmp(a.int_value(), b.int_value());
      if (b.kind() == ValueKind::kUint) return CompareIntUint(a.int_value(), b.uint_value());
      r = CompareIntDouble(a.int_value(), b.double_value());
      break;
    case ValueKind::kUint:
      if (b.kind() == ValueKind::kUint) return Cmp(a.uint_value(), b.uint_value());
      if (b.kind() == ValueKind::kInt) return -CompareIntUint(b.int_value(), a.uint_value());
      r = CompareUintDouble(a.uint_value(), b.double_value());
      break;
    default:  // double
      if (b.kind() == ValueKind::kInt) {
        r = flip(CompareIntDouble(b.int_value(), a.double_value()));
      } else if (b.kind() == ValueKind::kUint) {
        r = flip(CompareUintDouble(b.uint_value(), a.double_value()));
      } else {
        double x = a.double_value(), y = b.double_value();
        if (!std::isnan(x) && !std::isnan(y)) return Cmp(x, y);
      }
      break;
  }
  if (!r && nan) *nan = true;
  return r;
}

Result<bool> MapsEqual(const Value& a, const Value& b) {
  if (MapSize(a) != MapSize(b)) return false;
  for (const Value& k : MapKeys(a)) {
    ALLOT_ASSIGN_OR_RETURN(std::optional<Value> va, MapFind(a, k));
    ALLOT_ASSIGN_OR_RETURN(std::optional<Value> vb, MapFind(b, k));
    if (!va || !vb) return false;
    ALLOT_ASSIGN_OR_RETURN(bool eq, Equal(*va, *vb));
    if (!eq) return false;
  }
  return true;
}

bool KeysEqual(const Value& a, const Value& b) {
  if (a.IsNumber() && b.IsNumber()) {
    std::optional<int> c = CompareNumbers(a, b, nullptr);
    return c && *c == 0;
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case ValueKind::kString:
      return a.string_value() == b.string_value();
    case ValueKind::kBool:
      return a.bool_value() == b.bool_value();
    default:
      return false;
  }
}

}  // namespace

Value Value::List(std::vector<Value> items) {
  return Value(Rep(ListRef{std::make_shared<const std::vector<Value>>(std::move(items))}));
}

Value Value::OwnedQuantity(api::Quantity q) {
  auto owner = std::make_shared<const api::Quantity>(std::move(q));
  const api::Quantity* p = owner.get();
  return Value(Rep(QuantityRef{p, std::move(owner)}));
}

Status EvalError(std::string message) { return Status(StatusCode::kInvalid, std::move(message)); }

std::string_view RuntimeTypeName(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull:
      return "null_type";
    case ValueKind::kBool:
      return "bool";
    case ValueKind::kInt:
      return "int";
    case ValueKind::kUint:
      return "uint";
    case ValueKind::kDouble:
      return "double";
    case ValueKind::kString:
      return "string";
    case ValueKind::kBytes:
      return "bytes";
    case ValueKind::kList:
      return "list";
    case ValueKind::kMap:
    case ValueKind::kDeviceMap:
      return "map";
    case ValueKind::kOptional:
      return "optional_type";
    case ValueKind::kType:
      return "type";
    case ValueKind::kQuantity:
      return "kubernetes.Quantity";
    case ValueKind::kSemver:
      return "kubernetes.Semver";
    case ValueKind::kDevice:
      return "kubernetes.DRADevice";
  }
  return "dyn";
}

TypePtr RuntimeType(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull:
      return types::Null();
    case ValueKind::kBool:
      return types::Bool();
    case ValueKind::kInt:
      return types::Int();
    case ValueKind::kUint:
      return types::Uint();
    case ValueKind::kDouble:
      return types::Double();
    case ValueKind::kString:
      return types::String();
    case ValueKind::kBytes:
      return types::Bytes();
    case ValueKind::kList:
      return types::List(types::Dyn());
    case ValueKind::kMap:
    case ValueKind::kDeviceMap:
      return types::Map(types::Dyn(), types::Dyn());
    case ValueKind::kOptional:
      return types::Optional(types::Dyn());
    case ValueKind::kType:
      return types::TypeOf(types::Dyn());
    case ValueKind::kQuantity:
      return types::Quantity();
    case ValueKind::kSemver:
      return types::Semver();
    case ValueKind::kDevice:
      return types::Device();
  }
  return types::Dyn();
}

Result<bool> Equal(const Value& a, const Value& b) {
  if (a.IsNumber() && b.IsNumber()) {
    std::optional<int> c = CompareNumbers(a, b, nullptr);
    return c.has_value() && *c == 0;
  }
  if (a.IsMap() && b.IsMap()) return MapsEqual(a, b);
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case ValueKind::kNull:
      return true;
    case ValueKind::kBool:
      return a.bool_value() == b.bool_value();
    case ValueKind::kString:
      return a.string_value() == b.string_value();
    case ValueKind::kBytes:
      return a.bytes_value() == b.bytes_value();
    case ValueKind::kList: {
      const auto& x = a.list();
      const auto& y = b.list();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        ALLOT_ASSIGN_OR_RETURN(bool eq, Equal(x[i], y[i]));
        if (!eq) return false;
      }
      return true;
    }
    case ValueKind::kOptional: {
      const Value* x = a.optional_value();
      const Value* y = b.optional_value();
      if (!x || !y) return x == y;
      return Equal(*x, *y);
    }
    case ValueKind::kType:
      return SameType(*a.type_value(), *b.type_value());
    case ValueKind::kQuantity:
      return a.quantity().Compare(b.quantity()) == 0;
    case ValueKind::kSemver:
      return CompareSemver(a.semver(), b.semver()) == 0;
    case ValueKind::kDevice:
      return a.device().device == b.device().device;
    default:
      return false;
  }
}

std::optional<int> Compare(const Value& a, const Value& b, bool* nan) {
  if (a.IsNumber() && b.IsNumber()) return CompareNumbers(a, b, nan);
  if (a.kind() != b.kind()) return std::nullopt;
  switch (a.kind()) {
    case ValueKind::kBool:
      return Cmp(a.bool_value(), b.bool_value());
    case ValueKind::kString:
      return Sign(a.string_value().compare(b.string_value()));
    case ValueKind::kBytes:
      return Sign(a.bytes_value().compare(b.bytes_value()));
    default:
      return std::nullopt;
  }
}

uint64_t CostSize(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kString:
      return v.string_value().size();
    case ValueKind::kBytes:
      return v.bytes_value().size();
    case ValueKind::kList:
      return v.list().size();
    case ValueKind::kMap:
    case ValueKind::kDeviceMap:
      return static_cast<uint64_t>(MapSize(v));
    default:
      return 1;
  }
}

int64_t CodePointCount(std::string_view s) {
  int64_t n = 0;
  for (char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

std::string FormatDouble(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  if (d == 0) return std::signbit(d) ? "-0" : "0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string_view sci(buf, res.ptr - buf);  // e.g. "-1.2345e+06"
  bool neg = sci[0] == '-';
  if (neg) sci.remove_prefix(1);
  size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  int exp = std::stoi(std::string(sci.substr(e + 1)));
  std::string out = neg ? "-" : "";
  if (exp < -4 || exp >= 6) {  // Go's %g with the shortest precision uses 6 here
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    out += exp < 0 ? "e-" : "e+";
    int ax = exp < 0 ? -exp : exp;
    if (ax < 10) out += "0";
    out += std::to_string(ax);
    return out;
  }
  int dp = exp + 1;  // digits before the decimal point
  if (dp <= 0) {
    out += "0." + std::string(static_cast<size_t>(-dp), '0') + digits;
  } else if (static_cast<size_t>(dp) >= digits.size()) {
    out += digits + std::string(dp - digits.size(), '0');
  } else {
    out += digits.substr(0, dp) + "." + digits.substr(dp);
  }
  return out;
}

std::string DebugString(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull:
      return "null";
    case ValueKind::kBool:
      return v.bool_value() ? "true" : "false";
    case ValueKind::kInt:
      return std::to_string(v.int_value());
    case ValueKind::kUint:
      return std::to_string(v.uint_value());
    case ValueKind::kDouble:
      return FormatDouble(v.double_value());
    case ValueKind::kString:
      return std::string(v.string_value());
    case ValueKind::kBytes:
      return std::string(v.bytes_value());
    case ValueKind::kQuantity:
      return v.quantity().ToString();
    default:
      return std::string(RuntimeTypeName(v));
  }
}

int64_t MapSize(const Value& map) {
  if (map.kind() == ValueKind::kDeviceMap) {
    return static_cast<int64_t>(DeviceMapSize(map.device_map()));
  }
  return static_cast<int64_t>(map.literal_map().entries.size());
}

Result<std::optional<Value>> MapFind(const Value& map, const Value& key) {
  if (map.kind() == ValueKind::kDeviceMap) {
    if (key.kind() != ValueKind::kString) return std::optional<Value>();
    return DeviceMapFind(map.device_map(), key.string_ref());
  }
  for (const auto& [k, v] : map.literal_map().entries) {
    if (KeysEqual(k, key)) return std::optional<Value>(v);
  }
  return std::optional<Value>();
}

std::vector<Value> MapKeys(const Value& map) {
  if (map.kind() == ValueKind::kDeviceMap) return DeviceMapKeys(map.device_map());
  std::vector<Value> out;
  out.reserve(map.literal_map().entries.size());
  for (const auto& [k, v] : map.literal_map().entries) out.push_back(k);
  return out;
}

}  // namespace allot::cel
