// The dashboard's page: served at /ui to anyone (it holds no data), while the API requests it
// makes stay behind authentication and authorization.
#include "apiserver/dashboard/page.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apiserver/rest/router.h"
#include "apiserver/testing/authorized_handler.h"

namespace allot::apiserver {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class DashboardTest : public testing::AuthorizedHandlerTest {};

std::string Header(const Response& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "";
}

TEST_F(DashboardTest, ThePageIsServedWithoutCredentials) {
  for (const char* path : {"/ui", "/ui/"}) {
    Response r = Send("", "GET", path);
    ASSERT_EQ(r.status, 200) << path << ": " << r.body;
    EXPECT_EQ(r.content_type, "text/html; charset=utf-8");
    EXPECT_EQ(r.body, DashboardPage());
    EXPECT_THAT(Header(r, "Content-Security-Policy"), HasSubstr("connect-src 'self'"));
    EXPECT_EQ(Header(r, "Cache-Control"), "no-store");
  }
  // An unknown token is still refused elsewhere, and the data stays behind authentication.
  EXPECT_EQ(Send("", "GET", "/api/v1/pods").status, 401);
  EXPECT_EQ(Send("alice-token", "GET", "/api/v1/pods").status, 403);
  EXPECT_EQ(Send("admin-token", "GET", "/api/v1/pods").status, 200);
  // Read-only.
  EXPECT_EQ(Send("admin-token", "POST", "/ui", "{}").status, 405);
  EXPECT_EQ(Send("", "GET", "/ui/more").status, 401);
  // Other spellings of the path reach the page only with credentials.
  for (const char* path : {"//ui", "/ui//", "/%75%69"}) {
    EXPECT_EQ(Send("", "GET", path).status, 401) << path;
    EXPECT_EQ(Send("admin-token", "GET", path).status, 200) << path;
  }
}

TEST_F(DashboardTest, ThePageIsSelfContained) {
  const std::string_view page = DashboardPage();
  EXPECT_THAT(std::string(page), Not(HasSubstr("http://")));
  EXPECT_THAT(std::string(page), Not(HasSubstr("https://")));
  EXPECT_THAT(std::string(page), Not(HasSubstr("innerHTML")));
  // page.css and page.js were inlined at build time; nothing is fetched besides the API.
  EXPECT_THAT(std::string(page), HasSubstr("<style>\nbody{"));
  EXPECT_THAT(std::string(page), HasSubstr("<script>\n\"use strict\";"));
  EXPECT_THAT(std::string(page), Not(HasSubstr("<link ")));
  EXPECT_THAT(std::string(page), Not(HasSubstr("<script src=")));
  EXPECT_TRUE(page.ends_with("</body></html>\n"));
  // It watches what it shows.
  for (const char* path :
       {"/api/v1/nodes", "/api/v1/pods", "/apis/resource.k8s.io/v1/resourceclaims",
        "/apis/resource.k8s.io/v1/resourceslices",
        "/apis/scheduling.koordinator.sh/v1alpha1/reservations"}) {
    EXPECT_THAT(std::string(page), HasSubstr(path));
  }
  EXPECT_EQ(ParseRoute("/ui", api::ResourceRegistry::Default()).kind, RouteKind::kDashboard);
}

}  // namespace
}  // namespace allot::apiserver
