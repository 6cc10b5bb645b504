#include "drivers/acceleratorpool/driver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "api/resource/node_pinning.h"
#include "common/time.h"

namespace allot::drivers {
namespace {

using ::testing::HasSubstr;

constexpr char kConfig[] = R"(
nodeSelector: {accelerators.example.com/fabric: "true"}
racks: {rack-a: 3, rack-b: 1}
perNodeLimit: 2
)";

class AcceleratorPoolDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = ParseAcceleratorPoolConfig(kConfig);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    AddNode("a1", "rack-a", true);
    AddNode("a2", "rack-a", true);
    AddNode("b1", "rack-b", true);
    AddNode("far", "rack-a", false);  // does not reach the pool
    driver_ = std::make_unique<AcceleratorPoolDriver>(*c, [this](const std::string& n) {
      auto it = nodes_.find(n);
      return it == nodes_.end() ? nullptr : it->second;
    });
  }
  void AddNode(const std::string& name, const std::string& rack, bool fabric) {
    auto n = std::make_shared<api::Node>();
    n->metadata.name = name;
    n->metadata.labels["topology.example.com/rack"] = rack;
    if (fabric) n->metadata.labels["accelerators.example.com/fabric"] = "true";
    nodes_[name] = n;
  }
  controlplane::ClaimAllocation Claim(const std::string& uid, int64_t count = 1) {
    auto c = std::make_shared<api::ResourceClaim>();
    c->metadata.uid = uid;
    c->metadata.name = uid;
    api::DeviceRequest r;
    r.name = "acc";
    r.exactly.emplace();
    r.exactly->deviceClassName = "controller.example.com";
    r.exactly->count = count;
    c->spec.devices.requests.push_back(r);
    return {.pod_claim_name = "acc", .claim = c};
  }
  std::vector<std::string> Unsuitable(std::vector<controlplane::ClaimAllocation> claims) {
    api::Pod pod;
    EXPECT_TRUE(driver_->UnsuitableNodes(pod, claims, {"a1", "a2", "b1", "far", "ghost"}).ok());
    return claims[0].unsuitable_nodes;
  }

  std::map<std::string, std::shared_ptr<const api::Node>> nodes_;
  std::unique_ptr<AcceleratorPoolDriver> driver_;
};

TEST_F(AcceleratorPoolDriverTest, NodesOutsideThePoolOrUnknownAreUnsuitable) {
  EXPECT_EQ(Unsuitable({Claim("c1")}), (std::vector<std::string>{"far", "ghost"}));
}

TEST_F(AcceleratorPoolDriverTest, PerNodeLimitAndRackCapacityCountAllOfThePodsClaims) {
  // Three accelerators together: more than perNodeLimit anywhere.
  EXPECT_EQ(Unsuitable({Claim("c1", 2), Claim("c2")}).size(), 5u);
  std::vector<controlplane::ClaimAllocation> one = {Claim("c1", 2)};
  driver_->Allocate(one, "a1");
  ASSERT_TRUE(one[0].allocation) << one[0].error.ToString();
  EXPECT_EQ(api::PinnedNode(*one[0].allocation->nodeSelector), "a1");
  EXPECT_EQ(one[0].allocation->devices.results[1].device, "acc-1");
  EXPECT_EQ(one[0].allocation->devices.results[1].pool, "rack-a");
  // a1 is at its limit; rack-a has one left, so a2 can take one.
  EXPECT_EQ(Unsuitable({Claim("c2")}), (std::vector<std::string>{"a1", "far", "ghost"}));
  EXPECT_EQ(Unsuitable({Claim("c2", 2)}),
            (std::vector<std::string>{"a1", "a2", "b1", "far", "ghost"}));
  // Released: the slots come back.
  ASSERT_TRUE(driver_->Deallocate(*one[0].claim).ok());
  ASSERT_TRUE(driver_->Deallocate(*one[0].claim).ok());  // idempotent
  EXPECT_TRUE(driver_->usage().by_rack.empty());
  EXPECT_TRUE(driver_->usage().by_node.empty());
}

TEST_F(AcceleratorPoolDriverTest, ImmediateClaimsTakeTheRackWithMostFreeSlots) {
  std::vector<controlplane::ClaimAllocation> c = {Claim("c1")};
  driver_->Allocate(c, "");
  ASSERT_TRUE(c[0].allocation);
  EXPECT_EQ(c[0].allocation->devices.results[0].pool, "rack-a");
  ASSERT_EQ(c[0].allocation->nodeSelector->nodeSelectorTerms.size(), 1u);
  EXPECT_EQ(c[0].allocation->nodeSelector->nodeSelectorTerms[0].matchExpressions.size(), 2u);
  EXPECT_TRUE(driver_->usage().by_node.empty());
  std::vector<controlplane::ClaimAllocation> big = {Claim("c2", 4)};
  driver_->Allocate(big, "");
  EXPECT_FALSE(big[0].allocation);
  EXPECT_THAT(big[0].error.message(), HasSubstr("no rack has 4 free accelerators"));
}

TEST_F(AcceleratorPoolDriverTest, ARestartedDriverTakesOverEarlierAllocations) {
  std::vector<controlplane::ClaimAllocation> c = {Claim("c1", 2)};
  driver_->Allocate(c, "a1");
  api::ResourceClaim claim = *c[0].claim;
  claim.status.allocation = *c[0].allocation;
  claim.status.allocation->controllerName = "controller.example.com";
  auto fresh = std::make_unique<AcceleratorPoolDriver>(driver_->config(), [this](const std::string& n) {
    auto it = nodes_.find(n);
    return it == nodes_.end() ? nullptr : it->second;
  });
  fresh->Restore(claim);
  EXPECT_EQ(fresh->usage().by_rack.at("rack-a"), 2);
  EXPECT_EQ(fresh->usage().by_node.at("a1"), 2);
  std::vector<controlplane::ClaimAllocation> next = {Claim("c3")};
  fresh->Allocate(next, "a2");
  ASSERT_TRUE(next[0].allocation);
  EXPECT_EQ(next[0].allocation->devices.results[0].device, "acc-2");  // 0 and 1 are taken
}

TEST_F(AcceleratorPoolDriverTest, FailureRateOneFailsEveryAllocation) {
  AcceleratorPoolConfig cfg = driver_->config();
  cfg.failure_rate = 1;
  AcceleratorPoolDriver failing(cfg, [this](const std::string& n) { return nodes_.at(n); });
  std::vector<controlplane::ClaimAllocation> c = {Claim("c1")};
  failing.Allocate(c, "a1");
  EXPECT_FALSE(c[0].allocation);
  EXPECT_THAT(c[0].error.message(), HasSubstr("simulated allocation failure"));
  EXPECT_TRUE(failing.usage().by_rack.empty());
}

// The latencies wait on the driver's clock; Interrupt() (before the controller stops) ends a
// wait in progress at once and skips later ones.
TEST_F(AcceleratorPoolDriverTest, LatenciesWaitOnTheClockUntilInterrupted) {
  AcceleratorPoolConfig cfg = driver_->config();
  cfg.answer_latency = std::chrono::seconds(10);
  cfg.allocate_latency = std::chrono::hours(1);
  FakeClock clock;
  AcceleratorPoolDriver slow(cfg, [this](const std::string& n) { return nodes_.at(n); }, &clock);
  std::atomic<bool> answered{false};
  std::thread asker([&] {
    api::Pod pod;
    std::vector<controlplane::ClaimAllocation> c = {Claim("c1")};
    EXPECT_TRUE(slow.UnsuitableNodes(pod, c, {"a1"}).ok());
    answered = true;
  });
  while (clock.Polls() == 0) std::this_thread::yield();  // it waits on the clock
  EXPECT_FALSE(answered);
  clock.Advance(std::chrono::seconds(10));
  asker.join();
  EXPECT_TRUE(answered);

  std::thread allocator([&] {
    std::vector<controlplane::ClaimAllocation> c = {Claim("c2")};
    slow.Allocate(c, "a1");
    EXPECT_TRUE(c[0].allocation);
  });
  while (clock.Polls() < 2) std::this_thread::yield();
  slow.Interrupt();  // the hour is not waited out
  allocator.join();
  std::vector<controlplane::ClaimAllocation> later = {Claim("c3")};
  slow.Allocate(later, "a2");  // skipped too
  EXPECT_TRUE(later[0].allocation);
}

TEST(AcceleratorPoolConfig, BadFieldsAreReportedWithTheirPaths) {
  auto c = ParseAcceleratorPoolConfig(R"(
racks: {rack-a: 0, "bad rack": 2}
perNodeLimit: 0
answerLatency: soon
failureRate: 2
colour: blue
)");
  ASSERT_FALSE(c.ok());
  const std::string& m = c.status().message();
  // Decoding problems first (all of them), then the values.
  EXPECT_THAT(m, HasSubstr("unknown field \"colour\""));
  EXPECT_THAT(m, HasSubstr("answerLatency: Invalid value: \"soon\""));
  c = ParseAcceleratorPoolConfig(
      "racks: {rack-a: 0, \"bad rack\": 2}\nperNodeLimit: 0\nfailureRate: 2\nworkers: 0\n");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(),
              HasSubstr("racks[rack-a]: Invalid value: 0: must be between 1 and 1000"));
  EXPECT_THAT(c.status().message(), HasSubstr("racks[bad rack]"));
  EXPECT_THAT(c.status().message(), HasSubstr("perNodeLimit: Invalid value: 0: must be positive"));
  EXPECT_THAT(c.status().message(), HasSubstr("failureRate"));
  EXPECT_THAT(c.status().message(),
              HasSubstr("workers: Invalid value: 0: must be between 1 and 64"));
  EXPECT_THAT(ParseAcceleratorPoolConfig("{}").status().message(), HasSubstr("racks: Required value"));
}

}  // namespace
}  // namespace allot::drivers
