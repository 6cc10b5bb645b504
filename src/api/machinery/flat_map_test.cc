#include "api/machinery/flat_map.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace allot::api {
namespace {

using Map = FlatMap<std::string, int>;

std::vector<std::pair<std::string, int>> Items(const Map& m) { return {m.begin(), m.end()}; }

TEST(FlatMap, ReadsLikeAStdMap) {
  Map m{{"b", 2}, {"a", 1}, {"b", 9}};  // as std::map: the first of a repeated key stays
  EXPECT_EQ(Items(m), (std::vector<std::pair<std::string, int>>{{"a", 1}, {"b", 2}}));
  EXPECT_EQ(m.size(), 2u);
  EXPECT_TRUE(m.contains("a"));
  EXPECT_EQ(m.count(std::string_view("b")), 1u);
  EXPECT_EQ(m.find("c"), m.end());
  EXPECT_EQ(m.at("b"), 2);
  EXPECT_THROW(m.at("c"), std::out_of_range);
  m["c"] = 3;
  EXPECT_EQ(m.try_emplace("c", 7).second, false);
  EXPECT_EQ(m.at("c"), 3);
  EXPECT_EQ(m.insert_or_assign("c", 4).second, false);
  EXPECT_EQ(m.at("c"), 4);
  EXPECT_TRUE(m.emplace("0", 0).second);
  EXPECT_EQ(m.begin()->first, "0");
  EXPECT_EQ(m.erase("a"), 1u);
  EXPECT_EQ(m.erase("a"), 0u);
  m.erase(m.find("0"));
  EXPECT_EQ(Items(m), (std::vector<std::pair<std::string, int>>{{"b", 2}, {"c", 4}}));
  std::map<std::string, int> same{{"b", 2}, {"c", 4}};
  EXPECT_EQ(m, Map(same.begin(), same.end()));
  EXPECT_NE(m, (Map{{"b", 2}}));
}

TEST(FlatMap, UnsortedInputSortsOnceAndTheLastRepeatWins) {
  Map m;
  m.AssignUnsorted({{"c", 1}, {"a", 2}, {"c", 3}, {"b", 4}, {"a", 5}});
  EXPECT_EQ(Items(m), (std::vector<std::pair<std::string, int>>{{"a", 5}, {"b", 4}, {"c", 3}}));

  Map n;
  EXPECT_TRUE(n.AppendUnordered({"a", 1}));
  EXPECT_TRUE(n.AppendUnordered({"b", 2}));
  EXPECT_FALSE(n.AppendUnordered({"a", 3}));  // out of order (and repeated)
  n.Normalize();
  EXPECT_EQ(Items(n), (std::vector<std::pair<std::string, int>>{{"a", 3}, {"b", 2}}));
}

}  // namespace
}  // namespace allot::api
