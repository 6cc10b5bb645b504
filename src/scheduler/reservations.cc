// The scheduler's side of reservations (docs/reservations.md): the reservation informer's
// events become reserve pods in the queue (a reservation to place) or ReservedSlots in the
// cache (an Available reservation), and a reserve pod's failures are reported on its
// Reservation. The Reservation plugin (scheduler/plugins/reservation/) does the rest.
#include "api/koordinator/reservation.h"
#include "api/machinery/resources.h"
#include "scheduler/framework/reservation_info.h"
#include "scheduler/plugins/names.h"
#include "scheduler/scheduler.h"

namespace allot::scheduler {

void Scheduler::AddReservationHandlers() {
  bool wanted = false;
  for (const auto& [name, fw] : frameworks_)
    wanted |= fw->FindPlugin(names::kReservation) != nullptr;
  if (!wanted) return;
  informers_->For(api::ResourceFor<api::Reservation>())
      .AddHandler(
          {.on_add = [this](const api::ObjectPtr& o) { OnReservationChange(nullptr, o); },
           .on_update = [this](const api::ObjectPtr& o,
                               const api::ObjectPtr& n) { OnReservationChange(o, n); },
           .on_delete = [this](const api::ObjectPtr& o) { OnReservationChange(o, nullptr); }});
}

void Scheduler::OnReservationChange(const api::ObjectPtr& old_obj, const api::ObjectPtr& new_obj) {
  auto old_r = api::AsShared<api::Reservation>(old_obj);
  auto r = api::AsShared<api::Reservation>(new_obj);
  if (!r && !old_r) return;
  ReservationInfoPtr info = r ? ReservationInfo::Make(r) : nullptr;
  ReservationInfoPtr old_info = old_r ? ReservationInfo::Make(old_r) : nullptr;
  const bool was_available = old_info && old_info->IsPlaced();
  const bool available = info && info->IsPlaced();
  const bool pending = info && info->NeedsScheduling();
  const ClusterEvent event{EventResource::kReservation,
                           !old_r ? kAdd : (!r ? kDelete : kUpdateOther)};
  if (old_info && old_info->NeedsScheduling() && !pending) {
    queue_->Delete(*MakeReservePod(*old_r));  // placed, finished or gone: no longer queued
  }
  {
    std::lock_guard<std::mutex> lock(waiting_mu_);
    if (info && info->IsWaiting()) {
      waiting_[info->uid] = info;
    } else if (old_info) {
      waiting_.erase(old_info->uid);
    }
  }
  if (available) {
    cache_->AddReservation(info);
  } else if (was_available) {
    // Failed, Succeeded, deleted, or un-placed: what it still held goes back (owners stay
    // counted as plain pods). For the pods waiting for room that is an assigned pod leaving.
    cache_->RemoveReservation(old_info->uid);
    auto gone = std::make_shared<api::Pod>(*MakeReservePod(*old_r));
    gone->spec.nodeName = old_info->node;
    queue_->OnEvent(kEventAssignedPodDelete, gone, nullptr);
  }
  // A reservation this scheduler has assumed on a node is being placed: an update that still
  // shows it pending (a status write racing the placement) must not queue it a second time,
  // which would schedule it again (and nominate it again) once its first cycle was done.
  if (pending && !cache_->IsAssumed(info->uid)) {
    PodInfoPtr reserve = MakeReservePodInfo(info);
    if (Responsible(*reserve->pod)) {
      if (old_info && old_info->NeedsScheduling()) {
        queue_->Update(MakeReservePod(*old_r), std::move(reserve));
      } else {
        queue_->Add(std::move(reserve));
      }
    }
  }
  queue_->OnEvent(event, old_obj, new_obj);
  RecordReservationMetrics(old_r.get(), r.get());
}

void Scheduler::RecordReservationMetrics(const api::Reservation* old_r, const api::Reservation* r) {
  metrics::GaugeFamily& phases = metrics_->reservation_status_phase;
  metrics::GaugeFamily& resources = metrics_->reservation_resource;
  static constexpr std::string_view kPhases[] = {
      api::kReservationPending, api::kReservationAvailable, api::kReservationWaiting,
      api::kReservationSucceeded, api::kReservationFailed};
  const std::string& name = r ? r->metadata.name : old_r->metadata.name;
  // The series of resources it no longer lists (all of them once it is gone) go.
  if (old_r) {
    for (const auto& [res, q] : old_r->status.allocatable) {
      if (r && r->status.allocatable.count(res)) continue;
      for (std::string_view type : {"allocatable", "allocated"}) {
        for (std::string_view unit : {"core", "Gi", "raw"})
          resources.Remove({type, name, res, unit});
      }
      resources.Remove({"utilization", name, res, "ratio"});
    }
  }
  if (!r) {
    for (std::string_view p : kPhases) phases.Remove({name, p});
    return;
  }
  const std::string phase =
      r->status.phase.empty() ? std::string(api::kReservationPending) : r->status.phase;
  for (std::string_view p : kPhases) phases.With({name, p}).Set(p == phase ? 1 : 0);
  // cpu in cores, memory and storage in Gi, the rest as counted.
  auto value = [](const std::string& resource,
                  const api::Quantity& q) -> std::pair<double, const char*> {
    if (resource == "cpu") return {static_cast<double>(q.MilliValue()) / 1000.0, "core"};
    if (resource == "memory" || resource == "ephemeral-storage" ||
        resource.starts_with("hugepages-")) {
      return {static_cast<double>(q.Value()) / (1024.0 * 1024.0 * 1024.0), "Gi"};
    }
    return {static_cast<double>(q.Value()), "raw"};
  };
  for (const auto& [res, q] : r->status.allocatable) {
    auto [alloc, unit] = value(res, q);
    resources.With({"allocatable", name, res, unit}).Set(alloc);
    double used = 0;
    if (auto it = r->status.allocated.find(res); it != r->status.allocated.end()) {
      used = value(res, it->second).first;
    }
    resources.With({"allocated", name, res, unit}).Set(used);
    resources.With({"utilization", name, res, "ratio"}).Set(alloc > 0 ? used / alloc : 0);
  }
}

void Scheduler::CheckWaitingReservations() {
  std::vector<ReservationInfoPtr> ready;
  {
    std::lock_guard<std::mutex> lock(waiting_mu_);
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      const ReservationInfo& r = *it->second;
      std::optional<NodeInfo> n = cache_->GetNodeInfo(r.node);
      // The reservation is counted on its node already: it fits once the node is not
      // over-committed on anything it reserves.
      bool covered = n && n->node();
      if (covered) {
        const Resource& used = n->requested();
        const Resource& alloc = n->allocatable();
        auto ok = [](int64_t want, int64_t u, int64_t a) { return want == 0 || u <= a; };
        covered =
            ok(r.allocatable.milli_cpu, used.milli_cpu, alloc.milli_cpu) &&
            ok(r.allocatable.memory, used.memory, alloc.memory) &&
            ok(r.allocatable.ephemeral_storage, used.ephemeral_storage, alloc.ephemeral_storage);
        for (const auto& [name, v] : r.allocatable.scalars) {
          covered = covered && ok(v, used.Scalar(name), alloc.Scalar(name));
        }
      }
      if (!covered) {
        ++it;
        continue;
      }
      ready.push_back(it->second);
      it = waiting_.erase(it);  // the informer's next update says whether it still waits
    }
  }
  for (const ReservationInfoPtr& info : ready) {
    auto r = std::make_unique<api::Reservation>(*info->object);
    Time now = clock_->Now();
    r->status.phase = std::string(api::kReservationAvailable);
    api::SetReservationCondition(r->status, api::kReservationConditionReady, "True",
                                 api::kReasonReservationAvailable, "", now);
    events_->Record(*info->object, client::kEventTypeNormal, "Available", "Reserving",
                    "node " + info->node + " now has room for what the reservation holds");
    // With the resourceVersion seen: if the reservation changed meanwhile the write fails, and
    // the informer's newer object (still Waiting, or not) decides what happens next.
    client_.UpdateStatusAsync(api::ResourceFor<api::Reservation>(), std::move(r),
                              [](Result<api::ObjectPtr>) {});
  }
}

void Scheduler::ReportReservationFailure(const PodInfo& reserve_pod, const std::string& reason,
                                         const std::string& message) {
  const api::Reservation& current = *reserve_pod.reservation()->object;
  events_->Record(current, client::kEventTypeWarning, "FailedScheduling", "Scheduling",
                  message.size() > 1024 ? message.substr(0, 1024) : message);
  const api::ReservationCondition* cur =
      api::FindReservationCondition(current.status, api::kReservationConditionScheduled);
  if (cur && cur->status == "False" && cur->reason == reason && cur->message == message) {
    return;  // nothing new to say
  }
  auto r = std::make_unique<api::Reservation>(current);
  if (r->status.phase.empty()) r->status.phase = std::string(api::kReservationPending);
  api::SetReservationCondition(r->status, api::kReservationConditionScheduled, "False", reason,
                               message, clock_->Now());
  // With the resourceVersion the scheduler saw: a reservation that changed meanwhile is not
  // overwritten (its next attempt reports again).
  client_.UpdateStatusAsync(api::ResourceFor<api::Reservation>(), std::move(r),
                            [](Result<api::ObjectPtr>) {});
}

}  // namespace allot::scheduler
