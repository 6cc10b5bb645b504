// NodeSimulator: lifecycle, the tick loop, pod events and stats. Nodes are in
// simulator_nodes.cc, the pod state machine in simulator_pods.cc.
#include "node/simulator.h"

#include <algorithm>
#include <charconv>
#include <utility>

#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/core/types.h"
#include "node/simulator_impl.h"

namespace allot::node {

namespace {

// A tick runs timers that become due because of other timers at the same instant (a delete
// after a zero grace period, a retry "now"); this bounds how many such rounds one Tick does.
constexpr int kMaxRoundsPerTick = 8;
constexpr std::chrono::microseconds kMaxBackoff = std::chrono::seconds(30);

}  // namespace

std::string PodKey(const api::ObjectMeta& meta) { return meta.namespace_ + "/" + meta.name; }

uint64_t ParseResourceVersion(const std::string& rv) {
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), v);
  return ec == std::errc() && ptr == rv.data() + rv.size() ? v : 0;
}

Time AddDuration(Time t, std::chrono::microseconds d) { return Time{t.unix_micros + d.count()}; }

std::chrono::microseconds Backoff(int attempts) {
  std::chrono::microseconds d = std::chrono::seconds(1);
  for (int i = 1; i < attempts && d < kMaxBackoff; ++i) d *= 2;
  return std::min(d, kMaxBackoff);
}

// --- NodeSimulator --------------------------------------------------------------------------

NodeSimulator::NodeSimulator(client::Client& client, Clock& clock, NodeSimulatorOptions options)
    : impl_(std::make_unique<Impl>(client, clock, std::move(options))) {}

NodeSimulator::~NodeSimulator() { Stop(); }

void NodeSimulator::SetClaimPreparer(std::unique_ptr<ClaimPreparer> preparer) {
  impl_->preparer_ = preparer ? std::move(preparer) : std::make_unique<NoopClaimPreparer>();
}

void NodeSimulator::AddStartRule(std::unique_ptr<PodStartRule> rule) {
  if (rule) impl_->rules_.push_back(std::move(rule));
}

Status NodeSimulator::Register() { return impl_->Register(); }
Status NodeSimulator::Watch(std::chrono::milliseconds t) { return impl_->Watch(t); }
Status NodeSimulator::Run() { return impl_->Run(); }
void NodeSimulator::Stop() { impl_->Stop(); }
void NodeSimulator::Tick() { impl_->Tick(); }
bool NodeSimulator::WaitForWrites(std::chrono::milliseconds timeout) {
  return impl_->pipeline_.WaitIdle(timeout);
}
void NodeSimulator::OnPodChanged(const api::ObjectPtr& pod) { impl_->OnPodChanged(pod); }
void NodeSimulator::OnPodDeleted(const api::ObjectPtr& pod) { impl_->OnPodDeleted(pod); }
void NodeSimulator::Recheck(std::string_view ns, std::string_view name) {
  impl_->Recheck(ns, name);
}
std::optional<Time> NodeSimulator::NextTimer() const { return impl_->NextTimer(); }
NodeSimulator::Stats NodeSimulator::GetStats() const { return impl_->GetStats(); }

std::vector<std::string> NodeSimulator::NodeNames() const {
  std::vector<std::string> out;
  out.reserve(impl_->nodes_.size());
  for (const auto& n : impl_->nodes_) out.push_back(n->name);
  return out;
}

bool NodeSimulator::OwnsNode(std::string_view name) const {
  return impl_->FindNode(name) != nullptr;
}

// --- Impl: lifecycle ------------------------------------------------------------------------

NodeSimulator::Impl::Impl(client::Client& client, Clock& clock, NodeSimulatorOptions options)
    : client_(client),
      clock_(clock),
      options_(std::move(options)),
      pods_res_(&api::ResourceFor<api::Pod>()),
      nodes_res_(&api::ResourceFor<api::Node>()),
      leases_res_(&api::ResourceFor<api::Lease>()),
      preparer_(std::make_unique<NoopClaimPreparer>()),
      events_(client, clock, {.component = "kubelet"}),
      pipeline_(options_.max_in_flight_writes, &clock) {
  if (!ValidateOptions().ok()) return;  // Register() reports it
  nodes_.reserve(static_cast<size_t>(options_.node_count));
  for (int64_t i = 0; i < options_.node_count; ++i) {
    int64_t index = options_.first_index + i;
    auto node =
        std::make_unique<SimNode>(options_.name_prefix + "-" + std::to_string(index), index);
    node->slot = static_cast<uint32_t>(i);
    nodes_.push_back(std::move(node));
  }
  // Keys view the names owned by nodes_, which never move or change.
  for (const auto& n : nodes_) node_by_name_.emplace(n->name, n->slot);
}

NodeSimulator::Impl::~Impl() { Stop(); }

const SimNode* NodeSimulator::Impl::FindNode(std::string_view name) const {
  auto it = node_by_name_.find(name);
  return it == node_by_name_.end() ? nullptr : nodes_[it->second].get();
}

Status NodeSimulator::Impl::Watch(std::chrono::milliseconds sync_timeout) {
  if (informer_) return Status::Ok();
  client::InformerOptions opts;
  opts.field_selector = "spec.nodeName!=";
  informer_ = std::make_unique<client::Informer>(client_, *pods_res_, opts);
  informer_->AddHandler({
      .on_add = [this](const api::ObjectPtr& o) { OnPodChanged(o); },
      .on_update = [this](const api::ObjectPtr&, const api::ObjectPtr& o) { OnPodChanged(o); },
      .on_delete = [this](const api::ObjectPtr& o) { OnPodDeleted(o); },
  });
  ALLOT_RETURN_IF_ERROR(informer_->Start());
  if (!informer_->WaitForSync(sync_timeout)) {
    return Status(StatusCode::kTimeout, "node simulator: the pod informer did not sync");
  }
  return Status::Ok();
}

Status NodeSimulator::Impl::Run() {
  ALLOT_RETURN_IF_ERROR(Register());
  ALLOT_RETURN_IF_ERROR(Watch(std::chrono::seconds(60)));
  std::lock_guard<std::mutex> lock(mu_);
  if (!runner_.joinable() && !stopping_) runner_ = std::thread([this] { RunLoop(); });
  return Status::Ok();
}

void NodeSimulator::Impl::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    wake_cv_.notify_all();
  }
  if (runner_.joinable()) runner_.join();
  if (informer_) informer_->Stop();
  pipeline_.Shutdown();
}

// Run()'s thread: tick, then sleep on the Clock until the next timer, an event, or max_idle.
void NodeSimulator::Impl::RunLoop() {
  for (;;) {
    Tick();
    std::unique_lock<std::mutex> lock(mu_);
    if (stopping_) return;
    if (work_pending_) continue;
    std::chrono::microseconds wait = options_.max_idle;
    Time now = clock_.Now();
    if (std::optional<Time> next = timers_.NextDue()) {
      wait = std::clamp(std::chrono::microseconds(next->unix_micros - now.unix_micros),
                        std::chrono::microseconds(0), wait);
    }
    planned_wake_ = AddDuration(now, wait);
    clock_.WaitFor(wake_cv_, lock, wait, [&] { return stopping_ || work_pending_; });
    if (stopping_) return;
  }
}

void NodeSimulator::Impl::ScheduleLocked(Time due, Due payload) {
  timers_.Schedule(due, std::move(payload));
  if (due < planned_wake_ || due <= clock_.Now()) {
    planned_wake_ = due;
    WakeLocked();
  }
}

void NodeSimulator::Impl::WakeLocked() {
  if (!work_pending_) clock_.BeginWork();  // until the Tick round that takes it
  work_pending_ = true;
  wake_cv_.notify_one();
}

// --- Impl: ticking --------------------------------------------------------------------------

void NodeSimulator::Impl::Tick() {
  std::lock_guard<std::mutex> tick_lock(tick_mu_);
  for (int round = 0; round < kMaxRoundsPerTick; ++round) {
    Time now = clock_.Now();
    std::vector<Due> due;
    std::vector<Unprepare> unprepares;
    bool woken;
    {
      std::lock_guard<std::mutex> lock(mu_);
      woken = std::exchange(work_pending_, false);
      timers_.PopDue(now, due);
      unprepares.swap(owed_unprepares_);
    }
    for (const Unprepare& u : unprepares) {
      preparer_->Unprepare(*api::As<api::Pod>(*u.pod), nodes_[u.node]->name);
    }
    for (Due& d : due) RunDue(d, now);
    if (woken) clock_.EndWorkWhenWaiting();
    if (due.empty() && unprepares.empty()) return;
  }
}

void NodeSimulator::Impl::RunDue(Due& due, Time now) {
  switch (due.kind) {
    case Due::Kind::kLease:
    case Due::Kind::kLeaseRetry:
      if (due.kind == Due::Kind::kLease) {
        std::lock_guard<std::mutex> lock(mu_);
        due.at = NextPeriod(due.at, options_.lease_renew_interval, now);
        ScheduleLocked(due.at, due);
      }
      RenewLease(due.node, now);
      return;
    case Due::Kind::kNodeStatus: {
      {
        std::lock_guard<std::mutex> lock(mu_);
        due.at = NextPeriod(due.at, options_.node_status_interval, now);
        ScheduleLocked(due.at, due);
      }
      SendHeartbeat(due.node, now);
      return;
    }
    case Due::Kind::kRegister:
      Reregister(due.node, now);
      return;
    case Due::Kind::kPod:
      RunPodStep(due.pod, due.token, now);
      return;
  }
}

// --- Impl: pod events -----------------------------------------------------------------------

void NodeSimulator::Impl::OnPodChanged(const api::ObjectPtr& obj) {
  const api::Pod* pod = obj ? api::As<api::Pod>(*obj) : nullptr;
  if (pod == nullptr) return;
  auto node = node_by_name_.find(pod->spec.nodeName);
  if (node == node_by_name_.end()) return;  // not bound, or bound to a node we do not own
  std::string key = PodKey(pod->metadata);
  Time now = clock_.Now();
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return;
  auto it = pods_.find(key);
  if (it != pods_.end() && it->second.uid != pod->metadata.uid) {
    ForgetLocked(key);  // the name was reused by a new pod
    it = pods_.end();
  }
  if (it == pods_.end()) {
    SimPod& p = pods_[key];
    p.node = node->second;
    p.uid = pod->metadata.uid;
    p.first_seen = now;
    UpdateLatestLocked(p, obj);
    ++stats_.pods_tracked;
    FirstSightLocked(p, *pod, now);
    ReconcileLocked(key, p, now);
    return;
  }
  SimPod& p = it->second;
  uint64_t before = p.latest_rv;
  UpdateLatestLocked(p, obj);
  if (p.latest_rv != before || before == 0) ReconcileLocked(key, p, now);
}

void NodeSimulator::Impl::OnPodDeleted(const api::ObjectPtr& obj) {
  const api::Pod* pod = obj ? api::As<api::Pod>(*obj) : nullptr;
  if (pod == nullptr || node_by_name_.find(pod->spec.nodeName) == node_by_name_.end()) return;
  std::string key = PodKey(pod->metadata);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(key);
  if (it != pods_.end() && it->second.uid == pod->metadata.uid) ForgetLocked(key);
}

void NodeSimulator::Impl::Recheck(std::string_view ns, std::string_view name) {
  std::string key = std::string(ns) + "/" + std::string(name);
  Time now = clock_.Now();
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return;
  auto it = pods_.find(key);
  if (it == pods_.end()) return;
  SimPod& p = it->second;
  if (p.stage != PodStage::kPending || p.busy) return;
  if (!p.retrying) {
    p.recheck = true;  // being decided now (or about to be): see Admit
    return;
  }
  p.retrying = false;  // as ReconcileLocked does when the pod itself changed
  SchedulePodLocked(key, p, now);
}

// --- Impl: introspection --------------------------------------------------------------------

NodeSimulator::Stats NodeSimulator::Impl::GetStats() const {
  std::lock_guard<std::mutex> lock(mu_);
  NodeSimulator::Stats s = stats_;
  s.writes_started = pipeline_.GetCounts().started;
  return s;
}

std::optional<Time> NodeSimulator::Impl::NextTimer() const {
  std::lock_guard<std::mutex> lock(mu_);
  return timers_.NextDue();
}

void NodeSimulator::Impl::Log(const std::string& message) const {
  if (options_.log) options_.log(message);
}

void NodeSimulator::Impl::RecordErrorLocked(const Status& status, const std::string& what) {
  if (status.code() == StatusCode::kConflict) {
    ++stats_.write_conflicts;
    return;
  }
  ++stats_.write_errors;
  stats_.last_error = what + ": " + status.ToString();
}

void NodeSimulator::Impl::WriteObject(WriteKind kind, const api::ResourceInfo& res,
                                      std::unique_ptr<api::Object> obj,
                                      std::function<void(Result<api::ObjectPtr>)> on_done) {
  // Write's start function must be copyable; the object travels in a shared box.
  auto box = std::make_shared<std::unique_ptr<api::Object>>(std::move(obj));
  Write<api::ObjectPtr>(
      [this, kind, &res, box](client::Callback<api::ObjectPtr> cb) {
        switch (kind) {
          case WriteKind::kCreate:
            return client_.CreateAsync(res, std::move(*box), std::move(cb));
          case WriteKind::kUpdate:
            return client_.UpdateAsync(res, std::move(*box), std::move(cb));
          case WriteKind::kUpdateStatus:
            return client_.UpdateStatusAsync(res, std::move(*box), std::move(cb));
        }
      },
      std::move(on_done));
}

}  // namespace allot::node
