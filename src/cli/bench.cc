// `allot bench WORKLOAD [--mode inprocess|http] [--store sqlite|memory] [--out FILE.json]`
//
// scheduler_perf-shaped workloads. SchedulingBasic/<N>Nodes_<M>Pods: N nodes (4 CPU, 32 GiB,
// 110 pods), then M pods (100m CPU, 500 MiB) created at once; measured from the first pod
// created to the last pod bound. Latency per pod: creation request → binding seen in a watch.
//   inprocess: store + scheduler + this client in one process (the client writes straight to
//              the store).
//   http:      `allot serve --no-scheduler` and `allot scheduler --server URL` as child
//              processes; this process creates objects and watches over HTTP.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/core.h"
#include "client/http_client.h"
#include "client/inprocess_client.h"
#include "cli/roles.h"
#include "common/flags.h"
#include "store/store.h"

namespace allot::cli {

namespace {

using Steady = std::chrono::steady_clock;

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

struct Workload {
  std::string name;
  int64_t nodes = 0;
  int64_t pods = 0;
};

Result<Workload> ParseWorkload(const std::string& name) {
  std::smatch m;
  static const std::regex kBasic(R"(SchedulingBasic/(\d+)Nodes_(\d+)Pods)");
  if (!std::regex_match(name, m, kBasic)) {
    return BadRequestError("unknown workload \"" + name +
                           "\": want SchedulingBasic/<N>Nodes_<M>Pods, e.g. "
                           "SchedulingBasic/5000Nodes_10000Pods");
  }
  return Workload{name, std::stoll(m[1]), std::stoll(m[2])};
}

std::unique_ptr<api::Node> BenchNode(int64_t i) {
  auto n = std::make_unique<api::Node>();
  n->metadata.name = "bench-node-" + std::to_string(i);
  n->metadata.labels["kubernetes.io/hostname"] = n->metadata.name;
  for (auto* list : {&n->status.capacity, &n->status.allocatable}) {
    (*list)["cpu"] = *api::Quantity::Parse("4");
    (*list)["memory"] = *api::Quantity::Parse("32Gi");
    (*list)["pods"] = *api::Quantity::Parse("110");
  }
  api::NodeCondition ready;
  ready.type = "Ready";
  ready.status = "True";
  n->status.conditions.push_back(ready);
  return n;
}

std::unique_ptr<api::Pod> BenchPod(int64_t i) {
  auto p = std::make_unique<api::Pod>();
  p->metadata.name = "bench-pod-" + std::to_string(i);
  p->metadata.namespace_ = "default";
  api::Container c;
  c.name = "pause";
  c.image = "registry.k8s.io/pause:3.10";
  c.resources.requests["cpu"] = *api::Quantity::Parse("100m");
  c.resources.requests["memory"] = *api::Quantity::Parse("500Mi");
  p->spec.containers.push_back(std::move(c));
  return p;
}

// Creates the nodes and pods through `client` and waits until every pod is bound.
struct Measurement {
  double seconds = 0;
  std::vector<double> latencies_ms;
  int64_t bound = 0;
};

Result<Measurement> Drive(client::Client& client, const Workload& w) {
  const auto& reg = api::ResourceRegistry::Default();
  const auto& nodes = *reg.Find("", "v1", "nodes");
  const auto& pods = *reg.Find("", "v1", "pods");
  std::mutex mu;
  std::condition_variable cv;
  int64_t inflight = 0;
  Status first_error;
  auto submit = [&](const api::ResourceInfo& r, std::unique_ptr<api::Object> obj) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return inflight < 256; });
    ++inflight;
    lock.unlock();
    client.CreateAsync(r, std::move(obj), [&](Result<api::ObjectPtr> res) {
      std::lock_guard<std::mutex> l(mu);
      if (!res.ok() && first_error.ok()) first_error = res.status();
      --inflight;
      cv.notify_all();
    });
  };
  auto drain = [&] {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return inflight == 0; });
  };
  for (int64_t i = 0; i < w.nodes; ++i) submit(nodes, BenchNode(i));
  drain();
  ALLOT_RETURN_IF_ERROR(first_error);
  // Give the scheduler's node informer a moment to see every node before pods arrive.
  for (int i = 0; i < 600; ++i) {
    auto list = client.List(nodes, {});
    if (list.ok() && static_cast<int64_t>(list->items.size()) >= w.nodes) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));

  store::WatchOptions wopts;
  wopts.resource_version = client.List(pods, {})->resource_version;
  ALLOT_ASSIGN_OR_RETURN(auto watcher, client.Watch(pods, wopts));
  std::vector<Steady::time_point> created(static_cast<size_t>(w.pods));
  const auto start = Steady::now();
  std::thread creator([&] {
    for (int64_t i = 0; i < w.pods; ++i) {
      created[static_cast<size_t>(i)] = Steady::now();
      submit(pods, BenchPod(i));
    }
  });
  Measurement m;
  std::vector<bool> seen(static_cast<size_t>(w.pods), false);
  Steady::time_point last = start;
  const auto deadline = start + std::chrono::minutes(3);
  store::WatchEvent ev;
  while (m.bound < w.pods && Steady::now() < deadline) {
    if (!watcher->WaitNext(ev, std::chrono::milliseconds(500))) continue;
    if (!ev.object) continue;
    const auto* pod = api::As<api::Pod>(*ev.object);
    if (!pod || pod->spec.nodeName.empty()) continue;
    const std::string& name = pod->metadata.name;
    if (name.rfind("bench-pod-", 0) != 0) continue;
    size_t idx = std::stoul(name.substr(10));
    if (idx >= seen.size() || seen[idx]) continue;
    seen[idx] = true;
    last = Steady::now();
    m.latencies_ms.push_back(
        std::chrono::duration<double, std::milli>(last - created[idx]).count());
    ++m.bound;
  }
  creator.join();
  drain();
  ALLOT_RETURN_IF_ERROR(first_error);
  m.seconds = std::chrono::duration<double>(last - start).count();
  if (m.bound < w.pods) {
    return Status(StatusCode::kTimeout, "only " + std::to_string(m.bound) + " of " +
                                            std::to_string(w.pods) + " pods were bound");
  }
  return m;
}

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

Result<std::string> ReadServerUrl(int fd) {
  std::string buf;
  char c;
  static const std::regex kUrl(R"(http://127\.0\.0\.1:\d+)");
  while (read(fd, &c, 1) == 1) {
    buf += c;
    std::smatch m;
    if (c == '\n' && std::regex_search(buf, m, kUrl)) return m.str();
  }
  return InternalError("allot serve exited before printing its address");
}

std::string Percentile(std::vector<double>& v, double p) {
  if (v.empty()) return "0";
  std::sort(v.begin(), v.end());
  size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v[i]);
  return buf;
}

}  // namespace

int RunBench(int argc, char** argv) {
  std::string mode = "inprocess";
  std::string store_kind = "sqlite";
  std::string out;
  Flags flags("allot bench WORKLOAD", "Measures scheduling throughput on a scheduler_perf-shaped "
                                      "workload, e.g. SchedulingBasic/5000Nodes_10000Pods.");
  flags.String("mode", &mode, "inprocess or http");
  flags.String("store", &store_kind, "sqlite (durable) or memory");
  flags.String("out", &out, "write the result as JSON to this file");
  Status st = flags.Parse(argc, argv);
  if (!st.ok() || flags.help_requested() || flags.positional().size() != 1) {
    std::fprintf(stderr, "%s\n", st.ok() ? flags.Usage().c_str() : st.message().c_str());
    return st.ok() && flags.help_requested() ? 0 : 2;
  }
  auto w = ParseWorkload(flags.positional()[0]);
  if (!w.ok()) {
    std::fprintf(stderr, "allot bench: %s\n", w.status().message().c_str());
    return 2;
  }
  if ((mode != "inprocess" && mode != "http") || (store_kind != "sqlite" && store_kind != "memory")) {
    std::fprintf(stderr, "allot bench: --mode inprocess|http, --store sqlite|memory\n");
    return 2;
  }
  ScratchDir dir;
  Result<Measurement> m = InternalError("not run");
  if (mode == "inprocess") {
    std::unique_ptr<store::Backend> backend;
    if (store_kind == "sqlite") {
      auto b = store::NewSqliteBackend(dir.path() + "/bench.db");
      if (!b.ok()) {
        std::fprintf(stderr, "allot bench: %s\n", b.status().message().c_str());
        return 1;
      }
      backend = std::move(b).value();
    } else {
      backend = store::NewMemoryBackend();
    }
    store::Store store(std::move(backend), RealClock::Instance());
    if (Status s = store.Open(); !s.ok()) {
      std::fprintf(stderr, "allot bench: %s\n", s.message().c_str());
      return 1;
    }
    client::InProcessClient client(store, RealClock::Instance());
    auto sched = StartScheduler(client, "");
    if (!sched.ok()) {
      std::fprintf(stderr, "allot bench: %s\n", sched.status().message().c_str());
      return 1;
    }
    m = Drive(client, *w);
    (*sched)->Stop();
  } else {
    std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    auto server = Spawn(self, {"serve", "--listen", "127.0.0.1:0", "--data-dir", dir.path(),
                               "--store", store_kind, "--no-scheduler"});
    if (!server.ok()) return 1;
    auto url = ReadServerUrl((*server)->out_fd);
    if (!url.ok()) {
      std::fprintf(stderr, "allot bench: %s\n", url.status().message().c_str());
      return 1;
    }
    auto sched = Spawn(self, {"scheduler", "--server", *url});
    if (!sched.ok()) return 1;
    auto client = client::HttpClient::FromUrl(*url);
    if (!client.ok()) return 1;
    m = Drive(**client, *w);
  }
  if (!m.ok()) {
    std::fprintf(stderr, "allot bench: %s\n", m.status().message().c_str());
    return 1;
  }
  double throughput = static_cast<double>(m->bound) / m->seconds;
  std::string p50 = Percentile(m->latencies_ms, 0.50), p99 = Percentile(m->latencies_ms, 0.99);
  std::printf("workload: %s  mode: %s  store: %s\n", w->name.c_str(), mode.c_str(),
              store_kind.c_str());
  std::printf("throughput: %.0f pods/s\n", throughput);
  std::printf("pods: %lld in %.2f s; scheduling latency p50 %s ms, p99 %s ms\n",
              static_cast<long long>(m->bound), m->seconds, p50.c_str(), p99.c_str());
  if (!out.empty()) {
    std::ofstream f(out);
    f << "{\"workload\":\"" << w->name << "\",\"mode\":\"" << mode << "\",\"store\":\""
      << store_kind << "\",\"pods\":" << m->bound << ",\"seconds\":" << m->seconds
      << ",\"throughput_pods_per_s\":" << throughput << ",\"latency_ms\":{\"p50\":" << p50
      << ",\"p99\":" << p99 << "}}\n";
  }
  return 0;
}

}  // namespace allot::cli
