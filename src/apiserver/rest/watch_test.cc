// Watch streams: event order, 410 ERROR, timeoutSeconds, bookmarks, disconnects, tables and
// many concurrent watches.
#include <thread>

#include "apiserver/testing/server_fixture.h"
#include "testing/wait.h"

namespace allot::apiserver {
namespace {

using allot::testing::HttpStream;
using std::chrono::milliseconds;
using std::chrono::seconds;

class WatchTest : public ApiServerTest {
 protected:
  std::unique_ptr<HttpStream> Watch(const std::string& query,
                                    const allot::testing::HttpHeaders& headers = {}) {
    auto s = client_->Stream(std::string(kPods) + "?watch=true" + query, headers);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(s).value() : nullptr;
  }

  // The next event line, parsed; fails the test on timeout.
  J Next(HttpStream& s) {
    auto line = s.ReadLine(seconds(10));
    EXPECT_TRUE(line.ok()) << line.status().ToString();
    return J(line.ok() ? *line : "{}");
  }

  std::string ListRv() { return J(Get(kPods).body)["/metadata/resourceVersion"]; }

  // Waits (bounded) for the server to notice closed watches; no fixed sleeps.
  bool WaitForOpenWatches(size_t n) {
    return allot::testing::WaitUntil([&] { return server_->open_watches() == n; });
  }
};

TEST_F(WatchTest, EventsInOrder) {
  auto w = Watch("&resourceVersion=" + ListRv());
  ASSERT_TRUE(w);
  EXPECT_EQ(w->status(), 200);
  J created(CreatePod("p1"));
  ASSERT_EQ(Patch(std::string(kPods) + "/p1", R"({"metadata":{"labels":{"a":"b"}}})",
                  "application/merge-patch+json")
                .status,
            200);
  ASSERT_EQ(Delete(std::string(kPods) + "/p1").status, 200);

  J added = Next(*w);
  EXPECT_EQ(added["/type"], "ADDED");
  EXPECT_EQ(added["/object/metadata/name"], "p1");
  EXPECT_EQ(added["/object/kind"], "Pod");
  J modified = Next(*w);
  EXPECT_EQ(modified["/type"], "MODIFIED");
  EXPECT_EQ(modified["/object/metadata/labels/a"], "b");
  J deleted = Next(*w);
  EXPECT_EQ(deleted["/type"], "DELETED");
  EXPECT_EQ(deleted["/object/metadata/uid"], created["/metadata/uid"]);
}

TEST_F(WatchTest, HeadersAreChunkedJson) {
  auto w = Watch("");
  ASSERT_TRUE(w);
  bool chunked = false;
  std::string type;
  for (const auto& [k, v] : w->headers()) {
    if (k == "Transfer-Encoding") chunked = v == "chunked";
    if (k == "Content-Type") type = v;
  }
  EXPECT_TRUE(chunked);
  EXPECT_EQ(type, "application/json");
}

TEST_F(WatchTest, WithoutResourceVersionStartsWithSyntheticAdds) {
  CreatePod("p1");
  CreatePod("p2");
  auto w = Watch("");
  ASSERT_TRUE(w);
  J a = Next(*w);
  J b = Next(*w);
  EXPECT_EQ(a["/type"], "ADDED");
  EXPECT_EQ(b["/type"], "ADDED");
  EXPECT_EQ(a["/object/metadata/name"], "p1");
  EXPECT_EQ(b["/object/metadata/name"], "p2");
}

TEST_F(WatchTest, SingleObjectWatchAsKubectlGetW) {
  CreatePod("p1");
  CreatePod("p2");
  auto w = Watch("&resourceVersion=0&fieldSelector=metadata.name%3Dp2");
  ASSERT_TRUE(w);
  J first = Next(*w);
  EXPECT_EQ(first["/type"], "ADDED");
  EXPECT_EQ(first["/object/metadata/name"], "p2");
  ASSERT_EQ(Delete(std::string(kPods) + "/p1").status, 200);
  ASSERT_EQ(Delete(std::string(kPods) + "/p2").status, 200);
  J next = Next(*w);
  EXPECT_EQ(next["/type"], "DELETED");
  EXPECT_EQ(next["/object/metadata/name"], "p2");
}

TEST_F(WatchTest, TimeoutSecondsEndsTheStream) {
  auto w = Watch("&timeoutSeconds=30&resourceVersion=" + ListRv());
  ASSERT_TRUE(w);
  EXPECT_EQ(w->ReadLine(milliseconds(50)).status().code(), StatusCode::kTimeout);
  clock_.Advance(seconds(31));
  server_->WakeStreams();
  auto line = w->ReadLine(seconds(10));
  EXPECT_EQ(line.status().code(), StatusCode::kGone) << (line.ok() ? *line : "");
  EXPECT_TRUE(WaitForOpenWatches(0));
}

TEST_F(WatchTest, Bookmarks) {
  CreatePod("p1");
  std::string rv = ListRv();
  auto w = Watch("&allowWatchBookmarks=true&resourceVersion=" + rv);
  ASSERT_TRUE(w);
  clock_.Advance(seconds(2));
  server_->WakeStreams();
  J bookmark = Next(*w);
  EXPECT_EQ(bookmark["/type"], "BOOKMARK");
  EXPECT_EQ(bookmark["/object/kind"], "Pod");
  EXPECT_EQ(bookmark["/object/metadata/resourceVersion"], rv);
}

TEST_F(WatchTest, WatchListEndsInitialEventsWithBookmark) {
  CreatePod("p1");
  auto w = Watch(
      "&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&"
      "allowWatchBookmarks=true");
  ASSERT_TRUE(w);
  J added = Next(*w);
  EXPECT_EQ(added["/type"], "ADDED");
  J end = Next(*w);
  EXPECT_EQ(end["/type"], "BOOKMARK");
  EXPECT_EQ(end["/object/metadata/annotations/k8s.io~1initial-events-end"], "true");
  EXPECT_EQ(end["/object/metadata/resourceVersion"], ListRv());
  auto bad = Get(std::string(kPods) + "?watch=true&sendInitialEvents=true");
  EXPECT_EQ(bad.status, 422) << bad.body;
}

TEST_F(WatchTest, ClientDisconnectStopsTheWatch) {
  auto w = Watch("");
  ASSERT_TRUE(w);
  ASSERT_TRUE(WaitForOpenWatches(1));
  w->Close();
  EXPECT_TRUE(WaitForOpenWatches(0));
  EXPECT_EQ(Get("/healthz").status, 200);
}

TEST_F(WatchTest, TableEventsCarryColumnsOnlyFirst) {
  allot::testing::HttpHeaders accept = {
      {"Accept",
       "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
       "g=meta.k8s.io,application/json"}};
  auto w = Watch("&resourceVersion=" + ListRv(), accept);
  ASSERT_TRUE(w);
  CreatePod("p1");
  CreatePod("p2");
  J first = Next(*w);
  J second = Next(*w);
  EXPECT_EQ(first["/object/kind"], "Table");
  EXPECT_GT(first.Size("/object/columnDefinitions"), 0u);
  EXPECT_EQ(first["/object/rows/0/cells/0"], "p1");
  EXPECT_EQ(first["/object/rows/0/object/kind"], "PartialObjectMetadata");
  EXPECT_EQ(second["/object/kind"], "Table");
  EXPECT_EQ(second["/object/columnDefinitions"], "<missing>");
  EXPECT_EQ(second["/object/rows/0/cells/0"], "p2");
}

TEST_F(WatchTest, ManyConcurrentWatches) {
  constexpr int kWatches = 200;
  std::string rv = ListRv();
  std::vector<std::unique_ptr<HttpStream>> watches;
  for (int i = 0; i < kWatches; ++i) {
    watches.push_back(Watch("&resourceVersion=" + rv));
    ASSERT_TRUE(watches.back());
  }
  EXPECT_TRUE(WaitForOpenWatches(kWatches));
  CreatePod("p1");
  for (auto& w : watches) {
    J ev = Next(*w);
    EXPECT_EQ(ev["/type"], "ADDED");
  }
  auto metrics = Get("/metrics").body;
  EXPECT_NE(metrics.find("apiserver_longrunning_requests{resource=\"pods\",verb=\"WATCH\"} 200"),
            std::string::npos);
}

class ShortHistoryWatchTest : public WatchTest {
 protected:
  store::StoreOptions StoreOpts() override {
    store::StoreOptions o;
    o.history_size = 2;
    return o;
  }
};

TEST_F(ShortHistoryWatchTest, TooOldResourceVersionIs410Error) {
  std::string rv = ListRv();
  for (int i = 0; i < 5; ++i) CreatePod("p" + std::to_string(i));
  auto w = Watch("&resourceVersion=" + rv);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->status(), 200);
  J ev = Next(*w);
  EXPECT_EQ(ev["/type"], "ERROR");
  EXPECT_EQ(ev["/object/kind"], "Status");
  EXPECT_EQ(ev["/object/code"], "410");
  EXPECT_EQ(ev["/object/reason"], "Expired");
  EXPECT_NE(ev["/object/message"].find("too old resource version"), std::string::npos);
  EXPECT_EQ(w->ReadLine(seconds(10)).status().code(), StatusCode::kGone);
}

TEST_F(ShortHistoryWatchTest, TooOldListIs410) {
  std::string rv = ListRv();
  for (int i = 0; i < 5; ++i) CreatePod("p" + std::to_string(i));
  auto res = Get(std::string(kPods) + "?resourceVersion=" + rv + "&resourceVersionMatch=Exact");
  EXPECT_EQ(res.status, 410) << res.body;
  EXPECT_EQ(J(res.body)["/reason"], "Expired");
}

}  // namespace
}  // namespace allot::apiserver
