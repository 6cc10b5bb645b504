// Cost: the compile-time estimate, the runtime limit, and ProgramCache.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "cel/testing/util.h"

namespace allot::cel {
namespace {

int64_t Estimate(std::string_view expr) {
  auto p = CompileDeviceSelector(expr);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? (*p)->estimated_cost() : -1;
}

TEST(CostTest, EstimatesOfSimpleSelectors) {
  EXPECT_EQ(Estimate("true"), 0);
  EXPECT_EQ(Estimate("1 == 1"), 1);
  // device (1) + .driver (1) + == over min(63, 15) bytes (1 + 2).
  EXPECT_EQ(Estimate("device.driver == 'gpu.example.com'"), 5);
  EXPECT_LT(Estimate("device.attributes['gpu.nvidia.com'].productName.lowerAscii()"
                     ".matches('^.*a100.*$')"),
            200);
  // 32 attributes per domain, each visited with a cheap body.
  int64_t all = Estimate("device.attributes['d'].all(k, k.startsWith('x'))");
  EXPECT_GT(all, 32);
  EXPECT_LT(all, 1000);
}

TEST(CostTest, EstimateAboveTheLimit) {
  // Nested comprehensions over the device's maps: 32^4 iterations.
  const char* expr =
      "device.attributes.all(a, device.attributes.all(b, device.attributes.all(c, "
      "device.attributes.all(d, a == b))))";
  auto p = CompileDeviceSelector(expr);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_GT((*p)->estimated_cost(), kCostLimit);
  // Still evaluable: the real device is small.
  EXPECT_TRUE((*p)->Matches(testing::kTestDriver, testing::TestDevice()).ok());
}

TEST(CostTest, RuntimeLimitStopsHugeComprehensions) {
  // 10^6 iterations of the innermost body: the limit stops it, quickly.
  const char* expr =
      "cel.bind(l, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], l.map(a, l.map(b, l.map(c, l.map(d, "
      "l.map(e, l.map(f, a + b + c + d + e + f)))))).size() == 10)";
  auto p = CompileDeviceSelector(expr);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_GT((*p)->estimated_cost(), kCostLimit);
  auto start = std::chrono::steady_clock::now();
  Result<bool> r = (*p)->Matches(testing::kTestDriver, testing::TestDevice());
  auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "operation cancelled: actual cost limit exceeded");
  EXPECT_LT(elapsed, std::chrono::seconds(5));
}

TEST(CostTest, LimitIsNotAbsorbedByLogicalOperators) {
  const char* expr =
      "true || cel.bind(l, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], l.all(a, l.all(b, l.all(c, "
      "l.all(d, l.all(e, l.all(f, true)))))))";
  EXPECT_TRUE(*testing::Match(expr));  // short-circuited: never evaluated
  const char* heavy =
      "cel.bind(l, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], l.all(a, l.all(b, l.all(c, "
      "l.all(d, l.all(e, l.all(f, true))))))) || true";
  Result<bool> r = testing::Match(heavy);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "operation cancelled: actual cost limit exceeded");
}

TEST(CostTest, ExponentialGrowthHitsTheLimit) {
  std::string list = "cel.bind(x0, [1, 2, 3, 4, 5, 6, 7, 8], ";
  std::string close = ")";
  for (int i = 1; i <= 30; ++i) {
    list += "cel.bind(x" + std::to_string(i) + ", x" + std::to_string(i - 1) + " + x" +
            std::to_string(i - 1) + ", ";
    close += ")";
  }
  std::string expr = list + "x30.size() > 0" + close;
  Result<bool> r = testing::Match(expr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "operation cancelled: actual cost limit exceeded");

  std::string s = "cel.bind(s0, 'abcdefghijklmnop', ";
  close = ")";
  for (int i = 1; i <= 40; ++i) {
    s += "cel.bind(s" + std::to_string(i) + ", s" + std::to_string(i - 1) + " + s" +
         std::to_string(i - 1) + ", ";
    close += ")";
  }
  r = testing::Match(s + "s40.size() > 0" + close);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "operation cancelled: actual cost limit exceeded");

  r = testing::Match(
      "cel.bind(s, 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', "
      "cel.bind(t, s.replace('', s).replace('', s).replace('', s), t.size() > 0))");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "operation cancelled: actual cost limit exceeded");
}

TEST(CostTest, ExpressionLengthLimit) {
  std::string long_expr = "true";
  while (long_expr.size() <= kMaxExpressionLength) long_expr += " && true";
  auto p = CompileDeviceSelector(long_expr);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("exceeds limit"), std::string::npos);
}

TEST(ProgramCacheTest, CachesProgramsAndErrors) {
  ProgramCache cache(2);
  auto a = cache.Get("device.driver == 'a'");
  ASSERT_TRUE(a.ok());
  auto a2 = cache.Get("device.driver == 'a'");
  ASSERT_TRUE(a2.ok());
  EXPECT_EQ(a->get(), a2->get());
  auto bad = cache.Get("nope");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("undeclared reference to 'nope'"), std::string::npos);
  EXPECT_EQ(cache.size(), 2u);
  // LRU: "a" was used before "nope"; adding a third evicts "a".
  ASSERT_TRUE(cache.Get("device.driver == 'c'").ok());
  EXPECT_EQ(cache.size(), 2u);
  auto a3 = cache.Get("device.driver == 'a'");
  ASSERT_TRUE(a3.ok());
  EXPECT_NE(a3->get(), a->get());
}

TEST(ProgramCacheTest, ConcurrentUse) {
  ProgramCache cache(8);
  api::Device device = testing::TestDevice();
  std::vector<std::thread> threads;
  std::atomic<int> matches{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        std::string e = "device.attributes['dra.example.com'].index == " + std::to_string(i % 12);
        auto p = cache.Get(e);
        if (p.ok() && *(*p)->Matches(testing::kTestDriver, device)) ++matches;
        (void)t;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(matches.load(), 4 * 17);  // i % 12 == 3 for 17 of 200 values of i
  EXPECT_LE(cache.size(), 8u);
}

}  // namespace
}  // namespace allot::cel
