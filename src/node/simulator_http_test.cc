// NodeSimulator over HTTP against our API server (as `allot node-sim --server URL` runs it):
// the same behaviour through HttpClient, JSON bodies, strategic-merge status patches and a
// chunked watch. Hermetic: port 0, memory store, FakeClock.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>

#include "apiserver/server.h"
#include "client/http_client.h"
#include "node/addresses.h"
#include "node/testing/simulator.h"

namespace allot::node {
namespace {

using std::chrono::seconds;

class SimulatorHttpTest : public SimulatorTest {
 protected:
  void SetUp() override {
    SimulatorTest::SetUp();
    apiserver::ApiServerOptions opts;
    opts.listen_address = "127.0.0.1:0";
    server_ = std::make_unique<apiserver::ApiServer>(*store_, clock_, opts);
    ASSERT_TRUE(server_->Start().ok());
    auto http = client::HttpClient::FromUrl("http://127.0.0.1:" + std::to_string(server_->port()));
    ASSERT_TRUE(http.ok()) << http.status().ToString();
    http_ = std::move(http).value();
    client_ = std::make_unique<RecordingClient>(*http_);
  }
  void TearDown() override {
    sim_.reset();
    server_->Stop();
    SimulatorTest::TearDown();
  }

  std::unique_ptr<apiserver::ApiServer> server_;
  std::unique_ptr<client::HttpClient> http_;
};

TEST_F(SimulatorHttpTest, NodesLeasesAndPodsOverHttp) {
  Time t0 = clock_.Now();
  NodeSimulator& sim = Start(Options(50));
  EXPECT_EQ(sim.GetStats().nodes, 50);
  EXPECT_EQ(sim.GetStats().write_errors, 0u) << sim.GetStats().last_error;
  const api::Node* node = api::As<api::Node>(*Get("", "nodes", "", "n-49"));
  EXPECT_EQ(node->status.addresses.at(0).address, NodeInternalIp(49));
  EXPECT_FALSE(node->status.capacity.empty());

  CreatePod("job", "n-7", R"("annotations":{"allot.dev/run-duration":"5s"})");
  ASSERT_TRUE(TickUntil([&] { return Phase("job") == "Running"; }));
  Advance(seconds(5));  // also brings every lease and the first heartbeats due
  ASSERT_TRUE(TickUntil([&] { return Phase("job") == "Succeeded"; }));
  // Heartbeat offsets are 1 + index % 40 s: n-0..n-4 and n-40..n-44 are due within 5 s.
  ASSERT_TRUE(TickUntil([&] { return sim.GetStats().node_heartbeats == 10; }));
  EXPECT_EQ(client_->Count("patch", "nodes"), 10);
  const api::Node* beat = api::As<api::Node>(*Get("", "nodes", "", "n-0"));
  const api::NodeCondition& ready = beat->status.conditions.back();
  EXPECT_EQ(ready.type, "Ready");
  EXPECT_EQ(ready.lastHeartbeatTime, clock_.Now());
  EXPECT_EQ(ready.lastTransitionTime, t0);
  EXPECT_EQ(sim.GetStats().write_errors, 0u) << sim.GetStats().last_error;
  EXPECT_GE(sim.GetStats().lease_renewals, 50u + 25u);
}

}  // namespace
}  // namespace allot::node
