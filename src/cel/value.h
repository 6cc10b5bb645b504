// Runtime values of the CEL interpreter.
//
// A Value is small and cheap to copy: scalars inline; strings and bytes as a view plus an
// optional shared owner (literals view the program's text, device attributes view the
// api::Device, computed strings own their buffer); lists, maps, optionals and semvers behind
// shared_ptr<const>; quantities as a pointer into the device or a shared owner. The `device`
// variable and its attribute/capacity maps are views (DeviceRef, DeviceMapRef, device_value.h)
// resolved against the api::Device on access, so evaluating a selector builds no maps.
//
// Lifetime: a Value may reference the program and the api::Device it was evaluated against; it
// must not outlive either (values never escape DeviceSelectorProgram::Matches).
//
// Thread safety: values are immutable; shared payloads are never mutated after construction.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "cel/types.h"
#include "common/status.h"

namespace allot::api {
struct Device;
class Quantity;
}  // namespace allot::api

namespace allot::cel {

struct Semver;
class Value;

// A string or byte sequence: a view with an optional owner keeping it alive.
class StringRef {
 public:
  StringRef() = default;
  // The caller guarantees that `s` outlives every copy (program text or device data).
  static StringRef View(std::string_view s) {
    StringRef r;
    r.view_ = s;
    return r;
  }
  static StringRef Own(std::string s) {
    StringRef r;
    r.owner_ = std::make_shared<const std::string>(std::move(s));
    r.view_ = *r.owner_;
    return r;
  }
  std::string_view view() const { return view_; }

 private:
  std::string_view view_;
  std::shared_ptr<const std::string> owner_;
};

struct NullValue {};
struct BytesValue {
  StringRef data;
};
struct ListRef {
  std::shared_ptr<const std::vector<Value>> items;
};
struct MapEntries;
struct MapRef {
  std::shared_ptr<const MapEntries> map;
};
// optional.none() when `value` is null.
struct OptionalRef {
  std::shared_ptr<const Value> value;
};
struct TypeValue {
  TypePtr type;
};
struct QuantityRef {
  const api::Quantity* q = nullptr;
  std::shared_ptr<const api::Quantity> owner;
};
struct SemverRef {
  std::shared_ptr<const Semver> v;
};
// The `device` variable.
struct DeviceRef {
  const api::Device* device = nullptr;
  std::string_view driver;
};
// device.attributes / device.capacity (all domains), or one domain of either.
struct DeviceMapRef {
  enum class Which : uint8_t { kAttributes, kAttributeDomain, kCapacity, kCapacityDomain };
  Which which = Which::kAttributes;
  const api::Device* device = nullptr;
  std::string_view driver;
  StringRef domain;  // the two *Domain kinds only
};

// Variant order = ValueKind order.
enum class ValueKind : uint8_t {
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kList,
  kMap,
  kOptional,
  kType,
  kQuantity,
  kSemver,
  kDevice,
  kDeviceMap,
};

class Value {
 public:
  using Rep =
      std::variant<NullValue, bool, int64_t, uint64_t, double, StringRef, BytesValue, ListRef,
                   MapRef, OptionalRef, TypeValue, QuantityRef, SemverRef, DeviceRef, DeviceMapRef>;

  Value() = default;
  static Value Null() { return Value(); }
  static Value Bool(bool b) { return Value(Rep(std::in_place_type<bool>, b)); }
  static Value Int(int64_t i) { return Value(Rep(std::in_place_type<int64_t>, i)); }
  static Value Uint(uint64_t u) { return Value(Rep(std::in_place_type<uint64_t>, u)); }
  static Value Double(double d) { return Value(Rep(std::in_place_type<double>, d)); }
  static Value String(StringRef s) { return Value(Rep(std::move(s))); }
  static Value OwnedString(std::string s) { return String(StringRef::Own(std::move(s))); }
  static Value Bytes(StringRef b) { return Value(Rep(BytesValue{std::move(b)})); }
  static Value List(std::vector<Value> items);
  static Value Map(std::shared_ptr<const MapEntries> map) {
    return Value(Rep(MapRef{std::move(map)}));
  }
  static Value Optional(std::shared_ptr<const Value> v) {
    return Value(Rep(OptionalRef{std::move(v)}));
  }
  static Value OptionalOf(Value v) { return Optional(std::make_shared<const Value>(std::move(v))); }
  static Value Type(TypePtr t) { return Value(Rep(TypeValue{std::move(t)})); }
  static Value Quantity(const api::Quantity* q) { return Value(Rep(QuantityRef{q, nullptr})); }
  static Value OwnedQuantity(api::Quantity q);
  static Value Semver(std::shared_ptr<const struct Semver> v) {
    return Value(Rep(SemverRef{std::move(v)}));
  }
  static Value Device(const api::Device* d, std::string_view driver) {
    return Value(Rep(DeviceRef{d, driver}));
  }
  static Value DeviceMap(DeviceMapRef m) { return Value(Rep(std::move(m))); }

  ValueKind kind() const { return static_cast<ValueKind>(rep_.index()); }
  bool IsMap() const { return kind() == ValueKind::kMap || kind() == ValueKind::kDeviceMap; }
  bool IsNumber() const {
    return kind() == ValueKind::kInt || kind() == ValueKind::kUint || kind() == ValueKind::kDouble;
  }

  bool bool_value() const { return std::get<bool>(rep_); }
  int64_t int_value() const { return std::get<int64_t>(rep_); }
  uint64_t uint_value() const { return std::get<uint64_t>(rep_); }
  double double_value() const { return std::get<double>(rep_); }
  std::string_view string_value() const { return std::get<StringRef>(rep_).view(); }
  std::string_view bytes_value() const { return std::get<BytesValue>(rep_).data.view(); }
  const std::vector<Value>& list() const { return *std::get<ListRef>(rep_).items; }
  const MapEntries& literal_map() const { return *std::get<MapRef>(rep_).map; }
  const DeviceMapRef& device_map() const { return std::get<DeviceMapRef>(rep_); }
  const DeviceRef& device() const { return std::get<DeviceRef>(rep_); }
  // nullptr for optional.none().
  const Value* optional_value() const { return std::get<OptionalRef>(rep_).value.get(); }
  const TypePtr& type_value() const { return std::get<TypeValue>(rep_).type; }
  const api::Quantity& quantity() const { return *std::get<QuantityRef>(rep_).q; }
  const struct Semver& semver() const { return *std::get<SemverRef>(rep_).v; }
  const StringRef& string_ref() const { return std::get<StringRef>(rep_); }

 private:
  explicit Value(Rep rep) : rep_(std::move(rep)) {}
  Rep rep_;
};

// A map literal's entries, in source order. Keys are unique (CEL equality).
struct MapEntries {
  std::vector<std::pair<Value, Value>> entries;
};

// The cel-go name of a value's runtime type ("int", "list", "map", "kubernetes.Quantity"...).
std::string_view RuntimeTypeName(const Value& v);

// The CEL runtime type of a value, as `type(v)` returns it.
TypePtr RuntimeType(const Value& v);

// Heterogeneous CEL equality: numbers compare by value across int/uint/double; values of
// different kinds are unequal; lists and maps compare element-wise. An error (e.g. a device
// attribute that cannot be converted) propagates.
Result<bool> Equal(const Value& a, const Value& b);

// An evaluation error with cel-go's message ("no such key: model", "division by zero").
Status EvalError(std::string message);

// Map operations over literal maps and the device's attribute/capacity views. MapFind returns
// nullopt when the key is absent (cross-type numeric keys match, as in CEL) and an error when the
// stored value cannot be represented (a device attribute with no or a malformed value).
int64_t MapSize(const Value& map);
Result<std::optional<Value>> MapFind(const Value& map, const Value& key);
std::vector<Value> MapKeys(const Value& map);

// -1, 0, 1 for comparable values of the same kind or numbers of any kind; nullopt otherwise
// (or when a NaN is involved, with `*nan` set).
std::optional<int> Compare(const Value& a, const Value& b, bool* nan = nullptr);

// The size used for runtime cost: bytes of a string/bytes value, entries of a list or map, 1
// otherwise.
uint64_t CostSize(const Value& v);

// Number of code points in UTF-8 text (invalid bytes count one each).
int64_t CodePointCount(std::string_view s);

// Formats a double as cel-go's string(double) (Go's %g, shortest representation).
std::string FormatDouble(double d);

// A readable rendering for error messages ("no such key: model").
std::string DebugString(const Value& v);

}  // namespace allot::cel
