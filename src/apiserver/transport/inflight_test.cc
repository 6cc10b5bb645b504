// The in-flight limits (kube-apiserver's --max-requests-inflight and
// --max-mutating-requests-inflight): 429 with Retry-After beyond them; watches and health probes
// do not count; a slot is given back when the answer goes out.
#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

#include "apiserver/handler.h"
#include "store/backend.h"
#include "store/store.h"

namespace allot::apiserver {
namespace {

class InflightTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.Open().ok());
    ServerConfig cfg;
    cfg.max_mutating_inflight = 1;
    cfg.max_readonly_inflight = 1;
    // Completions wait here until the test lets them run: the request stays in flight.
    cfg.executor = [this](std::function<void()> f) {
      std::lock_guard<std::mutex> lock(mu_);
      queued_.push_back(std::move(f));
      cv_.notify_all();
    };
    handler_ = std::make_unique<Handler>(store_, clock_, registry_, std::move(cfg));
  }
  void TearDown() override {
    RunQueued();
    handler_->Shutdown();
  }
  static Request Make(std::string method, std::string target, std::string body = {}) {
    Request r;
    r.method = std::move(method);
    r.target = std::move(target);
    SplitTarget(r.target, r.path, r.query);
    r.body = std::move(body);
    return r;
  }
  static Request CreatePod(const std::string& name) {
    return Make("POST", "/api/v1/namespaces/default/pods",
                R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                    R"("},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  }
  // Handles `req`; the answer, if it came at once.
  std::optional<Response> Handle(Request req) {
    auto out = std::make_shared<std::optional<Response>>();
    handler_->Handle(std::move(req), "127.0.0.1:1", [out](Response r) { *out = std::move(r); });
    return *out;
  }
  bool WaitQueued() {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return !queued_.empty(); });
  }
  void RunQueued() {
    std::deque<std::function<void()>> run;
    {
      std::lock_guard<std::mutex> lock(mu_);
      run.swap(queued_);
    }
    for (auto& f : run) f();
  }

  FakeClock clock_;
  store::Store store_{store::NewMemoryBackend(), clock_};
  metrics::Registry registry_;
  std::unique_ptr<Handler> handler_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queued_;
};

TEST_F(InflightTest, BeyondTheLimitIs429WithRetryAfterUntilASlotIsFree) {
  auto first = std::make_shared<std::optional<Response>>();
  handler_->Handle(CreatePod("a"), "x", [first](Response r) { *first = std::move(r); });
  ASSERT_TRUE(WaitQueued());  // the store committed; the answer waits: "a" is in flight
  EXPECT_FALSE(first->has_value());
  std::optional<Response> refused = Handle(CreatePod("b"));
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, 429);
  EXPECT_NE(refused->body.find(R"("reason":"TooManyRequests")"), std::string::npos);
  EXPECT_NE(refused->body.find(R"("retryAfterSeconds":1)"), std::string::npos) << refused->body;
  EXPECT_EQ(refused->headers, (Pairs{{"Retry-After", "1"}}));
  // Reads have their own limit; watches and probes take no slot at all.
  std::optional<Response> probe = Handle(Make("GET", "/healthz"));
  ASSERT_TRUE(probe.has_value());
  EXPECT_EQ(probe->status, 200);
  RunQueued();
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ((*first)->status, 201);
  // The slot is free again.
  auto third = std::make_shared<std::optional<Response>>();
  handler_->Handle(CreatePod("c"), "x", [third](Response r) { *third = std::move(r); });
  ASSERT_TRUE(WaitQueued());
  RunQueued();
  ASSERT_TRUE(third->has_value());
  EXPECT_EQ((*third)->status, 201);
  EXPECT_NE(
      registry_.Expose().find(R"(apiserver_dropped_requests_total{request_kind="mutating"} 1)"),
      std::string::npos);
}

}  // namespace
}  // namespace allot::apiserver
