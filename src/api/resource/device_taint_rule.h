// resource.k8s.io/v1 DeviceTaintRule (k8s.io/api resource/v1, Kubernetes 1.37, where device
// taints are GA): a taint applied to every device a selector picks (by driver, pool and device
// name), without editing the drivers' ResourceSlices. kube-scheduler's DRA plugin reads them;
// Allot stores and validates them. (The allocator's and the eviction controller's use of them
// is DRA 1.37's work, docs/dra.md.)
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/machinery/meta.h"
#include "api/machinery/object.h"
#include "api/machinery/validation.h"
#include "api/resource/types.h"

namespace allot::api {

// At most this many status conditions (DeviceTaintRuleStatusMaxConditions).
inline constexpr size_t kDeviceTaintRuleMaxConditions = 8;

struct DeviceTaintSelector {
  std::optional<std::string> driver;
  std::optional<std::string> pool;
  std::optional<std::string> device;
  template <class V> void Visit(V& v) {
    v("driver", driver);
    v("pool", pool);
    v("device", device);
  }
  bool operator==(const DeviceTaintSelector&) const = default;
};

struct DeviceTaintRuleSpec {
  std::optional<DeviceTaintSelector> deviceSelector;
  DeviceTaint taint;
  template <class V> void Visit(V& v) {
    v("deviceSelector", deviceSelector);
    v("taint", taint, {.always = true, .required = true});
  }
  bool operator==(const DeviceTaintRuleSpec&) const = default;
};

struct DeviceTaintRuleStatus {
  std::vector<Condition> conditions;
  template <class V> void Visit(V& v) { v("conditions", conditions, {.merge_key = "type"}); }
  bool operator==(const DeviceTaintRuleStatus&) const = default;
};

struct DeviceTaintRule : TypedObject<DeviceTaintRule> {
  static const TypeInfo& Type();
  DeviceTaintRuleSpec spec;
  DeviceTaintRuleStatus status;
  template <class V> void Visit(V& v) {
    v("metadata", metadata);
    v("spec", spec);
    v("status", status);
  }
  bool operator==(const DeviceTaintRule& o) const {
    return metadata == o.metadata && spec == o.spec && status == o.status;
  }
};

// resourcevalidation.ValidateDeviceTaintRule: a DNS-subdomain name; the selector's driver, pool
// and device names well-formed; the taint (ValidateDeviceTaint). On update the effect is only
// checked when it changes. Status: at most 8 well-formed conditions.
void ValidateDeviceTaintRule(const DeviceTaintRule& rule, FieldErrors& errs);
void ValidateDeviceTaintRuleUpdate(const DeviceTaintRule& rule, const DeviceTaintRule& old,
                                   FieldErrors& errs);
void ValidateDeviceTaintRuleStatusUpdate(const DeviceTaintRule& rule, const DeviceTaintRule& old,
                                         FieldErrors& errs);

}  // namespace allot::api
