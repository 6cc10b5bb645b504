// NodeSimulator, pod side: the per-pod state machine.
//
//   kPending --start step--> kStarting --written--> kRunning --finish step--> kFinishing
//       ^  (refused / failed: backoff)                                            |
//       +------------------------------------                          written: kDone
//   any stage --deletionTimestamp--> kTerminating --terminate step--> kDeleting --delete--> gone
//
// Every transition happens under mu_. A step is a timer carrying the pod's token; the step reads
// a snapshot of the pod, does the slow parts (hooks, building the status) without the lock, and
// submits one write whose completion re-checks the token: if the pod moved on meanwhile (it was
// deleted while its Running write was in flight, say), the completion only records the newer
// object. A step that fires while the pod's write is in flight is deferred until the write
// answers.
//
// Why compare-and-swap on pod status writes: the scheduler, controllers and users write pods
// too; a blind PUT would erase their changes. On a conflict we retry with backoff, and at once
// when the informer delivers the newer pod (ReconcileLocked), so a conflict costs one round trip.
#include <algorithm>
#include <utility>

#include "api/core/pod_state.h"
#include "node/pod_status.h"
#include "node/simulator_impl.h"

namespace allot::node {

namespace {

bool CountsAsRunning(PodStage s) { return s == PodStage::kRunning || s == PodStage::kFinishing; }

const api::Pod& AsPod(const api::ObjectPtr& obj) { return *api::As<api::Pod>(*obj); }

// Gives back the pod's IP and owes the preparer an Unprepare (run by the next Tick).
void ReleaseLocked(SimPod& p, SimNode& node, std::vector<Unprepare>& owed) {
  if (!p.ip.empty()) node.ips.Release(p.ip);
  p.ip.clear();
  if (p.prepared) owed.push_back({p.latest, p.node});
  p.prepared = false;
}

}  // namespace

// --- bookkeeping (under mu_) --------------------------------------------------------------------

void NodeSimulator::Impl::UpdateLatestLocked(SimPod& p, const api::ObjectPtr& obj) {
  uint64_t rv = ParseResourceVersion(obj->metadata.resourceVersion);
  if (p.latest && rv != 0 && rv <= p.latest_rv) return;  // an older event than we have
  p.latest = obj;
  p.latest_rv = rv;
}

void NodeSimulator::Impl::SetStageLocked(SimPod& p, PodStage stage) {
  stats_.pods_running +=
      static_cast<int>(CountsAsRunning(stage)) - static_cast<int>(CountsAsRunning(p.stage));
  p.stage = stage;
}

void NodeSimulator::Impl::SchedulePodLocked(const std::string& key, SimPod& p, Time due) {
  ++p.token;
  ScheduleLocked(due, Due{.kind = Due::Kind::kPod, .node = p.node, .pod = key, .token = p.token});
}

void NodeSimulator::Impl::RetryLocked(const std::string& key, SimPod& p, Time now) {
  ++p.attempts;
  p.retrying = true;
  SchedulePodLocked(key, p, AddDuration(now, Backoff(p.attempts)));
}

void NodeSimulator::Impl::ForgetLocked(const std::string& key) {
  auto it = pods_.find(key);
  if (it == pods_.end()) return;
  SimPod& p = it->second;
  ReleaseLocked(p, *nodes_[p.node], owed_unprepares_);
  if (!owed_unprepares_.empty()) WakeLocked();
  SetStageLocked(p, PodStage::kDone);
  --stats_.pods_tracked;
  pods_.erase(it);
}

void NodeSimulator::Impl::ScheduleFinishLocked(const std::string& key, SimPod& p, Time started) {
  Result<std::optional<std::chrono::microseconds>> d = RunDuration(AsPod(p.latest));
  if (!d.ok()) {
    stats_.last_error = "pod " + key + ": " + d.status().message();
    return;
  }
  if (*d) SchedulePodLocked(key, p, AddDuration(started, **d));
}

// --- events (under mu_) -------------------------------------------------------------------------

// The first time we see a pod on one of our nodes. A pod found already Running (the simulator
// restarted) is adopted as it is: its IP is claimed and its run duration counted from its
// startTime; its claims are not prepared again.
void NodeSimulator::Impl::FirstSightLocked(SimPod& p, const api::Pod& pod, Time now) {
  if (pod.metadata.rare->deletionTimestamp) return;  // ReconcileLocked starts the termination
  std::string key = PodKey(pod.metadata);
  if (api::IsPodTerminal(pod)) {
    SetStageLocked(p, PodStage::kDone);
    return;
  }
  if (pod.status.phase == "Running") {
    SetStageLocked(p, PodStage::kRunning);
    p.started = true;
    const std::string& ip = pod.status.podIP;
    if (!pod.spec.hostNetwork && !ip.empty() && nodes_[p.node]->ips.Claim(ip)) p.ip = ip;
    ScheduleFinishLocked(key, p, pod.status.startTime.value_or(now));
    return;
  }
  SchedulePodLocked(key, p, AddDuration(now, options_.pod_startup_delay));
}

void NodeSimulator::Impl::ReconcileLocked(const std::string& key, SimPod& p, Time now) {
  const api::Pod& pod = AsPod(p.latest);
  if (pod.metadata.rare->deletionTimestamp) {
    if (p.stage != PodStage::kTerminating && p.stage != PodStage::kDeleting) {
      SetStageLocked(p, PodStage::kTerminating);
      p.retrying = false;
      p.attempts = 0;
      SchedulePodLocked(key, p, now);
    }
    return;
  }
  if ((p.stage == PodStage::kPending || p.stage == PodStage::kRunning) && api::IsPodTerminal(pod)) {
    // Ended by someone else (evicted, marked Failed): stop tracking its run.
    ReleaseLocked(p, *nodes_[p.node], owed_unprepares_);
    if (!owed_unprepares_.empty()) WakeLocked();
    SetStageLocked(p, PodStage::kDone);
    ++p.token;
    return;
  }
  if (p.retrying && !p.busy) {
    // The pod changed while its step waited for backoff (often: the newer version our
    // conflicting write was missing). Try again now.
    p.retrying = false;
    SchedulePodLocked(key, p, now);
  }
}

// --- steps (tick thread) ------------------------------------------------------------------------

void NodeSimulator::Impl::RunPodStep(const std::string& key, uint64_t token, Time now) {
  SimPod snap;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pods_.find(key);
    if (it == pods_.end() || it->second.token != token) return;  // stale timer
    SimPod& p = it->second;
    if (p.busy) {
      p.deferred = true;  // the write's completion runs this step
      return;
    }
    p.retrying = false;
    p.recheck = false;
    snap = p;
  }
  switch (snap.stage) {
    case PodStage::kPending:
      TryStart(key, snap, now);
      return;
    case PodStage::kRunning:
      Finish(key, snap, now);
      return;
    case PodStage::kTerminating:
      Terminate(key, snap, now);
      return;
    case PodStage::kDeleting:
      DeletePod(key, snap);
      return;
    default:
      return;
  }
}

// Asks the rules and the preparer; true when the pod may start.
bool NodeSimulator::Impl::Admit(const std::string& key, const SimPod& snap, Time now) {
  const api::Pod& pod = AsPod(snap.latest);
  const std::string& node = nodes_[snap.node]->name;
  std::string why;
  for (const auto& rule : rules_) {
    why = rule->WhyNotStart(pod, node);
    if (!why.empty()) break;
  }
  bool prepared_now = false;
  if (why.empty() && !snap.prepared) {
    Status st = preparer_->Prepare(pod, node);
    if (st.ok()) {
      prepared_now = true;
    } else {
      why = "preparing resource claims: " + st.message();
      // As a kubelet reports it (once per pod and message: the recorder deduplicates retries).
      events_.Record(pod, client::kEventTypeWarning, "FailedPrepareDynamicResources", "",
                     "Failed to prepare dynamic resources: " + st.message());
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(key);
  if (it == pods_.end() || it->second.uid != snap.uid) {
    if (prepared_now) {
      owed_unprepares_.push_back({snap.latest, snap.node});
      WakeLocked();
    }
    return false;
  }
  SimPod& p = it->second;
  p.prepared = p.prepared || prepared_now;  // termination unprepares it if it moved on
  if (p.token != snap.token) return false;
  if (why.empty() && p.ip.empty() && !pod.spec.hostNetwork) {
    std::optional<std::string> ip = nodes_[p.node]->ips.Allocate();
    if (ip) {
      p.ip = *ip;
    } else {
      why = "no free pod IP in " + NodePodCidr(nodes_[p.node]->index);
    }
  }
  if (why.empty()) return true;
  ++stats_.start_refusals;
  stats_.last_error = "pod " + key + " may not start: " + why;
  if (p.recheck) {
    // What the refusal read may have changed while it was decided: look again now.
    p.recheck = false;
    ++p.attempts;
    SchedulePodLocked(key, p, now);
    return false;
  }
  RetryLocked(key, p, now);
  return false;
}

void NodeSimulator::Impl::TryStart(const std::string& key, const SimPod& snap, Time now) {
  if (!Admit(key, snap, now)) return;
  std::unique_ptr<api::Object> obj;
  uint64_t token;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pods_.find(key);
    if (it == pods_.end() || it->second.token != snap.token) return;
    SimPod& p = it->second;
    const SimNode& node = *nodes_[p.node];
    obj = RunningPod(AsPod(p.latest), NodeInternalIp(node.index), p.ip, now);
    SetStageLocked(p, PodStage::kStarting);
    p.busy = true;
    token = p.token;
  }
  std::string uid = snap.uid;
  WriteObject(WriteKind::kUpdateStatus, *pods_res_, std::move(obj),
              [this, key, uid, token](Result<api::ObjectPtr> r) {
                OnStarted(key, uid, token, std::move(r));
              });
}

void NodeSimulator::Impl::OnStarted(const std::string& key, const std::string& uid, uint64_t token,
                                    Result<api::ObjectPtr> result) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(key);
  if (it == pods_.end() || it->second.uid != uid) return;
  SimPod& p = it->second;
  Time now = clock_.Now();
  p.busy = false;
  if (result.ok()) {
    UpdateLatestLocked(p, *result);
    p.started = true;  // even if it is being deleted meanwhile: its containers must be stopped
  }
  if (p.token != token) {
    RunDeferredLocked(key, p, now);
    return;
  }
  if (result.ok()) {
    SetStageLocked(p, PodStage::kRunning);
    p.attempts = 0;
    ++stats_.pods_started;
    ScheduleFinishLocked(key, p, now);
    return;
  }
  RecordErrorLocked(result.status(), "starting pod " + key);
  if (result.status().code() == StatusCode::kNotFound) {
    ForgetLocked(key);
    return;
  }
  SetStageLocked(p, PodStage::kPending);
  RetryLocked(key, p, now);
}

void NodeSimulator::Impl::RunDeferredLocked(const std::string& key, SimPod& p, Time now) {
  if (!p.deferred) return;
  p.deferred = false;
  SchedulePodLocked(key, p, now);
}

void NodeSimulator::Impl::Finish(const std::string& key, const SimPod& snap, Time now) {
  if (snap.prepared) preparer_->Unprepare(AsPod(snap.latest), nodes_[snap.node]->name);
  std::unique_ptr<api::Object> obj;
  uint64_t token;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pods_.find(key);
    if (it == pods_.end() || it->second.uid != snap.uid) return;
    SimPod& p = it->second;
    if (snap.prepared) p.prepared = false;
    if (p.token != snap.token) return;
    if (!p.ip.empty()) nodes_[p.node]->ips.Release(p.ip);
    p.ip.clear();
    obj = SucceededPod(AsPod(p.latest), now);
    SetStageLocked(p, PodStage::kFinishing);
    p.busy = true;
    token = p.token;
  }
  std::string uid = snap.uid;
  WriteObject(WriteKind::kUpdateStatus, *pods_res_, std::move(obj),
              [this, key, uid, token](Result<api::ObjectPtr> r) {
                OnFinished(key, uid, token, std::move(r));
              });
}

void NodeSimulator::Impl::OnFinished(const std::string& key, const std::string& uid, uint64_t token,
                                     Result<api::ObjectPtr> result) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(key);
  if (it == pods_.end() || it->second.uid != uid) return;
  SimPod& p = it->second;
  Time now = clock_.Now();
  p.busy = false;
  if (result.ok()) UpdateLatestLocked(p, *result);
  if (p.token != token) {
    RunDeferredLocked(key, p, now);
    return;
  }
  if (result.ok()) {
    SetStageLocked(p, PodStage::kDone);
    ++stats_.pods_succeeded;
    return;
  }
  RecordErrorLocked(result.status(), "finishing pod " + key);
  if (result.status().code() == StatusCode::kNotFound) {
    ForgetLocked(key);
    return;
  }
  SetStageLocked(p, PodStage::kRunning);
  RetryLocked(key, p, now);
}

// Stops the containers: claims unprepared, IP released, the containers marked terminated (when
// they ever ran), and the delete scheduled after min(grace period, max_grace_period). The status
// write is best effort and not waited for: the delete is submitted after it, and the pipeline
// keeps submission order.
void NodeSimulator::Impl::Terminate(const std::string& key, const SimPod& snap, Time now) {
  if (snap.prepared) preparer_->Unprepare(AsPod(snap.latest), nodes_[snap.node]->name);
  std::unique_ptr<api::Object> obj;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pods_.find(key);
    if (it == pods_.end() || it->second.uid != snap.uid) return;
    SimPod& p = it->second;
    if (snap.prepared) p.prepared = false;
    if (p.token != snap.token) return;
    if (!p.ip.empty()) nodes_[p.node]->ips.Release(p.ip);
    p.ip.clear();
    const api::Pod& pod = AsPod(p.latest);
    if (p.started && !api::IsPodTerminal(pod)) obj = SucceededPod(pod, now);
    SetStageLocked(p, PodStage::kDeleting);
    auto wait = std::min<std::chrono::microseconds>(GracePeriod(pod), options_.max_grace_period);
    SchedulePodLocked(key, p, AddDuration(now, wait));
  }
  if (!obj) return;
  std::string uid = snap.uid;
  WriteObject(WriteKind::kUpdateStatus, *pods_res_, std::move(obj),
              [this, key, uid](Result<api::ObjectPtr> r) {
                std::lock_guard<std::mutex> lock(mu_);
                auto it = pods_.find(key);
                if (it == pods_.end() || it->second.uid != uid) return;
                if (r.ok()) {
                  UpdateLatestLocked(it->second, *r);
                } else if (r.status().code() != StatusCode::kNotFound) {
                  RecordErrorLocked(r.status(), "stopping pod " + key);
                }
              });
}

void NodeSimulator::Impl::DeletePod(const std::string& key, const SimPod& snap) {
  uint64_t token;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pods_.find(key);
    if (it == pods_.end() || it->second.token != snap.token) return;
    it->second.busy = true;
    token = it->second.token;
  }
  const api::ObjectMeta& meta = snap.latest->metadata;
  api::DeleteOptions opts;
  opts.grace_period_seconds = 0;
  opts.precondition_uid = snap.uid;
  std::string ns = meta.namespace_, name = meta.name, uid = snap.uid;
  Write<api::DeleteResult>(
      [this, ns, name, opts](client::Callback<api::DeleteResult> cb) {
        client_.DeleteAsync(*pods_res_, ns, name, opts, std::move(cb));
      },
      [this, key, uid, token](Result<api::DeleteResult> r) {
        OnDeleted(key, uid, token, std::move(r));
      });
}

void NodeSimulator::Impl::OnDeleted(const std::string& key, const std::string& uid, uint64_t token,
                                    Result<api::DeleteResult> result) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(key);
  if (it == pods_.end() || it->second.uid != uid) return;
  SimPod& p = it->second;
  p.busy = false;
  StatusCode code = result.status().code();
  if (result.ok() && result->removed) ++stats_.pods_deleted;
  // Removed, already gone, or the name now belongs to another pod (uid precondition failed).
  if ((result.ok() && result->removed) || code == StatusCode::kNotFound ||
      code == StatusCode::kConflict) {
    ForgetLocked(key);
    return;
  }
  if (result.ok()) {
    // Finalizers hold it: the informer's DELETED event forgets it once they are gone.
    if (result->object) UpdateLatestLocked(p, result->object);
    return;
  }
  RecordErrorLocked(result.status(), "deleting pod " + key);
  if (p.token == token) RetryLocked(key, p, clock_.Now());
}

}  // namespace allot::node
