#include "node/cli.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "client/connection_flags.h"
#include "client/http_client.h"
#include "common/files.h"
#include "common/flags.h"
#include "common/go_duration.h"
#include "common/time.h"
#include "node/simulator.h"

namespace allot::node {

namespace {

// Lock-free, so the handler may set it; atomic, so the run loop's thread sees it.
std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free);
void OnSignal(int) { g_stop = true; }

constexpr std::chrono::seconds kSummaryEvery{10};

struct NodeSimFlags {
  client::ConnectionFlags connection;
  int64_t nodes = 10;
  std::string node_template;
  std::string name_prefix;
  int64_t first_index = 0;
  std::string startup_delay = "0s";
  std::string max_grace = "1s";
};

// Turns the flags into simulator options (template read and parsed, durations parsed).
Result<NodeSimulatorOptions> BuildOptions(const NodeSimFlags& f) {
  NodeSimulatorOptions opts;
  opts.node_count = f.nodes;
  opts.first_index = f.first_index;
  if (!f.node_template.empty()) {
    ALLOT_ASSIGN_OR_RETURN(std::string text, ReadFile(f.node_template));
    Result<api::Node> tmpl = ParseNodeTemplate(text);
    if (!tmpl.ok()) {
      return BadRequestError(f.node_template + ": " + tmpl.status().message());
    }
    opts.shape.node_template = std::move(tmpl).value();
  }
  const std::string& template_name = opts.shape.node_template.metadata.name;
  opts.name_prefix = !f.name_prefix.empty()   ? f.name_prefix
                     : !template_name.empty() ? template_name
                                              : opts.name_prefix;
  ALLOT_ASSIGN_OR_RETURN(opts.pod_startup_delay, ParseGoDuration(f.startup_delay));
  ALLOT_ASSIGN_OR_RETURN(opts.max_grace_period, ParseGoDuration(f.max_grace));
  opts.log = [](std::string_view line) {
    std::printf("allot node-sim: %.*s\n", static_cast<int>(line.size()), line.data());
    std::fflush(stdout);
  };
  return opts;
}

void PrintSummary(const NodeSimulator::Stats& s) {
  std::printf(
      "allot node-sim: nodes %lld, pods tracked %lld running %lld, started %llu succeeded %llu "
      "deleted %llu, lease renewals %llu, heartbeats %llu, conflicts %llu, errors %llu%s%s\n",
      static_cast<long long>(s.nodes), static_cast<long long>(s.pods_tracked),
      static_cast<long long>(s.pods_running), static_cast<unsigned long long>(s.pods_started),
      static_cast<unsigned long long>(s.pods_succeeded),
      static_cast<unsigned long long>(s.pods_deleted),
      static_cast<unsigned long long>(s.lease_renewals),
      static_cast<unsigned long long>(s.node_heartbeats),
      static_cast<unsigned long long>(s.write_conflicts),
      static_cast<unsigned long long>(s.write_errors),
      s.last_error.empty() ? "" : "; last: ", s.last_error.c_str());
  std::fflush(stdout);
}

}  // namespace

int RunNodeSim(int argc, char** argv, NodeSimExtension* extension) {
  NodeSimFlags f;
  Flags flags("allot node-sim",
              "Simulated kubelets (KWOK-like): registers nodes, keeps their leases and Ready "
              "condition fresh, and runs the pods bound to them.");
  f.connection.Register(flags);
  flags.Int("nodes", &f.nodes, "number of nodes to simulate");
  flags.String("node-template", &f.node_template,
               "Node manifest (YAML or JSON): labels, annotations, taints, capacity, allocatable");
  flags.String("name-prefix", &f.name_prefix,
               "nodes are named <prefix>-<i>; default: the template's name, else allot-node");
  flags.Int("first-index", &f.first_index,
            "index of the first node (disjoint ranges let "
            "several node-sim processes share a cluster)");
  flags.String("startup-delay", &f.startup_delay, "Go duration from binding to Running");
  flags.String("max-grace", &f.max_grace, "Go duration capping a deleted pod's grace period");
  if (extension) extension->AddFlags(flags);
  if (auto exit_code = flags.ParseOrExit(argc, argv)) return *exit_code;
  Result<NodeSimulatorOptions> opts = BuildOptions(f);
  if (!opts.ok()) {
    std::fprintf(stderr, "allot node-sim: %s\n", opts.status().message().c_str());
    return 2;
  }
  client::HttpClientOptions http;
  http.user_agent = "allot-node-sim";
  auto client = f.connection.Connect(http);
  if (!client.ok()) {
    std::fprintf(stderr, "allot node-sim: %s\n", client.status().message().c_str());
    return 2;
  }
  NodeSimulator sim(**client, RealClock::Instance(), std::move(opts).value());
  if (Status s = extension ? extension->Configure(**client, sim) : Status::Ok(); !s.ok()) {
    std::fprintf(stderr, "allot node-sim: %s\n", s.message().c_str());
    return 2;
  }
  g_stop = false;
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  if (Status s = sim.Run(); !s.ok()) {
    std::fprintf(stderr, "allot node-sim: %s\n", s.ToString().c_str());
    if (sim.GetStats().nodes == 0) {
      if (extension) extension->Stop();
      return 1;
    }
  }
  if (Status s = extension ? extension->Start(sim) : Status::Ok(); !s.ok()) {
    std::fprintf(stderr, "allot node-sim: %s\n", s.message().c_str());
    sim.Stop();
    extension->Stop();
    return 1;
  }
  auto next_summary = std::chrono::steady_clock::now();
  while (!g_stop) {
    if (std::chrono::steady_clock::now() >= next_summary) {
      PrintSummary(sim.GetStats());
      next_summary += kSummaryEvery;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  std::printf("allot node-sim: stopping\n");
  sim.Stop();
  if (extension) extension->Stop();
  PrintSummary(sim.GetStats());
  return 0;
}

}  // namespace allot::node
