#include "cli/roles.h"

#include <csignal>
#include <cstdio>
#include <ctime>
#include <unistd.h>
#include <fstream>
#include <random>
#include <thread>
#include <sstream>

#include "client/http_client.h"
#include "client/leader_election.h"
#include "common/flags.h"
#include "node/node_objects.h"
#include "scheduler/config.h"

namespace allot::cli {

namespace {
volatile std::sig_atomic_t g_stop_role = 0;
void OnRoleSignal(int) { g_stop_role = 1; }
}  // namespace

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return BadRequestError("cannot read " + path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

Result<std::unique_ptr<scheduler::Scheduler>> StartScheduler(client::Client& client,
                                                             const std::string& config_path,
                                                             metrics::Registry* metrics) {
  scheduler::SchedulerOptions opts;
  opts.metrics = metrics;
  if (!config_path.empty()) {
    ALLOT_ASSIGN_OR_RETURN(std::string text, ReadFile(config_path));
    ALLOT_ASSIGN_OR_RETURN(opts.config, scheduler::ParseConfiguration(text));
  }
  ALLOT_ASSIGN_OR_RETURN(auto sched, scheduler::Scheduler::Create(client, std::move(opts)));
  ALLOT_RETURN_IF_ERROR(sched->Start());
  return sched;
}

Result<std::unique_ptr<node::NodeSimulator>> StartNodeSimulator(client::Client& client,
                                                                Clock& clock, int64_t count,
                                                                const std::string& template_path) {
  node::NodeSimulatorOptions opts;
  opts.node_count = count;
  if (!template_path.empty()) {
    ALLOT_ASSIGN_OR_RETURN(std::string text, ReadFile(template_path));
    ALLOT_ASSIGN_OR_RETURN(opts.shape.node_template, node::ParseNodeTemplate(text));
  }
  auto sim = std::make_unique<node::NodeSimulator>(client, clock, std::move(opts));
  ALLOT_RETURN_IF_ERROR(sim->Run());
  return sim;
}

int RunScheduler(int argc, char** argv) {
  std::string server = "http://127.0.0.1:6443";
  std::string config;
  bool leader_elect = true;
  int64_t lease_duration = 15, renew_deadline = 10, retry_period_ms = 2000;
  std::string identity;
  Flags flags("allot scheduler", "Runs the scheduler against a Kubernetes-compatible API server.");
  flags.String("server", &server, "API server URL");
  flags.String("config", &config, "scheduler configuration file");
  flags.Bool("leader-elect", &leader_elect,
             "take the kube-system/allot-scheduler Lease before scheduling, so that only one of "
             "several schedulers acts");
  flags.Int("leader-elect-lease-duration-seconds", &lease_duration, "lease duration");
  flags.Int("leader-elect-renew-deadline-seconds", &renew_deadline,
            "the leader gives up after failing to renew for this long");
  flags.Int("leader-elect-retry-period-ms", &retry_period_ms, "time between attempts");
  flags.String("identity", &identity, "holder identity (default: hostname_random)");
  if (Status s = flags.Parse(argc, argv); !s.ok() || flags.help_requested()) {
    std::fprintf(stderr, "%s\n", s.ok() ? flags.Usage().c_str() : s.message().c_str());
    return s.ok() ? 0 : 2;
  }
  auto client = client::HttpClient::FromUrl(server);
  if (!client.ok()) {
    std::fprintf(stderr, "allot scheduler: %s\n", client.status().message().c_str());
    return 2;
  }
  if (identity.empty()) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    identity = std::string(host) + "_" + std::to_string(std::random_device{}());
  }
  std::signal(SIGINT, OnRoleSignal);
  std::signal(SIGTERM, OnRoleSignal);
  std::unique_ptr<scheduler::Scheduler> sched;
  int exit_code = 0;
  auto start = [&] {
    auto s = StartScheduler(**client, config);
    if (!s.ok()) {
      std::fprintf(stderr, "allot scheduler: %s\n", s.status().message().c_str());
      exit_code = 1;
      g_stop_role = 1;
      return;
    }
    sched = std::move(s).value();
    std::printf("allot scheduler: %s scheduling against %s\n", identity.c_str(), server.c_str());
    std::fflush(stdout);
  };
  if (!leader_elect) {
    start();
    while (!g_stop_role) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  } else {
    client::LeaderElectionConfig le;
    le.lock_name = "allot-scheduler";
    le.identity = identity;
    le.lease_duration = std::chrono::seconds(lease_duration);
    le.renew_deadline = std::chrono::seconds(renew_deadline);
    le.retry_period = std::chrono::milliseconds(retry_period_ms);
    client::LeaderElector elector(**client, RealClock::Instance(), le);
    std::atomic<bool> stop{false};
    std::thread watch_signal([&] {
      while (!g_stop_role) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      stop = true;
    });
    std::printf("allot scheduler: %s waiting for the lease kube-system/allot-scheduler\n",
                identity.c_str());
    std::fflush(stdout);
    elector.Run(stop, start, [&] {
      if (!stop) {
        // As kube-scheduler: a scheduler that lost its lease must not go on binding pods.
        std::fprintf(stderr, "allot scheduler: leader election lost\n");
        exit_code = 1;
      }
    });
    g_stop_role = 1;
    watch_signal.join();
  }
  if (sched) sched->Stop();
  return exit_code;
}

}  // namespace allot::cli
