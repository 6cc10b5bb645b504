// The whole scheduler in-process: a memory Store, client::InProcessClient, informers, the
// Scheduler's own threads. 100 nodes, 1,000 pods of which some cannot be placed; checks where
// every pod ended, the Kubernetes-style messages of the unschedulable ones, and the invariants
// (no node over-committed, affinity and taints respected, no pod bound twice).
#include <gtest/gtest.h>

#include <map>
#include <thread>

#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/machinery/resources.h"
#include "apiserver/server.h"
#include "client/http_client.h"
#include "client/inprocess/inprocess_client.h"
#include "scheduler/scheduler.h"
#include "scheduler/testing/builders.h"
#include "scheduler/testing/invariants.h"
#include "store/backend.h"
#include "store/store.h"
#include "testing/wait.h"

namespace allot::scheduler {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::NodeBuilder;
using testing::PodBuilder;

const api::ResourceInfo& Res(std::string_view plural) {
  return *api::ResourceRegistry::Default().Find("", "v1", plural);
}

template <class T>
std::vector<std::shared_ptr<const T>> ListAll(store::Store& store, std::string_view plural) {
  std::vector<std::shared_ptr<const T>> out;
  auto r = store.List(Res(plural), {});
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return out;
  for (const api::ObjectPtr& o : r->items) {
    if (api::As<T>(*o)) out.push_back(std::static_pointer_cast<const T>(o));
  }
  return out;
}

const api::PodCondition* Scheduled(const api::Pod& pod) {
  for (const auto& c : pod.status.conditions) {
    if (c.type == "PodScheduled") return &c;
  }
  return nullptr;
}

class SchedulerIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_unique<store::Store>(store::NewMemoryBackend(), RealClock::Instance());
    ASSERT_TRUE(store_->Open().ok());
    client_ = std::make_unique<client::InProcessClient>(*store_, RealClock::Instance());
    // Every event written (no dedupe window), so a pod bound twice shows two Scheduled events.
    recorder_ = std::make_unique<client::ClientEventRecorder>(
        *client_, RealClock::Instance(),
        client::ClientEventRecorder::Options{.component = "default-scheduler",
                                             .dedupe_window = std::chrono::seconds(0)});
  }
  void TearDown() override {
    if (sched_) sched_->Stop();
    sched_.reset();
    http_client_.reset();
    if (server_) server_->Stop();
    client_.reset();
    store_->Close();
  }

  // Nodes as a kubelet registers them: create, then the status subresource (node create drops
  // status here: ResourceInfo::create_keeps_status is not set for nodes).
  void CreateNode(const NodeBuilder& n) {
    Create("nodes", std::make_unique<api::Node>(*n.Build()));
    auto with_status = std::make_unique<api::Node>(*n.Build());
    with_status->metadata.uid.clear();
    ASSERT_TRUE(client_->UpdateStatus(api::ResourceFor<api::Node>(), std::move(with_status)).ok());
  }

  void Create(std::string_view plural, std::unique_ptr<api::Object> obj) {
    obj->metadata.uid.clear();
    auto r = client_->Create(Res(plural), std::move(obj));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  void CreatePod(const PodBuilder& b) { Create("pods", std::make_unique<api::Pod>(*b.Build())); }

  // Polls the store until `done` holds for the pods (real async work: informers, bindings).
  bool WaitFor(const std::function<bool(const std::vector<std::shared_ptr<const api::Pod>>&)>& done,
               seconds timeout) {
    return allot::testing::WaitUntil([&] { return done(ListAll<api::Pod>(*store_, "pods")); },
                                     timeout);
  }

  std::unique_ptr<store::Store> store_;
  void MixedWorkload(int s);

  std::unique_ptr<client::InProcessClient> client_;
  std::unique_ptr<client::ClientEventRecorder> recorder_;
  std::unique_ptr<apiserver::ApiServer> server_;
  std::unique_ptr<client::HttpClient> http_client_;
  std::unique_ptr<Scheduler> sched_;
};

// A mixed workload on 100 * s nodes with 1,000 * s pods: 840 * s fit, 160 * s cannot (three
// different reasons, each with its exact message).
void SchedulerIntegrationTest::MixedWorkload(int s) {
  const std::string n_nodes = std::to_string(100 * s);
  // 80 general nodes in two zones, 20 GPU nodes behind a taint.
  for (int i = 0; i < 100 * s; ++i) {
    NodeBuilder n("node-" + std::to_string(i));
    if (i < 80 * s) {
      n.Cap("4", "8Gi", 110).Label("zone", i % 2 ? "b" : "a");
    } else {
      n.Cap("8", "16Gi", 110)
          .Label("zone", "gpu")
          .Resource("example.com/gpu", "2")
          .Taint("dedicated", "gpu", "NoSchedule");
    }
    CreateNode(n);
  }
  SchedulerOptions opts;
  opts.events = recorder_.get();
  opts.config.pod_initial_backoff = milliseconds(10);
  opts.config.pod_max_backoff = milliseconds(100);
  opts.tick = milliseconds(10);
  opts.seed = 1;
  auto created = Scheduler::Create(*client_, std::move(opts));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  sched_ = std::move(created).value();
  ASSERT_TRUE(sched_->Start(seconds(30)).ok());

  // 1,000 pods: 840 can be placed, 160 cannot (for three different reasons).
  std::map<std::string, std::string> expect_message;
  for (int i = 0; i < 700 * s; ++i)
    CreatePod(PodBuilder("web-" + std::to_string(i)).Req("250m", "256Mi"));
  for (int i = 0; i < 100 * s; ++i) {
    CreatePod(
        PodBuilder("zonal-" + std::to_string(i)).Req("100m", "128Mi").NodeSelector("zone", "b"));
  }
  for (int i = 0; i < 100 * s; ++i) {
    CreatePod(PodBuilder("gpu-" + std::to_string(i))
                  .Container({{"cpu", "500m"}, {"example.com/gpu", "1"}})
                  .Toleration("dedicated", "Equal", "gpu", "NoSchedule"));
  }
  for (int i = 0; i < 50 * s; ++i) {
    std::string name = "lost-" + std::to_string(i);
    CreatePod(PodBuilder(name).Req("100m").NodeSelector("zone", "nowhere"));
    // TaintToleration runs before NodeAffinity, so the GPU nodes report their taint.
    expect_message[name] =
        "0/" + n_nodes + " nodes are available: " + std::to_string(20 * s) +
        " node(s) had untolerated taint {dedicated: gpu}, " + std::to_string(80 * s) +
        " node(s) didn't match Pod's node affinity/selector. preemption: 0/" + n_nodes +
        " nodes are available: " + n_nodes + " Preemption is not helpful for scheduling.";
  }
  for (int i = 0; i < 50 * s; ++i) {
    std::string name = "huge-" + std::to_string(i);
    CreatePod(PodBuilder(name).Req("16", "1Gi"));
    expect_message[name] = "0/" + n_nodes + " nodes are available: " + std::to_string(20 * s) +
                           " node(s) had untolerated taint {dedicated: gpu}, " +
                           std::to_string(80 * s) + " Insufficient cpu. preemption: 0/" + n_nodes +
                           " nodes are available: " + n_nodes +
                           " Preemption is not helpful for scheduling.";
  }

  auto settled = [s](const std::vector<std::shared_ptr<const api::Pod>>& pods) {
    int bound = 0, failed = 0;
    for (const auto& p : pods) {
      if (!p->spec.nodeName.empty()) {
        ++bound;
      } else if (const api::PodCondition* c = Scheduled(*p); c && c->status == "False") {
        ++failed;
      }
    }
    return bound == 840 * s && failed == 160 * s;
  };
  if (!WaitFor(settled, seconds(60))) {
    int bound = 0, failed = 0, pending = 0;
    std::string sample;
    for (const auto& p : ListAll<api::Pod>(*store_, "pods")) {
      const api::PodCondition* c = Scheduled(*p);
      if (!p->spec.nodeName.empty()) {
        ++bound;
      } else if (c && c->status == "False") {
        if (failed++ == 0) sample += "[" + c->reason + ": " + c->message + "] ";
      } else {
        ++pending;
        if (sample.size() < 300)
          sample += p->metadata.name + "@" + sched_->queue().Where(p->metadata.uid) + " ";
      }
    }
    FAIL() << "bound " << bound << " failed " << failed << " pending " << pending << ": " << sample
           << " active=" << sched_->queue().ActiveSize()
           << " backoff=" << sched_->queue().BackoffSize()
           << " unsched=" << sched_->queue().UnschedulableSize()
           << " inflight=" << sched_->queue().InFlightSize()
           << " bindings=" << sched_->bindings_in_flight()
           << " cachepods=" << sched_->cache().PodCount()
           << " nodes=" << sched_->cache().NodeCount();
  }
  ASSERT_TRUE(sched_->WaitForBindings(seconds(10)));

  auto pods = ListAll<api::Pod>(*store_, "pods");
  auto nodes = ListAll<api::Node>(*store_, "nodes");
  int gpu_bound = 0, gpu_failed = 0;
  for (const auto& p : pods) {
    const std::string& name = p->metadata.name;
    if (name.starts_with("web-") || name.starts_with("zonal-")) {
      EXPECT_FALSE(p->spec.nodeName.empty()) << name;
    }
    if (name.starts_with("gpu-")) {
      if (p->spec.nodeName.empty()) {
        ++gpu_failed;
        const api::PodCondition* c = Scheduled(*p);
        ASSERT_NE(c, nullptr);
        EXPECT_EQ(c->reason, "Unschedulable");
        // The GPU nodes hold no pod of lower priority; the others no GPU at all.
        EXPECT_EQ(c->message, "0/" + n_nodes + " nodes are available: " + n_nodes +
                                  " Insufficient example.com/gpu. preemption: 0/" + n_nodes +
                                  " nodes are available: " + std::to_string(20 * s) +
                                  " No preemption victims found for incoming pod, " +
                                  std::to_string(80 * s) +
                                  " Preemption is not helpful for scheduling.");
      } else {
        ++gpu_bound;
      }
    }
    if (auto it = expect_message.find(name); it != expect_message.end()) {
      ASSERT_TRUE(p->spec.nodeName.empty()) << name;
      const api::PodCondition* c = Scheduled(*p);
      ASSERT_NE(c, nullptr) << name;
      EXPECT_EQ(c->reason, "Unschedulable") << name;
      EXPECT_EQ(c->message, it->second) << name;
    }
  }
  EXPECT_EQ(gpu_bound, 40 * s);
  EXPECT_EQ(gpu_failed, 60 * s);

  // Events: one Scheduled per bound pod (an aggregated repeat would show count > 1).
  std::map<std::string, int> scheduled;
  int failed_events = 0;
  for (const auto& ev : ListAll<api::Event>(*store_, "events")) {
    if (ev->reason == "Scheduled") scheduled[ev->involvedObject.uid] += ev->count;
    if (ev->reason == "FailedScheduling") ++failed_events;
  }
  EXPECT_EQ(scheduled.size(), static_cast<size_t>(840 * s));
  EXPECT_GE(failed_events, 160 * s);

  std::vector<std::string> violations = testing::CheckInvariants(nodes, pods, scheduled);
  EXPECT_TRUE(violations.empty()) << violations.size() << " violations, first: " << violations[0];

  std::string metrics = sched_->metrics_registry().Expose();
  EXPECT_NE(metrics.find("scheduler_schedule_attempts_total{result=\"scheduled\",profile="
                         "\"default-scheduler\"} " +
                         std::to_string(840 * s)),
            std::string::npos);

  // Freeing a GPU node lets a waiting GPU pod in (event-driven requeue, no flush needed).
  std::string victim;
  for (const auto& p : pods) {
    if (p->metadata.name.starts_with("gpu-") && !p->spec.nodeName.empty()) {
      victim = p->metadata.name;
      break;
    }
  }
  ASSERT_TRUE(client_->Delete(api::ResourceFor<api::Pod>(), "default", victim).ok());
  auto one_more = [&](const std::vector<std::shared_ptr<const api::Pod>>& now) {
    int bound = 0;
    for (const auto& p : now) {
      if (p->metadata.name.starts_with("gpu-") && !p->spec.nodeName.empty()) ++bound;
    }
    return bound == 40 * s;  // one deleted, one newly placed
  };
  ASSERT_TRUE(WaitFor(one_more, seconds(30)));
  ASSERT_TRUE(sched_->WaitForBindings(seconds(10)));
  violations = testing::CheckInvariants(ListAll<api::Node>(*store_, "nodes"),
                                        ListAll<api::Pod>(*store_, "pods"));
  EXPECT_TRUE(violations.empty()) << violations[0];
}

TEST_F(SchedulerIntegrationTest, HundredNodesThousandPods) { MixedWorkload(1); }

TEST_F(SchedulerIntegrationTest, ThousandNodesTenThousandPods) { MixedWorkload(10); }

// The same scheduler as a separate client of the API server: informers, binding, status patches
// and events all over HTTP.
TEST_F(SchedulerIntegrationTest, OverHttp) {
  server_ = std::make_unique<apiserver::ApiServer>(*store_, RealClock::Instance());
  ASSERT_TRUE(server_->Start().ok());
  http_client_ = std::make_unique<client::HttpClient>("127.0.0.1", server_->port());
  for (int i = 0; i < 20; ++i) {
    CreateNode(NodeBuilder("node-" + std::to_string(i)).Cap("2", "4Gi").Label("zone", "a"));
  }
  SchedulerOptions opts;  // events through the HTTP client
  opts.config.pod_initial_backoff = milliseconds(10);
  opts.config.pod_max_backoff = milliseconds(100);
  opts.tick = milliseconds(10);
  auto s = Scheduler::Create(*http_client_, std::move(opts));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  sched_ = std::move(s).value();
  ASSERT_TRUE(sched_->Start(seconds(30)).ok());
  for (int i = 0; i < 150; ++i) {
    CreatePod(PodBuilder("web-" + std::to_string(i)).Req("200m", "256Mi"));
  }
  for (int i = 0; i < 50; ++i) {
    CreatePod(PodBuilder("lost-" + std::to_string(i)).Req("100m").NodeSelector("zone", "b"));
  }
  auto settled = [](const std::vector<std::shared_ptr<const api::Pod>>& pods) {
    int bound = 0, failed = 0;
    for (const auto& p : pods) {
      if (!p->spec.nodeName.empty()) {
        ++bound;
      } else if (const api::PodCondition* c = Scheduled(*p); c && c->status == "False") {
        ++failed;
      }
    }
    return bound == 150 && failed == 50;
  };
  ASSERT_TRUE(WaitFor(settled, seconds(60)));
  ASSERT_TRUE(sched_->WaitForBindings(seconds(10)));
  auto pods = ListAll<api::Pod>(*store_, "pods");
  for (const auto& p : pods) {
    if (!p->metadata.name.starts_with("lost-")) continue;
    const api::PodCondition* c = Scheduled(*p);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->message,
              "0/20 nodes are available: 20 node(s) didn't match Pod's node affinity/selector. "
              "preemption: 0/20 nodes are available: 20 Preemption is not helpful for "
              "scheduling.");
  }
  EXPECT_TRUE(testing::CheckInvariants(ListAll<api::Node>(*store_, "nodes"), pods).empty());
  // Events reach the server asynchronously.
  auto events_written = [&](const std::vector<std::shared_ptr<const api::Pod>>&) {
    int scheduled = 0, failed = 0;
    for (const auto& ev : ListAll<api::Event>(*store_, "events")) {
      scheduled += ev->reason == "Scheduled";
      failed += ev->reason == "FailedScheduling";
    }
    return scheduled == 150 && failed >= 50;
  };
  EXPECT_TRUE(WaitFor(events_written, seconds(30)));
}

}  // namespace
}  // namespace allot::scheduler
