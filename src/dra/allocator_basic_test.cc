// Allocator: counts, All, firstAvailable, selectors, several claims, results and messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "dra/testing/allocator.h"

namespace allot::dra {
namespace {

using namespace testing::vocabulary;  // NOLINT: the allocator tests' shared names

// Node n1 with gpu-0..gpu-3 (model A100 for 0-1, H100 for 2-3; index i).
void FourGpus(AllocatorHarness& h, const std::string& node = "n1") {
  h.Slice(SliceBuilder(node + "-gpus", kDriver, node)
              .Node(node)
              .Devices("gpu", 4, [](int i, DeviceBuilder& d) {
                d.Int("index", i).Str("model", i < 2 ? "A100" : "H100");
              }));
  h.Class(ClassBuilder("gpu").Selector(std::string("driver=") + kDriver));
}

TEST(AllocatorCount, TakesDevicesInOrder) {
  struct Case {
    int64_t count;
    Result want;
    std::vector<std::string> devices;
  } cases[] = {
      {1, Result::kAllocated, {"gpu-0"}},
      {3, Result::kAllocated, {"gpu-0", "gpu-1", "gpu-2"}},
      {4, Result::kAllocated, {"gpu-0", "gpu-1", "gpu-2", "gpu-3"}},
      {5, Result::kUnschedulable, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.count);
    AllocatorHarness h;
    FourGpus(h);
    auto out = h.Allocate({ClaimBuilder("c").Request("r", "gpu", c.count).Build()}, MakeNode("n1"));
    ASSERT_EQ(out.result, c.want) << out.reason;
    if (c.want == Result::kAllocated) {
      ASSERT_EQ(out.allocations.size(), 1u);
      EXPECT_EQ(DeviceNames(out.allocations[0]), c.devices);
    } else {
      EXPECT_EQ(out.reason, "cannot allocate all claims");
      EXPECT_EQ(out.steps, 0u);
    }
  }
}

TEST(AllocatorCount, ResultFieldsAndNodeSelector) {
  AllocatorHarness h;
  FourGpus(h);
  auto claim = ClaimBuilder("c").Request("r", "gpu").Toleration("k", "Exists", "", "").Build();
  auto out = h.Allocate({claim}, MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  const api::AllocationResult& a = out.allocations[0];
  ASSERT_EQ(a.devices.results.size(), 1u);
  const auto& r = a.devices.results[0];
  EXPECT_EQ(r.request, "r");
  EXPECT_EQ(r.driver, kDriver);
  EXPECT_EQ(r.pool, "n1");
  EXPECT_EQ(r.device, "gpu-0");
  EXPECT_FALSE(r.rare->adminAccess.has_value());
  EXPECT_FALSE(r.rare->shareID.has_value());
  EXPECT_THAT(r.rare->consumedCapacity, IsEmpty());
  ASSERT_EQ(r.rare->tolerations.size(), 1u);
  EXPECT_EQ(r.rare->tolerations[0].key, "k");
  ASSERT_TRUE(a.nodeSelector.has_value());
  ASSERT_EQ(a.nodeSelector->nodeSelectorTerms.size(), 1u);
  const auto& f = a.nodeSelector->nodeSelectorTerms[0].matchFields;
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].key, "metadata.name");
  EXPECT_EQ(f[0].operator_, "In");
  EXPECT_THAT(f[0].values, ElementsAre("n1"));
  EXPECT_FALSE(a.allocationTimestamp.has_value());
  EXPECT_EQ(out.score, 0);
}

TEST(AllocatorCount, OtherNodeHasNothing) {
  AllocatorHarness h;
  FourGpus(h);
  auto out = h.Allocate({ClaimBuilder("c").Request("r", "gpu").Build()}, MakeNode("n2"));
  EXPECT_EQ(out.result, Result::kUnschedulable);
  EXPECT_EQ(out.reason, "cannot allocate all claims");
}

TEST(AllocatorCount, InUseDevicesAreSkipped) {
  AllocatorHarness h;
  FourGpus(h);
  h.Use(AllocatorHarness::Taken(kDriver, "n1", "gpu-0"));
  h.Use(AllocatorHarness::Taken(kDriver, "n1", "gpu-2"));
  auto out = h.Allocate({ClaimBuilder("c").Request("r", "gpu", 2).Build()}, MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("gpu-1", "gpu-3"));
  out = h.Allocate({ClaimBuilder("c").Request("r", "gpu", 3).Build()}, MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kUnschedulable);
}

TEST(AllocatorAll, TakesEveryMatchingDevice) {
  AllocatorHarness h;
  FourGpus(h);
  auto out = h.Allocate({ClaimBuilder("c").AllRequest("r", "gpu").Selector("model=H100").Build()},
                        MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("gpu-2", "gpu-3"));
}

TEST(AllocatorAll, NeedsAtLeastOneDevice) {
  AllocatorHarness h;
  FourGpus(h);
  auto out = h.Allocate({ClaimBuilder("c").AllRequest("r", "gpu").Selector("model=B200").Build()},
                        MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kUnschedulable);
}

TEST(AllocatorAll, FailsWhenOneIsInUse) {
  AllocatorHarness h;
  FourGpus(h);
  h.Use(AllocatorHarness::Taken(kDriver, "n1", "gpu-3"));
  auto out = h.Allocate({ClaimBuilder("c").AllRequest("r", "gpu").Build()}, MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kUnschedulable);
  EXPECT_EQ(out.steps, 0u);
  // Devices in use that the request does not match do not matter.
  out = h.Allocate({ClaimBuilder("c").AllRequest("r", "gpu").Selector("model=A100").Build()},
                   MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kAllocated) << out.reason;
}

TEST(AllocatorAll, ConflictsWithOtherRequestOfSameClaim) {
  AllocatorHarness h;
  FourGpus(h);
  auto claim = ClaimBuilder("c").Request("one", "gpu").AllRequest("all", "gpu").Build();
  auto out = h.Allocate({claim}, MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kUnschedulable);
}

TEST(AllocatorAll, IncompletePoolOnTheNodeBlocksAll) {
  AllocatorHarness h;
  FourGpus(h);
  // A second pool reachable from n1 whose newest generation misses a slice.
  h.Slice(SliceBuilder("fabric-a", "fabric.example.com", "fabric").Pool(1, 2).Devices("f", 1));
  auto out = h.Allocate({ClaimBuilder("c").AllRequest("r", "gpu").Build()}, MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kUnschedulable);
  EXPECT_EQ(out.reason,
            "cannot allocate all claims (claim default/c, request r: asks for all devices, but "
            "resource pool fabric.example.com/fabric is currently being updated)");
  // ExactCount requests do not care.
  out = h.Allocate({ClaimBuilder("c").Request("r", "gpu").Build()}, MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kAllocated) << out.reason;
}

TEST(AllocatorFirstAvailable, PrefersEarlierAlternatives) {
  struct Case {
    std::string name;
    std::vector<std::string> taken;
    Result want;
    std::vector<std::string> results;
    int64_t score;
  } cases[] = {
      {"first fits", {}, Result::kAllocated, {"r/big:gpu-0", "r/big:gpu-1"}, 2 << 16},
      {"second fits", {"gpu-0"}, Result::kAllocated, {"r/h100:gpu-2"}, 1 << 16},
      {"third fits", {"gpu-0", "gpu-2", "gpu-3"}, Result::kAllocated, {"r/any:gpu-1"}, 0},
      {"none fits", {"gpu-0", "gpu-1", "gpu-2", "gpu-3"}, Result::kUnschedulable, {}, 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    AllocatorHarness h;
    FourGpus(h);
    for (const std::string& d : c.taken) h.Use(AllocatorHarness::Taken(kDriver, "n1", d));
    auto claim = ClaimBuilder("c")
                     .FirstAvailable("r")
                     .Sub("big", "gpu", 2)
                     .Selector("model=A100")
                     .Sub("h100", "gpu", 1)
                     .Selector("model=H100")
                     .Sub("any", "gpu", 1)
                     .Build();
    auto out = h.Allocate({claim}, MakeNode("n1"));
    ASSERT_EQ(out.result, c.want) << out.reason;
    if (c.want != Result::kAllocated) continue;
    EXPECT_EQ(RequestDevices(out.allocations[0]), c.results);
    EXPECT_EQ(out.score, c.score);
  }
}

TEST(AllocatorFirstAvailable, EarlierAlternativeWinsOverDeviceOrder) {
  // Request a (exact, 1 of any) comes first in the claim; b prefers two A100s. A depth-first
  // search in claim order would give gpu-0 to a and push b to its second alternative.
  AllocatorHarness h;
  FourGpus(h);
  auto claim = ClaimBuilder("c")
                   .Request("a", "gpu")
                   .FirstAvailable("b")
                   .Sub("two-a100", "gpu", 2)
                   .Selector("model=A100")
                   .Sub("one", "gpu", 1)
                   .Build();
  auto out = h.Allocate({claim}, MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(RequestDevices(out.allocations[0]),
              ElementsAre("a:gpu-2", "b/two-a100:gpu-0", "b/two-a100:gpu-1"));
}

TEST(AllocatorFirstAvailable, GateOffIsAnError) {
  AllocatorHarness h;
  FourGpus(h);
  h.options.features.prioritized_list = false;
  auto alloc = h.Create({ClaimBuilder("c").FirstAvailable("r").Sub("s", "gpu").Build()});
  ASSERT_FALSE(alloc.ok());
  EXPECT_EQ(alloc.status().code(), kUnschedulableCode);
  EXPECT_EQ(alloc.status().message(),
            "claim default/c, request r: has subrequests, but the DRAPrioritizedList feature is "
            "disabled");
}

TEST(AllocatorSelectors, ClassAndRequestSelectorsAreAnded) {
  AllocatorHarness h;
  FourGpus(h);
  h.Class(ClassBuilder("h100").Selector(std::string("driver=") + kDriver).Selector("model=H100"));
  struct Case {
    std::string cls;
    std::string selector;
    std::vector<std::string> devices;
  } cases[] = {
      {"gpu", "", {"gpu-0", "gpu-1", "gpu-2", "gpu-3"}},
      {"h100", "", {"gpu-2", "gpu-3"}},
      {"h100", "index=3", {"gpu-3"}},
      {"gpu", "index=1", {"gpu-1"}},
      {"h100", "index=1", {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.cls + " " + c.selector);
    ClaimBuilder b("c");
    b.AllRequest("r", c.cls);
    if (!c.selector.empty()) b.Selector(c.selector);
    auto out = h.Allocate({b.Build()}, MakeNode("n1"));
    if (c.devices.empty()) {
      EXPECT_EQ(out.result, Result::kUnschedulable);
    } else {
      ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
      EXPECT_EQ(DeviceNames(out.allocations[0]), c.devices);
    }
  }
}

TEST(AllocatorSelectors, EvaluationErrorMeansNoMatchAndIsReported) {
  AllocatorHarness h;
  FourGpus(h);
  // Only gpu-0 and gpu-1 have "bus"; the strict selector errors on the others.
  h.Slice(SliceBuilder("n2-gpus", kDriver, "n2").Node("n2").Devices("x", 2));
  auto claim = ClaimBuilder("c").Request("r", "gpu", 1).Selector("strict:serial=7").Build();
  auto out = h.Allocate({claim}, MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kUnschedulable);
  EXPECT_EQ(out.reason, "cannot allocate all claims (CEL runtime error: no such key: serial)");
  // A device that matches still gets allocated despite errors on others.
  AllocatorHarness h2;
  h2.Slice(SliceBuilder("s", kDriver, "n1")
               .Node("n1")
               .Device(DeviceBuilder("a"))
               .Device(DeviceBuilder("b").Str("serial", "7")));
  h2.Class(ClassBuilder("gpu"));
  out = h2.Allocate({claim}, MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("b"));
}

TEST(AllocatorSelectors, CompileErrorFailsCreate) {
  AllocatorHarness h;
  FourGpus(h);
  auto alloc = h.Create({ClaimBuilder("c").Request("r", "gpu").Selector("invalid(").Build()});
  ASSERT_FALSE(alloc.ok());
  EXPECT_EQ(alloc.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(alloc.status().message(),
              HasSubstr("claim default/c: selector #0: CEL compile error: compilation failed"));
  h.Class(ClassBuilder("bad").Selector("invalid"));
  alloc = h.Create({ClaimBuilder("c").Request("r", "bad").Build()});
  ASSERT_FALSE(alloc.ok());
  EXPECT_THAT(alloc.status().message(), HasSubstr("class bad: selector #0: CEL compile error"));
}

TEST(AllocatorSelectors, EvaluatedOncePerInventory) {
  AllocatorHarness h;
  FourGpus(h);
  auto claim = ClaimBuilder("c").Request("r", "gpu").Selector("model=A100").Build();
  for (int i = 0; i < 3; ++i) {
    auto out = h.Allocate({claim}, MakeNode("n1"));
    ASSERT_EQ(out.result, Result::kAllocated);
  }
  // Two expressions (class and request) over four devices, whatever the number of pods.
  EXPECT_EQ(h.cel.evaluations(), 8);
}

TEST(AllocatorCreate, MissingClass) {
  AllocatorHarness h;
  FourGpus(h);
  auto alloc = h.Create({ClaimBuilder("c").Request("gpu", "nope").Build()});
  ASSERT_FALSE(alloc.ok());
  EXPECT_EQ(alloc.status().code(), kUnschedulableCode);
  EXPECT_EQ(alloc.status().message(), "request gpu: device class nope does not exist");
  alloc =
      h.Create({ClaimBuilder("c").FirstAvailable("gpu").Sub("a", "gpu").Sub("b", "nope").Build()});
  ASSERT_FALSE(alloc.ok());
  EXPECT_EQ(alloc.status().message(), "request gpu/b: device class nope does not exist");
}

TEST(AllocatorCreate, AllocatedOrControllerClaimsAreRefused) {
  AllocatorHarness h;
  FourGpus(h);
  auto claim = std::make_shared<api::ResourceClaim>(*ClaimBuilder("c").Request("r", "gpu").Build());
  claim->status.allocation.emplace();
  auto alloc = h.Create({claim});
  ASSERT_FALSE(alloc.ok());
  EXPECT_EQ(alloc.status().message(), "claim default/c is already allocated");
  alloc =
      h.Create({ClaimBuilder("c").Request("r", "gpu").ControllerName("ctl.example.com").Build()});
  ASSERT_FALSE(alloc.ok());
  EXPECT_THAT(alloc.status().message(), HasSubstr("control-plane controller ctl.example.com"));
}

TEST(AllocatorClaims, SeveralClaimsShareNothing) {
  AllocatorHarness h;
  FourGpus(h);
  std::vector<std::shared_ptr<const api::ResourceClaim>> claims = {
      ClaimBuilder("a").Request("r", "gpu", 2).Build(),
      ClaimBuilder("b").Request("r", "gpu", 1).Build(),
      ClaimBuilder("c").Request("r", "gpu", 1).Build(),
  };
  auto out = h.Allocate(claims, MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  ASSERT_EQ(out.allocations.size(), 3u);
  EXPECT_THAT(DeviceNames(out.allocations[0]), ElementsAre("gpu-0", "gpu-1"));
  EXPECT_THAT(DeviceNames(out.allocations[1]), ElementsAre("gpu-2"));
  EXPECT_THAT(DeviceNames(out.allocations[2]), ElementsAre("gpu-3"));
  claims.push_back(ClaimBuilder("d").Request("r", "gpu", 1).Build());
  out = h.Allocate(claims, MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kUnschedulable);
  EXPECT_EQ(out.steps, 0u);
}

TEST(AllocatorClaims, NoClaimsIsTriviallyAllocated) {
  AllocatorHarness h;
  FourGpus(h);
  auto out = h.Allocate({}, MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kAllocated);
  EXPECT_THAT(out.allocations, IsEmpty());
  out = h.Allocate({ClaimBuilder("empty").Build()}, MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated);
  ASSERT_EQ(out.allocations.size(), 1u);
  EXPECT_THAT(out.allocations[0].devices.results, IsEmpty());
  EXPECT_FALSE(out.allocations[0].nodeSelector.has_value());
}

TEST(AllocatorLimits, AtMost32ResultsPerClaim) {
  AllocatorHarness h;
  h.Slice(SliceBuilder("s", kDriver, "n1").Node("n1").Devices("d", 40));
  h.Class(ClassBuilder("gpu"));
  auto out = h.Allocate({ClaimBuilder("c").Request("r", "gpu", 32).Build()}, MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_EQ(out.allocations[0].devices.results.size(), 32u);
  out = h.Allocate({ClaimBuilder("c").Request("a", "gpu", 30).Request("b", "gpu", 3).Build()},
                   MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kUnschedulable);
  EXPECT_EQ(out.reason,
            "cannot allocate all claims (claim default/c: number of requested devices 33 exceeds "
            "the claim limit of 32)");
  out = h.Allocate({ClaimBuilder("c").AllRequest("r", "gpu").Build()}, MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kUnschedulable);
  EXPECT_THAT(out.reason, HasSubstr("number of requested devices 40 exceeds the claim limit"));
  // firstAvailable falls back to an alternative that fits the limit.
  out = h.Allocate({ClaimBuilder("c")
                        .Request("a", "gpu", 30)
                        .FirstAvailable("b")
                        .Sub("many", "gpu", 4)
                        .Sub("few", "gpu", 2)
                        .Build()},
                   MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_EQ(out.allocations[0].devices.results.back().request, "b/few");
  // Separate claims each have their own limit.
  out = h.Allocate({ClaimBuilder("x").Request("r", "gpu", 20).Build(),
                    ClaimBuilder("y").Request("r", "gpu", 20).Build()},
                   MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  EXPECT_EQ(out.allocations[1].devices.results.size(), 20u);
}

TEST(AllocatorConfig, ClassAndClaimConfig) {
  AllocatorHarness h;
  FourGpus(h);
  h.Class(ClassBuilder("a100")
              .Selector("model=A100")
              .Config(kDriver, R"({"a":1})")
              .Config(kDriver, R"({"b":2})"));
  h.Class(ClassBuilder("h100").Selector("model=H100").Config(kDriver, R"({"h":1})"));
  auto claim = ClaimBuilder("c")
                   .Request("x", "a100")
                   .Request("y", "a100")
                   .FirstAvailable("z")
                   .Sub("p", "h100")
                   .Sub("q", "gpu")
                   .Config({}, kDriver, R"({"all":1})")
                   .Config({"x"}, kDriver, R"({"x":1})")
                   .Config({"z/p"}, kDriver, R"({"zp":1})")
                   .Config({"z/q"}, kDriver, R"({"zq":1})")
                   .Config({"x", "y", "z"}, kDriver, R"({"xyz":1})")
                   .Build();
  auto out = h.Allocate({claim}, MakeNode("n1"));
  ASSERT_EQ(out.result, Result::kAllocated) << out.reason;
  const auto& config = out.allocations[0].devices.config;
  std::vector<std::string> got;
  for (const auto& c : config) {
    std::string reqs;
    for (const auto& r : c.requests) reqs += r + ",";
    got.push_back(c.source + " [" + reqs + "] " + c.opaque->parameters.json);
  }
  EXPECT_THAT(got, ElementsAre("FromClass [x,y,] {\"a\":1}", "FromClass [x,y,] {\"b\":2}",
                               "FromClass [z/p,] {\"h\":1}", "FromClaim [] {\"all\":1}",
                               "FromClaim [x,] {\"x\":1}", "FromClaim [z/p,] {\"zp\":1}",
                               "FromClaim [] {\"xyz\":1}"));
}

TEST(AllocatorThreads, ConcurrentCreateAndAllocate) {
  AllocatorHarness h;
  for (int n = 0; n < 16; ++n) FourGpus(h, "n" + std::to_string(n));
  h.Use(AllocatorHarness::Taken(kDriver, "n3", "gpu-0"));
  auto inventory = h.inventory();
  std::vector<std::thread> threads;
  std::vector<int> allocated(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      auto alloc =
          h.Create({ClaimBuilder("c").Request("r", "gpu", 4).Selector("index!=9").Build()});
      ASSERT_TRUE(alloc.ok());
      for (int n = 0; n < 16; ++n) {
        auto out = (*alloc)->Allocate(MakeNode("n" + std::to_string(n)), h.in_use());
        allocated[t] += out.result == Result::kAllocated;
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(allocated[t], 15);  // n3 has only three free
  // Class and request selectors were each evaluated once over the 64 devices.
  EXPECT_EQ(h.cel.evaluations(), 128);
}

}  // namespace
}  // namespace allot::dra
