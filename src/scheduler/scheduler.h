// Scheduler: the loop that places pending pods on nodes.
//
//   client::InProcessClient client(store, clock);           // or an HttpClient
//   ALLOT_ASSIGN_OR_RETURN(auto sched, Scheduler::Create(client, {.config = cfg}));
//   ALLOT_RETURN_IF_ERROR(sched->Start());                  // informers + loop threads
//   ...
//   sched->Stop();
//
// One pod at a time, ScheduleOne reads as the story kube-scheduler tells:
//   pop -> snapshot -> PreFilter -> Filter (parallel, early stop) -> PostFilter when nothing fits
//   -> PreScore/Score -> pick (ties random) -> assume in the cache -> Reserve -> Permit
//   -> hand the pod to the binding stage and go on with the next pod.
// The binding stage runs asynchronously and for many pods at once: wait for Permit, PreBind (on
// a worker pool, only when the profile has PreBind plugins), Bind (Client::BindAsync, no thread
// held while the API answers), PostBind. Every failure after Reserve runs Unreserve, forgets the
// assumed pod and requeues it with backoff. Unschedulable pods get the PodScheduled=False
// condition with Kubernetes' message and a FailedScheduling event; bound pods a Scheduled event.
//
// Pods whose spec.schedulerName names none of the profiles are ignored, so Allot can run beside
// kube-scheduler.
//
// Thread safety: event handlers (OnPod*, OnNode*) may be called from informer threads; the
// scheduling loop runs on its own thread (or the caller's, with ScheduleOne); binding
// completions arrive on client threads. Stop() must not be called from those threads.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "client/client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "client/informer_factory.h"
#include "common/metrics.h"
#include "common/task_pool.h"
#include "common/time.h"
#include "dra/features.h"
#include "scheduler/cache/cache.h"
#include "scheduler/config/config.h"
#include "scheduler/framework/nominator.h"
#include "scheduler/framework/runtime/framework.h"
#include "scheduler/metrics/metrics.h"
#include "scheduler/queue/scheduling_queue.h"
#include "scheduler/schedule_algorithm.h"

namespace allot::api {
struct Reservation;
}  // namespace allot::api

namespace allot::scheduler {

struct SchedulerOptions {
  Configuration config = DefaultConfiguration();
  Clock* clock = nullptr;                   // default: RealClock
  metrics::Registry* metrics = nullptr;     // default: a registry owned by the scheduler
  client::EventRecorder* events = nullptr;  // default: a ClientEventRecorder
  Registry out_of_tree;                     // plugins added to the in-tree registry
  // Shared informers for everything but pods and nodes (DRA claims, slices, classes,
  // namespaces). Default: a factory owned by the scheduler. Start() starts them either way.
  client::InformerFactory* informers = nullptr;
  dra::Features dra_features;                   // --feature-gates for the DynamicResources plugin
  std::optional<uint64_t> seed;                 // tie-breaking randomness (default: random)
  int binding_workers = 4;                      // threads for PreBind
  std::string component = "default-scheduler";  // Event source
  std::string instance;                         // Event reportingInstance (e.g. the host name)
  // The housekeeping thread's tick (backoff flush, permit timeouts); with a FakeClock, tests
  // call Housekeeping() themselves.
  std::chrono::milliseconds tick{50};
  // False: Start() starts neither the scheduling loop nor the housekeeping thread; the owner
  // calls ScheduleOne and Housekeeping itself (the simulator, which runs cycles only when the
  // rest of the system is quiet).
  bool run_loops = true;
};

class Scheduler {
 public:
  static Result<std::unique_ptr<Scheduler>> Create(client::Client& client,
                                                   SchedulerOptions options = {});
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Feeds the scheduler from these informers (before they start). Without this, Start()
  // creates and owns its own pod and node informers.
  void AddEventHandlers(client::Informer& pods, client::Informer& nodes);
  // Starts the owned informers (if any) and waits for their sync, then starts the scheduling
  // loop and the housekeeping thread.
  allot::Status Start(std::chrono::milliseconds sync_timeout = std::chrono::seconds(60));
  // Stops the loop, waits up to `drain` for bindings in flight, stops informers. Idempotent.
  void Stop(std::chrono::milliseconds drain = std::chrono::seconds(10));

  // One scheduling cycle, if a pod is ready within `wait`. False when none was.
  bool ScheduleOne(std::chrono::milliseconds wait);
  // Backoff flush, leftover flush (when due), assumed-pod expiry, permit timeouts.
  void Housekeeping();
  // When the earliest pod in backoff is due (Clock::Steady()); nullopt when none waits.
  std::optional<Clock::SteadyPoint> NextBackoffExpiry() { return queue_->NextBackoffExpiry(); }
  // Waits until no pod is in its binding stage; false on timeout.
  bool WaitForBindings(std::chrono::milliseconds timeout);

  // Informer event handlers (public so tests and simulators can feed events directly).
  void OnPodAdd(const api::ObjectPtr& obj);
  void OnPodUpdate(const api::ObjectPtr& old_obj, const api::ObjectPtr& new_obj);
  void OnPodDelete(const api::ObjectPtr& obj);
  void OnNodeAdd(const api::ObjectPtr& obj);
  void OnNodeUpdate(const api::ObjectPtr& old_obj, const api::ObjectPtr& new_obj);
  void OnNodeDelete(const api::ObjectPtr& obj);

  SchedulingQueue& queue() { return *queue_; }
  Cache& cache() { return *cache_; }
  const Nominator& nominator() const { return nominator_; }
  const Configuration& config() const { return options_.config; }
  metrics::Registry& metrics_registry() { return *metrics_registry_; }
  // The framework of a profile; nullptr when no profile has that name.
  Framework* FrameworkFor(std::string_view scheduler_name) const;
  size_t bindings_in_flight() const { return bindings_in_flight_.load(); }

 private:
  struct BindingContext;
  Scheduler(client::Client& client, SchedulerOptions options);
  allot::Status Init();
  bool Responsible(const api::Pod& pod) const;

  // Sets allot_scheduler_parallel_helpers (housekeeping).
  void ReportParallelHelpers();

  // scheduler/schedule_one.cc
  void SchedulingCycle(std::unique_ptr<QueuedPodInfo> qpi, Framework& fw);
  void StartBinding(std::unique_ptr<BindingContext> ctx);
  // Runs `task` on the binding pool, counted as work in flight on the clock.
  void SubmitBindingTask(std::function<void()> task);
  // PreBind from plugin position `first` on (after a plugin's wait ended), then Bind. Runs on
  // whichever thread may run PreBind (Framework::NeedsPreBind); a failure goes to the pool.
  void RunPreBindAndBind(std::shared_ptr<BindingContext> ctx, size_t first = 0);
  void Bind(std::shared_ptr<BindingContext> ctx);
  void BindingSucceeded(std::shared_ptr<BindingContext> ctx);
  void BindingFailed(std::shared_ptr<BindingContext> ctx, const Status& status);
  // BindingFailed on a binding worker: its Unreserve may write to the API synchronously, which
  // the thread that saw the failure (the scheduling loop, the store's committer) must not.
  void BindingFailedOnPool(std::shared_ptr<BindingContext> ctx, Status status);
  // Requeues after a failed attempt and reports it (metrics, event, pod condition).
  // `nominated`: the pod's nomination from now on (nullopt: unchanged, "": none).
  void HandleFailure(Framework& fw, std::unique_ptr<QueuedPodInfo> qpi, const Status& status,
                     const std::string& message, const std::optional<std::string>& nominated,
                     std::chrono::steady_clock::time_point start);
  // scheduler/reservations.cc
  void AddReservationHandlers();
  void OnReservationChange(const api::ObjectPtr& old_obj, const api::ObjectPtr& new_obj);
  // Waiting (preAllocation) reservations whose node can now hold them become Available.
  void CheckWaitingReservations();
  // scheduler_reservation_status_phase / _resource after the change old_r -> r (r null: it is
  // gone; old_r null: it is new).
  void RecordReservationMetrics(const api::Reservation* old_r, const api::Reservation* r);
  // A reserve pod's attempt failed: Scheduled=False with the reason on its Reservation (phase
  // stays Pending), and a FailedScheduling event there.
  void ReportReservationFailure(const PodInfo& reserve_pod, const std::string& reason,
                                const std::string& message);

  void UpdatePodScheduledCondition(const api::Pod& pod, const std::string& reason,
                                   const std::string& message,
                                   const std::optional<std::string>& nominated);
  enum AttemptResult { kScheduled = 0, kUnschedulable = 1, kError = 2 };
  void ObserveAttempt(Framework& fw, AttemptResult result,
                      std::chrono::steady_clock::time_point start);
  void BindingDone();

  void LoopThread();
  void HousekeepingThread();

  client::Client& client_;
  SchedulerOptions options_;
  Clock* clock_;
  std::unique_ptr<metrics::Registry> owned_registry_;
  metrics::Registry* metrics_registry_;
  std::unique_ptr<SchedulerMetrics> metrics_;
  std::unique_ptr<client::ClientEventRecorder> owned_events_;
  client::EventRecorder* events_;

  std::unique_ptr<Parallelizer> parallelizer_;
  std::unique_ptr<Snapshot> snapshot_;
  std::unique_ptr<Cache> cache_;
  Nominator nominator_;  // before the frameworks, which hold a pointer to it
  std::map<std::string, std::unique_ptr<Framework>, std::less<>> frameworks_;
  std::unique_ptr<SchedulingQueue> queue_;
  std::unique_ptr<ScheduleAlgorithm> algorithm_;
  std::unique_ptr<TaskPool> binding_pool_;
  // schedule_attempts / attempt_duration children per profile and result, resolved once.
  struct AttemptMetrics {
    metrics::Counter* count[3];
    metrics::Histogram* duration[3];
  };
  std::map<const Framework*, AttemptMetrics> attempt_metrics_;

  // Queue events for the resources plugins register for, beyond pods and nodes.
  void ForwardClusterEvents();

  std::unique_ptr<client::InformerFactory> owned_informers_;
  client::InformerFactory* informers_ = nullptr;
  std::unique_ptr<client::Informer> owned_pods_;
  std::unique_ptr<client::Informer> owned_nodes_;
  bool handlers_added_ = false;

  std::atomic<bool> running_{false};
  std::thread loop_thread_;
  std::thread housekeeping_thread_;
  std::chrono::steady_clock::time_point last_leftover_flush_;
  std::chrono::steady_clock::time_point last_assumed_cleanup_;

  std::mutex waiting_mu_;
  std::map<std::string, std::shared_ptr<const ReservationInfo>> waiting_;  // by uid

  std::atomic<size_t> bindings_in_flight_{0};
  std::mutex idle_mu_;
  std::condition_variable idle_cv_;
};

}  // namespace allot::scheduler
