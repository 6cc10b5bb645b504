#include "scheduler/queue/scheduling_queue.h"

#include <algorithm>

namespace allot::scheduler {

namespace {

enum GaugeIndex { kGaugeActive, kGaugeBackoff, kGaugeUnschedulable, kGaugeGated };

// kube-scheduler's isPodUpdated: anything beyond bookkeeping and status (except the generated
// resource claims) changed. The scheduler's own condition updates do not count.
bool IsPodUpdated(const api::Pod& o, const api::Pod& n) {
  if (o.spec != n.spec || o.status.resourceClaimStatuses != n.status.resourceClaimStatuses) {
    return true;
  }
  api::ObjectMeta a = o.metadata, b = n.metadata;
  for (api::ObjectMeta* m : {&a, &b}) {
    m->resourceVersion.clear();
    m->generation = 0;
    if (m->rare.allocated()) m->rare.edit().managedFields.clear();
    m->finalizers.clear();
  }
  return !(a == b);
}

std::vector<std::string> Rejectors(const QueuedPodInfo& p) {
  if (p.gated) return {p.gating_plugin};
  std::vector<std::string> out = p.unschedulable_plugins;
  out.insert(out.end(), p.pending_plugins.begin(), p.pending_plugins.end());
  return out;
}

}  // namespace

SchedulingQueue::SchedulingQueue(Clock& clock, QueueOptions options,
                                 std::map<std::string, Framework*> profiles,
                                 SchedulerMetrics* metrics)
    : clock_(clock),
      options_(options),
      profiles_(std::move(profiles)),
      sort_profile_(profiles_.empty() ? nullptr : profiles_.begin()->second),
      metrics_(metrics),
      // Both orders are total (ties go by uid), so which pod comes first never depends on the
      // order pods were queued in: the simulator's runs repeat exactly.
      active_([this](const QueuedPodInfo& a, const QueuedPodInfo& b) {
        if (sort_profile_->QueueSortLess(a, b)) return true;
        if (sort_profile_->QueueSortLess(b, a)) return false;
        return a.pod_info->uid() < b.pod_info->uid();
      }),
      backoff_([this](const QueuedPodInfo& a, const QueuedPodInfo& b) {
        const TimePoint ea = BackoffExpiry(a), eb = BackoffExpiry(b);
        if (ea != eb) return ea < eb;
        return a.pod_info->uid() < b.pod_info->uid();
      }) {
  for (const auto& [name, fw] : profiles_) {
    auto& by_plugin = events_[name];
    for (auto& [plugin, events] : fw->EventsToRegister()) {
      std::vector<size_t>& ids = by_plugin[plugin];
      for (ClusterEventWithHint& e : events) {
        ids.push_back(regs_.size());
        regs_.push_back(Registration{std::move(e), {}, {}});
      }
    }
  }
  if (metrics_) {
    gauges_[kGaugeActive] = &metrics_->pending_pods.With({"active"});
    gauges_[kGaugeBackoff] = &metrics_->pending_pods.With({"backoff"});
    gauges_[kGaugeUnschedulable] = &metrics_->pending_pods.With({"unschedulable"});
    gauges_[kGaugeGated] = &metrics_->pending_pods.With({"gated"});
  }
}

SchedulingQueue::~SchedulingQueue() { Close(); }

Framework* SchedulingQueue::ProfileFor(const api::Pod& pod) const {
  static const std::string kDefault(kDefaultSchedulerName);
  const std::string& name =
      pod.spec.schedulerName.empty() ? kDefault : pod.spec.schedulerName.str();  // no copy
  auto it = profiles_.find(name);
  return it == profiles_.end() ? nullptr : it->second;
}

std::unique_ptr<QueuedPodInfo> SchedulingQueue::NewQueuedPodInfo(PodInfoPtr pod) const {
  auto p = std::make_unique<QueuedPodInfo>();
  p->pod_info = std::move(pod);
  p->timestamp = clock_.Steady();
  return p;
}

SchedulingQueue::Duration SchedulingQueue::BackoffDuration(int attempts) const {
  if (attempts <= 0) return Duration::zero();
  Duration d = options_.initial_backoff;
  const Duration max = options_.max_backoff;
  if (d > max) return max;
  for (int i = 1; i < attempts; ++i) {
    if (d > max - d) return max;
    d += d;
  }
  return d;
}

SchedulingQueue::TimePoint SchedulingQueue::BackoffExpiry(const QueuedPodInfo& p) const {
  return p.timestamp + BackoffDuration(p.attempts);
}

bool SchedulingQueue::IsBackingOff(const QueuedPodInfo& p) const {
  return BackoffExpiry(p) > clock_.Steady();
}

void SchedulingQueue::CountIncoming(std::string_view queue, std::string_view event) {
  if (!metrics_) return;
  // Called under mu_. Children are cached so the common (queue, event) pairs cost no lookup.
  for (const IncomingCounter& c : incoming_) {
    if (c.queue == queue && c.event == event) {
      c.counter->Inc();
      return;
    }
  }
  metrics::Counter* counter = &metrics_->queue_incoming_pods.With({queue, event});
  if (incoming_.size() < 64) incoming_.push_back({std::string(queue), std::string(event), counter});
  counter->Inc();
}

void SchedulingQueue::UpdateGauges() {
  if (!metrics_) return;
  gauges_[kGaugeActive]->Set(static_cast<double>(active_.size()));
  gauges_[kGaugeBackoff]->Set(static_cast<double>(backoff_.size()));
  gauges_[kGaugeUnschedulable]->Set(static_cast<double>(unschedulable_.size() - gated_count_));
  gauges_[kGaugeGated]->Set(static_cast<double>(gated_count_));
}

// --- moving pods between queues ------------------------------------------------------------------

void SchedulingQueue::PutUnschedulable(std::unique_ptr<QueuedPodInfo> p) {
  Framework* fw = ProfileFor(p->pod());
  for (const std::string& plugin : Rejectors(*p)) {
    if (metrics_ && fw) metrics_->unschedulable_pods.With({plugin, fw->profile_name()}).Inc();
  }
  if (p->gated) ++gated_count_;
  Index(*p);
  std::string uid = p->pod_info->uid();
  unschedulable_[uid] = std::move(p);
}

std::unique_ptr<QueuedPodInfo> SchedulingQueue::TakeUnschedulable(const std::string& uid) {
  auto it = unschedulable_.find(uid);
  if (it == unschedulable_.end()) return nullptr;
  std::unique_ptr<QueuedPodInfo> p = std::move(it->second);
  unschedulable_.erase(it);
  Unindex(uid);
  Framework* fw = ProfileFor(p->pod());
  for (const std::string& plugin : Rejectors(*p)) {
    if (metrics_ && fw) metrics_->unschedulable_pods.With({plugin, fw->profile_name()}).Dec();
  }
  if (p->gated) --gated_count_;
  return p;
}

void SchedulingQueue::MoveToActiveQ(Lock& lock, std::unique_ptr<QueuedPodInfo> p,
                                    std::string_view event) {
  Framework* fw = ProfileFor(p->pod());
  Status st = fw ? fw->RunPreEnqueuePlugins(p->pod()) : Status::Success();
  if (!st.IsSuccess()) {
    p->gated = true;
    p->gating_plugin = std::string(st.plugin());
    PutUnschedulable(std::move(p));
    CountIncoming("gated", event);
    return;
  }
  p->gated = false;
  p->gating_plugin.clear();
  active_.Push(std::move(p));
  CountIncoming("active", event);
  (void)lock;
  cv_.notify_one();
}

void SchedulingQueue::MoveToActiveOrBackoff(Lock& lock, std::unique_ptr<QueuedPodInfo> p,
                                            std::string_view event) {
  bool only_pending = p->unschedulable_plugins.empty() && !p->pending_plugins.empty();
  if (!only_pending && IsBackingOff(*p)) {
    backoff_.Push(std::move(p));
    CountIncoming("backoff", event);
    return;
  }
  MoveToActiveQ(lock, std::move(p), event);
}

template <class Fn>
void SchedulingQueue::ForEachRejectorRegistration(const QueuedPodInfo& p, Fn fn) const {
  std::string_view profile = p.pod().spec.schedulerName.empty()
                                 ? std::string_view(kDefaultSchedulerName)
                                 : std::string_view(p.pod().spec.schedulerName);
  auto pit = events_.find(profile);
  if (pit == events_.end()) return;
  auto visit = [&](const std::string& plugin) {
    auto it = pit->second.find(plugin);
    if (it == pit->second.end()) return;
    for (size_t id : it->second) fn(id);
  };
  if (p.gated) {
    visit(p.gating_plugin);
    return;
  }
  for (const std::string& plugin : p.unschedulable_plugins) visit(plugin);
  for (const std::string& plugin : p.pending_plugins) visit(plugin);
}

void SchedulingQueue::Index(const QueuedPodInfo& p) {
  const std::string& uid = p.pod_info->uid();
  IndexEntry& entry = index_[uid];
  if (!p.gated && p.unschedulable_plugins.empty() && p.pending_plugins.empty()) {
    entry.any = true;
    any_event_pods_.insert(uid);
    return;
  }
  std::vector<std::string> keys;
  ForEachRejectorRegistration(p, [&](size_t id) {
    Registration& r = regs_[id];
    if (!r.reg.targets) {
      if (r.pods.insert(uid).second) entry.regs.push_back(id);
      return;
    }
    keys.clear();
    r.reg.targets(p.pod(), keys);
    for (std::string& key : keys) {
      if (r.pods_by_target[key].insert(uid).second) entry.targets.emplace_back(id, std::move(key));
    }
  });
}

void SchedulingQueue::Unindex(const std::string& uid) {
  auto it = index_.find(uid);
  if (it == index_.end()) return;
  IndexEntry& entry = it->second;
  if (entry.any) any_event_pods_.erase(uid);
  for (size_t id : entry.regs) regs_[id].pods.erase(uid);
  for (const auto& [id, key] : entry.targets) {
    auto& by_target = regs_[id].pods_by_target;
    auto t = by_target.find(key);
    if (t == by_target.end()) continue;
    t->second.erase(uid);
    if (t->second.empty()) by_target.erase(t);
  }
  index_.erase(it);
}

bool SchedulingQueue::EventOfInterest(const ClusterEvent& event, const api::Object* old_obj,
                                      const api::Object* new_obj) const {
  for (const Registration& r : regs_) {
    if (r.reg.event.Matches(event) && (!r.reg.filter || r.reg.filter(old_obj, new_obj))) {
      return true;
    }
  }
  return false;
}

bool SchedulingQueue::RegistrationMoves(const Registration& r, const api::Pod& pod,
                                        const api::Object* old_obj,
                                        const api::Object* new_obj) const {
  if (r.reg.targets) {
    // Per-pod path (pod updates, events replayed after an attempt): is the object one of the
    // pod's targets?
    std::vector<std::string> keys;
    r.reg.targets(pod, keys);
    bool named = false;
    for (const api::Object* obj : {old_obj, new_obj}) {
      if (!obj || named) continue;
      named = std::find(keys.begin(), keys.end(), EventTargetKey(*obj)) != keys.end();
    }
    if (!named) return false;
  }
  return !r.reg.hint || r.reg.hint(pod, old_obj, new_obj) == QueueingHint::kQueue;
}

bool SchedulingQueue::EventMayHelp(const QueuedPodInfo& p, const ClusterEvent& event,
                                   const api::Object* old_obj, const api::Object* new_obj) const {
  if (!p.gated && p.unschedulable_plugins.empty() && p.pending_plugins.empty()) return true;
  bool helps = false;
  ForEachRejectorRegistration(p, [&](size_t id) {
    const Registration& r = regs_[id];
    if (helps || !r.reg.event.Matches(event)) return;
    if (r.reg.filter && !r.reg.filter(old_obj, new_obj)) return;
    helps = RegistrationMoves(r, p.pod(), old_obj, new_obj);
  });
  return helps;
}

void SchedulingQueue::MoveUnschedulable(Lock& lock, const ClusterEvent& event,
                                        const api::Object* old_obj, const api::Object* new_obj,
                                        bool all) {
  std::vector<std::string> to_move;
  if (all) {
    for (const auto& [uid, p] : unschedulable_) {
      if (!p->gated) to_move.push_back(uid);
    }
  } else {
    // Only the pods indexed under a matching registration are looked at; a targeted one looks
    // up the changed object's key instead of walking its pods.
    to_move.assign(any_event_pods_.begin(), any_event_pods_.end());
    auto consider = [&](const Registration& r, const std::string& uid) {
      auto it = unschedulable_.find(uid);
      if (it == unschedulable_.end()) return;
      if (!r.reg.hint || r.reg.hint(it->second->pod(), old_obj, new_obj) == QueueingHint::kQueue) {
        to_move.push_back(uid);
      }
    };
    std::string keys[2];
    for (const Registration& r : regs_) {
      if (!r.reg.event.Matches(event)) continue;
      if (r.reg.filter && !r.reg.filter(old_obj, new_obj)) continue;
      if (!r.reg.targets) {
        for (const std::string& uid : r.pods) consider(r, uid);
        continue;
      }
      int n = 0;
      for (const api::Object* obj : {old_obj, new_obj}) {
        if (!obj) continue;
        std::string key = EventTargetKey(*obj);
        if (n == 1 && key == keys[0]) continue;
        keys[n++] = std::move(key);
      }
      for (int i = 0; i < n; ++i) {
        auto t = r.pods_by_target.find(keys[i]);
        if (t == r.pods_by_target.end()) continue;
        for (const std::string& uid : t->second) consider(r, uid);
      }
    }
  }
  if (to_move.empty()) return;
  std::string label = event.Label();
  for (const std::string& uid : to_move) {
    std::unique_ptr<QueuedPodInfo> p = TakeUnschedulable(uid);
    if (!p) continue;  // listed twice
    if (p->gated) {
      MoveToActiveQ(lock, std::move(p), label);
    } else {
      MoveToActiveOrBackoff(lock, std::move(p), label);
    }
  }
}

bool SchedulingQueue::Activate(const std::string& uid) {
  Lock lock(mu_);
  std::unique_ptr<QueuedPodInfo> p = TakeUnschedulable(uid);
  if (!p) return false;
  MoveToActiveQ(lock, std::move(p), "ForceActivate");
  UpdateGauges();
  return true;
}

void SchedulingQueue::FlushBackoffLocked(Lock& lock) {
  TimePoint now = clock_.Steady();
  while (!backoff_.empty() && BackoffExpiry(backoff_.Peek()) <= now) {
    MoveToActiveQ(lock, backoff_.Pop(), "BackoffComplete");
  }
}

// --- informer events ----------------------------------------------------------------------------

void SchedulingQueue::Add(PodInfoPtr pod) {
  Lock lock(mu_);
  if (!ProfileFor(*pod->pod)) return;
  const std::string& uid = pod->uid();
  if (active_.Has(uid) || backoff_.Has(uid) || unschedulable_.count(uid) || in_flight_.count(uid)) {
    return;
  }
  MoveToActiveQ(lock, NewQueuedPodInfo(std::move(pod)), "PodAdd");
  UpdateGauges();
}

void SchedulingQueue::Update(const api::ObjectPtr& old_pod, PodInfoPtr new_pod) {
  Lock lock(mu_);
  const std::string uid = new_pod->uid();
  if (in_flight_.count(uid)) {
    in_flight_updates_[uid] = new_pod;
    return;
  }
  if (QueuedPodInfo* p = active_.Get(uid)) {
    p->pod_info = std::move(new_pod);
    active_.Fix(uid);
    return;
  }
  if (QueuedPodInfo* p = backoff_.Get(uid)) {
    p->pod_info = std::move(new_pod);
    return;
  }
  auto it = unschedulable_.find(uid);
  if (it == unschedulable_.end()) {
    lock.unlock();
    Add(std::move(new_pod));
    return;
  }
  // A pod waiting among the unschedulable ones changed: a gated pod re-runs PreEnqueue; another
  // moves when its rejecting plugins say the change may help.
  std::unique_ptr<QueuedPodInfo> p = TakeUnschedulable(uid);
  const api::Pod* old = old_pod ? api::As<api::Pod>(*old_pod) : nullptr;
  ClusterEvent event{EventResource::kUnscheduledPod,
                     old ? PodUpdateActions(*old, *new_pod->pod) : kUpdateOther};
  bool updated = !old || IsPodUpdated(*old, *new_pod->pod);
  bool move = updated && (p->gated || EventMayHelp(*p, event, old_pod.get(), new_pod->pod.get()));
  p->pod_info = std::move(new_pod);
  if (!move) {
    PutUnschedulable(std::move(p));
  } else if (p->gated) {
    MoveToActiveQ(lock, std::move(p), event.Label());
  } else {
    MoveToActiveOrBackoff(lock, std::move(p), event.Label());
  }
  UpdateGauges();
}

void SchedulingQueue::Delete(const api::Pod& pod) {
  Lock lock(mu_);
  const std::string& uid = pod.metadata.uid;
  if (in_flight_.count(uid)) in_flight_deleted_[uid] = true;
  active_.Remove(uid);
  backoff_.Remove(uid);
  TakeUnschedulable(uid);
  UpdateGauges();
}

void SchedulingQueue::OnEvent(const ClusterEvent& event, const api::ObjectPtr& old_obj,
                              const api::ObjectPtr& new_obj) {
  Lock lock(mu_);
  if (!EventOfInterest(event, old_obj.get(), new_obj.get())) return;
  if (!in_flight_seqs_.empty()) {
    in_flight_events_.push_back({++event_seq_, event, old_obj, new_obj});
  }
  MoveUnschedulable(lock, event, old_obj.get(), new_obj.get(), false);
  UpdateGauges();
}

void SchedulingQueue::MoveAllToActiveOrBackoff(const ClusterEvent& event) {
  Lock lock(mu_);
  MoveUnschedulable(lock, event, nullptr, nullptr, true);
  UpdateGauges();
}

// --- scheduling loop ----------------------------------------------------------------------------

std::unique_ptr<QueuedPodInfo> SchedulingQueue::Pop(std::chrono::milliseconds timeout) {
  Lock lock(mu_);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    FlushBackoffLocked(lock);
    if (closed_) return nullptr;
    if (!active_.empty()) break;
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return nullptr;
    auto wake = deadline;
    if (!backoff_.empty()) {
      auto until = BackoffExpiry(backoff_.Peek()) - clock_.Steady();
      wake = std::min(wake, now + std::max(until, Duration(std::chrono::milliseconds(1))));
    }
    cv_.wait_until(lock, wake);
  }
  std::unique_ptr<QueuedPodInfo> p = active_.Pop();
  ++p->attempts;
  if (!p->initial_attempt_timestamp) p->initial_attempt_timestamp = clock_.Steady();
  in_flight_[p->pod_info->uid()] = event_seq_;
  in_flight_seqs_.insert(event_seq_);
  UpdateGauges();
  return p;
}

void SchedulingQueue::AddUnschedulableIfNotPresent(std::unique_ptr<QueuedPodInfo> p, bool error) {
  Lock lock(mu_);
  const std::string uid = p->pod_info->uid();
  uint64_t since = event_seq_;
  if (auto it = in_flight_.find(uid); it != in_flight_.end()) {
    since = it->second;
    EraseInFlightSeq(since);
    in_flight_.erase(it);
  }
  bool deleted = in_flight_deleted_.erase(uid) > 0;
  if (auto it = in_flight_updates_.find(uid); it != in_flight_updates_.end()) {
    p->pod_info = std::move(it->second);
    in_flight_updates_.erase(it);
  }
  if (deleted || active_.Has(uid) || backoff_.Has(uid) || unschedulable_.count(uid)) {
    PruneInFlightEvents();
    return;
  }
  p->timestamp = clock_.Steady();
  if (error) {
    ++p->consecutive_errors;
    MoveToActiveOrBackoff(lock, std::move(p), "ScheduleAttemptFailure");
  } else {
    p->consecutive_errors = 0;
    ++p->unschedulable_count;
    // A parked pod kept no events while it waited, and its failure usually changed the state
    // itself (a cleared allocation): it goes to backoffQ rather than waiting for an event.
    bool helped = since == kParked;
    for (const InFlightEvent& ev : in_flight_events_) {
      if (helped) break;
      if (ev.seq > since && EventMayHelp(*p, ev.event, ev.old_obj.get(), ev.new_obj.get())) {
        helped = true;
        break;
      }
    }
    if (helped) {
      MoveToActiveOrBackoff(lock, std::move(p), "ScheduleAttemptFailure");
    } else {
      PutUnschedulable(std::move(p));
      CountIncoming("unschedulable", "ScheduleAttemptFailure");
    }
  }
  PruneInFlightEvents();
  UpdateGauges();
}

void SchedulingQueue::Done(const std::string& uid) {
  Lock lock(mu_);
  if (auto it = in_flight_.find(uid); it != in_flight_.end()) {
    EraseInFlightSeq(it->second);
    in_flight_.erase(it);
  }
  in_flight_updates_.erase(uid);
  in_flight_deleted_.erase(uid);
  PruneInFlightEvents();
}

void SchedulingQueue::EraseInFlightSeq(uint64_t seq) {
  if (seq == kParked) return;
  if (auto it = in_flight_seqs_.find(seq); it != in_flight_seqs_.end()) in_flight_seqs_.erase(it);
}

void SchedulingQueue::Park(const std::string& uid) {
  Lock lock(mu_);
  auto it = in_flight_.find(uid);
  if (it == in_flight_.end() || it->second == kParked) return;
  EraseInFlightSeq(it->second);
  it->second = kParked;
  PruneInFlightEvents();
}

void SchedulingQueue::PruneInFlightEvents() {
  if (in_flight_events_.empty()) return;
  if (in_flight_seqs_.empty()) {  // nobody in flight, or only parked pods
    in_flight_events_.clear();
    return;
  }
  const uint64_t oldest = *in_flight_seqs_.begin();
  while (!in_flight_events_.empty() && in_flight_events_.front().seq <= oldest) {
    in_flight_events_.pop_front();
  }
}

void SchedulingQueue::Close() {
  {
    Lock lock(mu_);
    closed_ = true;
  }
  cv_.notify_all();
}

// --- housekeeping -------------------------------------------------------------------------------

std::optional<SchedulingQueue::TimePoint> SchedulingQueue::NextBackoffExpiry() {
  Lock lock(mu_);
  if (backoff_.empty()) return std::nullopt;
  return BackoffExpiry(backoff_.Peek());
}

void SchedulingQueue::FlushBackoffQCompleted() {
  Lock lock(mu_);
  FlushBackoffLocked(lock);
  UpdateGauges();
}

void SchedulingQueue::FlushUnschedulablePodsLeftover() {
  Lock lock(mu_);
  TimePoint now = clock_.Steady();
  std::vector<std::string> to_move;
  for (const auto& [uid, p] : unschedulable_) {
    if (!p->gated && now - p->timestamp > options_.max_in_unschedulable) to_move.push_back(uid);
  }
  for (const std::string& uid : to_move) {
    MoveToActiveOrBackoff(lock, TakeUnschedulable(uid), "UnschedulableTimeout");
  }
  UpdateGauges();
}

// --- introspection ------------------------------------------------------------------------------

size_t SchedulingQueue::ActiveSize() const {
  Lock lock(mu_);
  return active_.size();
}

size_t SchedulingQueue::BackoffSize() const {
  Lock lock(mu_);
  return backoff_.size();
}

size_t SchedulingQueue::UnschedulableSize() const {
  Lock lock(mu_);
  return unschedulable_.size() - gated_count_;
}

size_t SchedulingQueue::InFlightSize() const {
  Lock lock(mu_);
  return in_flight_.size();
}

std::string SchedulingQueue::Where(const std::string& uid) const {
  Lock lock(mu_);
  if (active_.Has(uid)) return "active";
  if (backoff_.Has(uid)) return "backoff";
  if (auto it = unschedulable_.find(uid); it != unschedulable_.end()) {
    return it->second->gated ? "gated" : "unschedulable";
  }
  if (in_flight_.count(uid)) return "inflight";
  return "";
}

}  // namespace allot::scheduler
