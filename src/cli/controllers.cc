#include "cli/controllers.h"

#include <csignal>
#include <cstdio>
#include <ctime>

#include "cli/leader_election_flags.h"
#include "client/connection_flags.h"
#include "client/http_client.h"
#include "cluster/components.h"
#include "cluster/server_features.h"
#include "common/flags.h"

namespace allot::cli {

namespace {
volatile std::sig_atomic_t g_stop_controllers = 0;
void OnControllersSignal(int) { g_stop_controllers = 1; }
}  // namespace

int RunControllers(int argc, char** argv) {
  client::ConnectionFlags connection;
  std::string gates;
  LeaderElectionFlags election;
  Flags flags("allot controllers",
              "Runs the controllers (resourceclaim) against a Kubernetes-compatible API server.");
  connection.Register(flags);
  flags.String("feature-gates", &gates,
               "comma-separated Name=true|false, e.g. DRAAdminAccess=false");
  election.Register(flags, "allot-controller-manager");
  if (auto exit_code = flags.ParseOrExit(argc, argv)) return *exit_code;
  auto features = dra::ParseFeatureGates(gates);
  if (!features.ok()) {
    std::fprintf(stderr, "allot controllers: --feature-gates: %s\n",
                 features.status().message().c_str());
    return 2;
  }
  client::RestConfig rest;
  auto client = connection.Connect({}, &rest);
  if (!client.ok()) {
    std::fprintf(stderr, "allot controllers: %s\n", client.status().message().c_str());
    return 2;
  }
  const std::string server = rest.server;
  *features = cluster::FeaturesTheServerOffers(**client, *features, "allot controllers");
  std::signal(SIGINT, OnControllersSignal);
  std::signal(SIGTERM, OnControllersSignal);
  std::unique_ptr<cluster::Controllers> controllers;
  int exit_code = election.Run(
      **client, "allot controllers", "allot-controller-manager",
      [&] {
        auto c = cluster::StartControllers(**client, nullptr, *features);
        if (!c.ok()) {
          std::fprintf(stderr, "allot controllers: %s\n", c.status().message().c_str());
          return false;
        }
        controllers = std::move(c).value();
        std::printf("allot controllers: running against %s\n", server.c_str());
        std::fflush(stdout);
        return true;
      },
      g_stop_controllers);
  if (controllers) controllers->Stop();
  return exit_code;
}

}  // namespace allot::cli
