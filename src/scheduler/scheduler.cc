// Scheduler construction, lifecycle and informer event handlers. The scheduling and binding
// cycles are in scheduler/schedule_one.cc.
#include "scheduler/scheduler.h"

#include <algorithm>
#include <set>

#include "api/core/pod_state.h"
#include "api/machinery/resources.h"
#include "common/process_stats.h"
#include "scheduler/plugins/registry.h"

namespace allot::scheduler {

namespace {

// How often the leftover unschedulable pods are flushed and assumed pods expire (kube-scheduler:
// 30 s and 1 s).
constexpr std::chrono::seconds kLeftoverFlushPeriod{30};
constexpr std::chrono::seconds kAssumedCleanupPeriod{1};

std::shared_ptr<const api::Pod> AsPodPtr(const api::ObjectPtr& obj) {
  if (!obj || !api::As<api::Pod>(*obj)) return nullptr;
  return std::static_pointer_cast<const api::Pod>(obj);
}

std::shared_ptr<const api::Node> AsNodePtr(const api::ObjectPtr& obj) {
  if (!obj || !api::As<api::Node>(*obj)) return nullptr;
  return std::static_pointer_cast<const api::Node>(obj);
}

}  // namespace

Scheduler::Scheduler(client::Client& client, SchedulerOptions options)
    : client_(client), options_(std::move(options)) {}

Result<std::unique_ptr<Scheduler>> Scheduler::Create(client::Client& client,
                                                     SchedulerOptions options) {
  std::unique_ptr<Scheduler> s(new Scheduler(client, std::move(options)));
  ALLOT_RETURN_IF_ERROR(s->Init());
  return s;
}

allot::Status Scheduler::Init() {
  const Configuration& cfg = options_.config;
  if (cfg.profiles.empty()) return allot::BadRequestError("at least one profile is required");
  clock_ = options_.clock ? options_.clock : &RealClock::Instance();
  if (options_.metrics) {
    metrics_registry_ = options_.metrics;
  } else {
    owned_registry_ = std::make_unique<metrics::Registry>();
    metrics_registry_ = owned_registry_.get();
  }
  metrics_ = std::make_unique<SchedulerMetrics>(*metrics_registry_);
  if (options_.events) {
    events_ = options_.events;
  } else {
    owned_events_ = std::make_unique<client::ClientEventRecorder>(
        client_, *clock_,
        client::ClientEventRecorder::Options{.component = options_.component,
                                             .instance = options_.instance});
    events_ = owned_events_.get();
  }
  // The configured parallelism is an upper bound (as in kube-scheduler), further capped to the
  // cores. How many helpers a loop wakes is the Parallelizer's to measure (ParallelismTuner):
  // it starts with none, since a helper that must be woken often costs more than it saves (on
  // 2 shared cores, 5,000 nodes: 14k pods/s with the loops inline, 8k with a second thread).
  int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  parallelizer_ = std::make_unique<Parallelizer>(std::max(1, std::min(cfg.parallelism, cores)));
  snapshot_ = std::make_unique<Snapshot>();
  cache_ = std::make_unique<Cache>(*clock_, cfg.assumed_pod_ttl);

  if (options_.informers) {
    informers_ = options_.informers;
  } else {
    owned_informers_ = std::make_unique<client::InformerFactory>(client_);
    informers_ = owned_informers_.get();
  }
  Registry registry = InTreeRegistry(options_.dra_features);
  ALLOT_RETURN_IF_ERROR(registry.Merge(options_.out_of_tree));
  FrameworkOptions fo;
  fo.client = &client_;
  fo.informers = informers_;
  fo.clock = clock_;
  fo.parallelizer = parallelizer_.get();
  fo.snapshot = snapshot_.get();
  fo.metrics = metrics_.get();
  fo.events = events_;
  fo.activate = [this](const std::string& uid) { return queue_ && queue_->Activate(uid); };
  fo.reservation_ledger = cache_.get();
  fo.nominator = &nominator_;
  std::map<std::string, Framework*> by_name;
  for (const ProfileConfig& p : cfg.profiles) {
    auto fw = Framework::Create(registry, p, fo);
    if (!fw.ok()) {
      return allot::BadRequestError("profile \"" + p.scheduler_name +
                                    "\": " + fw.status().message());
    }
    by_name[p.scheduler_name] = fw->get();
    AttemptMetrics& am = attempt_metrics_[fw->get()];
    const char* results[3] = {"scheduled", "unschedulable", "error"};
    for (int i = 0; i < 3; ++i) {
      am.count[i] = &metrics_->schedule_attempts.With({results[i], p.scheduler_name});
      am.duration[i] = &metrics_->attempt_duration.With({results[i], p.scheduler_name});
    }
    frameworks_[p.scheduler_name] = std::move(fw).value();
  }
  QueueOptions qo{cfg.pod_initial_backoff, cfg.pod_max_backoff, cfg.pod_max_in_unschedulable_pods};
  queue_ = std::make_unique<SchedulingQueue>(*clock_, qo, by_name, metrics_.get());
  uint64_t seed = options_.seed ? *options_.seed : std::random_device{}();
  algorithm_ = std::make_unique<ScheduleAlgorithm>(cfg.percentage_of_nodes_to_score, seed);
  binding_pool_ = std::make_unique<TaskPool>(std::max(1, options_.binding_workers), "sched-bind");
  ForwardClusterEvents();
  AddReservationHandlers();
  last_leftover_flush_ = clock_->Steady();
  last_assumed_cleanup_ = clock_->Steady();
  return allot::Status::Ok();
}

Scheduler::~Scheduler() { Stop(); }

Framework* Scheduler::FrameworkFor(std::string_view scheduler_name) const {
  if (scheduler_name.empty()) scheduler_name = kDefaultSchedulerName;
  auto it = frameworks_.find(scheduler_name);
  return it == frameworks_.end() ? nullptr : it->second.get();
}

bool Scheduler::Responsible(const api::Pod& pod) const {
  return FrameworkFor(pod.spec.schedulerName) != nullptr;
}

// --- lifecycle ----------------------------------------------------------------------------------

void Scheduler::AddEventHandlers(client::Informer& pods, client::Informer& nodes) {
  handlers_added_ = true;
  pods.AddHandler(
      {.on_add = [this](const api::ObjectPtr& o) { OnPodAdd(o); },
       .on_update = [this](const api::ObjectPtr& o, const api::ObjectPtr& n) { OnPodUpdate(o, n); },
       .on_delete = [this](const api::ObjectPtr& o) { OnPodDelete(o); }});
  nodes.AddHandler({.on_add = [this](const api::ObjectPtr& o) { OnNodeAdd(o); },
                    .on_update = [this](const api::ObjectPtr& o,
                                        const api::ObjectPtr& n) { OnNodeUpdate(o, n); },
                    .on_delete = [this](const api::ObjectPtr& o) { OnNodeDelete(o); }});
}

allot::Status Scheduler::Start(std::chrono::milliseconds sync_timeout) {
  if (running_.exchange(true)) return allot::Status::Ok();
  if (!handlers_added_) {
    const api::ResourceRegistry& reg = api::ResourceRegistry::Default();
    owned_nodes_ = std::make_unique<client::Informer>(client_, *reg.Find("", "v1", "nodes"));
    owned_pods_ = std::make_unique<client::Informer>(client_, *reg.Find("", "v1", "pods"));
    AddEventHandlers(*owned_pods_, *owned_nodes_);
    // Nodes first, so the first pods find them.
    ALLOT_RETURN_IF_ERROR(owned_nodes_->Start());
    if (!owned_nodes_->WaitForSync(sync_timeout))
      return allot::InternalError("node informer did not sync");
    ALLOT_RETURN_IF_ERROR(owned_pods_->Start());
    if (!owned_pods_->WaitForSync(sync_timeout))
      return allot::InternalError("pod informer did not sync");
  }
  // Plugins' informers (claims, slices ...): started here unless the owner started them.
  ALLOT_RETURN_IF_ERROR(informers_->StartAll());
  if (!informers_->WaitForCacheSync(sync_timeout))
    return allot::InternalError("informers did not sync: " + informers_->Unsynced());
  if (options_.run_loops) {
    loop_thread_ = std::thread([this] {
      NameThisThread("sched-loop");
      LoopThread();
    });
    housekeeping_thread_ = std::thread([this] {
      NameThisThread("sched-housekeep");
      HousekeepingThread();
    });
  }
  return allot::Status::Ok();
}

void Scheduler::Stop(std::chrono::milliseconds drain) {
  running_ = false;
  if (queue_) queue_->Close();
  if (loop_thread_.joinable()) loop_thread_.join();
  if (housekeeping_thread_.joinable()) housekeeping_thread_.join();
  // Pods waiting in PreBind (binding conditions) would hold the drain for minutes: their
  // waits end now, and the next scheduler resumes them from the claims' state.
  for (auto& [name, fw] : frameworks_) fw->AbandonWaits();
  WaitForBindings(drain);
  if (binding_pool_) binding_pool_->Stop();
  if (owned_pods_) owned_pods_->Stop();
  if (owned_nodes_) owned_nodes_->Stop();
  if (owned_informers_) owned_informers_->StopAll();
}

void Scheduler::ForwardClusterEvents() {
  // Which resources some plugin asked for. Wildcard registrations do not create informers:
  // they are served by the pod and node events and the periodic flush.
  std::set<EventResource> wanted;
  for (const auto& [name, fw] : frameworks_) {
    for (const auto& [plugin, events] : fw->EventsToRegister()) {
      for (const ClusterEventWithHint& e : events) wanted.insert(e.event.resource);
    }
  }
  struct Source {
    EventResource resource;
    const char* group;
    const char* version;
    const char* plural;
  };
  static constexpr Source kSources[] = {
      {EventResource::kResourceClaim, "resource.k8s.io", "v1", "resourceclaims"},
      {EventResource::kResourceSlice, "resource.k8s.io", "v1", "resourceslices"},
      {EventResource::kDeviceClass, "resource.k8s.io", "v1", "deviceclasses"},
      {EventResource::kPodSchedulingContext, "resource.k8s.io", "v1alpha3",
       "podschedulingcontexts"},
  };
  const api::ResourceRegistry& reg = api::ResourceRegistry::Default();
  for (const Source& src : kSources) {
    if (!wanted.count(src.resource)) continue;
    const api::ResourceInfo* info = reg.Find(src.group, src.version, src.plural);
    if (!info) continue;
    EventResource r = src.resource;
    // Registered after the plugins' own handlers on the same informer, so a plugin's view of
    // the change is current when the pods it may help are requeued.
    informers_->For(*info).AddHandler(
        {.on_add =
             [this, r](const api::ObjectPtr& o) {
               queue_->OnEvent({r, kAdd}, nullptr, o);
             },
         .on_update =
             [this, r](const api::ObjectPtr& o, const api::ObjectPtr& n) {
               queue_->OnEvent({r, kUpdateOther}, o, n);
             },
         .on_delete =
             [this, r](const api::ObjectPtr& o) {
               queue_->OnEvent({r, kDelete}, o, nullptr);
             }});
  }
}

void Scheduler::LoopThread() {
  while (running_.load()) ScheduleOne(std::chrono::milliseconds(100));
}

void Scheduler::HousekeepingThread() {
  while (running_.load()) {
    std::this_thread::sleep_for(options_.tick);
    queue_->FlushBackoffQCompleted();
    for (auto& [name, fw] : frameworks_) fw->CheckDeadlines();
    CheckWaitingReservations();
    auto now = clock_->Steady();
    if (now - last_leftover_flush_ >= kLeftoverFlushPeriod) {
      last_leftover_flush_ = now;
      queue_->FlushUnschedulablePodsLeftover();
    }
    if (now - last_assumed_cleanup_ >= kAssumedCleanupPeriod) {
      last_assumed_cleanup_ = now;
      cache_->CleanupExpiredAssumedPods();
    }
    ReportParallelHelpers();
  }
}

void Scheduler::ReportParallelHelpers() {
  metrics_->parallel_helpers.With({}).Set(parallelizer_->helpers());
}

void Scheduler::Housekeeping() {
  queue_->FlushBackoffQCompleted();
  queue_->FlushUnschedulablePodsLeftover();
  cache_->CleanupExpiredAssumedPods();
  for (auto& [name, fw] : frameworks_) fw->CheckDeadlines();
  CheckWaitingReservations();
  ReportParallelHelpers();
}

bool Scheduler::WaitForBindings(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(idle_mu_);
  return idle_cv_.wait_for(lock, timeout, [this] { return bindings_in_flight_.load() == 0; });
}

void Scheduler::BindingDone() {
  if (bindings_in_flight_.fetch_sub(1) == 1) {
    std::lock_guard<std::mutex> lock(idle_mu_);
    idle_cv_.notify_all();
  }
}

// --- informer events ----------------------------------------------------------------------------

void Scheduler::OnPodAdd(const api::ObjectPtr& obj) {
  auto pod = AsPodPtr(obj);
  if (!pod || api::IsPodTerminal(*pod)) return;
  if (!pod->spec.nodeName.empty()) {
    cache_->AddPod(PodInfo::Make(pod));
    queue_->OnEvent({EventResource::kAssignedPod, kAdd}, nullptr, obj);
  } else if (Responsible(*pod)) {
    PodInfoPtr info = PodInfo::Make(pod);
    if (!pod->status.nominatedNodeName.empty()) nominator_.Update(nullptr, info);
    queue_->Add(std::move(info));
  }
}

void Scheduler::OnPodUpdate(const api::ObjectPtr& old_obj, const api::ObjectPtr& new_obj) {
  auto old_pod = AsPodPtr(old_obj);
  auto pod = AsPodPtr(new_obj);
  if (!pod) return;
  bool was_assigned = old_pod && !old_pod->spec.nodeName.empty();
  if (pod->spec.nodeName.empty()) {
    if (!Responsible(*pod)) return;
    if (api::IsPodTerminal(*pod)) {
      nominator_.Remove(pod->metadata.uid);
      queue_->Delete(*pod);
    } else {
      PodInfoPtr info = PodInfo::Make(pod);
      // A pod in its binding cycle is assumed on its node already: no nomination counts it.
      if (!cache_->IsAssumed(pod->metadata.uid)) nominator_.Update(old_pod.get(), info);
      queue_->Update(old_obj, std::move(info));
    }
    return;
  }
  if (!was_assigned && old_pod) {  // it was bound (by us or not)
    nominator_.Remove(pod->metadata.uid);
    queue_->Delete(*old_pod);
  }
  if (api::IsPodTerminal(*pod)) {
    // A finished pod frees its node, as if it were deleted.
    cache_->RemovePod(*pod);
    queue_->OnEvent({EventResource::kAssignedPod, kDelete}, old_obj, nullptr);
    return;
  }
  cache_->UpdatePod(PodInfo::Make(pod));
  uint32_t actions = was_assigned ? PodUpdateActions(*old_pod, *pod) : kAdd;
  queue_->OnEvent({EventResource::kAssignedPod, actions}, was_assigned ? old_obj : nullptr,
                  new_obj);
}

void Scheduler::OnPodDelete(const api::ObjectPtr& obj) {
  auto pod = AsPodPtr(obj);
  if (!pod) return;
  if (pod->spec.nodeName.empty()) {
    nominator_.Remove(pod->metadata.uid);
    queue_->Delete(*pod);
    return;
  }
  cache_->RemovePod(*pod);
  queue_->OnEvent({EventResource::kAssignedPod, kDelete}, obj, nullptr);
}

void Scheduler::OnNodeAdd(const api::ObjectPtr& obj) {
  auto node = AsNodePtr(obj);
  if (!node) return;
  cache_->AddNode(node);
  queue_->OnEvent({EventResource::kNode, kAdd}, nullptr, obj);
}

void Scheduler::OnNodeUpdate(const api::ObjectPtr& old_obj, const api::ObjectPtr& new_obj) {
  auto node = AsNodePtr(new_obj);
  auto old_node = AsNodePtr(old_obj);
  if (!node) return;
  cache_->UpdateNode(node);
  uint32_t actions = old_node ? NodeUpdateActions(*old_node, *node) : kAdd;
  if (actions != 0) queue_->OnEvent({EventResource::kNode, actions}, old_obj, new_obj);
}

void Scheduler::OnNodeDelete(const api::ObjectPtr& obj) {
  auto node = AsNodePtr(obj);
  if (!node) return;
  cache_->RemoveNode(node->metadata.name);
  queue_->OnEvent({EventResource::kNode, kDelete}, obj, nullptr);
}

}  // namespace allot::scheduler
