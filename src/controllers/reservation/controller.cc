#include "controllers/reservation/controller.h"

#include <algorithm>

#include "api/core/pod.h"
#include "api/core/pod_requests.h"
#include "api/core/pod_state.h"
#include "api/core/types.h"
#include "api/koordinator/annotations.h"
#include "api/machinery/resources.h"
#include "client/retry.h"
#include "common/log.h"
#include "controllers/reservation/rules.h"
#include "controllers/sync_worker.h"

namespace allot::controllers {

namespace {

constexpr std::string_view kReservationKeyPrefix = "r:";
constexpr std::string_view kGoneKeyPrefix = "gone:";

// Index names are prefixed: the informers are shared with other components.
const std::string kPodReservationIndex = "allot.reservation-controller/pod-reservation-uid";
const std::string kReservationUidIndex = "allot.reservation-controller/reservation-uid";
const std::string kReservationNodeIndex = "allot.reservation-controller/reservation-node";

std::optional<api::ReservationAllocated> AllocatedTo(const api::Object& pod) {
  auto it = pod.metadata.annotations.find(std::string(api::kAnnotationReservationAllocated));
  if (it == pod.metadata.annotations.end()) return std::nullopt;
  return api::ParseReservationAllocated(it->second);
}

std::vector<std::string> PodReservationUids(const api::Object& obj) {
  if (auto a = AllocatedTo(obj)) return {a->uid};
  return {};
}

std::vector<std::string> ReservationUid(const api::Object& obj) { return {obj.metadata.uid}; }

std::vector<std::string> ReservationNode(const api::Object& obj) {
  const auto* r = api::As<api::Reservation>(obj);
  if (!r || r->status.nodeName.empty()) return {};
  return {r->status.nodeName};
}

bool PodActive(const api::Pod& pod) {
  return !pod.metadata.rare->deletionTimestamp && !api::IsPodTerminal(pod);
}

std::chrono::steady_clock::duration Until(Time at, Time now) {
  return std::chrono::microseconds(std::max<int64_t>(0, at.unix_micros - now.unix_micros));
}

}  // namespace

ReservationController::ReservationController(client::Client& client,
                                             client::InformerFactory& informers, Options options)
    : QueueController(client, informers,
                      ConfigOf("reservation", kReservationEventComponent, options)),
      retention_(options.retention) {}

Status ReservationController::Setup() {
  reservations_ = &Watch<api::Reservation>();
  pods_ = &Watch<api::Pod>();
  nodes_ = &Watch<api::Node>();
  pods_->AddIndex(kPodReservationIndex, PodReservationUids);
  reservations_->AddIndex(kReservationUidIndex, ReservationUid);
  reservations_->AddIndex(kReservationNodeIndex, ReservationNode);
  using Self = ReservationController;
  client::EventHandler on_reservation = EnqueueOnChange(
      [](const api::Object& o) { return std::string(kReservationKeyPrefix) + o.metadata.name; });
  on_reservation.on_delete = Guarded<Self>([](Self& c, const api::ObjectPtr& o) {
    c.queue().Add(std::string(kGoneKeyPrefix) + o->metadata.uid);
  });
  reservations_->AddHandler(std::move(on_reservation));
  pods_->AddHandler({
      .on_add = Guarded<Self>([](Self& c, const api::ObjectPtr& o) { c.OnPod(*o); }),
      .on_update =
          Guarded<Self>([](Self& c, const api::ObjectPtr& old_obj, const api::ObjectPtr& o) {
            c.OnPod(*old_obj);  // the annotation may have moved to another reservation
            c.OnPod(*o);
          }),
      .on_delete = Guarded<Self>([](Self& c, const api::ObjectPtr& o) { c.OnPod(*o); }),
  });
  nodes_->AddHandler({
      .on_delete = Guarded<Self>([](Self& c, const api::ObjectPtr& o) {
        for (const api::ObjectPtr& r :
             c.reservations_->ByIndex(kReservationNodeIndex, o->metadata.name)) {
          c.queue().Add(std::string(kReservationKeyPrefix) + r->metadata.name);
        }
      }),
  });
  return Status::Ok();
}

void ReservationController::OnPod(const api::Object& pod) {
  std::optional<api::ReservationAllocated> a = AllocatedTo(pod);
  if (!a) return;
  for (const api::ObjectPtr& r : reservations_->ByIndex(kReservationUidIndex, a->uid)) {
    queue().Add(std::string(kReservationKeyPrefix) + r->metadata.name);
  }
}

Status ReservationController::Sync(const std::string& key) {
  if (key.starts_with(kGoneKeyPrefix)) return CleanOwners(key.substr(kGoneKeyPrefix.size()));
  return SyncReservation(key.substr(kReservationKeyPrefix.size()));
}

Result<bool> ReservationController::NodeExists(const std::string& node) {
  if (nodes_->Get("", node)) return true;
  // The informer may not have the node yet (the scheduler placed the reservation from its own
  // cache): only the server's answer says it is gone.
  Result<api::ObjectPtr> live = client().Get(api::ResourceFor<api::Node>(), "", node);
  if (live.ok()) return true;
  if (live.status().code() == StatusCode::kNotFound) return false;
  return live.status();
}

Status ReservationController::SyncReservation(const std::string& name) {
  api::ObjectPtr obj = reservations_->Get("", name);
  const auto* r = obj ? api::As<api::Reservation>(*obj) : nullptr;
  if (!r || r->metadata.rare->deletionTimestamp) return Status::Ok();
  const Time now = clock().Now();
  const std::string key = std::string(kReservationKeyPrefix) + name;

  if (std::optional<Time> at = ReservationCollectionTime(*r, retention_)) {
    if (*at > now) {
      queue().AddAfter(key, Until(*at, now));
      return Status::Ok();
    }
    api::DeleteOptions opts;
    opts.precondition_uid = r->metadata.uid;
    Result<api::DeleteResult> d =
        client().Delete(api::ResourceFor<api::Reservation>(), "", name, opts);
    if (!d.ok() && d.status().code() != StatusCode::kNotFound &&
        d.status().code() != StatusCode::kConflict) {
      return d.status();
    }
    return Status::Ok();
  }

  ReservationFacts facts{.now = now};
  if (!r->status.nodeName.empty()) {
    ALLOT_ASSIGN_OR_RETURN(facts.node_exists, NodeExists(r->status.nodeName));
  }
  for (const api::ObjectPtr& o : pods_->ByIndex(kPodReservationIndex, r->metadata.uid)) {
    const auto* pod = api::As<api::Pod>(*o);
    if (!pod) continue;
    facts.owners.push_back({pod->metadata.namespace_, pod->metadata.name, pod->metadata.uid,
                            pod->spec.nodeName, api::PodRequests(*pod), PodActive(*pod)});
  }
  if (std::optional<Time> at = ReservationExpiry(*r); at && *at > now) {
    queue().AddAfter(key, Until(*at, now));
  }
  if (!NextReservationStatus(*r, facts)) return Status::Ok();

  const std::string uid = r->metadata.uid;
  std::string before, after;
  Result<api::ObjectPtr> written = client::UpdateWithRetry(
      client(), api::ResourceFor<api::Reservation>(), "", name, client::Write::kStatus,
      [&](const api::Object& current) -> Result<client::Desired> {
        const auto* cur = api::As<api::Reservation>(current);
        if (!cur || cur->metadata.uid != uid) return client::Desired();
        std::optional<api::ReservationStatus> next = NextReservationStatus(*cur, facts);
        if (!next) return client::Desired();
        before = cur->status.phase;
        after = next->phase;
        auto copy = std::make_unique<api::Reservation>(*cur);
        copy->status = std::move(*next);
        return client::Desired(std::move(copy));
      },
      obj);
  if (!written.ok()) {
    return written.status().code() == StatusCode::kNotFound ? Status::Ok() : written.status();
  }
  if (before != after) {
    const auto* w = api::As<api::Reservation>(**written);
    const api::ReservationCondition* ready = nullptr;
    for (const auto& c : w->status.conditions) {
      if (c.type == api::kReservationConditionReady) ready = &c;
    }
    const bool failed = after == api::kReservationFailed;
    events().Record(*w, failed ? client::kEventTypeWarning : client::kEventTypeNormal,
                    ready ? ready->reason : after, "", ready ? ready->message : after);
  }
  return Status::Ok();
}

Status ReservationController::CleanOwners(const std::string& reservation_uid) {
  for (const api::ObjectPtr& o : pods_->ByIndex(kPodReservationIndex, reservation_uid)) {
    Result<api::ObjectPtr> w = client::UpdateWithRetry(
        client(), api::ResourceFor<api::Pod>(), o->metadata.namespace_, o->metadata.name,
        client::Write::kUpdate,
        [&](const api::Object& current) -> Result<client::Desired> {
          std::optional<api::ReservationAllocated> a = AllocatedTo(current);
          if (current.metadata.uid != o->metadata.uid || !a || a->uid != reservation_uid) {
            return client::Desired();
          }
          auto copy = current.Clone();
          copy->metadata.annotations.erase(std::string(api::kAnnotationReservationAllocated));
          return client::Desired(std::move(copy));
        },
        o);
    if (!w.ok() && w.status().code() != StatusCode::kNotFound) return w.status();
  }
  return Status::Ok();
}

}  // namespace allot::controllers
