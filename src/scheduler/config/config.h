// Scheduler configuration in the spirit of KubeSchedulerConfiguration
// (kubescheduler.config.k8s.io/v1): profiles by schedulerName with enabled / disabled plugins
// per extension point and score weights, percentageOfNodesToScore, parallelism, backoff.
//
//   apiVersion: kubescheduler.config.k8s.io/v1
//   kind: KubeSchedulerConfiguration
//   parallelism: 16
//   percentageOfNodesToScore: 0          # 0: adaptive (50% - nodes/125, at least 5%)
//   podInitialBackoffSeconds: 1
//   podMaxBackoffSeconds: 10
//   podMaxInUnschedulablePodsSeconds: 300  # Allot: kube-scheduler's flag of the same name
//   profiles:
//   - schedulerName: default-scheduler
//     plugins:
//       multiPoint: {enabled: [{name: MyPlugin, weight: 2}], disabled: [{name: NodePorts}]}
//       score: {disabled: [{name: "*"}], enabled: [{name: NodeResourcesFit, weight: 5}]}
//     pluginConfig:
//     - name: NodeResourcesFit
//       args: {scoringStrategy: {type: MostAllocated}}
//
// As in Kubernetes, every profile starts from the default plugins (enabled through
// multiPoint); a profile's multiPoint.enabled adds to them, multiPoint.disabled removes them
// ("*" removes all), and the per-extension-point lists enable or disable plugins at one point
// only. Unknown fields are errors (Kubernetes decodes this file strictly); leaderElection,
// clientConnection and the other process-level sections are accepted and ignored.
//
// The configuration is an immutable value once parsed.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace allot::scheduler {

inline constexpr std::string_view kDefaultSchedulerName = "default-scheduler";

struct PluginRef {
  std::string name;
  int32_t weight = 0;  // score weight; 0: the default (1, or the multiPoint weight)
  bool operator==(const PluginRef&) const = default;
};

struct PluginSet {
  std::vector<PluginRef> enabled;
  std::vector<PluginRef> disabled;  // a name "*" disables all default / multiPoint plugins
  bool operator==(const PluginSet&) const = default;
};

// Extension point names as in the YAML.
struct Plugins {
  PluginSet pre_enqueue;
  PluginSet queue_sort;
  PluginSet pre_filter;
  PluginSet filter;
  PluginSet post_filter;
  PluginSet pre_score;
  PluginSet score;
  PluginSet reserve;
  PluginSet permit;
  PluginSet pre_bind;
  PluginSet bind;
  PluginSet post_bind;
  PluginSet multi_point;
  bool operator==(const Plugins&) const = default;
};

struct PluginConfig {
  std::string name;
  std::string args_json;  // the args object as JSON text; "" when absent
  bool operator==(const PluginConfig&) const = default;
};

struct ProfileConfig {
  std::string scheduler_name{kDefaultSchedulerName};
  // Overrides the global value for this profile.
  std::optional<int32_t> percentage_of_nodes_to_score;
  Plugins plugins;  // after merging with the defaults
  std::vector<PluginConfig> plugin_config;
  // The args JSON for a plugin ("" when none).
  std::string_view ArgsFor(std::string_view plugin) const;
  bool operator==(const ProfileConfig&) const = default;
};

struct Configuration {
  int32_t parallelism = 16;
  int32_t percentage_of_nodes_to_score = 0;  // 0: adaptive
  std::chrono::milliseconds pod_initial_backoff{1000};
  std::chrono::milliseconds pod_max_backoff{10000};
  std::chrono::milliseconds pod_max_in_unschedulable_pods{5 * 60 * 1000};
  // How long an assumed pod whose binding finished may wait for its informer confirmation.
  std::chrono::milliseconds assumed_pod_ttl{15 * 60 * 1000};
  std::vector<ProfileConfig> profiles;
  bool operator==(const Configuration&) const = default;
};

// The default plugins of a profile (multiPoint), with their default score weights:
// SchedulingGates, PrioritySort, NodeUnschedulable, NodeName, TaintToleration (3),
// NodeAffinity (2), NodePorts, NodeResourcesFit (1), NodeResourcesBalancedAllocation (1),
// DefaultBinder.
std::vector<PluginRef> DefaultPlugins();
// One profile, "default-scheduler", with the default plugins.
ProfileConfig DefaultProfile();
// Defaults everywhere and the default profile.
Configuration DefaultConfiguration();

// Parses and validates a configuration file (YAML or JSON). Errors (400 BadRequest) name the
// field: `profiles[0].plugins.score.enabled[1].weight: must be in [1, 100]`.
Result<Configuration> ParseConfiguration(std::string_view yaml);

}  // namespace allot::scheduler
