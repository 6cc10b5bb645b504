#include "cel/device_value.h"

#include <algorithm>
#include <map>
#include <string>

#include "api/resource/types.h"
#include "cel/semver.h"

namespace allot::cel {

namespace {

using Which = DeviceMapRef::Which;

// Splits a qualified name into (domain, id); unprefixed names belong to the driver.
std::pair<std::string_view, std::string_view> SplitName(std::string_view name,
                                                        std::string_view driver) {
  size_t slash = name.find('/');
  if (slash == std::string_view::npos) return {driver, name};
  return {name.substr(0, slash), name.substr(slash + 1)};
}

template <class M>
const typename M::mapped_type* FindQualified(const M& map, std::string_view driver,
                                             std::string_view domain, std::string_view id) {
  if (domain == driver && id.find('/') == std::string_view::npos) {
    // std::map<std::string, ...> has no heterogeneous lookup; a thread-local key avoids an
    // allocation per access once warmed up.
    thread_local std::string key;
    key.assign(id);
    auto it = map.find(key);
    if (it != map.end()) return &it->second;
  }
  thread_local std::string qualified;
  qualified.assign(domain);
  qualified.push_back('/');
  qualified.append(id);
  auto it = map.find(qualified);
  return it == map.end() ? nullptr : &it->second;
}

Result<Value> AttributeValue(const api::DeviceAttribute& a, std::string_view id) {
  if (a.intValue) return Value::Int(*a.intValue);
  if (a.boolValue) return Value::Bool(*a.boolValue);
  if (a.stringValue) return Value::String(StringRef::View(*a.stringValue));
  if (a.versionValue) {
    Result<Semver> v = ParseSemver(*a.versionValue);
    if (!v.ok()) {
      return EvalError("attribute " + std::string(id) +
                       ": parse semantic version: " + v.status().message());
    }
    return Value::Semver(std::make_shared<const Semver>(std::move(*v)));
  }
  return EvalError("attribute " + std::string(id) + ": unsupported attribute value");
}

template <class M>
size_t CountDomain(const M& map, std::string_view driver, std::string_view domain) {
  size_t n = 0;
  for (const auto& [name, unused] : map) {
    if (SplitName(name, driver).first == domain) ++n;
  }
  return n;
}

template <class M>
std::vector<std::string_view> Domains(const M& map, std::string_view driver) {
  std::vector<std::string_view> out;
  for (const auto& [name, unused] : map) {
    std::string_view d = SplitName(name, driver).first;
    if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  }
  return out;
}

template <class M>
std::vector<Value> Ids(const M& map, std::string_view driver, std::string_view domain) {
  std::vector<Value> out;
  for (const auto& [name, unused] : map) {
    // Not a structured binding: lambdas may not capture those before C++20 as clang 14 reads it.
    const auto split = SplitName(name, driver);
    if (split.first != domain) continue;
    const auto& id = split.second;
    bool dup =
        std::any_of(out.begin(), out.end(), [&](const Value& v) { return v.string_value() == id; });
    if (!dup) out.push_back(Value::String(StringRef::View(id)));
  }
  return out;
}

}  // namespace

std::optional<Value> DeviceField(const DeviceRef& device, std::string_view field) {
  const api::Device& d = *device.device;
  if (field == "driver") return Value::String(StringRef::View(device.driver));
  if (field == "attributes") {
    return Value::DeviceMap(DeviceMapRef{Which::kAttributes, &d, device.driver, {}});
  }
  if (field == "capacity") {
    return Value::DeviceMap(DeviceMapRef{Which::kCapacity, &d, device.driver, {}});
  }
  if (field == "allowMultipleAllocations") {
    return Value::Bool(d.allowMultipleAllocations.value_or(false));
  }
  return std::nullopt;
}

size_t DeviceMapSize(const DeviceMapRef& m) {
  const api::Device& d = *m.device;
  switch (m.which) {
    case Which::kAttributes:
      return Domains(d.attributes, m.driver).size();
    case Which::kCapacity:
      return Domains(d.capacity, m.driver).size();
    case Which::kAttributeDomain:
      return CountDomain(d.attributes, m.driver, m.domain.view());
    case Which::kCapacityDomain:
      return CountDomain(d.capacity, m.driver, m.domain.view());
  }
  return 0;
}

Result<std::optional<Value>> DeviceMapFind(const DeviceMapRef& m, const StringRef& key_ref) {
  const api::Device& d = *m.device;
  std::string_view key = key_ref.view();
  switch (m.which) {
    case Which::kAttributes:
    case Which::kCapacity: {
      // Every domain is present: an unknown one is an empty map (Kubernetes' mapper default).
      Which inner =
          m.which == Which::kAttributes ? Which::kAttributeDomain : Which::kCapacityDomain;
      // The key's StringRef keeps its text alive (a literal of the program or an owned string).
      return std::optional<Value>(Value::DeviceMap(DeviceMapRef{inner, &d, m.driver, key_ref}));
    }
    case Which::kAttributeDomain: {
      const api::DeviceAttribute* a = FindQualified(d.attributes, m.driver, m.domain.view(), key);
      if (a == nullptr) return std::optional<Value>();
      ALLOT_ASSIGN_OR_RETURN(Value v, AttributeValue(*a, key));
      return std::optional<Value>(std::move(v));
    }
    case Which::kCapacityDomain: {
      const api::DeviceCapacity* c = FindQualified(d.capacity, m.driver, m.domain.view(), key);
      if (c == nullptr) return std::optional<Value>();
      return std::optional<Value>(Value::Quantity(&c->value));
    }
  }
  return std::optional<Value>();
}

std::vector<Value> DeviceMapKeys(const DeviceMapRef& m) {
  const api::Device& d = *m.device;
  std::vector<Value> out;
  switch (m.which) {
    case Which::kAttributes:
      for (std::string_view dom : Domains(d.attributes, m.driver)) {
        out.push_back(Value::String(StringRef::View(dom)));
      }
      break;
    case Which::kCapacity:
      for (std::string_view dom : Domains(d.capacity, m.driver)) {
        out.push_back(Value::String(StringRef::View(dom)));
      }
      break;
    case Which::kAttributeDomain:
      out = Ids(d.attributes, m.driver, m.domain.view());
      break;
    case Which::kCapacityDomain:
      out = Ids(d.capacity, m.driver, m.domain.view());
      break;
  }
  return out;
}

}  // namespace allot::cel
