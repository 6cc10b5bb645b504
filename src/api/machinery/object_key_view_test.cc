#include "api/machinery/object_key_view.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

namespace allot::api {
namespace {

int Sign(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

// Namespaces and names from a small alphabet, so that prefixes and shared stems are common
// ("a" and "a-b", "a.b" and "a"): those are where ordering by "<ns>/<name>" differs from
// ordering by (ns, name).
std::string Word(std::mt19937& rng, std::string_view alphabet, size_t max_len) {
  std::uniform_int_distribution<size_t> len(1, max_len), pick(0, alphabet.size() - 1);
  std::string w;
  for (size_t i = len(rng); i > 0; --i) w += alphabet[pick(rng)];
  return w;
}

TEST(ObjectKeyViewTest, OrdersExactlyAsTheObjectKeyString) {
  std::mt19937 rng(7);
  constexpr std::string_view kName = "ab-.0";
  constexpr std::string_view kAny = "ab-./0z";  // strings a continue token may carry
  std::vector<std::string> nss, names, others;
  for (int i = 0; i < 300; ++i) {
    nss.push_back(Word(rng, kName, 4));
    names.push_back(Word(rng, kName, 4));
    others.push_back(i % 10 == 0 ? std::string() : Word(rng, kAny, 8));
  }
  for (bool namespaced : {true, false}) {
    std::vector<ObjectKeyView> keys;
    for (size_t i = 0; i < nss.size(); ++i) {
      keys.push_back(ObjectKeyView{namespaced ? std::string_view(nss[i]) : "", names[i]});
    }
    for (const ObjectKeyView& a : keys) {
      for (const ObjectKeyView& b : keys) {
        ASSERT_EQ(object_key_view_internal::Compare(a, b), Sign(a.str().compare(b.str())))
            << a.str() << " vs " << b.str();
      }
      for (const std::string& s : others) {
        ASSERT_EQ(object_key_view_internal::Compare(a, s), Sign(a.str().compare(s)))
            << a.str() << " vs " << s;
      }
      ASSERT_EQ(object_key_view_internal::Compare(a, a.str()), 0);
    }
  }
}

TEST(ObjectKeyViewTest, AMapOfKeysFindsByStringAndRangesByNamespacePrefix) {
  std::vector<std::pair<std::string, std::string>> objects = {
      {"a", "x"}, {"a-b", "y"}, {"a", "z"}, {"ab", "w"}, {"a.c", "v"}};
  std::map<ObjectKeyView, int, ObjectKeyViewLess> index;
  std::map<std::string, int> by_string;
  for (size_t i = 0; i < objects.size(); ++i) {
    index.emplace(ObjectKeyView{objects[i].first, objects[i].second}, static_cast<int>(i));
    by_string.emplace(objects[i].first + "/" + objects[i].second, static_cast<int>(i));
  }
  std::vector<int> a, b;
  for (const auto& [k, v] : index) a.push_back(v);
  for (const auto& [k, v] : by_string) b.push_back(v);
  EXPECT_EQ(a, b);
  EXPECT_EQ(index.find(std::string_view("a-b/y"))->second, 1);
  EXPECT_EQ(index.find(std::string_view("a/y")), index.end());
  // The namespace "a" is one range, starting at "a/".
  auto it = index.lower_bound(std::string_view("a/"));
  EXPECT_EQ(it->first.str(), "a/x");
  EXPECT_EQ(std::next(it)->first.str(), "a/z");
  EXPECT_EQ(std::next(it, 2)->first.str(), "ab/w");  // "a-b/" and "a.c/" sort before "a/"
  EXPECT_EQ(index.begin()->first.str(), "a-b/y");
  EXPECT_EQ(index.upper_bound(std::string_view("a/x"))->first.str(), "a/z");
}

}  // namespace
}  // namespace allot::api
