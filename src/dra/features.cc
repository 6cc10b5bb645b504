// ParseFeatureGates: the --feature-gates syntax of k8s.io/component-base/featuregate.
//
// "A=true,B=false": pairs separated by commas, spaces around keys and values ignored, values
// parsed as Go's strconv.ParseBool does. AllAlpha / AllBeta set every alpha / beta DRA gate
// (as of Kubernetes 1.34) before the explicitly named gates apply, whatever their order.
#include "dra/features.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace allot::dra {
namespace {

enum class Stage { kAlpha, kBeta, kAllot };

struct DraGate {
  std::string_view name;
  bool Features::*field;
  Stage stage;  // Kubernetes 1.34 maturity
};

constexpr std::array<DraGate, 8> kDraGates{{
    {"DRAPrioritizedList", &Features::prioritized_list, Stage::kBeta},
    {"DRAAdminAccess", &Features::admin_access, Stage::kBeta},
    {"DRADeviceTaints", &Features::device_taints, Stage::kAlpha},
    {"DRAPartitionableDevices", &Features::partitionable_devices, Stage::kAlpha},
    {"DRAConsumableCapacity", &Features::consumable_capacity, Stage::kAlpha},
    {"DRADeviceBindingConditions", &Features::binding_conditions, Stage::kAlpha},
    {"DRAResourceClaimDeviceStatus", &Features::resource_claim_device_status, Stage::kBeta},
    {"DRAControlPlaneController", &Features::control_plane_controller, Stage::kAllot},
}};

// Other Kubernetes gates a kube-scheduler command line may carry: accepted, ignored. Not every
// gate Kubernetes ever had; the ones a scheduler or DRA deployment is likely to pass.
constexpr std::array<std::string_view, 59> kOtherGates{{
    "AllAlpha",
    "AllBeta",
    "DynamicResourceAllocation",
    "DRAExtendedResource",
    "DRASchedulerFilterTimeout",
    "DRAPartitionableDevicesAllocation",
    "DRADeviceTaintRules",
    "DRAListTypeAttributes",
    "DRANodeAllocatableResources",
    "DRAWorkloadResourceClaims",
    "DeviceBindingConditions",
    "SchedulerQueueingHints",
    "SchedulerAsyncPreemption",
    "SchedulerPopFromBackoffQ",
    "SchedulerAsyncAPICalls",
    "NominatedNodeNameForExpectation",
    "PodSchedulingReadiness",
    "MatchLabelKeysInPodAffinity",
    "MatchLabelKeysInPodTopologySpread",
    "MatchLabelKeysInPodTopologySpreadSelectorMerge",
    "NodeInclusionPolicyInPodTopologySpread",
    "MinDomainsInPodTopologySpread",
    "VolumeCapacityPriority",
    "StorageCapacityScoring",
    "InPlacePodVerticalScaling",
    "InPlacePodVerticalScalingAllocatedStatus",
    "InPlacePodVerticalScalingExclusiveCPUs",
    "PodLevelResources",
    "PodLevelResourceManagers",
    "SidecarContainers",
    "PodDisruptionConditions",
    "PodReadyToStartContainersCondition",
    "PodObservedGenerationTracking",
    "GenericWorkload",
    "GangScheduling",
    "OpportunisticBatching",
    "TopologyAwareWorkloadScheduling",
    "KubeletPodResourcesDynamicResources",
    "KubeletPodResourcesGet",
    "ResourceHealthStatus",
    "ExtendedResourceAllocation",
    "CPUManagerPolicyAlphaOptions",
    "CPUManagerPolicyBetaOptions",
    "MemoryManager",
    "TopologyManagerPolicyAlphaOptions",
    "TopologyManagerPolicyBetaOptions",
    "TopologyManagerPolicyOptions",
    "NodeSwap",
    "UserNamespacesSupport",
    "CoordinatedLeaderElection",
    "ComponentFlagz",
    "ComponentStatusz",
    "ContextualLogging",
    "LoggingAlphaOptions",
    "LoggingBetaOptions",
    "APIServerTracing",
    "WatchList",
    "InformerResourceVersion",
    "ClientsAllowCBOR",
}};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Go's strconv.ParseBool.
std::optional<bool> ParseBool(std::string_view v) {
  static constexpr std::array<std::string_view, 6> kTrue{"1", "t", "T", "TRUE", "true", "True"};
  static constexpr std::array<std::string_view, 6> kFalse{"0", "f", "F", "FALSE", "false", "False"};
  if (std::find(kTrue.begin(), kTrue.end(), v) != kTrue.end()) return true;
  if (std::find(kFalse.begin(), kFalse.end(), v) != kFalse.end()) return false;
  return std::nullopt;
}

Status Invalid(std::string message) { return Status(StatusCode::kBadRequest, std::move(message)); }

}  // namespace

Result<Features> ParseFeatureGates(std::string_view spec, Features base) {
  std::vector<std::pair<std::string_view, bool>> settings;
  while (!spec.empty()) {
    size_t comma = spec.find(',');
    std::string_view item = Trim(spec.substr(0, comma));
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return Invalid("missing bool value for " + std::string(item));
    }
    std::string_view key = Trim(item.substr(0, eq));
    std::string_view value = Trim(item.substr(eq + 1));
    std::optional<bool> b = ParseBool(value);
    if (!b) {
      return Invalid("invalid value of " + std::string(key) + "=" + std::string(value) +
                     ", err: strconv.ParseBool: parsing \"" + std::string(value) +
                     "\": invalid syntax");
    }
    bool known = std::find(kOtherGates.begin(), kOtherGates.end(), key) != kOtherGates.end() ||
                 std::any_of(kDraGates.begin(), kDraGates.end(),
                             [&](const DraGate& g) { return g.name == key; });
    if (!known) return Invalid("unrecognized feature gate: " + std::string(key));
    settings.emplace_back(key, *b);
  }
  Features out = base;
  for (const auto& [key, value] : settings) {
    if (key != "AllAlpha" && key != "AllBeta") continue;
    const Stage stage = key == "AllAlpha" ? Stage::kAlpha : Stage::kBeta;
    for (const DraGate& g : kDraGates) {
      if (g.stage == stage) out.*g.field = value;
    }
  }
  for (const auto& [key, value] : settings) {
    for (const DraGate& g : kDraGates) {
      if (g.name == key) out.*g.field = value;
    }
  }
  return out;
}

}  // namespace allot::dra
