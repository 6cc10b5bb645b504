#include "api/machinery/interned_string.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

namespace allot::api {
namespace {

TEST(InternedString, EqualValuesShareOneCopy) {
  InternedString a("PreemptLowerPriority");
  InternedString b(std::string("Preempt") + "LowerPriority");
  InternedString c(std::string_view("PreemptLowerPriority"));
  EXPECT_TRUE(a.interned());
  EXPECT_EQ(a.data(), b.data());
  EXPECT_EQ(a.data(), c.data());
  InternedString copy = a;
  EXPECT_EQ(copy.data(), a.data());
  EXPECT_EQ(sizeof(InternedString), sizeof(void*));

  InternedString empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_FALSE(empty.interned());
  EXPECT_EQ(empty, "");
  EXPECT_EQ(InternedString(""), empty);
  EXPECT_EQ(empty.str(), std::string());
}

TEST(InternedString, ReadsAndComparesLikeAString) {
  InternedString s = "IfNotPresent";
  const std::string& ref = s;
  std::string_view view = s;
  EXPECT_EQ(ref, "IfNotPresent");
  EXPECT_EQ(view, "IfNotPresent");
  EXPECT_EQ(s.size(), 12u);
  EXPECT_STREQ(s.c_str(), "IfNotPresent");
  EXPECT_TRUE(s == "IfNotPresent");
  EXPECT_TRUE(s == std::string("IfNotPresent"));
  EXPECT_TRUE(std::string("IfNotPresent") == s);
  EXPECT_TRUE(std::string_view("IfNotPresent") == s);
  EXPECT_TRUE(s != "Always");
  EXPECT_TRUE(s < "Never");
  EXPECT_TRUE(InternedString("Always") < s);
  EXPECT_EQ("a/" + s + "/b", "a/IfNotPresent/b");
  EXPECT_EQ(s + InternedString("!"), "IfNotPresent!");
  std::string appended = "x";
  appended += s;
  EXPECT_EQ(appended, "xIfNotPresent");

  s = "Never";
  EXPECT_EQ(s, "Never");
  s = std::string("Always");
  EXPECT_EQ(s, "Always");
  s.clear();
  EXPECT_TRUE(s.empty());

  // Ordered and hashed containers see the value.
  std::set<InternedString> ordered{"b", "a", "b"};
  EXPECT_EQ(std::vector<InternedString>(ordered.begin(), ordered.end()),
            (std::vector<InternedString>{"a", "b"}));
  std::unordered_set<InternedString> hashed{"x", "x", "y"};
  EXPECT_EQ(hashed.size(), 2u);
  EXPECT_EQ(std::hash<InternedString>()("x"), std::hash<std::string_view>()("x"));
}

TEST(InternedString, AValueTooLongForTheTableIsOwnedAndCopiedByValue) {
  const std::string long_value(InternedString::kMaxInternedLength + 1, 'x');
  InternedString a(long_value);
  EXPECT_FALSE(a.interned());
  EXPECT_EQ(a, long_value);
  InternedString b = a;
  EXPECT_NE(a.data(), b.data());  // each owns its copy
  EXPECT_EQ(a, b);
  InternedString moved = std::move(b);
  EXPECT_EQ(moved, long_value);
  b = moved;  // assigning into a moved-from value
  EXPECT_EQ(b, long_value);
  a = InternedString("short");
  EXPECT_TRUE(a.interned());
  EXPECT_EQ(a, "short");
  // Equal by content whichever way each is held.
  const std::string at_bound(InternedString::kMaxInternedLength, 'y');
  EXPECT_TRUE(InternedString(at_bound).interned());
  EXPECT_EQ(InternedString(at_bound), at_bound);
}

TEST(InternedString, ThreadsRacingToInternAValueGetOneCopy) {
  constexpr int kThreads = 8;
  constexpr int kValues = 200;
  std::vector<std::vector<const char*>> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kValues; ++i) {
        seen[t].push_back(InternedString("race-value-" + std::to_string(i)).data());
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 1; t < kThreads; ++t) EXPECT_EQ(seen[t], seen[0]);
  std::set<const char*> distinct(seen[0].begin(), seen[0].end());
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kValues));
}

// Last in this file: it fills the process-wide table.
TEST(InternedString, PastTheTableBoundValuesAreOwnedAndTheTableStopsGrowing) {
  InternedString early("interned-before-the-table-fills");
  ASSERT_TRUE(early.interned());
  std::vector<InternedString> values;
  size_t i = 0;
  while (InternedString::TableSize() < InternedString::kMaxInterned) {
    values.emplace_back("fill-" + std::to_string(i++));
    ASSERT_LT(i, 2 * InternedString::kMaxInterned);
  }
  InternedString late("a-value-after-the-table-is-full");
  EXPECT_FALSE(late.interned());
  EXPECT_EQ(late, "a-value-after-the-table-is-full");
  EXPECT_EQ(InternedString::TableSize(), InternedString::kMaxInterned);
  // Values already in the table are still found and shared.
  InternedString again("interned-before-the-table-fills");
  EXPECT_TRUE(again.interned());
  EXPECT_EQ(again.data(), early.data());
  EXPECT_EQ(InternedString(values.front().str()).data(), values.front().data());
}

}  // namespace
}  // namespace allot::api
