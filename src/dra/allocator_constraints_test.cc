// Allocator: matchAttribute and distinctAttribute constraints.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dra/testing/allocator.h"

namespace allot::dra {
namespace {

using namespace testing::vocabulary;  // NOLINT: the allocator tests' shared names

// Six GPUs on n1: numa 0,0,1,1,1,- (gpu-5 lacks it); pcie as strings, driver versions.
void Gpus(AllocatorHarness& h) {
  h.Slice(
      SliceBuilder("s", kDriver, "n1").Node("n1").Devices("gpu", 6, [](int i, DeviceBuilder& d) {
        if (i < 5) d.Int("numa", i < 2 ? 0 : 1);
        d.Str("pcie", i % 2 == 0 ? "root-a" : "root-b");
        d.Version("version", i < 3 ? "1.0.0" : "2.0.0");
        d.Bool("fast", i != 0);
      }));
  h.Class(ClassBuilder("gpu"));
}

TEST(MatchAttribute, Table) {
  const std::string numa = std::string(kDriver) + "/numa";
  struct Case {
    std::string name;
    ClaimBuilder claim;
    Result want;
    std::vector<std::string> results;
  } cases[] = {
      {"int: first value with enough devices",
       ClaimBuilder("c").Request("r", "gpu", 3).MatchAttribute(numa),
       Result::kAllocated,
       {"r:gpu-2", "r:gpu-3", "r:gpu-4"}},
      {"int: two fit the first value",
       ClaimBuilder("c").Request("r", "gpu", 2).MatchAttribute(numa),
       Result::kAllocated,
       {"r:gpu-0", "r:gpu-1"}},
      {"int: no value has four",
       ClaimBuilder("c").Request("r", "gpu", 4).MatchAttribute(numa),
       Result::kUnschedulable,
       {}},
      {"string",
       ClaimBuilder("c").Request("r", "gpu", 3).MatchAttribute(std::string(kDriver) + "/pcie"),
       Result::kAllocated,
       {"r:gpu-0", "r:gpu-2", "r:gpu-4"}},
      {"version",
       ClaimBuilder("c").Request("r", "gpu", 3).MatchAttribute(std::string(kDriver) + "/version"),
       Result::kAllocated,
       {"r:gpu-0", "r:gpu-1", "r:gpu-2"}},
      {"bool",
       ClaimBuilder("c").Request("r", "gpu", 5).MatchAttribute(std::string(kDriver) + "/fast"),
       Result::kAllocated,
       {"r:gpu-1", "r:gpu-2", "r:gpu-3", "r:gpu-4", "r:gpu-5"}},
      {"across requests",
       ClaimBuilder("c").Request("a", "gpu", 1).Request("b", "gpu", 2).MatchAttribute(numa),
       Result::kAllocated,
       {"a:gpu-4", "b:gpu-2", "b:gpu-3"}},
      {"only the named requests",
       ClaimBuilder("c")
           .Request("a", "gpu", 1)
           .Selector("name=gpu-5")
           .Request("b", "gpu", 2)
           .MatchAttribute(numa, {"b"}),
       Result::kAllocated,
       {"a:gpu-5", "b:gpu-0", "b:gpu-1"}},
      {"missing attribute is rejected",
       ClaimBuilder("c").Request("a", "gpu", 1).Selector("name=gpu-5").MatchAttribute(numa),
       Result::kUnschedulable,
       {}},
      {"unknown attribute",
       ClaimBuilder("c").Request("r", "gpu").MatchAttribute("x.example.com/y"),
       Result::kUnschedulable,
       {}},
      {"qualified by the driver domain only",
       ClaimBuilder("c").Request("r", "gpu").MatchAttribute("other.example.com/numa"),
       Result::kUnschedulable,
       {}},
      {"All with mixed values fails",
       ClaimBuilder("c").AllRequest("r", "gpu").Selector("has(numa)").MatchAttribute(numa),
       Result::kUnschedulable,
       {}},
      {"All with mixed strings fails",
       ClaimBuilder("c")
           .AllRequest("all", "gpu")
           .Selector("version=2.0.0")
           .Request("one", "gpu")
           .MatchAttribute(std::string(kDriver) + "/pcie"),
       Result::kUnschedulable,
       {}},
      {"All then exact",
       ClaimBuilder("c")
           .AllRequest("all", "gpu")
           .Selector("name=gpu-4")
           .Request("one", "gpu", 2)
           .MatchAttribute(numa),
       Result::kAllocated,
       {"all:gpu-4", "one:gpu-2", "one:gpu-3"}},
  };
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    AllocatorHarness h;
    Gpus(h);
    auto out = h.Allocate({c.claim.Build()}, MakeNode("n1"));
    ASSERT_EQ(out.result, c.want) << out.reason;
    if (c.want == Result::kAllocated) {
      EXPECT_EQ(RequestDevices(out.allocations[0]), c.results);
    }
  }
}

TEST(MatchAttribute, SubrequestScoping) {
  const std::string numa = std::string(kDriver) + "/numa";
  auto claim = [&](std::vector<std::string> scope) {
    return ClaimBuilder("c")
        .Request("x", "gpu")
        .Selector("name=gpu-2")
        .FirstAvailable("r")
        .Sub("two", "gpu", 2)
        .Selector("pcie=root-b")  // gpu-1 (numa 0), gpu-3 (numa 1), gpu-5 (none)
        .Sub("one", "gpu", 1)
        .MatchAttribute(numa, std::move(scope))
        .Build();
  };
  struct Case {
    std::vector<std::string> scope;
    std::vector<std::string> results;
  } cases[] = {
      // r/two cannot match within itself: fall back to r/one.
      {{"r/two"}, {"x:gpu-2", "r/one:gpu-0"}},
      // Only r/one is constrained: r/two is free to mix values.
      {{"r/one"}, {"x:gpu-2", "r/two:gpu-1", "r/two:gpu-3"}},
      // The parent name constrains every subrequest; with x that means numa 1.
      {{"x", "r"}, {"x:gpu-2", "r/one:gpu-3"}},
      {{"x", "r/one"}, {"x:gpu-2", "r/two:gpu-1", "r/two:gpu-3"}},
  };
  for (Case& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.scope));
    AllocatorHarness h;
    Gpus(h);
    auto out = h.Allocate({claim(c.scope)}, MakeNode("n1"));
    ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
    EXPECT_EQ(RequestDevices(out.allocations[0]), c.results);
  }
}

TEST(MatchAttribute, ValuesInUseAreSkipped) {
  const std::string numa = std::string(kDriver) + "/numa";
  AllocatorHarness h;
  Gpus(h);
  h.Use(AllocatorHarness::Taken(kDriver, "n1", "gpu-0"));
  auto out = h.Allocate({ClaimBuilder("c").Request("r", "gpu", 2).MatchAttribute(numa).Build()},
                        MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("gpu-2", "gpu-3"));
  h.Use(AllocatorHarness::Taken(kDriver, "n1", "gpu-3"));
  out = h.Allocate({ClaimBuilder("c").Request("r", "gpu", 3).MatchAttribute(numa).Build()},
                   MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kUnschedulable);
  EXPECT_EQ(out.steps, 0u);
}

TEST(DistinctAttribute, Table) {
  const std::string pcie = std::string(kDriver) + "/pcie";
  const std::string numa = std::string(kDriver) + "/numa";
  struct Case {
    std::string name;
    ClaimBuilder claim;
    Result want;
    std::vector<std::string> results;
  } cases[] = {
      {"two distinct",
       ClaimBuilder("c").Request("r", "gpu", 2).DistinctAttribute(pcie),
       Result::kAllocated,
       {"r:gpu-0", "r:gpu-1"}},
      {"three need three values",
       ClaimBuilder("c").Request("r", "gpu", 3).DistinctAttribute(pcie),
       Result::kUnschedulable,
       {}},
      {"across requests",
       ClaimBuilder("c").Request("a", "gpu").Request("b", "gpu").DistinctAttribute(numa),
       Result::kAllocated,
       {"a:gpu-0", "b:gpu-2"}},
      {"missing attribute is rejected",
       ClaimBuilder("c").Request("a", "gpu").Selector("name=gpu-5").DistinctAttribute(numa),
       Result::kUnschedulable,
       {}},
      {"with match on another attribute",
       ClaimBuilder("c").Request("r", "gpu", 2).MatchAttribute(numa).DistinctAttribute(pcie),
       Result::kAllocated,
       {"r:gpu-0", "r:gpu-1"}},
  };
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    AllocatorHarness h;
    Gpus(h);
    auto out = h.Allocate({c.claim.Build()}, MakeNode("n1"));
    ASSERT_EQ(out.result, c.want) << out.reason;
    if (c.want == Result::kAllocated) {
      EXPECT_EQ(RequestDevices(out.allocations[0]), c.results);
    }
  }
}

TEST(Constraints, ApplyPerClaim) {
  const std::string numa = std::string(kDriver) + "/numa";
  AllocatorHarness h;
  Gpus(h);
  // Each claim matches within itself; the two claims may use different values.
  auto out = h.Allocate({ClaimBuilder("a").Request("r", "gpu", 2).MatchAttribute(numa).Build(),
                         ClaimBuilder("b").Request("r", "gpu", 3).MatchAttribute(numa).Build()},
                        MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("gpu-0", "gpu-1"));
  EXPECT_THAT(DeviceNames(out.allocations[1]), ElementsAre("gpu-2", "gpu-3", "gpu-4"));
  // Claim b needs numa 1 for three; claim a can then only use numa 0.
  out = h.Allocate({ClaimBuilder("a").Request("r", "gpu", 3).MatchAttribute(numa).Build(),
                    ClaimBuilder("b").Request("r", "gpu", 3).MatchAttribute(numa).Build()},
                   MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kUnschedulable);
}

}  // namespace
}  // namespace allot::dra
