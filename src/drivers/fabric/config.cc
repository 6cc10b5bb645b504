#include "drivers/fabric/config.h"

#include <algorithm>
#include <set>

#include "api/machinery/meta_validation.h"
#include "api/machinery/validation.h"
#include "api/resource/validation.h"
#include "drivers/config/decoder.h"
#include "drivers/fabric/devices.h"

namespace allot::drivers {

namespace {

using api::Path;
using std::chrono::microseconds;

// Decodes the JSON form into a FabricConfig, recording type errors and unknown fields. Value
// ranges are ValidateFabricConfig's business.
class Decoder : public ConfigDecoder {
 public:
  void Config(const rapidjson::Value& doc, FabricConfig& c) {
    Fields(doc, Path(), "driver, pools, ...",
           [&](const std::string& key, const Path& p, const rapidjson::Value& v) {
             if (key == "driver") {
               String(v, p, c.driver);
             } else if (key == "nodeSelector") {
               StringMap(v, p, c.node_selector);
             } else if (key == "pools") {
               Pools(v, p, c.pools);
             } else if (key == "attachLatency") {
               Duration(v, p, c.attach_latency);
             } else if (key == "attachLatencyMax") {
               Duration(v, p, c.attach_latency_max);
             } else if (key == "detachLatency") {
               Duration(v, p, c.detach_latency);
             } else if (key == "failureRate") {
               Number(v, p, c.failure_rate);
             } else if (key == "failureCooldown") {
               Duration(v, p, c.failure_cooldown);
             } else if (key == "refreshInterval") {
               Duration(v, p, c.refresh_interval);
             } else if (key == "seed") {
               Uint(v, p, c.seed);
             } else if (key == "bindingConditions") {
               StringList(v, p, c.binding_conditions);
             } else if (key == "bindingFailureConditions") {
               StringList(v, p, c.binding_failure_conditions);
             } else if (key == "onFailure") {
               std::string policy;
               if (!String(v, p, policy)) return true;
               if (policy == "Taint") {
                 c.on_failure = FabricFailurePolicy::kTaint;
               } else if (policy == "Remove") {
                 c.on_failure = FabricFailurePolicy::kRemove;
               } else {
                 errs_.NotSupported(p, policy, {"Remove", "Taint"});
               }
             } else {
               return false;
             }
             return true;
           });
  }

  void Pools(const rapidjson::Value& v, const Path& p, std::vector<FabricPoolConfig>& out) {
    if (!v.IsArray()) return Invalid(v, p, "must be a list of pools");
    out.clear();
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) Pool(v[i], p.Index(i), out.emplace_back());
  }

  void Pool(const rapidjson::Value& fields, const Path& p, FabricPoolConfig& pool) {
    Fields(fields, p, "model, count, ...",
           [&](const std::string& key, const Path& fp, const rapidjson::Value& v) {
             if (key == "model") {
               String(v, fp, pool.model);
             } else if (key == "count") {
               Int(v, fp, pool.count);
             } else if (key == "attributes") {
               if (!v.IsObject()) {
                 Invalid(v, fp, "must be a map of attribute values");
                 return true;
               }
               for (const auto& a : v.GetObject()) {
                 Attribute(a.value, fp.Key(a.name.GetString()),
                           pool.attributes[a.name.GetString()]);
               }
             } else if (key == "capacity") {
               if (!v.IsObject()) {
                 Invalid(v, fp, "must be a map of quantities");
                 return true;
               }
               for (const auto& c : v.GetObject()) {
                 Quantity(c.value, fp.Key(c.name.GetString()), pool.capacity[c.name.GetString()]);
               }
             } else {
               return false;
             }
             return true;
           });
  }

  // A plain scalar, or {string|int|bool|version: value} as in a ResourceSlice.
  void Attribute(const rapidjson::Value& v, const Path& p, api::DeviceAttribute& a) {
    if (v.IsString()) {
      a.stringValue = v.GetString();
    } else if (v.IsBool()) {
      a.boolValue = v.GetBool();
    } else if (v.IsInt64()) {
      a.intValue = v.GetInt64();
    } else if (v.IsObject() && v.MemberCount() == 1) {
      const auto& m = *v.MemberBegin();
      const std::string type = m.name.GetString();
      const Path tp = p.Child(type);
      if (type == "string" || type == "version") {
        std::string s;
        if (String(m.value, tp, s)) (type == "string" ? a.stringValue : a.versionValue) = s;
      } else if (type == "int") {
        if (m.value.IsInt64()) {
          a.intValue = m.value.GetInt64();
        } else {
          Invalid(m.value, tp, "must be an integer");
        }
      } else if (type == "bool") {
        if (m.value.IsBool()) {
          a.boolValue = m.value.GetBool();
        } else {
          Invalid(m.value, tp, "must be true or false");
        }
      } else {
        errs_.NotSupported(p, type, {"bool", "int", "string", "version"});
      }
    } else {
      Invalid(v, p,
              "must be a string, integer or boolean, or one of {string|int|bool|version: value}");
    }
  }

  // "80Gi" or 80.
  void Quantity(const rapidjson::Value& v, const Path& p, api::Quantity& q) {
    if (v.IsInt64()) {
      q = api::Quantity::FromInt(v.GetInt64());
      return;
    }
    if (!v.IsString()) return Invalid(v, p, "must be a quantity such as \"80Gi\"");
    Result<api::Quantity> parsed = api::Quantity::Parse(v.GetString());
    if (!parsed.ok()) return errs_.Invalid(p, v.GetString(), parsed.status().message());
    q = *parsed;
  }
};

void ValidateConditionList(const std::vector<std::string>& list, const Path& p,
                           api::FieldErrors& errs) {
  if (list.empty()) errs.Required(p, "at least one condition type");
  if (list.size() > api::kBindingConditionsMaxSize) {
    errs.TooMany(p, static_cast<int64_t>(list.size()),
                 static_cast<int64_t>(api::kBindingConditionsMaxSize));
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    api::ValidateLabelName(list[i], p.Index(i), errs);
    if (!seen.insert(list[i]).second) errs.Duplicate(p.Index(i), list[i]);
  }
}

// What the API server would say about the pool's slice, with every device in both shapes.
void ValidatePoolSlice(const FabricConfig& c, const FabricPoolConfig& pool, const Path& p,
                       std::vector<std::string>& problems) {
  std::vector<api::Device> devices;
  for (int64_t i = 0; i < pool.count; ++i) {
    FabricDeviceShape shape;
    if (i % 2 == 1) {
      shape.attached_to = "node";
      shape.taint = FabricAttachFailedTaint("node", Time::FromUnixSeconds(1));
    }
    devices.push_back(FabricDevice(c, pool, i, shape));
  }
  api::FieldErrors errs;
  api::ValidateResourceSlice(FabricSlice(c, pool, std::move(devices), 1), errs);
  for (const std::string& m : errs.Messages()) {
    problems.push_back(p.str() + ": the pool's ResourceSlice would be invalid: " + m);
  }
}

void ValidatePool(const FabricConfig& c, const FabricPoolConfig& pool, const Path& p,
                  api::FieldErrors& errs, std::vector<std::string>& problems) {
  const size_t before = errs.size();
  if (pool.model.empty()) {
    errs.Required(p.Child("model"));
  } else {
    api::ValidateDnsLabel(pool.model, p.Child("model"), errs);
    if (pool.model.size() > kFabricModelMaxLength) {
      errs.Invalid(p.Child("model"), pool.model,
                   "must be no more than " + std::to_string(kFabricModelMaxLength) +
                       " bytes, so that device names <model>-<index> are DNS labels");
    }
  }
  if (pool.count <= 0) {
    errs.InvalidInt(p.Child("count"), pool.count, "must be positive");
  } else if (pool.count > static_cast<int64_t>(api::kResourceSliceMaxDevices)) {
    errs.InvalidInt(p.Child("count"), pool.count,
                    "must be at most " + std::to_string(api::kResourceSliceMaxDevices) +
                        " (the devices of a model share one ResourceSlice)");
  }
  if (pool.attributes.contains(std::string(kFabricModelAttribute))) {
    errs.Invalid(p.Child("attributes").Key(kFabricModelAttribute), "",
                 "is set by the driver (the pool's model)");
  }
  if (errs.size() == before) ValidatePoolSlice(c, pool, p, problems);
}

}  // namespace

Result<FabricConfig> ParseFabricConfig(std::string_view yaml) {
  ALLOT_ASSIGN_OR_RETURN(rapidjson::Document doc, ParseConfigDocument(yaml, "fabric config"));
  FabricConfig config;
  Decoder decoder;
  decoder.Config(doc, config);
  ALLOT_RETURN_IF_ERROR(ConfigProblems("fabric config", decoder.Problems()));
  ALLOT_RETURN_IF_ERROR(ValidateFabricConfig(config));
  return config;
}

Status ValidateFabricConfig(const FabricConfig& c) {
  api::FieldErrors errs;
  std::vector<std::string> slice_problems;  // what the API server would say about the slices
  const Path root;
  ValidateDriverName(c.driver, root.Child("driver"), errs);
  ValidateNodeLabels(c.node_selector, root.Child("nodeSelector"), errs);
  if (c.pools.empty()) errs.Required(root.Child("pools"), "at least one pool of devices");
  std::set<std::string> models;
  for (size_t i = 0; i < c.pools.size(); ++i) {
    const Path p = root.Child("pools").Index(i);
    if (!c.pools[i].model.empty() && !models.insert(c.pools[i].model).second) {
      errs.Duplicate(p.Child("model"), c.pools[i].model);
    }
    ValidatePool(c, c.pools[i], p, errs, slice_problems);
  }
  ValidateDuration(c.attach_latency, root.Child("attachLatency"), false, errs);
  if (c.attach_latency_max.count() != 0 && c.attach_latency_max < c.attach_latency) {
    errs.InvalidInt(root.Child("attachLatencyMax"), c.attach_latency_max.count(),
                    "must not be less than attachLatency (microseconds)");
  }
  ValidateDuration(c.detach_latency, root.Child("detachLatency"), false, errs);
  ValidateDuration(c.failure_cooldown, root.Child("failureCooldown"), false, errs);
  ValidateDuration(c.refresh_interval, root.Child("refreshInterval"), true, errs);
  ValidateProbability(c.failure_rate, root.Child("failureRate"), errs);
  ValidateConditionList(c.binding_conditions, root.Child("bindingConditions"), errs);
  ValidateConditionList(c.binding_failure_conditions, root.Child("bindingFailureConditions"), errs);
  for (size_t i = 0; i < c.binding_failure_conditions.size(); ++i) {
    const std::string& type = c.binding_failure_conditions[i];
    if (std::find(c.binding_conditions.begin(), c.binding_conditions.end(), type) !=
        c.binding_conditions.end()) {
      errs.Invalid(root.Child("bindingFailureConditions").Index(i), type,
                   "must not also be a binding condition");
    }
  }
  std::vector<std::string> problems = errs.Messages();
  problems.insert(problems.end(), slice_problems.begin(), slice_problems.end());
  return ConfigProblems("fabric config", problems);
}

}  // namespace allot::drivers
