// The scheduling cycle and the binding cycle of one pod (kube-scheduler's schedule_one.go).
#include <algorithm>

#include "api/core/pod.h"
#include "api/machinery/resources.h"
#include "common/log.h"
#include "scheduler/framework/pod_status_patch.h"
#include "scheduler/scheduler.h"

namespace allot::scheduler {

namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr std::string_view kReasonUnschedulable = "Unschedulable";
constexpr std::string_view kReasonSchedulerError = "SchedulerError";

const api::PodCondition* FindCondition(const api::Pod& pod, std::string_view type) {
  for (const api::PodCondition& c : pod.status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

// After a rejection from Reserve, Permit or the binding cycle: the plugin the pod waits on. A
// Pending plugin (waiting for someone outside the scheduler, say a DRA driver) is not an
// unschedulable one: the pod skips backoff when its events move it.
void RecordRejector(QueuedPodInfo& qpi, const Status& status) {
  qpi.unschedulable_plugins.clear();
  qpi.pending_plugins.clear();
  if (status.code() == Code::kPending) {
    qpi.pending_plugins = {std::string(status.plugin())};
  } else {
    qpi.unschedulable_plugins = {std::string(status.plugin())};
  }
}

}  // namespace

struct Scheduler::BindingContext {
  Framework* fw = nullptr;
  std::unique_ptr<QueuedPodInfo> qpi;
  std::unique_ptr<CycleState> state;
  std::string host;
  SteadyClock::time_point start;
  const PodInfo& pod() const { return *qpi->pod_info; }
};

bool Scheduler::ScheduleOne(std::chrono::milliseconds wait) {
  std::unique_ptr<QueuedPodInfo> qpi = queue_->Pop(wait);
  if (!qpi) return false;
  const api::Pod& pod = qpi->pod();
  Framework* fw = FrameworkFor(pod.spec.schedulerName);
  // A pod being deleted, or one we already placed (its update raced the binding): skip it.
  if (!fw || pod.metadata.rare->deletionTimestamp || cache_->IsAssumed(pod.metadata.uid)) {
    queue_->Done(pod.metadata.uid);
    return true;
  }
  SchedulingCycle(std::move(qpi), *fw);
  return true;
}

void Scheduler::SchedulingCycle(std::unique_ptr<QueuedPodInfo> qpi, Framework& fw) {
  const auto start = SteadyClock::now();
  auto state = std::make_unique<CycleState>();
  const PodInfoPtr info = qpi->pod_info;
  cache_->UpdateSnapshot(*snapshot_);

  // Find a node: PreFilter, Filter, PreScore, Score, pick.
  ScheduleResult result;
  Diagnosis diagnosis;
  Status st = algorithm_->SchedulePod(fw, *state, *info, *snapshot_, result, diagnosis);
  if (!st.IsSuccess()) {
    if (!st.IsRejected()) {
      HandleFailure(fw, std::move(qpi), st, st.Message(), std::nullopt, start);
      return;
    }
    // Nothing fits: PostFilter (preemption) may make room for a later attempt.
    std::optional<std::string> nominated;
    std::vector<std::string> pf_pending;
    if (fw.HasPostFilterPlugins()) {
      PostFilterResult pf;
      Status pst = fw.RunPostFilterPlugins(*state, *info, diagnosis.node_to_status, pf);
      diagnosis.post_filter_msg = pst.Message();
      nominated = pf.nominated_node;
      pf_pending = std::move(pf.pending_plugins);
    }
    qpi->unschedulable_plugins = diagnosis.unschedulable_plugins;
    qpi->pending_plugins = diagnosis.pending_plugins;
    // The only plugin that rejected the pod started something it now waits for (PostFilter
    // answered Pending): the event that ends the wait moves it without backoff.
    if (qpi->unschedulable_plugins.size() == 1 &&
        std::find(pf_pending.begin(), pf_pending.end(), qpi->unschedulable_plugins[0]) !=
            pf_pending.end()) {
      qpi->pending_plugins.push_back(std::move(qpi->unschedulable_plugins[0]));
      qpi->unschedulable_plugins.clear();
    }
    HandleFailure(fw, std::move(qpi), st, FitErrorMessage(snapshot_->NumNodes(), diagnosis),
                  nominated, start);
    return;
  }

  // Assume: the next cycle must already see the node's capacity taken (scheduler/cache/cache.h says
  // why).
  const std::string& host = result.suggested_host;
  if (allot::Status as = cache_->AssumePod(info, host); !as.ok()) {
    HandleFailure(fw, std::move(qpi), Status::FromError(as), as.message(), std::nullopt, start);
    return;
  }
  // Assumed on its node: a nomination would count it twice.
  nominator_.Remove(info->uid());
  // Reserve, then Permit. A failure at either undoes everything reserved so far.
  Status rs = fw.RunReservePluginsReserve(*state, *info, host);
  if (rs.IsSuccess()) rs = fw.RunPermitPlugins(*state, info, host);
  if (!rs.IsSuccess() && !rs.IsWait()) {
    fw.RunReservePluginsUnreserve(*state, *info, host);
    cache_->ForgetPod(info->uid());
    std::string msg = rs.Message();
    if (rs.IsRejected()) {
      RecordRejector(*qpi, rs);
      msg = "0/1 nodes are available: " + msg + ".";
    }
    HandleFailure(fw, std::move(qpi), rs, msg, std::string(), start);
    return;
  }

  // Hand the pod to the binding stage; the next scheduling cycle does not wait for it.
  auto ctx = std::make_unique<BindingContext>();
  ctx->fw = &fw;
  ctx->qpi = std::move(qpi);
  ctx->state = std::move(state);
  ctx->host = host;
  ctx->start = start;
  StartBinding(std::move(ctx));
}

// --- binding cycle ------------------------------------------------------------------------------

void Scheduler::StartBinding(std::unique_ptr<BindingContext> owned) {
  bindings_in_flight_.fetch_add(1);
  std::shared_ptr<BindingContext> ctx(std::move(owned));
  ctx->fw->WaitOnPermit(ctx->pod(), [this, ctx](Status st) {
    if (!st.IsSuccess()) {
      BindingFailed(ctx, st);
      return;
    }
    // A PreBind that may block goes to a binding worker; one that only starts writes runs here
    // (a wake-up less per pod), as does Bind, which never blocks.
    switch (ctx->fw->NeedsPreBind(*ctx->state, ctx->pod(), ctx->host)) {
      case Framework::PreBindNeed::kWorker:
        SubmitBindingTask([this, ctx] { RunPreBindAndBind(ctx); });
        return;
      case Framework::PreBindNeed::kAnyThread:
        RunPreBindAndBind(ctx);
        return;
      case Framework::PreBindNeed::kNothing:
        Bind(ctx);
        return;
    }
  });
}

void Scheduler::SubmitBindingTask(std::function<void()> task) {
  clock_->BeginWork();  // until the task ran (work in flight, common/time.h)
  binding_pool_->Submit([this, task = std::move(task)] {
    task();
    clock_->EndWork();
  });
}

void Scheduler::RunPreBindAndBind(std::shared_ptr<BindingContext> ctx, size_t first) {
  size_t waiting = 0;
  Status st = ctx->fw->RunPreBindPlugins(*ctx->state, ctx->pod(), ctx->host, first, &waiting);
  if (st.IsWait()) {
    // The plugin waits for someone else (binding conditions). No thread is held: the rest of
    // PreBind goes back to the pool when the wait ends, on whichever thread ends it; and the
    // queue keeps no cluster events for the pod meanwhile.
    queue_->Park(ctx->pod().uid());
    ctx->fw->AwaitPreBind(waiting, *ctx->state, ctx->pod(), ctx->host,
                          [this, ctx, waiting](Status outcome) {
                            // Often an informer or the client's thread. When this was the last
                            // PreBind plugin, what is left is Bind, which never blocks (Bind
                            // plugins answer through a callback): it goes on here, without
                            // waking a binding worker.
                            if (outcome.IsSuccess() && !ctx->fw->HasPreBindPluginsAfter(waiting)) {
                              RunPreBindAndBind(ctx, waiting + 1);
                              return;
                            }
                            // Otherwise the rest (API writes, Unreserve) goes to the pool.
                            if (!outcome.IsSuccess()) return BindingFailedOnPool(ctx, outcome);
                            SubmitBindingTask(
                                [this, ctx, waiting] { RunPreBindAndBind(ctx, waiting + 1); });
                          });
    return;
  }
  if (!st.IsSuccess()) {
    BindingFailedOnPool(std::move(ctx), st);
    return;
  }
  Bind(std::move(ctx));
}

void Scheduler::Bind(std::shared_ptr<BindingContext> ctx) {
  // The callback may run on a client thread (the store's committer in-process), which must not
  // block: success goes on there (nothing in BindingSucceeded waits on the API), a failure goes
  // to the pool.
  ctx->fw->RunBindPlugins(*ctx->state, ctx->pod(), ctx->host, [this, ctx](Status st) {
    if (st.IsSuccess()) {
      BindingSucceeded(ctx);
    } else {
      BindingFailedOnPool(ctx, st);
    }
  });
}

void Scheduler::BindingSucceeded(std::shared_ptr<BindingContext> ctx) {
  const PodInfo& pod = ctx->pod();
  cache_->FinishBinding(pod.uid());
  ctx->fw->RunPostBindPlugins(*ctx->state, pod, ctx->host);
  ObserveAttempt(*ctx->fw, kScheduled, ctx->start);
  if (pod.IsReservePod()) {
    events_->Record(*pod.reservation()->object, client::kEventTypeNormal, "Scheduled", "Binding",
                    "Successfully assigned " + pod.name() + " to " + ctx->host);
  } else {
    events_->Record(
        *pod.pod, client::kEventTypeNormal, "Scheduled", "Binding",
        "Successfully assigned " + pod.namespace_() + "/" + pod.name() + " to " + ctx->host);
  }
  if (log::V(2, "scheduler")) {  // as kube-scheduler: "Successfully bound pod to node" at V(2)
    log::Detail(2, "scheduler",
                "bound " + pod.namespace_() + "/" + pod.name() + " to " + ctx->host);
  }
  queue_->Done(pod.uid());
  BindingDone();
}

void Scheduler::BindingFailedOnPool(std::shared_ptr<BindingContext> ctx, Status status) {
  SubmitBindingTask([this, ctx = std::move(ctx), status = std::move(status)] {
    BindingFailed(ctx, status);
  });
}

void Scheduler::BindingFailed(std::shared_ptr<BindingContext> ctx, const Status& status) {
  const PodInfo& pod = ctx->pod();
  ctx->fw->RunReservePluginsUnreserve(*ctx->state, pod, ctx->host);
  cache_->ForgetPod(pod.uid());
  std::string msg = status.Message();
  if (status.IsRejected()) {
    RecordRejector(*ctx->qpi, status);
    msg = "0/1 nodes are available: " + msg + ".";
  }
  HandleFailure(*ctx->fw, std::move(ctx->qpi), status, msg, std::string(), ctx->start);
  BindingDone();
}

// --- failures -----------------------------------------------------------------------------------

void Scheduler::HandleFailure(Framework& fw, std::unique_ptr<QueuedPodInfo> qpi,
                              const Status& status, const std::string& message,
                              const std::optional<std::string>& nominated,
                              SteadyClock::time_point start) {
  const bool error = !status.IsRejected();
  ObserveAttempt(fw, error ? kError : kUnschedulable, start);
  std::shared_ptr<const api::Pod> pod = qpi->pod_info->pod;
  if (qpi->pod_info->IsReservePod()) {
    // A reservation being placed: its Reservation says why, not a pod.
    if (status.code() != Code::kPending) {
      ReportReservationFailure(*qpi->pod_info,
                               std::string(error ? kReasonSchedulerError : kReasonUnschedulable),
                               message);
    }
    queue_->AddUnschedulableIfNotPresent(std::move(qpi), error);
    return;
  }
  // The condition and the event go out before the pod is requeued: once requeued, its next
  // attempt may fail at once on another thread, and its patch must not be overtaken by this
  // older one (the client applies writes in the order they are sent).
  // A pod waiting for someone outside the scheduler (a DRA driver's answer) failed nothing:
  // the plugin that waits says so in an event of its own when it asks something new.
  if (status.code() != Code::kPending) {
    events_->Record(*pod, client::kEventTypeWarning, "FailedScheduling", "Scheduling", message);
  }
  if (log::V(
          2,
          "scheduler")) {  // as kube-scheduler: "Unable to schedule pod; no fit; waiting" at V(2)
    log::Detail(2, "scheduler",
                "unable to schedule " + pod->metadata.namespace_ + "/" + pod->metadata.name + ": " +
                    message);
  }
  if (nominated) nominator_.Set(qpi->pod_info, *nominated);
  UpdatePodScheduledCondition(
      *pod, std::string(error ? kReasonSchedulerError : kReasonUnschedulable), message, nominated);
  queue_->AddUnschedulableIfNotPresent(std::move(qpi), error);
}

void Scheduler::UpdatePodScheduledCondition(const api::Pod& pod, const std::string& reason,
                                            const std::string& message,
                                            const std::optional<std::string>& nominated) {
  const api::PodCondition* cur = FindCondition(pod, "PodScheduled");
  bool nomination_changes = nominated && *nominated != pod.status.nominatedNodeName;
  if (cur && cur->status == "False" && cur->reason == reason && cur->message == message &&
      !nomination_changes) {
    return;  // nothing new to say
  }
  std::string transition = cur && cur->status == "False" && cur->lastTransitionTime
                               ? cur->lastTransitionTime->ToRfc3339()
                               : clock_->Now().ToRfc3339();
  std::optional<std::string> nominated_field;
  if (nomination_changes) nominated_field = nominated;  // else left out of the patch
  const PodConditionChange condition{"PodScheduled", "False", reason, message, transition};
  static const api::ResourceInfo& pods = api::ResourceFor<api::Pod>();
  client_.PatchAsync(pods, pod.metadata.namespace_, pod.metadata.name,
                     client::PatchKind::kStrategicMerge,
                     PodStatusPatch(&condition, nominated_field), true,
                     [](Result<api::ObjectPtr>) {});  // a deleted pod needs no condition
}

void Scheduler::ObserveAttempt(Framework& fw, AttemptResult result, SteadyClock::time_point start) {
  std::chrono::duration<double> d = SteadyClock::now() - start;
  const AttemptMetrics& m = attempt_metrics_.at(&fw);
  m.count[result]->Inc();
  m.duration[result]->Observe(d.count());
}

}  // namespace allot::scheduler
