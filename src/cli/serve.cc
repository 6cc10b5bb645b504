// `allot serve`: the embedded control plane in one process — its flags (cli/serve_options.h)
// made into a cluster::ClusterOptions, the cluster started (src/cluster/), and stopped on
// SIGINT / SIGTERM.
#include <csignal>
#include <cstdio>
#include <ctime>
#include <string>
#include <utility>

#include "cli/commands.h"
#include "cli/serve_options.h"
#include "cli/serving_security.h"
#include "cluster/cluster.h"
#include "common/flags.h"

namespace allot::cli {

namespace {

volatile std::sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

// The URL clients reach the server at, and how to point kubectl at it.
void PrintHowToConnect(const std::string& url, const std::string& kubeconfig,
                       const ServingSecurity& security) {
  if (!kubeconfig.empty()) {
    std::printf(
        "allot: the admin kubeconfig (user %s, group system:masters) is %s; point kubectl at "
        "it with:\n"
        "  export KUBECONFIG=%s\n"
        "  kubectl get namespaces\n",
        security.admin_user.c_str(), kubeconfig.c_str(), kubeconfig.c_str());
  } else {
    std::printf("allot: point kubectl at it with:\n  kubectl --server %s get namespaces\n",
                url.c_str());
  }
  std::fflush(stdout);
}

}  // namespace

int Serve(int argc, char** argv) {
  ServeOptions o;
  Flags flags("allot serve",
              "Runs the embedded control plane: API server, store, garbage "
              "collector.");
  o.AddFlags(flags);
  if (auto exit_code = flags.ParseOrExit(argc, argv)) return *exit_code;
  Result<ServeOptions::Completed> completed = InternalError("unset");
  if (Status st = o.Validate(); !st.ok()) {
    completed = st;
  } else {
    completed = o.Complete();
  }
  if (!completed.ok()) {
    std::fprintf(stderr, "allot serve: %s\n", completed.status().message().c_str());
    return 2;
  }
  const ServingSecurity security = std::move(completed->security);
  auto started = cluster::Cluster::Start(std::move(completed->cluster));
  if (!started.ok()) {
    std::fprintf(stderr, "allot serve: %s\n", started.status().message().c_str());
    return 1;
  }
  cluster::Cluster& cluster = **started;
  std::string host = o.listen.substr(0, o.listen.rfind(':'));
  if (host.empty() || host == "0.0.0.0" || host == "[::]") host = "127.0.0.1";
  const std::string url = std::string(security.tls ? "https" : "http") + "://" + host + ":" +
                          std::to_string(cluster.port());
  std::printf("allot: serving on %s (store: %s%s)\n", url.c_str(), o.store.c_str(),
              o.store == "sqlite" ? (", " + o.data_dir).c_str() : "");
  auto kubeconfig = security.WriteAdminKubeconfig(url);
  if (!kubeconfig.ok()) {
    std::fprintf(stderr, "allot serve: %s\n", kubeconfig.status().message().c_str());
    cluster.Stop();
    return 1;
  }
  PrintHowToConnect(url, *kubeconfig, security);

  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  while (!g_stop) {
    struct timespec ts {
      0, 100 * 1000 * 1000
    };
    nanosleep(&ts, nullptr);
  }
  std::printf("allot: shutting down\n");
  cluster.Stop();
  return 0;
}

}  // namespace allot::cli
