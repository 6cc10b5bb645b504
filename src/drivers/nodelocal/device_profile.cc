#include "drivers/nodelocal/device_profile.h"

#include <rapidjson/document.h>

#include <array>
#include <cstdio>
#include <set>

#include "api/codec/yaml.h"
#include "api/resource/validation.h"

namespace allot::drivers {

namespace {

// Attribute and capacity names the profile sets itself.
const std::set<std::string, std::less<>> kBuiltinAttributes = {
    "index", "uuid", "model", "driverVersion", "numa", "productName"};
constexpr std::string_view kBuiltinCapacity = "memory";

Status FieldError(std::string_view field, std::string_view problem) {
  return BadRequestError("device profile: " + std::string(field) + ": " + std::string(problem));
}

Result<std::string> GetString(const rapidjson::Value& v, std::string_view field) {
  if (!v.IsString()) return FieldError(field, "must be a string");
  return std::string(v.GetString(), v.GetStringLength());
}

Result<int64_t> GetInt(const rapidjson::Value& v, std::string_view field) {
  if (!v.IsInt64()) return FieldError(field, "must be an integer");
  return v.GetInt64();
}

// A quantity written as a string ("80Gi") or an integer (80).
Result<api::Quantity> GetQuantity(const rapidjson::Value& v, std::string_view field) {
  if (v.IsInt64()) return api::Quantity::FromInt(v.GetInt64());
  if (!v.IsString()) return FieldError(field, "must be a quantity such as \"80Gi\"");
  Result<api::Quantity> q = api::Quantity::Parse(v.GetString());
  if (!q.ok()) return FieldError(field, q.status().message());
  return q;
}

// A plain scalar (string, integer, bool) or a typed value as in a ResourceSlice
// ({string: x} | {int: 1} | {bool: true} | {version: 1.2.3}).
Result<api::DeviceAttribute> GetAttribute(const rapidjson::Value& v, const std::string& field) {
  api::DeviceAttribute a;
  if (v.IsString()) {
    a.stringValue = v.GetString();
  } else if (v.IsBool()) {
    a.boolValue = v.GetBool();
  } else if (v.IsInt64()) {
    a.intValue = v.GetInt64();
  } else if (v.IsObject() && v.MemberCount() == 1) {
    const auto& m = *v.MemberBegin();
    std::string type = m.name.GetString();
    std::string sub = field + "." + type;
    if (type == "string") {
      ALLOT_ASSIGN_OR_RETURN(a.stringValue, GetString(m.value, sub));
    } else if (type == "version") {
      ALLOT_ASSIGN_OR_RETURN(a.versionValue, GetString(m.value, sub));
    } else if (type == "int") {
      ALLOT_ASSIGN_OR_RETURN(a.intValue, GetInt(m.value, sub));
    } else if (type == "bool") {
      if (!m.value.IsBool()) return FieldError(sub, "must be true or false");
      a.boolValue = m.value.GetBool();
    } else {
      return FieldError(
          field, "unknown attribute type \"" + type + "\": want string, int, bool or version");
    }
  } else {
    return FieldError(field,
                      "must be a string, integer or boolean, or one of {string|int|bool|version: "
                      "value}");
  }
  return a;
}

Status ParseField(const std::string& key, const rapidjson::Value& v, DeviceProfile& p) {
  if (key == "driver") {
    ALLOT_ASSIGN_OR_RETURN(p.driver, GetString(v, key));
  } else if (key == "devicePrefix") {
    ALLOT_ASSIGN_OR_RETURN(p.device_prefix, GetString(v, key));
  } else if (key == "count") {
    ALLOT_ASSIGN_OR_RETURN(p.count, GetInt(v, key));
  } else if (key == "model") {
    ALLOT_ASSIGN_OR_RETURN(p.model, GetString(v, key));
  } else if (key == "driverVersion") {
    ALLOT_ASSIGN_OR_RETURN(p.driver_version, GetString(v, key));
  } else if (key == "productName") {
    ALLOT_ASSIGN_OR_RETURN(p.product_name, GetString(v, key));
  } else if (key == "numaNodes") {
    ALLOT_ASSIGN_OR_RETURN(p.numa_nodes, GetInt(v, key));
  } else if (key == "memory") {
    ALLOT_ASSIGN_OR_RETURN(p.memory, GetQuantity(v, key));
  } else if (key == "attributes" || key == "capacity") {
    if (!v.IsObject()) return FieldError(key, "must be a map");
    for (const auto& m : v.GetObject()) {
      std::string name = m.name.GetString();
      std::string field = key + "." + name;
      if (key == "attributes") {
        ALLOT_ASSIGN_OR_RETURN(p.attributes[name], GetAttribute(m.value, field));
      } else {
        ALLOT_ASSIGN_OR_RETURN(p.capacity[name], GetQuantity(m.value, field));
      }
    }
  } else {
    return BadRequestError("device profile: unknown field \"" + key + "\"");
  }
  return Status::Ok();
}

// FNV-1a, 64 bits, continuing from `h`.
uint64_t Fnv1a(std::string_view data, uint64_t h) {
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

// splitmix64's finalizer: FNV alone barely changes the high bits when only the last byte
// differs, so the UUIDs of gpu-1 and gpu-2 would look alike.
uint64_t Mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

api::DeviceAttribute StringAttr(std::string v) { return {.stringValue = std::move(v)}; }
api::DeviceAttribute IntAttr(int64_t v) { return {.intValue = v}; }

}  // namespace

Result<DeviceProfile> ParseDeviceProfile(std::string_view yaml) {
  Result<std::string> json = api::YamlDocumentToJson(yaml);
  if (!json.ok()) return BadRequestError("device profile: " + json.status().message());
  rapidjson::Document doc;
  doc.Parse(json->data(), json->size());
  DeviceProfile profile;
  if (doc.IsNull()) return profile;  // an empty file: the defaults
  if (doc.HasParseError() || !doc.IsObject()) {
    return BadRequestError("device profile: must be a map of fields (driver, count, model, ...)");
  }
  for (const auto& m : doc.GetObject()) {
    ALLOT_RETURN_IF_ERROR(ParseField(m.name.GetString(), m.value, profile));
  }
  ALLOT_RETURN_IF_ERROR(ValidateDeviceProfile(profile));
  return profile;
}

Status ValidateDeviceProfile(const DeviceProfile& p) {
  std::vector<std::string> problems;
  if (p.count < 1 || p.count > static_cast<int64_t>(api::kResourceSliceMaxDevices)) {
    problems.push_back("count: must be between 1 and " +
                       std::to_string(api::kResourceSliceMaxDevices) + ", got " +
                       std::to_string(p.count));
  }
  if (p.numa_nodes < 1) problems.push_back("numaNodes: must be at least 1");
  for (const auto& [name, value] : p.attributes) {
    if (kBuiltinAttributes.contains(name)) {
      problems.push_back("attributes." + name + ": is set by the profile itself");
    }
  }
  if (p.capacity.contains(std::string(kBuiltinCapacity))) {
    problems.push_back("capacity.memory: use the memory field");
  }
  if (problems.empty()) {
    // The rest is what the API server would say about the slices: build the largest one.
    api::ResourceSlice slice;
    slice.metadata.name = "profile-check";
    slice.spec.driver = p.driver;
    slice.spec.nodeName = "node";
    slice.spec.pool = {.name = "node", .generation = 1, .resourceSliceCount = 1};
    slice.spec.devices = DevicesForNode(p, "node");
    api::FieldErrors errs;
    api::ValidateResourceSlice(slice, errs);
    for (const std::string& m : errs.Messages()) problems.push_back(m);
  }
  if (problems.empty()) return Status::Ok();
  std::string msg = "invalid device profile:";
  for (const std::string& problem : problems) msg += "\n  " + problem;
  return BadRequestError(msg);
}

std::string DeviceUuid(std::string_view node, int64_t index) {
  std::string key = std::string(node) + '\0' + std::to_string(index);
  uint64_t h = Fnv1a(key, 14695981039346656037ULL);
  uint64_t hi = Mix(h);
  uint64_t lo = Mix(h ^ 0x9e3779b97f4a7c15ULL);
  hi = (hi & ~0xf000ULL) | 0x8000ULL;        // version 8 (custom)
  lo = (lo & ~(3ULL << 62)) | (2ULL << 62);  // RFC 9562 variant
  std::array<char, 40> buf{};
  std::snprintf(buf.data(), buf.size(), "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(hi >> 32), static_cast<unsigned>((hi >> 16) & 0xffff),
                static_cast<unsigned>(hi & 0xffff), static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return "gpu-" + std::string(buf.data());
}

std::string DeviceName(const DeviceProfile& profile, int64_t index) {
  return profile.device_prefix + std::to_string(index);
}

std::vector<api::Device> DevicesForNode(const DeviceProfile& p, std::string_view node) {
  std::vector<api::Device> devices;
  devices.reserve(static_cast<size_t>(std::max<int64_t>(p.count, 0)));
  for (int64_t i = 0; i < p.count; ++i) {
    api::Device d;
    d.name = DeviceName(p, i);
    d.attributes = p.attributes;
    d.attributes["index"] = IntAttr(i);
    d.attributes["uuid"] = StringAttr(DeviceUuid(node, i));
    d.attributes["model"] = StringAttr(p.model);
    d.attributes["driverVersion"] = {.versionValue = p.driver_version};
    d.attributes["numa"] = IntAttr(i * std::max<int64_t>(p.numa_nodes, 1) / p.count);
    if (!p.product_name.empty()) d.attributes["productName"] = StringAttr(p.product_name);
    for (const auto& [name, q] : p.capacity) d.capacity[name].value = q;
    d.capacity["memory"].value = p.memory;
    devices.push_back(std::move(d));
  }
  return devices;
}

}  // namespace allot::drivers
