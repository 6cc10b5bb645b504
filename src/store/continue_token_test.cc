// Continue tokens: what a page encodes, what a 410 offers instead, and tokens this server did
// not make.
#include "store/continue_token.h"

#include <gtest/gtest.h>

namespace allot::store {
namespace {

TEST(ContinueTokenTest, RoundTripsRevisionAndKey) {
  auto point = DecodeContinue(EncodeContinue(42, "default/p1"));
  ASSERT_TRUE(point.ok()) << point.status().ToString();
  EXPECT_EQ(point->rv, 42u);
  EXPECT_EQ(point->after, "default/p1");
}

TEST(ContinueTokenTest, LatestTokenContinuesAtTheCurrentState) {
  auto point = DecodeContinue(EncodeLatestContinue("default/p1"));
  ASSERT_TRUE(point.ok()) << point.status().ToString();
  EXPECT_EQ(point->rv, 0u);  // no revision: the latest
  EXPECT_EQ(point->after, "default/p1");
}

TEST(ContinueTokenTest, ForeignTokensAre400) {
  for (const char* bad : {"not a token!", "", "MDpr" /* "0:k" */, "eDpr" /* "x:k" */}) {
    auto point = DecodeContinue(bad);
    ASSERT_FALSE(point.ok()) << bad;
    EXPECT_EQ(point.status().code(), StatusCode::kBadRequest);
    EXPECT_NE(point.status().message().find("continue key is not valid"), std::string::npos);
  }
}

}  // namespace
}  // namespace allot::store
