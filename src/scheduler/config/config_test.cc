#include "scheduler/config/config.h"

#include <gtest/gtest.h>

#include "scheduler/testing/fakes.h"

namespace allot::scheduler {
namespace {

std::vector<std::string> Names(const std::vector<PluginRef>& refs) {
  std::vector<std::string> out;
  for (const PluginRef& r : refs) out.push_back(r.name);
  return out;
}

TEST(Config, EmptyFileGivesTheDefaults) {
  auto cfg = ParseConfiguration("");
  ASSERT_TRUE(cfg.ok()) << cfg.status().ToString();
  EXPECT_EQ(*cfg, DefaultConfiguration());
  EXPECT_EQ(cfg->parallelism, 16);
  EXPECT_EQ(cfg->pod_initial_backoff, std::chrono::seconds(1));
  EXPECT_EQ(cfg->pod_max_backoff, std::chrono::seconds(10));
  EXPECT_EQ(cfg->pod_max_in_unschedulable_pods, std::chrono::minutes(5));
  ASSERT_EQ(cfg->profiles.size(), 1u);
  EXPECT_EQ(cfg->profiles[0].scheduler_name, "default-scheduler");
}

TEST(Config, KubeSchedulerConfigurationProfiles) {
  auto cfg = ParseConfiguration(R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: true
parallelism: 4
percentageOfNodesToScore: 30
podInitialBackoffSeconds: 2
podMaxBackoffSeconds: 20
profiles:
- schedulerName: default-scheduler
- schedulerName: packer
  percentageOfNodesToScore: 100
  plugins:
    multiPoint:
      disabled:
      - name: NodePorts
      - name: TaintToleration
    score:
      disabled:
      - name: NodeResourcesBalancedAllocation
      enabled:
      - name: NodeResourcesFit
        weight: 5
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
)");
  ASSERT_TRUE(cfg.ok()) << cfg.status().ToString();
  EXPECT_EQ(cfg->parallelism, 4);
  EXPECT_EQ(cfg->percentage_of_nodes_to_score, 30);
  EXPECT_EQ(cfg->pod_initial_backoff, std::chrono::seconds(2));
  EXPECT_EQ(cfg->pod_max_backoff, std::chrono::seconds(20));
  ASSERT_EQ(cfg->profiles.size(), 2u);
  const ProfileConfig& packer = cfg->profiles[1];
  EXPECT_EQ(packer.scheduler_name, "packer");
  EXPECT_EQ(packer.percentage_of_nodes_to_score, 100);
  EXPECT_EQ(Names(packer.plugins.multi_point.enabled),
            (std::vector<std::string>{"SchedulingGates", "PrioritySort", "NodeUnschedulable",
                                      "NodeName", "NodeAffinity", "NodeResourcesFit",
                                      "NodeResourcesBalancedAllocation", "DynamicResources",
                                      "Reservation", "DefaultPreemption", "DefaultBinder"}));
  EXPECT_EQ(packer.ArgsFor("NodeResourcesFit"), R"({"scoringStrategy":{"type":"MostAllocated"}})");
  EXPECT_EQ(packer.ArgsFor("NodeAffinity"), "");

  // The profile builds, with the score plugins and weights the file asks for.
  testing::FrameworkHarness h;
  h.profile() = packer;
  auto fw = h.Build();
  ASSERT_TRUE(fw.ok()) << fw.status().ToString();
  EXPECT_EQ((*fw)->FindPlugin("TaintToleration"), nullptr);
  EXPECT_NE((*fw)->FindPlugin("NodeResourcesFit"), nullptr);
}

TEST(Config, MultiPointAddsAndOverridesWeights) {
  auto cfg = ParseConfiguration(R"(
profiles:
- plugins:
    multiPoint:
      enabled:
      - name: TaintToleration
        weight: 7
      - name: MyPlugin
        weight: 2
)");
  ASSERT_TRUE(cfg.ok()) << cfg.status().ToString();
  const auto& mp = cfg->profiles[0].plugins.multi_point.enabled;
  ASSERT_EQ(mp.size(), DefaultPlugins().size() + 1);
  EXPECT_EQ(mp.back().name, "MyPlugin");
  for (const PluginRef& r : mp) {
    if (r.name == "TaintToleration") {
      EXPECT_EQ(r.weight, 7);
    }
  }
  auto none = ParseConfiguration("profiles: [{plugins: {multiPoint: {disabled: [{name: '*'}]}}}]");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->profiles[0].plugins.multi_point.enabled.empty());
}

TEST(Config, ErrorsNameTheField) {
  std::vector<std::pair<std::string, std::string>> cases = {
      {"parallelism: 0", "parallelism: Invalid value: 0: must be in [1, 1024]"},
      {"percentageOfNodesToScore: 101",
       "percentageOfNodesToScore: Invalid value: 101: must be in [0, 100]"},
      {"bogus: 1", "bogus: unknown field"},
      {"kind: Pod", "kind: must be KubeSchedulerConfiguration"},
      {"profiles: [{schedulerName: a}, {schedulerName: a}]",
       "profiles[1].schedulerName: Duplicate value: \"a\""},
      {"profiles: [{plugins: {score: {enabled: [{name: X, weight: 200}]}}}]",
       "profiles[0].plugins.score.enabled[0].weight: Invalid value: 200: must be in [0, 100]"},
      {"profiles: [{plugins: {sorce: {}}}]", "profiles[0].plugins.sorce: unknown field"},
      {"profiles: [{pluginConfig: [{name: A}, {name: A}]}]",
       "profiles[0].pluginConfig[1]: Duplicate value: \"A\""},
      {"podInitialBackoffSeconds: 20",
       "podMaxBackoffSeconds: must be greater than or equal to "
       "podInitialBackoffSeconds"},
  };
  for (const auto& [yaml, msg] : cases) {
    auto cfg = ParseConfiguration(yaml);
    ASSERT_FALSE(cfg.ok()) << yaml;
    EXPECT_EQ(cfg.status().message(), msg) << yaml;
  }
}

}  // namespace
}  // namespace allot::scheduler
