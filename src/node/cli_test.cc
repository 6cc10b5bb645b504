// `allot node-sim` flag handling, and one run against an in-process API server until SIGTERM.
#include "node/cli.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "apiserver/server.h"
#include "common/time.h"
#include "store/backend.h"
#include "store/store.h"
#include "testing/builders.h"
#include "testing/objects.h"
#include "testing/wait.h"

namespace allot::node {
namespace {

int RunCli(std::vector<std::string> args) {
  args.insert(args.begin(), {"allot", "node-sim"});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return RunNodeSim(static_cast<int>(argv.size()), argv.data());
}

TEST(NodeSimCliTest, FlagErrors) {
  // Without --server the connection comes from $KUBECONFIG: the caller's must not count here.
  const char* kubeconfig = std::getenv("KUBECONFIG");
  const std::string saved = kubeconfig ? kubeconfig : "";
  unsetenv("KUBECONFIG");
  EXPECT_EQ(RunCli({"--help"}), 0);
  EXPECT_EQ(RunCli({}), 2);  // --server is required
  EXPECT_EQ(RunCli({"--server", "http://127.0.0.1:1", "--bogus"}), 2);
  EXPECT_EQ(RunCli({"--server", "http://127.0.0.1:1", "--node-template", "/nonexistent.yaml"}), 2);
  EXPECT_EQ(RunCli({"--server", "ftp://x"}), 2);
  EXPECT_EQ(RunCli({"--server", "http://127.0.0.1:1", "--startup-delay", "soon"}), 2);
  if (kubeconfig) setenv("KUBECONFIG", saved.c_str(), 1);
}

TEST(NodeSimCliTest, RegistersNodesFromATemplateUntilSignalled) {
  testing::TempDir dir;
  std::string tmpl = dir.path() + "/node.yaml";
  std::ofstream(tmpl) << "kind: Node\nmetadata:\n  name: cli\n  labels: {tier: sim}\n"
                         "status:\n  capacity: {cpu: '8', memory: 32Gi, pods: '110'}\n";
  FakeClock clock;
  store::Store store(store::NewMemoryBackend(), clock);
  ASSERT_TRUE(store.Open().ok());
  apiserver::ApiServer server(store, clock, {});
  ASSERT_TRUE(server.Start().ok());
  std::string url = "http://127.0.0.1:" + std::to_string(server.port());

  int code = -1;
  std::thread sim([&] {
    code = RunCli({"--server", url, "--nodes", "3", "--node-template", tmpl});
  });
  const api::ResourceInfo& nodes = testing::Resource("", "nodes");
  testing::WaitUntil([&] { return store.Get(nodes, "", "cli-2").ok(); }, std::chrono::seconds(20));
  std::raise(SIGTERM);  // the handler only sets a flag the run loop polls
  sim.join();
  EXPECT_EQ(code, 0);
  Result<api::ObjectPtr> node = store.Get(nodes, "", "cli-2");
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  EXPECT_EQ((*node)->metadata.labels.at("tier"), "sim");
  server.Stop();
  store.Close();
}

}  // namespace
}  // namespace allot::node
