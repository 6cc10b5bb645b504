// `allot node-sim` with a NodeSimExtension: its flags, the order of its calls, and its errors.
#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include "apiserver/server.h"
#include "common/time.h"
#include "node/cli.h"
#include "store/backend.h"
#include "store/store.h"
#include "testing/objects.h"
#include "testing/wait.h"

namespace allot::node {
namespace {

class RecordingExtension final : public NodeSimExtension {
 public:
  void AddFlags(Flags& flags) override { flags.Int("widgets", &widgets, "widgets per node"); }
  Status Configure(client::Client&, NodeSimulator&) override {
    calls.push_back("configure");
    if (widgets < 0) return BadRequestError("--widgets must not be negative");
    return Status::Ok();
  }
  Status Start(NodeSimulator& sim) override {
    calls.push_back("start:" + std::to_string(sim.GetStats().nodes));
    return start_error;
  }
  void Stop() override { calls.push_back("stop"); }

  int64_t widgets = 0;
  Status start_error;
  std::vector<std::string> calls;
};

int RunCli(std::vector<std::string> args, NodeSimExtension& ext) {
  args.insert(args.begin(), {"allot", "node-sim"});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return RunNodeSim(static_cast<int>(argv.size()), argv.data(), &ext);
}

TEST(NodeSimExtensionTest, FlagsAndConfigureErrorsAreFlagErrors) {
  RecordingExtension ext;
  EXPECT_EQ(RunCli({"--help"}, ext), 0);
  EXPECT_EQ(RunCli({"--server", "http://127.0.0.1:1", "--widgets", "many"}, ext), 2);
  EXPECT_TRUE(ext.calls.empty());
  EXPECT_EQ(RunCli({"--server", "http://127.0.0.1:1", "--widgets", "-1"}, ext), 2);
  EXPECT_EQ(ext.calls, std::vector<std::string>{"configure"});
}

class NodeSimExtensionRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.Open().ok());
    ASSERT_TRUE(server_.Start().ok());
    url_ = "http://127.0.0.1:" + std::to_string(server_.port());
  }
  void TearDown() override {
    server_.Stop();
    store_.Close();
  }

  FakeClock clock_;
  store::Store store_{store::NewMemoryBackend(), clock_};
  apiserver::ApiServer server_{store_, clock_, {}};
  std::string url_;
};

TEST_F(NodeSimExtensionRunTest, StartsAfterRegistrationAndStopsAfterTheSimulator) {
  RecordingExtension ext;
  std::atomic<int> code{-1};
  std::thread sim([&] {
    code = RunCli({"--server", url_, "--nodes", "2", "--widgets", "3"}, ext);
  });
  const api::ResourceInfo& nodes = testing::Resource("", "nodes");
  testing::WaitUntil([&] { return store_.Get(nodes, "", "allot-node-1").ok(); },
                     std::chrono::seconds(20));
  // Start() runs before the loop polls the flag the handler sets, so it is never skipped.
  std::raise(SIGTERM);
  sim.join();
  EXPECT_EQ(code, 0);
  EXPECT_EQ(ext.widgets, 3);
  EXPECT_EQ(ext.calls, (std::vector<std::string>{"configure", "start:2", "stop"}));
}

TEST_F(NodeSimExtensionRunTest, StartErrorEndsTheRun) {
  RecordingExtension ext;
  ext.start_error = Status(StatusCode::kServiceUnavailable, "no devices today");
  EXPECT_EQ(RunCli({"--server", url_, "--nodes", "1"}, ext), 1);
  EXPECT_EQ(ext.calls, (std::vector<std::string>{"configure", "start:1", "stop"}));
}

}  // namespace
}  // namespace allot::node
