// Validation of ResourceSlice: pool, node scoping, devices (attributes, capacity and request
// policies, taints, binding conditions, per-device node selection) and shared counters.
#include <map>
#include <set>

#include "api/machinery/meta_validation.h"
#include "api/machinery/names.h"
#include "api/machinery/reflect.h"
#include "api/machinery/validation_util.h"
#include "api/resource/validation.h"
#include "api/resource/validation_internal.h"

namespace allot::api {

namespace {

using dra_internal::ValidateSet;
using dra_internal::ValidateSlice;

constexpr size_t kAttributeKeyMaxLength = kDeviceMaxDomainLength + 1 + kDeviceMaxIDLength;

using SharedCounters = std::map<std::string, const CounterSet*>;

// truncateIfTooLong: long map keys are shortened in the middle for error paths.
std::string TruncateKey(const std::string& key, size_t max) {
  if (max < 16) max = 16;
  if (key.size() <= max) return key;
  size_t remaining = max - 3;
  return key.substr(0, (remaining + 1) / 2) + "..." + key.substr(key.size() - remaining / 2);
}

void ValidateAttribute(const DeviceAttribute& a, const Path& p, FieldErrors& errs) {
  int fields = a.intValue.has_value() + a.boolValue.has_value() + a.stringValue.has_value() +
               a.versionValue.has_value();
  if (a.stringValue && a.stringValue->size() > kDeviceAttributeMaxValueLength) {
    errs.TooLong(p.Child("string"), kDeviceAttributeMaxValueLength);
  }
  if (a.versionValue) {
    if (!validation_util::IsSemver(*a.versionValue)) {
      errs.Invalid(p.Child("version"), *a.versionValue,
                   "must be a string compatible with semver.org spec 2.0.0");
    }
    if (a.versionValue->size() > kDeviceAttributeMaxValueLength) {
      errs.TooLong(p.Child("version"), kDeviceAttributeMaxValueLength);
    }
  }
  if (fields == 0) {
    errs.Invalid(p, "", "exactly one value must be specified");
  } else if (fields > 1) {
    validation_util::InvalidRaw(errs, p, ToJson(a), "exactly one value must be specified");
  }
}

void ValidateRequestPolicyValues(const Quantity& def, const Quantity& capacity,
                                 const std::vector<Quantity>& values, const Path& p,
                                 FieldErrors& errs) {
  for (size_t i = 0; i + 1 < values.size(); ++i) {
    if (values[i].Compare(values[i + 1]) > 0) {
      errs.Invalid(p.Index(i + 1), values[i + 1].ToString(),
                   "values must be sorted in ascending order");
    }
  }
  bool found_default = false;
  ValidateSet(
      values, kCapacityRequestPolicyDiscreteMaxOptions, p, errs,
      [&](const Quantity& q, const Path& qp) {
        if (q.Compare(capacity) > 0) {
          errs.Invalid(qp, q.ToString(),
                       "option is larger than capacity value: " + capacity.ToString());
        }
        if (q.Compare(def) == 0) found_default = true;
      },
      [](const Quantity& q) { return std::to_string(q.Value()); });
  if (values.size() <= kCapacityRequestPolicyDiscreteMaxOptions && !found_default) {
    errs.Invalid(p, def.ToString(), "default value is not valid according to the requestPolicy");
  }
}

void ValidateRangeStep(const Quantity& value, const Quantity& min, const Quantity& step,
                       const Path& p, FieldErrors& errs) {
  int64_t s = step.Value();
  if (s <= 0) return;
  if ((value.Value() - min.Value()) % s != 0) {
    errs.Invalid(p, value.ToString(),
                 "value is not a multiple of a given step (" + step.ToString() + ") from (" +
                     min.ToString() + ")");
  }
}

void ValidateRequestPolicyRange(const Quantity& def, const Quantity& capacity,
                                const CapacityRequestPolicyRange& r, const Path& p,
                                FieldErrors& errs) {
  if (!r.min) {
    errs.Required(p.Child("min"), "required when validRange is defined");
    return;
  }
  const Quantity& min = *r.min;
  if (min.Compare(capacity) > 0) {
    errs.Invalid(p.Child("min"), min.ToString(),
                 "min is larger than capacity value: " + capacity.ToString());
  }
  if (def.Compare(min) < 0) {
    errs.Invalid(p.Child("min"), def.ToString(), "default is less than min: " + min.ToString());
  }
  if (r.max) {
    const Quantity& max = *r.max;
    if (min.Compare(max) > 0) {
      errs.Invalid(p.Child("max"), min.ToString(), "min is larger than max: " + max.ToString());
    }
    if (max.Compare(capacity) > 0) {
      errs.Invalid(p.Child("max"), max.ToString(),
                   "max is larger than capacity value: " + capacity.ToString());
    }
    if (def.Compare(max) > 0) {
      errs.Invalid(p.Child("max"), def.ToString(), "default is more than max: " + max.ToString());
    }
  }
  if (r.step) {
    Quantity added = min + *r.step;
    if (added.Compare(capacity) > 0) {
      errs.Invalid(p.Child("step"), r.step->ToString(),
                   "one step " + added.ToString() +
                       " is larger than capacity value: " + capacity.ToString());
    }
    ValidateRangeStep(def, min, *r.step, p.Child("step"), errs);
    if (r.max) ValidateRangeStep(*r.max, min, *r.step, p.Child("step"), errs);
  }
}

void ValidateCapacity(const DeviceCapacity& c, bool multi, const Path& p, FieldErrors& errs) {
  if (!c.requestPolicy) return;
  Path pp = p.Child("requestPolicy");
  if (!multi) {
    errs.Forbidden(pp, "allowMultipleAllocations must be true");
    return;
  }
  const CapacityRequestPolicy& policy = *c.requestPolicy;
  if (!policy.validValues.empty() && policy.validRange) {
    errs.Forbidden(pp,
                   "exactly one policy can be specified, cannot specify \"validValues\" and "
                   "\"validRange\" at the same time");
  } else if (!policy.validValues.empty()) {
    if (!policy.defaultValue) {
      errs.Required(pp.Child("default"), "required when validValues is defined");
    } else {
      ValidateRequestPolicyValues(*policy.defaultValue, c.value, policy.validValues,
                                  pp.Child("validValues"), errs);
    }
  } else if (policy.validRange) {
    if (!policy.defaultValue) {
      errs.Required(pp.Child("default"), "required when validRange is defined");
    } else {
      ValidateRequestPolicyRange(*policy.defaultValue, c.value, *policy.validRange,
                                 pp.Child("validRange"), errs);
    }
  }
}

void ValidateCounterMap(const std::map<std::string, Counter>& counters, const Path& p,
                        FieldErrors& errs) {
  for (const auto& [name, counter] : counters) {
    ValidateDnsLabel(name, p.Key(TruncateKey(name, 63)), errs);
  }
}

// 1.34: counters consumed by a device must name a set and counters of this slice.
size_t ValidateConsumesCounters(const Device& d, const SharedCounters& shared, const Path& p,
                                FieldErrors& errs) {
  size_t total = 0;
  ValidateSet(
      d.consumesCounters, 0, p.Child("consumesCounters"), errs,
      [&](const DeviceCounterConsumption& c, const Path& cp) {
        total += c.counters.size();
        Path sp = cp.Child("counterSet");
        if (c.counterSet.empty()) {
          errs.Required(sp);
        } else {
          ValidateDnsLabel(c.counterSet, sp, errs);
        }
        auto set = shared.find(c.counterSet);
        if (set == shared.end()) {
          errs.Invalid(sp, c.counterSet,
                       "must reference a counterSet defined in the ResourceSlice sharedCounters");
        }
        if (c.counters.empty()) {
          errs.Required(cp.Child("counters"));
          return;
        }
        ValidateCounterMap(c.counters, cp.Child("counters"), errs);
        if (set == shared.end()) return;
        for (const auto& [name, counter] : c.counters) {
          if (!set->second->counters.count(name)) {
            errs.Invalid(cp.Child("counters"), name,
                         "must reference a counter defined in the ResourceSlice sharedCounters");
          }
        }
      },
      [](const DeviceCounterConsumption& c) { return c.counterSet; });
  if (total > kResourceSliceMaxCountersPerDevice) {
    errs.InvalidInt(p, static_cast<int64_t>(total),
                    "the total number of counters must not exceed " +
                        std::to_string(kResourceSliceMaxCountersPerDevice));
  }
  return total;
}

void ValidateDeviceNodeSelection(const Device& d, bool per_device, const Path& p,
                                 FieldErrors& errs) {
  if (!per_device) {
    if (d.nodeName || d.nodeSelector || d.allNodes) {
      errs.Invalid(p, "null",
                   "`nodeName`, `nodeSelector` and `allNodes` can only be set if "
                   "`perDeviceNodeSelection` is set to true in the ResourceSlice spec");
    }
    return;
  }
  std::vector<std::string> set_fields;
  if (d.nodeName) {
    if (!d.nodeName->empty()) {
      set_fields.push_back("`nodeName`");
      validation_util::ValidateNodeName(*d.nodeName, p.Child("nodeName"), errs);
    } else {
      errs.Invalid(p.Child("nodeName"), "", "must not be empty");
    }
  }
  if (d.nodeSelector) {
    set_fields.push_back("`nodeSelector`");
    ValidateNodeSelector(*d.nodeSelector, /*allow_invalid_label_values=*/false,
                         p.Child("nodeSelector"), errs);
  }
  if (d.allNodes) {
    if (*d.allNodes) {
      set_fields.push_back("`allNodes`");
    } else {
      validation_util::InvalidRaw(errs, p.Child("allNodes"), "false",
                           "must be either unset or set to true");
    }
  }
  constexpr std::string_view kMsg =
      "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
      "`perDeviceNodeSelection` is set to true in the ResourceSlice spec";
  if (set_fields.empty()) {
    errs.Required(p, kMsg);
  } else if (set_fields.size() > 1) {
    errs.Invalid(p, dra_internal::JoinSetFields(set_fields), kMsg);
  }
}

// Returns the number of counters the device consumes.
size_t ValidateDevice(const Device& d, bool per_device, const SharedCounters& shared, const Path& p,
                      FieldErrors& errs) {
  ValidateDnsLabel(d.name, p.Child("name"), errs);
  size_t entries = d.attributes.size() + d.capacity.size();
  if (entries > kResourceSliceMaxAttributesAndCapacitiesPerDevice) {
    errs.InvalidInt(p, static_cast<int64_t>(entries),
                    "the total number of attributes and capacities must not exceed " +
                        std::to_string(kResourceSliceMaxAttributesAndCapacitiesPerDevice));
  }
  for (const auto& [key, attr] : d.attributes) {
    Path kp = p.Child("attributes").Key(TruncateKey(key, kAttributeKeyMaxLength));
    dra_internal::ValidateQualifiedName(key, kp, errs);
    ValidateAttribute(attr, kp, errs);
  }
  bool multi = d.allowMultipleAllocations.value_or(false);
  for (const auto& [key, cap] : d.capacity) {
    Path kp = p.Child("capacity").Key(TruncateKey(key, kAttributeKeyMaxLength));
    dra_internal::ValidateQualifiedName(key, kp, errs);
    ValidateCapacity(cap, multi, kp, errs);
  }
  ValidateSlice(d.taints, kDeviceTaintsMaxLength, p.Child("taints"), errs,
                [&](const DeviceTaint& t, const Path& tp) { ValidateDeviceTaint(t, tp, errs); });
  size_t counters = ValidateConsumesCounters(d, shared, p, errs);
  ValidateDeviceNodeSelection(d, per_device, p, errs);
  dra_internal::ValidateBindingConditions(d.bindingConditions, d.bindingFailureConditions, p, errs);
  return counters;
}

void ValidateNodeScoping(const ResourceSliceSpec& spec, const Path& p, FieldErrors& errs) {
  std::vector<std::string> set_fields;
  if (spec.nodeName) {
    if (!spec.nodeName->empty()) {
      set_fields.push_back("`nodeName`");
      validation_util::ValidateNodeName(*spec.nodeName, p.Child("nodeName"), errs);
    } else {
      errs.Invalid(p.Child("nodeName"), "", "must be either unset or set to a non-empty string");
    }
  }
  if (spec.nodeSelector) {
    set_fields.push_back("`nodeSelector`");
    ValidateNodeSelector(*spec.nodeSelector, /*allow_invalid_label_values=*/false,
                         p.Child("nodeSelector"), errs);
    if (spec.nodeSelector->nodeSelectorTerms.size() != 1) {
      // One term keeps merging the selectors of devices from different slices simple.
      validation_util::InvalidRaw(errs, p.Child("nodeSelector").Child("nodeSelectorTerms"),
                           ToJson(spec.nodeSelector->nodeSelectorTerms),
                           "must have exactly one node selector term");
    }
  }
  auto true_only = [&](const std::optional<bool>& v, std::string_view name) {
    if (!v) return;
    if (*v) {
      set_fields.push_back("`" + std::string(name) + "`");
    } else {
      validation_util::InvalidRaw(errs, p.Child(name), "false", "must be either unset or set to true");
    }
  };
  true_only(spec.allNodes, "allNodes");
  true_only(spec.perDeviceNodeSelection, "perDeviceNodeSelection");
  constexpr std::string_view kMsg =
      "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is "
      "required";
  if (set_fields.empty()) {
    errs.Required(p, kMsg);
  } else if (set_fields.size() > 1) {
    errs.Invalid(p, dra_internal::JoinSetFields(set_fields),
                 std::string(kMsg) + ", but multiple fields are set");
  }
}

void ValidateSharedCounters(const std::vector<CounterSet>& sets, const Path& p, FieldErrors& errs) {
  size_t total = 0;
  ValidateSet(
      sets, 0, p, errs,
      [&](const CounterSet& s, const Path& sp) {
        total += s.counters.size();
        if (s.name.empty()) {
          errs.Required(sp.Child("name"));
        } else {
          ValidateDnsLabel(s.name, sp.Child("name"), errs);
        }
        if (s.counters.empty()) {
          errs.Required(sp.Child("counters"));
        } else {
          ValidateCounterMap(s.counters, sp.Child("counters"), errs);
        }
      },
      [](const CounterSet& s) { return s.name; });
  if (total > kResourceSliceMaxSharedCounters) {
    errs.InvalidInt(p, static_cast<int64_t>(total),
                    "the total number of shared counters must not exceed " +
                        std::to_string(kResourceSliceMaxSharedCounters));
  }
}

void ValidateImmutableString(const std::optional<std::string>& now,
                             const std::optional<std::string>& old, const Path& p,
                             FieldErrors& errs) {
  if (now != old) errs.Invalid(p, now ? *now : "null", "field is immutable");
}

void ValidateSliceSpec(const ResourceSliceSpec& spec, FieldErrors& errs) {
  Path p("spec");
  validation_util::ValidateDriverName(spec.driver, p.Child("driver"), errs);
  Path pool = p.Child("pool");
  dra_internal::ValidatePoolName(spec.pool.name, pool.Child("name"), errs);
  if (spec.pool.resourceSliceCount <= 0) {
    errs.InvalidInt(pool.Child("resourceSliceCount"), spec.pool.resourceSliceCount,
                    "must be greater than zero");
  }
  if (spec.pool.generation < 0) {
    errs.InvalidInt(pool.Child("generation"), spec.pool.generation,
                    "must be greater than or equal to zero");
  }
  ValidateNodeScoping(spec, p, errs);

  SharedCounters shared;
  for (const CounterSet& s : spec.sharedCounters) shared.emplace(s.name, &s);
  bool per_device = spec.perDeviceNodeSelection.value_or(false);
  size_t device_counters = 0;
  ValidateSet(
      spec.devices, kResourceSliceMaxDevices, p.Child("devices"), errs,
      [&](const Device& d, const Path& dp) {
        device_counters += ValidateDevice(d, per_device, shared, dp, errs);
      },
      [](const Device& d) { return d.name; });
  if (device_counters > kResourceSliceMaxDeviceCountersPerSlice) {
    errs.InvalidInt(p.Child("devices"), static_cast<int64_t>(device_counters),
                    "the total number of counters in devices must not exceed " +
                        std::to_string(kResourceSliceMaxDeviceCountersPerSlice));
  }
  ValidateSharedCounters(spec.sharedCounters, p.Child("sharedCounters"), errs);
}

}  // namespace

void ValidateResourceSlice(const ResourceSlice& obj, FieldErrors& errs) {
  ValidateObjectMeta(obj.metadata, /*namespaced=*/false, NameIsDnsSubdomain, errs);
  ValidateSliceSpec(obj.spec, errs);
}

void ValidateResourceSliceUpdate(const ResourceSlice& obj, const ResourceSlice& old,
                                 FieldErrors& errs) {
  ValidateObjectMetaUpdate(obj.metadata, old.metadata, errs);
  Path p("spec");
  ValidateImmutableString(obj.spec.pool.name, old.spec.pool.name, p.Child("pool").Child("name"),
                          errs);
  ValidateImmutableString(obj.spec.driver, old.spec.driver, p.Child("driver"), errs);
  ValidateImmutableString(obj.spec.nodeName, old.spec.nodeName, p.Child("nodeName"), errs);
}

void ValidateDeviceTaint(const DeviceTaint& t, const Path& p, FieldErrors& errs) {
  ValidateLabelName(t.key, p.Child("key"), errs);
  if (!t.value.empty()) ValidateLabelValue(t.value, p.Child("value"), errs);
  if (t.effect.empty()) {
    errs.Required(p.Child("effect"));
  } else if (t.effect != "NoSchedule" && t.effect != "NoExecute" && t.effect != "None") {
    errs.NotSupported(p.Child("effect"), t.effect, {"NoExecute", "NoSchedule", "None"});
  }
}

}  // namespace allot::api
