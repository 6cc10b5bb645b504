#include "apiserver/dashboard/page.h"

namespace allot::apiserver {

// The page as the browser runs it: page.html with page.css and page.js inlined, generated at
// build time by cmake/embed_page.cmake (src/CMakeLists.txt). The script builds every element
// with textContent (never innerHTML), so names from the cluster cannot inject markup.
extern const unsigned char kDashboardPageData[];
extern const unsigned long kDashboardPageDataSize;

std::string_view DashboardPage() {
  return {reinterpret_cast<const char*>(kDashboardPageData), kDashboardPageDataSize};
}

}  // namespace allot::apiserver
