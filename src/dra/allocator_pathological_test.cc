// Allocator: shapes that make a plain depth-first search take exponential time (kubernetes
// issue 131730), each with an explicit bound on Outcome::steps, and the search budget.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dra/testing/allocator.h"

namespace allot::dra {
namespace {

using namespace testing::vocabulary;  // NOLINT: the allocator tests' shared names

std::vector<std::shared_ptr<const api::ResourceClaim>> One(const ClaimBuilder& c) {
  return {c.Build()};
}

// Every shape is also run once with one more device, to show the same request is feasible and
// cheap when it fits.
struct Shape {
  std::string name;
  std::function<void(AllocatorHarness&, bool fits)> setup;
  std::function<std::vector<std::shared_ptr<const api::ResourceClaim>>()> claims;
  uint64_t max_steps_infeasible;
  uint64_t max_steps_feasible;
};

std::vector<Shape> Shapes() {
  const std::string numa = std::string(kDriver) + "/numa";
  return {
      {"(a) 8 devices asked, 7 free",
       [](AllocatorHarness& h, bool fits) {
         h.Slice(SliceBuilder("s", kDriver, "n1").Node("n1").Devices("gpu", 16));
         for (int i = 0; i < (fits ? 8 : 9); ++i) {
           h.Use(
               AllocatorHarness::Taken(kDriver, "n1", "gpu-" + std::to_string(i * 2 % 16 + i / 8)));
         }
       },
       [] { return One(ClaimBuilder("c").Request("r", "gpu", 8)); }, 0, 8},
      {"(a') 32 devices asked, 31 free",
       [](AllocatorHarness& h, bool fits) {
         h.Slice(SliceBuilder("s", kDriver, "n1").Node("n1").Devices("gpu", fits ? 32 : 31));
       },
       [] { return One(ClaimBuilder("c").Request("r", "gpu", 32)); }, 0, 32},
      {"(b) 3 requests x 4 devices over 11 candidates",
       [](AllocatorHarness& h, bool fits) {
         h.Slice(SliceBuilder("s", kDriver, "n1").Node("n1").Devices("gpu", fits ? 12 : 11));
       },
       [] {
         return One(ClaimBuilder("c")
                        .Request("a", "gpu", 4)
                        .Request("b", "gpu", 4)
                        .Request("c", "gpu", 4));
       },
       0, 12},
      {"(b') overlapping selectors: a and b share 6 devices, need 4 each",
       [](AllocatorHarness& h, bool fits) {
         h.Slice(SliceBuilder("s", kDriver, "n1")
                     .Node("n1")
                     .Devices("gpu", 12, [fits](int i, DeviceBuilder& d) {
                       d.Str("group", i < (fits ? 8 : 6) ? "ab" : "c");
                     }));
       },
       [] {
         return One(ClaimBuilder("c")
                        .Request("a", "gpu", 4)
                        .Selector("group=ab")
                        .Request("b", "gpu", 4)
                        .Selector("group=ab")
                        .Request("c", "gpu", 4));
       },
       0, 12},
      {"(c) matchAttribute, no value has enough devices",
       [](AllocatorHarness& h, bool fits) {
         h.Slice(SliceBuilder("s", kDriver, "n1")
                     .Node("n1")
                     .Devices("gpu", 64, [fits](int i, DeviceBuilder& d) {
                       d.Int("numa", fits && i < 4 ? 0 : i / 3 + 1);
                     }));
       },
       [numa] { return One(ClaimBuilder("c").Request("r", "gpu", 4).MatchAttribute(numa)); }, 0, 4},
      {"(c') matchAttribute over two requests, values with 3 devices, 4 needed",
       [](AllocatorHarness& h, bool fits) {
         h.Slice(SliceBuilder("s", kDriver, "n1")
                     .Node("n1")
                     .Devices("gpu", 60, [fits](int i, DeviceBuilder& d) {
                       d.Int("numa", fits && i >= 56 ? 99 : i / 3);
                     }));
       },
       [numa] {
         return One(
             ClaimBuilder("c").Request("a", "gpu", 2).Request("b", "gpu", 2).MatchAttribute(numa));
       },
       0, 4},
      {"(d) distinctAttribute with too few distinct values",
       [](AllocatorHarness& h, bool fits) {
         h.Slice(SliceBuilder("s", kDriver, "n1")
                     .Node("n1")
                     .Devices("gpu", 32, [fits](int i, DeviceBuilder& d) {
                       d.Int("numa", fits ? i % 8 : i % 7);
                     }));
       },
       [numa] {
         return One(ClaimBuilder("c")
                        .Request("a", "gpu", 4)
                        .Request("b", "gpu", 4)
                        .DistinctAttribute(numa));
       },
       0, 8},
      {"(e) 64 claims of one device, pool one short",
       [](AllocatorHarness& h, bool fits) {
         h.Slice(SliceBuilder("s", kDriver, "n1").Node("n1").Devices("gpu", fits ? 64 : 63));
       },
       [] {
         std::vector<std::shared_ptr<const api::ResourceClaim>> claims;
         for (int i = 0; i < 64; ++i) {
           claims.push_back(ClaimBuilder("c" + std::to_string(i)).Request("r", "gpu").Build());
         }
         return claims;
       },
       0, 64},
      {"(f) All with one device taken",
       [](AllocatorHarness& h, bool fits) {
         h.Slice(SliceBuilder("s", kDriver, "n1").Node("n1").Devices("gpu", 31));
         if (!fits) h.Use(AllocatorHarness::Taken(kDriver, "n1", "gpu-30"));
       },
       [] { return One(ClaimBuilder("c").AllRequest("r", "gpu").Request("x", "other")); }, 0, 32},
      {"(g) counters: 8 of 16 identical partitions, room for 7",
       [](AllocatorHarness& h, bool fits) {
         h.Slice(
             SliceBuilder("s", kDriver, "n1")
                 .Node("n1")
                 .SharedCounter("g", "mem", fits ? "80" : "75")
                 .Devices("part", 16, [](int, DeviceBuilder& d) { d.Consumes("g", "mem", "10"); }));
       },
       [] { return One(ClaimBuilder("c").Request("r", "gpu", 8)); }, 100, 8},
      {"(h) 8 claims with matchAttribute, 7 values that can host one claim each",
       [](AllocatorHarness& h, bool fits) {
         h.Slice(SliceBuilder("s", kDriver, "n1")
                     .Node("n1")
                     .Devices("gpu", fits ? 32 : 28,
                              [](int i, DeviceBuilder& d) { d.Int("numa", i / 4); }));
       },
       [numa] {
         std::vector<std::shared_ptr<const api::ResourceClaim>> claims;
         for (int i = 0; i < 8; ++i) {
           claims.push_back(ClaimBuilder("c" + std::to_string(i))
                                .Request("r", "gpu", 3)
                                .MatchAttribute(numa)
                                .Build());
         }
         return claims;
       },
       3000, 24},
      {"(i) firstAvailable: 6 requests, each 3 alternatives that do not fit",
       [](AllocatorHarness& h, bool fits) {
         h.Slice(SliceBuilder("s", kDriver, "n1").Node("n1").Devices("gpu", fits ? 12 : 11));
       },
       [] {
         ClaimBuilder c("c");
         for (int i = 0; i < 6; ++i) {
           c.FirstAvailable("r" + std::to_string(i))
               .Sub("four", "gpu", 4)
               .Sub("three", "gpu", 3)
               .Sub("two", "gpu", 2);
         }
         return One(c);
       },
       0, 30},
  };
}

TEST(Pathological, StepsAreBounded) {
  for (const Shape& shape : Shapes()) {
    for (bool fits : {false, true}) {
      SCOPED_TRACE(shape.name + (fits ? " (fits)" : " (does not fit)"));
      AllocatorHarness h;
      h.Class(ClassBuilder("gpu").Selector(std::string("driver=") + kDriver));
      h.Class(ClassBuilder("other").Selector("driver=other.example.com"));
      h.Slice(SliceBuilder("other", "other.example.com", "n1").Node("n1").Devices("o", 1));
      shape.setup(h, fits);
      auto out = h.Allocate(shape.claims(), MakeNode("n1"));
      std::printf("%-75s %-15s steps=%llu\n", shape.name.c_str(), fits ? "fits" : "does not fit",
                  static_cast<unsigned long long>(out.steps));
      if (fits) {
        EXPECT_EQ(out.result, Result::kAllocated) << out.reason;
        EXPECT_THAT(out.steps, Le(shape.max_steps_feasible));
      } else {
        EXPECT_EQ(out.result, Result::kUnschedulable) << out.reason;
        EXPECT_THAT(out.steps, Le(shape.max_steps_infeasible));
      }
    }
  }
}

TEST(Pathological, BudgetExhaustedIsAnError) {
  AllocatorHarness h;
  h.Class(ClassBuilder("gpu"));
  h.Slice(SliceBuilder("s", kDriver, "n1")
              .Node("n1")
              .SharedCounter("g", "mem", "74")
              .Devices("part", 16, [](int i, DeviceBuilder& d) {
                d.Consumes("g", "mem", std::to_string(10 + i));
              }));
  h.options.max_steps = 50;
  auto out = h.Allocate(One(ClaimBuilder("c").Request("r", "gpu", 6)), MakeNode("n1"));
  EXPECT_EQ(out.result, Result::kError);
  EXPECT_EQ(out.reason,
            "cannot allocate all claims (allocation search exceeded its budget of 50 steps)");
  EXPECT_EQ(out.steps, 51u);
}

}  // namespace
}  // namespace allot::dra
