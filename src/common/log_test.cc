// Verbosity: the global level, per-component overrides from --vmodule, and malformed lists.
#include "common/log.h"

#include <gtest/gtest.h>

namespace allot::log {
namespace {

class LogTest : public ::testing::Test {
 protected:
  void TearDown() override {
    SetVerbosity(0);
    ASSERT_TRUE(SetComponentVerbosity("").ok());
  }
};

TEST_F(LogTest, GlobalVerbosityDecidesDetail) {
  SetVerbosity(2);
  EXPECT_TRUE(V(2));
  EXPECT_FALSE(V(3));
  EXPECT_TRUE(V(2, "scheduler"));
}

TEST_F(LogTest, AComponentLevelOverridesTheGlobalOne) {
  SetVerbosity(1);
  ASSERT_TRUE(SetComponentVerbosity("scheduler=4,fabric=0").ok());
  EXPECT_TRUE(V(4, "scheduler"));
  EXPECT_FALSE(V(5, "scheduler"));
  EXPECT_FALSE(V(1, "fabric"));
  EXPECT_TRUE(V(1, "resourceclaim"));  // no override: the global level
  EXPECT_EQ(VerbosityFor("scheduler"), 4);
}

TEST_F(LogTest, MalformedComponentListsAreRejected) {
  for (const char* bad : {"scheduler", "=3", "scheduler=x", "scheduler=4,", "a=1,b"}) {
    SCOPED_TRACE(bad);
    Status s = SetComponentVerbosity(bad);
    EXPECT_EQ(s.code(), StatusCode::kBadRequest);
  }
}

}  // namespace
}  // namespace allot::log
