#include "cli/bench_support.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "api/protobuf.h"
#include "api/rbac/bootstrap_policy.h"
#include "api/rbac/rbac.h"
#include "cli/issue_kubeconfig.h"
#include "client/http_client.h"
#include "client/inprocess/inprocess_client.h"
#include "client/kubeconfig.h"
#include "cluster/components.h"
#include "common/files.h"
#include "common/process_stats.h"
#include "drivers/acceleratorpool/pool.h"
#include "etcd/local_cluster.h"
#include "store/backend.h"
#include "store/store.h"
#include "workloads/objects.h"

namespace allot::cli::bench {

namespace {

// A temporary directory for the benchmark's database, removed afterwards.
struct ScratchDir {
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "allot-bench-XXXXXX").string();
    if (mkdtemp(tmpl.data())) path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string path_;
};

// A child process running `allot ARGS...`; its stdout is read for "http://127.0.0.1:PORT".
struct Child {
  pid_t pid = -1;
  int out_fd = -1;
  ~Child() {
    if (pid > 0) {
      kill(pid, SIGTERM);
      int st;
      waitpid(pid, &st, 0);
    }
    if (out_fd >= 0) close(out_fd);
  }
};

Result<std::unique_ptr<Child>> Spawn(const std::string& self, std::vector<std::string> args) {
  int fds[2];
  if (pipe(fds) != 0) return InternalError("pipe failed");
  auto child = std::make_unique<Child>();
  child->pid = fork();
  if (child->pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(self.c_str()));
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(self.c_str(), argv.data());
    _exit(127);
  }
  close(fds[1]);
  child->out_fd = fds[0];
  return child;
}

// What `allot serve` prints: its URL, and over TLS the admin kubeconfig it wrote.
struct ServerAddress {
  std::string url;
  std::string kubeconfig;
};

Result<ServerAddress> ReadServerAddress(int fd) {
  std::string line;
  char c;
  static const std::regex kUrl(R"(serving on (https?://127\.0\.0\.1:\d+))");
  static const std::regex kKubeconfig(R"(export KUBECONFIG=(\S+))");
  ServerAddress out;
  while (read(fd, &c, 1) == 1) {
    if (c != '\n') {
      line += c;
      continue;
    }
    std::smatch m;
    if (out.url.empty() && std::regex_search(line, m, kUrl)) {
      out.url = m[1].str();
      if (out.url.rfind("http://", 0) == 0) return out;
    } else if (!out.url.empty() && std::regex_search(line, m, kKubeconfig)) {
      out.kubeconfig = m[1].str();
      return out;
    }
    line.clear();
  }
  return InternalError("allot serve exited before printing its address");
}

// The connection flags of the scheduler and the driver, and the workload's kubeconfig.
struct Roles {
  std::vector<std::string> scheduler;
  std::vector<std::string> driver;
  std::string workload_kubeconfig;  // "" : plain HTTP to the URL
};

// Over TLS the benchmark runs as a cluster does, every role with least privilege and every
// request decided by RBAC: the scheduler as system:kube-scheduler, the driver as
// system:dra-driver:<name> (allowed, too, to create its DeviceClass), and the workload as the
// user "bench" bound to cluster-admin by a ClusterRoleBinding (not in system:masters, whose
// requests RBAC never sees). The bindings are made with the admin kubeconfig.
Result<Roles> LeastPrivilege(const std::string& dir, const ServerAddress& address,
                             const std::string& controller_config) {
  ALLOT_ASSIGN_OR_RETURN(client::RestConfig admin_rest,
                         client::ResolveRestConfig(address.kubeconfig, "", ""));
  ALLOT_ASSIGN_OR_RETURN(auto admin, client::NewHttpClient(admin_rest));
  auto bind = [&](const std::string& name, const std::string& role,
                  const std::string& user) -> Status {
    auto b = std::make_unique<api::ClusterRoleBinding>();
    b->metadata.name = name;
    b->roleRef = api::RoleRef{std::string(api::kRbacGroup), "ClusterRole", role};
    b->subjects = {api::Subject{"User", std::string(api::kRbacGroup), user, ""}};
    return admin->Create(api::ResourceFor<api::ClusterRoleBinding>(), std::move(b)).status();
  };
  auto write = [&](const std::string& user, const std::vector<std::string>& groups,
                   const std::string& file) -> Result<std::string> {
    ALLOT_ASSIGN_OR_RETURN(std::string yaml,
                           IssueKubeconfig(dir, address.url, user, groups, std::chrono::hours(24)));
    const std::string path = dir + "/" + file;
    ALLOT_RETURN_IF_ERROR(WriteFileAtomically(path, yaml, 0600));
    return path;
  };
  Roles roles;
  ALLOT_RETURN_IF_ERROR(bind("bench", "cluster-admin", "bench"));
  ALLOT_ASSIGN_OR_RETURN(roles.workload_kubeconfig, write("bench", {}, "bench.kubeconfig"));
  ALLOT_ASSIGN_OR_RETURN(std::string sched,
                         write(std::string(api::kSchedulerUser), {}, "scheduler.kubeconfig"));
  roles.scheduler = {"--kubeconfig", sched};
  if (!controller_config.empty()) {
    ALLOT_ASSIGN_OR_RETURN(drivers::AcceleratorPoolConfig c,
                           drivers::ParseAcceleratorPoolConfig(controller_config));
    const std::string user = std::string(api::kDriverUserPrefix) + c.driver;
    auto creator = std::make_unique<api::ClusterRole>();
    creator->metadata.name = "bench:deviceclass-creator";
    creator->rules = {api::PolicyRule{{"create"}, {"resource.k8s.io"}, {"deviceclasses"}, {}, {}}};
    ALLOT_RETURN_IF_ERROR(
        admin->Create(api::ResourceFor<api::ClusterRole>(), std::move(creator)).status());
    ALLOT_RETURN_IF_ERROR(
        bind("bench:driver-creates-its-class", "bench:deviceclass-creator", user));
    ALLOT_ASSIGN_OR_RETURN(std::string driver,
                           write(user, {std::string(api::kDriversGroup)}, "driver.kubeconfig"));
    roles.driver = {"--kubeconfig", driver};
  }
  return roles;
}

// Adds process `pid`'s memory and wake-ups to `c`, its thread names prefixed with `role`.
void AddProcess(Counters& c, pid_t pid, const std::string& role) {
  auto stats = ReadProcessStats(pid);
  if (!stats.ok()) return;
  c.rss_bytes = std::max<int64_t>(c.rss_bytes, 0) + stats->rss_bytes;
  c.wakeups = std::max<int64_t>(c.wakeups, 0) + static_cast<int64_t>(stats->wakeups);
  for (const auto& [name, n] : stats->wakeups_by_thread) c.wakeups_by_thread[role + name] += n;
}

// The server's store counters, from its /metrics.
void ScrapeStoreCounters(client::HttpClient& client, Counters& c) {
  auto res = client.Raw("GET", "/metrics");
  if (!res.ok() || res->status != 200) return;
  auto value = [&](std::string_view name) -> int64_t {
    const std::string key = "\n" + std::string(name) + " ";
    const size_t at = res->body.find(key);
    if (at == std::string::npos) return -1;
    return static_cast<int64_t>(std::strtod(res->body.c_str() + at + key.size(), nullptr));
  };
  c.store_writes = value("allot_store_writes_total");
  c.store_batches = value("allot_store_batches_total");
}

}  // namespace

CostPerPod PerPod(const Counters& before, const Counters& after, int64_t pods) {
  CostPerPod out;
  if (pods <= 0) return out;
  const double n = static_cast<double>(pods);
  if (before.store_writes >= 0 && after.store_writes >= 0) {
    const double writes = static_cast<double>(after.store_writes - before.store_writes);
    out.writes = writes / n;
    const int64_t batches = after.store_batches - before.store_batches;
    if (before.store_batches >= 0 && batches > 0) {
      out.writes_per_batch = writes / static_cast<double>(batches);
    }
  }
  if (before.wakeups >= 0 && after.wakeups >= 0) {
    out.wakeups = static_cast<double>(after.wakeups - before.wakeups) / n;
    for (const auto& [name, count] : after.wakeups_by_thread) {
      auto it = before.wakeups_by_thread.find(name);
      const uint64_t was = it == before.wakeups_by_thread.end() ? 0 : it->second;
      if (count > was)
        out.wakeups_by_thread.emplace_back(name, static_cast<double>(count - was) / n);
    }
    std::sort(out.wakeups_by_thread.begin(), out.wakeups_by_thread.end(),
              [](const auto& a, const auto& b) { return a.second > b.second; });
  }
  return out;
}

void PrintCost(const CostPerPod& cost, int64_t rss_bytes, double rss_per_pod) {
  if (cost.writes >= 0) {
    std::printf("store writes: %.2f per pod", cost.writes);
    if (cost.writes_per_batch > 0) std::printf(", %.1f per commit", cost.writes_per_batch);
    std::printf("\n");
  }
  if (cost.wakeups >= 0) {
    std::printf("thread wake-ups: %.1f per pod (", cost.wakeups);
    const size_t shown = std::min<size_t>(cost.wakeups_by_thread.size(), 8);
    for (size_t i = 0; i < shown; ++i) {
      std::printf("%s%s %.2f", i ? ", " : "", cost.wakeups_by_thread[i].first.c_str(),
                  cost.wakeups_by_thread[i].second);
    }
    std::printf("%s)\n", shown < cost.wakeups_by_thread.size() ? ", ..." : "");
  }
  if (rss_bytes >= 0) {
    std::printf("resident memory: %.0f MiB", static_cast<double>(rss_bytes) / (1 << 20));
    if (rss_per_pod >= 0) std::printf(", %.2f KiB per pod", rss_per_pod / 1024);
    std::printf("\n");
  }
}

void WriteCost(rapidjson::Writer<rapidjson::StringBuffer>& json, const CostPerPod& cost,
               int64_t rss_bytes, double rss_per_pod) {
  auto number = [&](const char* key, double v) {
    json.Key(key);
    if (v >= 0) {
      json.Double(v);
    } else {
      json.Null();
    }
  };
  number("writes_per_pod", cost.writes);
  number("writes_per_commit", cost.writes_per_batch);
  number("wakeups_per_pod", cost.wakeups);
  json.Key("wakeups_per_pod_by_thread");
  json.StartObject();
  for (const auto& [name, v] : cost.wakeups_by_thread) json.Key(name.c_str()), json.Double(v);
  json.EndObject();
  number("rss_bytes", static_cast<double>(rss_bytes));
  number("rss_bytes_per_pod", rss_per_pod);
}

std::unique_ptr<api::Node> BenchNode(int64_t i) {
  return workloads::MakeNode("bench-node-" + std::to_string(i));
}

std::unique_ptr<api::DeviceClass> BenchClass() {
  return workloads::MakeDriverClass(kBenchDriver, kBenchDriver);
}

api::ResourceClaimSpec BenchClaimSpec(int64_t count) {
  return workloads::ClaimSpec(
      kBenchDriver, count,
      std::string("device.capacity['") + kBenchDriver + "'].memory.compareTo(quantity('4Gi')) >= 0",
      std::string(kBenchDriver) + "/model");
}

std::unique_ptr<api::ResourceClaimTemplate> BenchTemplate(const std::string& name, int64_t count) {
  return workloads::MakeClaimTemplate("default", name, BenchClaimSpec(count));
}

// Index of `name` if it is "<prefix><i>", else -1.
int64_t IndexOf(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return -1;
  int64_t v = 0;
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return -1;
    v = v * 10 + (name[i] - '0');
  }
  return v;
}

std::string Percentile(std::vector<double>& v, double p) {
  if (v.empty()) return "0";
  std::sort(v.begin(), v.end());
  size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v[i]);
  return buf;
}

void Submitter::Create(const api::ResourceInfo& r, std::unique_ptr<api::Object> obj) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return inflight_ < 256; });
  ++inflight_;
  lock.unlock();
  client_.CreateAsync(r, std::move(obj), [this](Result<api::ObjectPtr> res) {
    std::lock_guard<std::mutex> l(mu_);
    if (!res.ok() && error_.ok()) error_ = res.status();
    --inflight_;
    cv_.notify_all();
  });
}

Status Submitter::Drain() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return inflight_ == 0; });
  return error_;
}

Status RunInEnvironment(const Environment& env, const std::string& scheduler_config,
                        const std::function<Status(client::Client&)>& drive) {
  ScratchDir dir;
  // --store etcd: a fresh local cluster of env.etcd_members, for this run only.
  std::unique_ptr<etcd::LocalCluster> etcd_cluster;
  std::string etcd_servers;
  if (env.store == "etcd") {
    ALLOT_ASSIGN_OR_RETURN(etcd_cluster, etcd::LocalCluster::Start(env.etcd_members));
    for (const std::string& e : etcd_cluster->endpoints()) {
      etcd_servers += (etcd_servers.empty() ? "" : ",") + e;
    }
  }
  if (env.mode == "inprocess") {
    std::unique_ptr<store::Backend> backend;
    if (env.store == "sqlite") {
      ALLOT_ASSIGN_OR_RETURN(backend, store::NewSqliteBackend(dir.path() + "/bench.db"));
    } else if (env.store == "etcd") {
      store::EtcdBackendOptions o;
      o.endpoints = etcd_cluster->endpoints();
      ALLOT_ASSIGN_OR_RETURN(backend, store::NewEtcdBackend(o));
    } else {
      backend = store::NewMemoryBackend();
    }
    store::Store store(std::move(backend), RealClock::Instance(), cluster::DefaultStoreOptions());
    ALLOT_RETURN_IF_ERROR(store.Open());
    client::InProcessClient client(store, RealClock::Instance());
    std::unique_ptr<scheduler::Scheduler> sched;
    std::unique_ptr<cluster::Controllers> controllers;
    // One informer per resource for the scheduler and the controllers (cluster/components.h),
    // as `allot serve` runs them. Declared after both, so it is destroyed (its informers
    // stopped) before either of them.
    client::InformerFactory informers(client);
    ALLOT_ASSIGN_OR_RETURN(
        sched, cluster::StartScheduler(client, scheduler_config, nullptr, {}, &informers));
    ALLOT_ASSIGN_OR_RETURN(controllers,
                           cluster::StartControllers(client, nullptr, dra::Features{}, nullptr,
                                                     /*one_worker_each=*/false, &informers));
    std::unique_ptr<drivers::AcceleratorPool> pool;
    if (!env.controller_config.empty()) {
      ALLOT_ASSIGN_OR_RETURN(drivers::AcceleratorPoolConfig c,
                             drivers::ParseAcceleratorPoolConfig(env.controller_config));
      pool = std::make_unique<drivers::AcceleratorPool>(client, std::move(c));
      ALLOT_RETURN_IF_ERROR(pool->Start());
    }
    if (env.counters) {
      *env.counters = [&store] {
        Counters c;
        const store::Store::Stats stats = store.GetStats();
        c.store_writes = static_cast<int64_t>(stats.writes);
        c.store_batches = static_cast<int64_t>(stats.batches);
        AddProcess(c, 0, "");
        return c;
      };
    }
    Status st = drive(client);
    if (env.counters) *env.counters = nullptr;
    if (pool) pool->Stop();
    sched->Stop();
    controllers->Stop();
    return st;
  }
  std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::vector<std::string> serve_args = {"serve",    "--listen", "127.0.0.1:0", "--data-dir",
                                         dir.path(), "--store",  env.store,     "--no-scheduler"};
  if (env.mode == "http") serve_args.push_back("--insecure-plain-http");
  if (!etcd_servers.empty()) {
    serve_args.push_back("--etcd-servers");
    serve_args.push_back(etcd_servers);
  }
  ALLOT_ASSIGN_OR_RETURN(auto server, Spawn(self, serve_args));
  ALLOT_ASSIGN_OR_RETURN(ServerAddress address, ReadServerAddress(server->out_fd));
  // Over plain HTTP every role uses the URL; over TLS each its own identity (LeastPrivilege).
  Roles roles;
  if (address.kubeconfig.empty()) {
    roles.scheduler = roles.driver = {"--server", address.url};
  } else {
    ALLOT_ASSIGN_OR_RETURN(roles, LeastPrivilege(dir.path(), address, env.controller_config));
  }
  roles.scheduler.insert(roles.scheduler.end(), {"--kube-api-content-type", env.content_type});
  roles.driver.insert(roles.driver.end(), {"--kube-api-content-type", env.content_type});
  const std::vector<std::string>& connect = roles.scheduler;
  std::vector<std::string> sched_args = {"scheduler"};
  sched_args.insert(sched_args.end(), connect.begin(), connect.end());
  if (!scheduler_config.empty()) {
    sched_args.push_back("--config");
    sched_args.push_back(scheduler_config);
  }
  ALLOT_ASSIGN_OR_RETURN(auto sched, Spawn(self, sched_args));
  std::unique_ptr<Child> driver;
  if (!env.controller_config.empty()) {
    const std::string path = dir.path() + "/controller.yaml";
    std::ofstream(path) << env.controller_config;
    std::vector<std::string> driver_args = {"driver", "controller", "--config", path};
    driver_args.insert(driver_args.end(), roles.driver.begin(), roles.driver.end());
    ALLOT_ASSIGN_OR_RETURN(driver, Spawn(self, driver_args));
  }
  ALLOT_ASSIGN_OR_RETURN(
      client::RestConfig rest,
      client::ResolveRestConfig(roles.workload_kubeconfig, "",
                                roles.workload_kubeconfig.empty() ? address.url : ""));
  client::HttpClientOptions options;
  options.protobuf = env.content_type == api::kProtobufContentType;
  ALLOT_ASSIGN_OR_RETURN(auto client, client::NewHttpClient(rest, options));
  if (env.counters) {
    *env.counters = [&] {
      Counters c;
      ScrapeStoreCounters(*client, c);
      AddProcess(c, server->pid, "serve/");
      AddProcess(c, sched->pid, "scheduler/");
      if (driver) AddProcess(c, driver->pid, "driver/");
      return c;
    };
  }
  Status st = drive(*client);
  if (env.counters) *env.counters = nullptr;
  return st;
}

}  // namespace allot::cli::bench
