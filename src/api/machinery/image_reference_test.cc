#include "api/machinery/image_reference.h"

#include <gtest/gtest.h>

namespace allot::api {
namespace {

TEST(ImageReferenceTest, DefaultPullPolicy) {
  EXPECT_EQ(DefaultImagePullPolicy("nginx"), "Always");
  EXPECT_EQ(DefaultImagePullPolicy("nginx:latest"), "Always");
  EXPECT_EQ(DefaultImagePullPolicy("nginx:1.25"), "IfNotPresent");
  EXPECT_EQ(DefaultImagePullPolicy("registry:5000/nginx"), "Always");
  EXPECT_EQ(DefaultImagePullPolicy("registry:5000/nginx:1.0"), "IfNotPresent");
  EXPECT_EQ(DefaultImagePullPolicy("nginx@sha256:abcd"), "IfNotPresent");
  EXPECT_EQ(DefaultImagePullPolicy("nginx:latest@sha256:abcd"), "Always");
}

}  // namespace
}  // namespace allot::api
