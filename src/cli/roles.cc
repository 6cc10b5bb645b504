#include "cli/roles.h"

#include <csignal>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

#include "client/http_client.h"
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
  Flags flags("allot scheduler", "Runs the scheduler against a Kubernetes-compatible API server.");
  flags.String("server", &server, "API server URL");
  flags.String("config", &config, "scheduler configuration file");
  if (Status s = flags.Parse(argc, argv); !s.ok() || flags.help_requested()) {
    std::fprintf(stderr, "%s\n", s.ok() ? flags.Usage().c_str() : s.message().c_str());
    return s.ok() ? 0 : 2;
  }
  auto client = client::HttpClient::FromUrl(server);
  if (!client.ok()) {
    std::fprintf(stderr, "allot scheduler: %s\n", client.status().message().c_str());
    return 2;
  }
  auto sched = StartScheduler(**client, config);
  if (!sched.ok()) {
    std::fprintf(stderr, "allot scheduler: %s\n", sched.status().message().c_str());
    return 1;
  }
  std::printf("allot scheduler: scheduling against %s\n", server.c_str());
  std::fflush(stdout);
  std::signal(SIGINT, OnRoleSignal);
  std::signal(SIGTERM, OnRoleSignal);
  while (!g_stop_role) {
    struct timespec ts{0, 100 * 1000 * 1000};
    nanosleep(&ts, nullptr);
  }
  (*sched)->Stop();
  return 0;
}

}  // namespace allot::cli
