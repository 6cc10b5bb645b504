#include "dra/device_rules.h"

#include <cstdint>
#include <limits>
#include <string>

namespace allot::dra {
namespace {

__extension__ typedef __int128 Int128;

// Finds a power-of-ten scale at which all of `qs` are exact integers that fit int64, and
// returns them at that scale. Scales tried from fine to coarse; nullopt if none works.
std::optional<std::pair<int32_t, std::vector<Int128>>> CommonScale(
    const std::vector<const api::Quantity*>& qs) {
  for (int32_t scale : {-9, -6, -3, 0, 3, 6, 9, 12, 15, 18}) {
    std::vector<Int128> values;
    bool ok = true;
    for (const api::Quantity* q : qs) {
      int64_t v = q->ScaledValue(scale);
      if (v == std::numeric_limits<int64_t>::max() || v == std::numeric_limits<int64_t>::min() ||
          !(api::Quantity::FromScaled(v, scale) == *q)) {
        ok = false;
        break;
      }
      values.push_back(v);
    }
    if (ok) return std::make_pair(scale, std::move(values));
  }
  return std::nullopt;
}

// min + ceil((req - min) / step) * step, in step's format. nullopt if not representable.
std::optional<api::Quantity> RoundUpToStep(const api::Quantity& req, const api::Quantity& min,
                                           const api::Quantity& step) {
  auto scaled = CommonScale({&req, &min, &step});
  if (!scaled || scaled->second[2] <= 0) return std::nullopt;
  const auto& [scale, v] = *scaled;
  Int128 added = v[0] - v[1];
  Int128 n = added / v[2];
  if (added % v[2] != 0) ++n;
  Int128 result = v[1] + n * v[2];
  if (result > std::numeric_limits<int64_t>::max()) return std::nullopt;
  api::Quantity q = api::Quantity::FromScaled(static_cast<int64_t>(result), scale);
  q.set_format(step.format());
  return q;
}

bool OnStepGrid(const api::Quantity& value, const api::Quantity& min, const api::Quantity& step) {
  auto scaled = CommonScale({&value, &min, &step});
  if (!scaled || scaled->second[2] <= 0) return false;
  const auto& v = scaled->second;
  return (v[0] - v[1]) % v[2] == 0;
}

// The rounded amount for a requested value (calculateConsumedQuantity).
std::optional<api::Quantity> RoundUp(const api::Quantity& req,
                                     const api::CapacityRequestPolicy* policy) {
  if (policy == nullptr) return req;
  if (policy->validRange && policy->validRange->min) {
    const api::CapacityRequestPolicyRange& r = *policy->validRange;
    if (req < *r.min) return *r.min;
    if (!r.step) return req;
    return RoundUpToStep(req, *r.min, *r.step);
  }
  for (const api::Quantity& v : policy->validValues) {
    if (!(v < req)) return v;
  }
  return req;
}

bool ViolatesPolicy(const api::Quantity& amount, const api::CapacityRequestPolicy* policy) {
  if (policy == nullptr) return false;
  if (policy->defaultValue && amount == *policy->defaultValue) return false;
  if (policy->validRange) {
    const api::CapacityRequestPolicyRange& r = *policy->validRange;
    if (r.max && *r.max < amount) return true;
    if (r.step && r.min && !OnStepGrid(amount, *r.min, *r.step)) return true;
    return false;
  }
  if (!policy->validValues.empty()) {
    for (const api::Quantity& v : policy->validValues) {
      if (v == amount) return false;
    }
    return true;
  }
  return false;
}

// The device capacity key a request name refers to, or nullptr.
const std::string* ResolveCapacityName(const std::string& name, const api::Device& device,
                                       std::string_view driver) {
  auto it = device.capacity.find(name);
  if (it != device.capacity.end()) return &it->first;
  size_t slash = name.find('/');
  if (slash != std::string::npos) {
    if (std::string_view(name).substr(0, slash) != driver) return nullptr;
    it = device.capacity.find(name.substr(slash + 1));
  } else {
    it = device.capacity.find(std::string(driver) + "/" + name);
  }
  return it == device.capacity.end() ? nullptr : &it->first;
}

}  // namespace

bool ToleratesTaint(const api::DeviceToleration& toleration, const api::DeviceTaint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  if (toleration.operator_.empty() || toleration.operator_ == "Equal") {
    return toleration.value == taint.value;
  }
  return toleration.operator_ == "Exists";
}

bool TaintPreventsAllocation(const api::Device& device,
                             const std::vector<api::DeviceToleration>& tolerations) {
  for (const api::DeviceTaint& taint : device.taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    bool tolerated = false;
    for (const api::DeviceToleration& t : tolerations) {
      if (ToleratesTaint(t, taint)) {
        tolerated = true;
        break;
      }
    }
    if (!tolerated) return true;
  }
  return false;
}

std::optional<std::vector<api::Quantity>> ConsumedCapacity(const api::CapacityRequirements* request,
                                                           const api::Device& device,
                                                           std::string_view driver) {
  // Requested amounts by device capacity key.
  std::map<const std::string*, const api::Quantity*> requested;
  if (request != nullptr) {
    for (const auto& [name, q] : request->requests) {
      const std::string* key = ResolveCapacityName(name, device, driver);
      if (key == nullptr) return std::nullopt;
      requested[key] = &q;
    }
  }
  std::vector<api::Quantity> out;
  out.reserve(device.capacity.size());
  for (const auto& [name, cap] : device.capacity) {
    const api::CapacityRequestPolicy* policy = cap.requestPolicy ? &*cap.requestPolicy : nullptr;
    auto it = requested.find(&name);
    if (it == requested.end()) {
      out.push_back(policy && policy->defaultValue ? *policy->defaultValue : cap.value);
    } else {
      std::optional<api::Quantity> amount = RoundUp(*it->second, policy);
      if (!amount || amount->Sign() < 0) return std::nullopt;
      out.push_back(std::move(*amount));
    }
    if (ViolatesPolicy(out.back(), policy)) return std::nullopt;
  }
  return out;
}

bool FitsCapacity(const std::vector<api::Quantity>& amounts, const api::Device& device) {
  size_t i = 0;
  for (const auto& [name, cap] : device.capacity) {
    if (i < amounts.size() && cap.value < amounts[i]) return false;
    ++i;
  }
  return true;
}

}  // namespace allot::dra
