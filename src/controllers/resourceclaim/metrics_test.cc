// The controller's metrics as /metrics exposes them.
#include <gtest/gtest.h>

#include <sstream>

#include "controllers/resourceclaim/testing/fixture.h"
#include "testing/wait.h"

namespace allot::controllers {
namespace {

// The value of the sample line `sample` ("name{labels}") in the registry's exposition, or -1.
double Sample(const metrics::Registry& registry, const std::string& sample) {
  std::istringstream lines(registry.Expose());
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(sample + " ", 0) == 0) return std::stod(line.substr(sample.size() + 1));
  }
  return -1;
}

class ClaimMetricsTest : public ResourceClaimControllerTest {};

TEST_F(ClaimMetricsTest, CreatesAndClaimsAreCounted) {
  CreateTemplate("plain");
  CreateTemplate("admin", "{}", /*admin_access=*/true);
  client_->FailClaimCreates(1);
  CreatePod("p1", "gpu", "plain");
  StartController();
  ASSERT_TRUE(testing::WaitUntil([&] { return !EventsFor("p1").empty(); }));  // the failure
  clock_.Advance(std::chrono::milliseconds(10));
  ASSERT_TRUE(testing::WaitUntil([&] { return !RecordedClaim("p1", "gpu").empty(); }));
  CreatePod("p2", "gpu", "admin");
  ASSERT_TRUE(testing::WaitUntil([&] { return !RecordedClaim("p2", "gpu").empty(); }));

  const std::string creates = "resourceclaim_controller_creates_total";
  EXPECT_EQ(Sample(registry_, creates + R"({status="success",admin_access="false"})"), 1);
  EXPECT_EQ(Sample(registry_, creates + R"({status="success",admin_access="true"})"), 1);
  EXPECT_EQ(Sample(registry_, creates + R"({status="failure",admin_access="false"})"), 1);
  EXPECT_EQ(Sample(registry_, "resourceclaim_controller_create_attempts_total"), 3);
  EXPECT_EQ(Sample(registry_, "resourceclaim_controller_create_failures_total"), 1);
  EXPECT_EQ(Sample(registry_, "resource_controller_create_total"), 3);
  EXPECT_EQ(Sample(registry_, "resource_controller_create_failures_total"), 1);

  const std::string text = registry_.Expose();
  EXPECT_NE(text.find("# HELP resourceclaim_controller_creates_total [ALPHA] Number of "
                      "ResourceClaims creation requests, categorized by creation status and "
                      "admin access\n# TYPE resourceclaim_controller_creates_total counter\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# HELP resourceclaim_controller_resource_claims [ALPHA] Number of "
                      "ResourceClaims, categorized by allocation status and admin access\n"
                      "# TYPE resourceclaim_controller_resource_claims gauge\n"),
            std::string::npos)
      << text;

  // The gauge: two unallocated claims, one of them with admin access.
  const std::string claims = "resourceclaim_controller_resource_claims";
  auto gauge = [&](const char* allocated, const char* admin) {
    return Sample(registry_,
                  claims + "{allocated=\"" + allocated + "\",admin_access=\"" + admin + "\"}");
  };
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return gauge("false", "false") == 1 && gauge("false", "true") == 1; }));
  AllocateAndReserve(RecordedClaim("p1", "gpu"), {});
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return gauge("true", "false") == 1 && gauge("false", "false") == 0; }));
  EXPECT_EQ(gauge("true", "true"), 0);

  // Stopping withdraws the controller's share, so a successor starts from a true count.
  StopController();
  EXPECT_EQ(gauge("true", "false"), 0);
  EXPECT_EQ(gauge("false", "true"), 0);
  StartController();
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return gauge("true", "false") == 1 && gauge("false", "true") == 1; }));
}

}  // namespace
}  // namespace allot::controllers
