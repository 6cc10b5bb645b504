// Shared pieces of `allot bench` (bench.cc: scheduler_perf workloads; bench_binding.cc: binding
// conditions): the objects workloads create, and the environment they run in.
#pragma once

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "api/core/types.h"
#include "api/resource/types.h"
#include "client/client.h"
#include "common/status.h"

namespace allot::cli::bench {

inline constexpr char kBenchDriver[] = "bench.example.com";

// Node "bench-node-<i>": 4 CPU, 32 GiB, 110 pods, Ready.
std::unique_ptr<api::Node> BenchNode(int64_t i);
// DeviceClass "bench.example.com" selecting the bench driver's devices.
std::unique_ptr<api::DeviceClass> BenchClass();
// `count` devices of the bench class with at least 4 GiB (matchAttribute on the model when
// count > 1).
api::ResourceClaimSpec BenchClaimSpec(int64_t count);
std::unique_ptr<api::ResourceClaimTemplate> BenchTemplate(const std::string& name, int64_t count);
// Index of `name` if it is "<prefix><i>", else -1.
int64_t IndexOf(const std::string& name, const std::string& prefix);
// The p-quantile of `v` (sorted in place), "%.1f".
std::string Percentile(std::vector<double>& v, double p);

// Creates objects asynchronously with at most 256 requests in flight. Thread-safe.
class Submitter {
 public:
  explicit Submitter(client::Client& client) : client_(client) {}
  void Create(const api::ResourceInfo& r, std::unique_ptr<api::Object> obj);
  // Waits until nothing is in flight; the first error any create got, if any.
  Status Drain();

 private:
  client::Client& client_;
  std::mutex mu_;
  std::condition_variable cv_;
  int64_t inflight_ = 0;  // guarded by mu_
  Status error_;          // guarded by mu_
};

// What a run has cost so far, summed over the processes of the system under test: in-process
// one process (the benchmark's own client threads included); over HTTP the server, scheduler
// and driver processes (the benchmark's client process excluded). -1: not known.
struct Counters {
  int64_t store_writes = -1;
  // Backend transactions: group commits, one fsync each on sqlite.
  int64_t store_batches = -1;
  // Thread wake-ups: voluntary context switches (common/process_stats.h), and the same per
  // thread name ("<role>/<thread>" over HTTP).
  int64_t wakeups = -1;
  std::map<std::string, uint64_t> wakeups_by_thread;
  int64_t rss_bytes = -1;
};

// What changed between two readings, per `pods`, as `allot bench` prints and writes it.
struct CostPerPod {
  double writes = -1;
  double writes_per_batch = -1;
  double wakeups = -1;
  std::vector<std::pair<std::string, double>> wakeups_by_thread;  // most first
};
CostPerPod PerPod(const Counters& before, const Counters& after, int64_t pods);
// Prints `cost`, the resident memory at the end and per pod (-1: unknown) to stdout, and
// writes them as the members "writes_per_pod", "writes_per_commit", "wakeups_per_pod",
// "wakeups_per_pod_by_thread", "rss_bytes" and "rss_bytes_per_pod" of the open JSON object.
void PrintCost(const CostPerPod& cost, int64_t rss_bytes, double rss_per_pod);
void WriteCost(rapidjson::Writer<rapidjson::StringBuffer>& json, const CostPerPod& cost,
               int64_t rss_bytes, double rss_per_pod);

// Where a workload runs.
struct Environment {
  // inprocess | http (plain) | https (TLS with RBAC, each role with its own certificate)
  std::string mode = "inprocess";
  std::string store = "sqlite";  // sqlite | memory | etcd (a fresh local cluster)
  int etcd_members = 1;          // --store etcd: 1 or 3
  // http / https: --kube-api-content-type of every client (client/connection_flags.h).
  std::string content_type = "application/vnd.kubernetes.protobuf";
  // The example control-plane driver's configuration (YAML; drivers/acceleratorpool/config.h),
  // run in-process or as `allot driver controller`; "" for none.
  std::string controller_config;
  // Set while `drive` runs to read what the run has cost so far.
  std::function<Counters()>* counters = nullptr;
};

// Sets up the environment (in-process: store + scheduler + resourceclaim controller [+ the
// control-plane driver]; http / https: `allot serve --no-scheduler [--insecure-plain-http]`,
// `allot scheduler` [and `allot driver controller --config F`] with --server URL or the admin
// --kubeconfig, as child processes, over a
// scratch data directory removed afterwards), runs `drive` with a client to it, and tears it
// down. `scheduler_config`: a scheduler configuration file for the scheduler ("" = default).
Status RunInEnvironment(const Environment& env, const std::string& scheduler_config,
                        const std::function<Status(client::Client&)>& drive);

}  // namespace allot::cli::bench
