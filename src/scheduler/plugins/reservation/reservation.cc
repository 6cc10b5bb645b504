#include "scheduler/plugins/reservation/reservation.h"

#include <algorithm>
#include <limits>

#include "api/koordinator/annotations.h"
#include "api/machinery/resources.h"
#include "client/client.h"
#include "client/informer_factory.h"
#include "common/time.h"
#include "scheduler/framework/reservation_info.h"
#include "scheduler/plugins/reservation/matching.h"

namespace allot::scheduler {

namespace {

using reservation::FitsNodeAlone;
using reservation::FitsReservation;
using reservation::IndexedReservationPtr;
using reservation::PodReservationPrefs;

// A matched reservation on one node, as the snapshot had it when the cycle began.
struct Candidate {
  ReservedSlot slot;    // a copy: Remaining() and allocated as counted
  bool shares = false;  // the pod requests something it holds
};

struct NodeMatches {
  std::string node;
  std::vector<Candidate> candidates;
  Resource held;       // what the candidates hold, released in the pod's view of the node
  int nominated = -1;  // index into candidates (PreScore or Reserve)
  bool lowest_order = false;
};

struct CycleData {
  bool reserve_pod = false;
  bool waiting = false;  // a preAllocation reserve pod whose node cannot hold it yet
  bool has_affinity = false;
  std::vector<NodeMatches> nodes;  // sorted by node name
  std::string chosen;              // Reserve: the reservation uid the pod draws from
  const NodeMatches* For(std::string_view node) const {
    auto it = std::lower_bound(nodes.begin(), nodes.end(), node,
                               [](const NodeMatches& m, std::string_view n) { return m.node < n; });
    return it != nodes.end() && it->node == node ? &*it : nullptr;
  }
  NodeMatches* For(std::string_view node) {
    return const_cast<NodeMatches*>(static_cast<const CycleData*>(this)->For(node));
  }
};

const StateKey<CycleData> kStateKey("PreFilterReservation");

Resource HeldByOthers(const NodeMatches& m, size_t i) {
  Resource r = m.held;
  r.Sub(m.candidates[i].slot.Held());
  return r;
}

// The candidates on `m`'s node that the pod fits (`node`: its view of the node).
bool CandidateFits(const NodeMatches& m, size_t i, const PodInfo& pod, const NodeInfo& node,
                   bool has_affinity, std::vector<std::string>* reasons) {
  const Candidate& c = m.candidates[i];
  if (!c.shares && !has_affinity) return false;
  return FitsReservation(pod.requests, node, c.slot, HeldByOthers(m, i), reasons);
}

// Koordinator's nomination: the lowest non-zero reservation-order among the fitting
// candidates, else the highest MostAllocated score. -1 when none fits.
int Nominate(const NodeMatches& m, const PodInfo& pod, const NodeInfo& node, bool has_affinity) {
  int best = -1;
  int64_t best_order = std::numeric_limits<int64_t>::max();
  int64_t best_score = -1;
  for (size_t i = 0; i < m.candidates.size(); ++i) {
    if (!CandidateFits(m, i, pod, node, has_affinity, nullptr)) continue;
    const ReservedSlot& s = m.candidates[i].slot;
    int64_t order = s.info->order > 0 ? s.info->order : std::numeric_limits<int64_t>::max();
    int64_t score = reservation::MostAllocatedScore(pod.requests, s);
    if (order < best_order || (order == best_order && score > best_score)) {
      best = static_cast<int>(i);
      best_order = order;
      best_score = score;
    }
  }
  return best;
}

}  // namespace

Reservation::Reservation(Handle& handle) : handle_(handle) {
  client::InformerFactory* f = handle_.informers();
  if (!f) return;
  // Registered before the scheduler's own reservation handlers, so the index is current when
  // the pods a change may help are requeued.
  f->For(api::ResourceFor<api::Reservation>())
      .AddHandler({.on_add = [this](const api::ObjectPtr& o) { OnReservation(o); },
                   .on_update = [this](const api::ObjectPtr&,
                                       const api::ObjectPtr& n) { OnReservation(n); },
                   .on_delete = [this](const api::ObjectPtr& o) { OnReservationDeleted(o); }});
}

void Reservation::OnReservation(const api::ObjectPtr& obj) {
  auto r = api::AsShared<api::Reservation>(obj);
  if (!r) return;
  ReservationInfoPtr info = ReservationInfo::Make(r);
  if (info->IsAvailable()) {
    index_.Set(std::move(info));
  } else {
    index_.Remove(r->metadata.uid);
  }
}

void Reservation::OnReservationDeleted(const api::ObjectPtr& obj) {
  if (obj) index_.Remove(obj->metadata.uid);
}

// --- PreFilter / Filter -------------------------------------------------------------------------

Status Reservation::PreFilter(CycleState& state, const PodInfo& pod, PreFilterResult& result) {
  static const std::string kAffinityKey(api::kAnnotationReservationAffinity);
  if (pod.IsReservePod()) {
    CycleData d;
    d.reserve_pod = true;
    state.Write(kStateKey, std::move(d));
    if (!pod.reservation()->pinned_node.empty()) {
      result.node_names = std::vector<std::string>{pod.reservation()->pinned_node};
    }
    return Status::Success();
  }
  if (index_.size() == 0 && !pod.pod->metadata.annotations.count(kAffinityKey)) {
    return Status::Skip();
  }
  auto prefs = PodReservationPrefs::Parse(*pod.pod);
  if (!prefs.ok()) {
    return Status(Code::kUnschedulableAndUnresolvable, prefs.status().message());
  }
  if (prefs->ignored) return Status::Skip();
  std::vector<IndexedReservationPtr> found;
  index_.Candidates(*pod.pod, found);
  CycleData d;
  d.has_affinity = prefs->has_affinity();
  const Snapshot& snap = handle_.snapshot();
  for (const IndexedReservationPtr& r : found) {
    if (!r->owners.Matches(*pod.pod)) continue;
    const NodeInfo* node = snap.Get(r->info->node);
    const ReservedSlot* slot = node ? node->FindReservation(r->info->uid) : nullptr;
    if (!slot) continue;  // not counted in this cycle's snapshot (yet, or any more)
    if (!slot->info->IsAvailable()) continue;                     // Waiting: no owner uses it yet
    if (slot->info->allocate_once && slot->owners > 0) continue;  // used once already
    const api::StringMap* labels = node->node() ? &node->node()->metadata.labels : nullptr;
    if (!prefs->Admits(*slot->info, labels, pod.requests)) continue;
    NodeMatches* m = d.For(node->name());
    if (!m) {
      auto it =
          std::lower_bound(d.nodes.begin(), d.nodes.end(), node->name(),
                           [](const NodeMatches& x, const std::string& n) { return x.node < n; });
      m = &*d.nodes.insert(it, NodeMatches{.node = node->name()});
    }
    // It holds something the pod asks for: resources, or devices for a pod with claims.
    Candidate c{*slot, reservation::SharesResource(pod.requests, slot->info->allocatable) ||
                           (slot->info->holds_devices && !pod.pod->spec.resourceClaims.empty())};
    m->held.Add(c.slot.Held());
    m->candidates.push_back(std::move(c));
  }
  if (d.nodes.empty()) {
    if (d.has_affinity) {
      return Status(Code::kUnschedulableAndUnresolvable,
                    std::string(kErrReasonReservationAffinity));
    }
    return Status::Skip();
  }
  // The pod's view of each node holding a match: those reservations' capacity released. The
  // devices they hold are released by the DynamicResources plugin (kOwnerReservationsKey).
  std::vector<std::string> names;
  OwnerReservations owned;
  for (const NodeMatches& m : d.nodes) {
    OwnerReservations::OnNode* on = nullptr;
    for (const Candidate& c : m.candidates) {
      if (!c.slot.info->holds_devices) continue;
      if (!on) on = &owned.nodes.emplace_back(OwnerReservations::OnNode{.node = m.node});
      on->uids.push_back(c.slot.info->uid);
      on->restricted |= c.slot.info->policy == AllocatePolicy::kRestricted;
    }
    const NodeInfo* original = snap.Get(m.node);
    auto view = std::make_shared<NodeInfo>(*original);
    for (const Candidate& c : m.candidates) view->ReleaseReservation(c.slot.info->uid);
    state.SetNodeView(original, std::move(view));
    names.push_back(m.node);
  }
  if (d.has_affinity) result.node_names = std::move(names);
  if (!owned.nodes.empty()) state.Write(kOwnerReservationsKey, std::move(owned));
  state.Write(kStateKey, std::move(d));
  return Status::Success();
}

Status Reservation::Filter(const CycleState& state, const PodInfo& pod,
                           const NodeInfo& node) const {
  const CycleData* d = state.Read(kStateKey);
  if (!d) return Status::Success();
  if (d->reserve_pod) {
    const ReservationInfo& r = *pod.reservation();
    if (!r.pinned_node.empty() && r.pinned_node != node.name()) {
      return Status(Code::kUnschedulableAndUnresolvable,
                    std::string(kErrReasonReservationNodeName));
    }
    bool mine_default = r.policy == AllocatePolicy::kDefault;
    for (const ReservedSlot& s : node.reservations()) {
      if ((s.info->policy == AllocatePolicy::kDefault) != mine_default) {
        return Status(Code::kUnschedulable, std::string(kErrReasonReservationPolicyConflict));
      }
    }
    return Status::Success();
  }
  const NodeMatches* m = d->For(node.name());
  if (!m) {
    if (d->has_affinity) {
      return Status(Code::kUnschedulableAndUnresolvable,
                    std::string(kErrReasonReservationAffinity));
    }
    return Status::Success();
  }
  std::vector<std::string> reasons;
  for (size_t i = 0; i < m->candidates.size(); ++i) {
    if (CandidateFits(*m, i, pod, node, d->has_affinity, &reasons)) return Status::Success();
  }
  if (!d->has_affinity) {
    // No reservation fits: the node alone, every reservation on it still held.
    reasons.clear();
    if (FitsNodeAlone(pod.requests, node, m->held, &reasons)) return Status::Success();
  }
  std::sort(reasons.begin(), reasons.end());
  reasons.erase(std::unique(reasons.begin(), reasons.end()), reasons.end());
  if (reasons.empty()) reasons.push_back("Reservation(s) Insufficient resources");
  return Status(Code::kUnschedulable, std::move(reasons));
}

// --- PreScore / Score ---------------------------------------------------------------------------

Status Reservation::PreScore(CycleState& state, const PodInfo& pod,
                             std::span<const NodeInfo* const> feasible) {
  CycleData* d = state.Mutable(kStateKey);
  if (!d || d->reserve_pod) return Status::Skip();
  int64_t lowest = std::numeric_limits<int64_t>::max();
  for (const NodeInfo* n : feasible) {
    NodeMatches* m = d->For(n->name());
    if (!m) continue;
    m->nominated = Nominate(*m, pod, *n, d->has_affinity);
    if (m->nominated < 0) continue;
    int64_t order = m->candidates[static_cast<size_t>(m->nominated)].slot.info->order;
    if (order > 0) lowest = std::min(lowest, order);
  }
  for (NodeMatches& m : d->nodes) {
    m.lowest_order = m.nominated >= 0 &&
                     m.candidates[static_cast<size_t>(m.nominated)].slot.info->order == lowest;
  }
  return Status::Success();
}

Status Reservation::Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                          int64_t& score) const {
  score = 0;
  const CycleData* d = state.Read(kStateKey);
  if (!d || d->reserve_pod) return Status::Success();
  const NodeMatches* m = d->For(node.name());
  if (!m || m->nominated < 0) return Status::Success();
  // The node holding the lowest order wins outright (10x the best plain score).
  score = m->lowest_order
              ? 10 * kMaxNodeScore
              : reservation::MostAllocatedScore(
                    pod.requests, m->candidates[static_cast<size_t>(m->nominated)].slot);
  return Status::Success();
}

Status Reservation::NormalizeScore(const CycleState&, const PodInfo&,
                                   std::span<NodeScore> scores) const {
  DefaultNormalizeScore(kMaxNodeScore, false, scores);
  return Status::Success();
}

// --- Reserve / Unreserve ------------------------------------------------------------------------

Status Reservation::Reserve(CycleState& state, const PodInfo& pod, const std::string& node) {
  CycleData* d = state.Mutable(kStateKey);
  if (!d) return Status::Success();
  if (d->reserve_pod) {
    // preAllocation: Available only if the node's free capacity covers it now (the snapshot is
    // from before this reserve pod was assumed), else Waiting.
    const NodeInfo* n = handle_.snapshot().Get(node);
    d->waiting =
        pod.reservation()->pre_allocation && (!n || !FitsNodeAlone(pod.requests, *n, Resource{}));
    return Status::Success();
  }
  NodeMatches* m = d->For(node);
  if (m && m->nominated < 0) {
    // PreScore did not run (one feasible node): nominate now, on the pod's view of the node.
    const NodeInfo* original = handle_.snapshot().Get(node);
    if (original) m->nominated = Nominate(*m, pod, *state.NodeView(original), d->has_affinity);
  }
  if (!m || m->nominated < 0) {
    if (d->has_affinity) {
      return Status(Code::kUnschedulable, "no reservation on the node fits the pod");
    }
    return Status::Success();  // the pod uses the node's free capacity
  }
  const ReservationInfo& r = *m->candidates[static_cast<size_t>(m->nominated)].slot.info;
  if (ReservationLedger* ledger = handle_.reservation_ledger()) {
    allot::Status st = ledger->AssignToReservation(pod.uid(), r.uid);
    if (!st.ok()) {
      // The reservation left the cache since the snapshot (expired, deleted): try again.
      return Status(Code::kUnschedulable, "reservation " + r.name + " is no longer available");
    }
  }
  d->chosen = r.uid;
  BindingAnnotations ann;
  if (const BindingAnnotations* old = state.Read(kBindingAnnotationsKey)) ann = *old;
  ann.items.emplace_back(std::string(api::kAnnotationReservationAllocated),
                         api::FormatReservationAllocated({r.name, r.uid}));
  state.Write(kBindingAnnotationsKey, std::move(ann));
  return Status::Success();
}

void Reservation::Unreserve(CycleState& state, const PodInfo& pod, const std::string&) {
  CycleData* d = state.Mutable(kStateKey);
  if (!d || d->chosen.empty()) return;
  if (ReservationLedger* ledger = handle_.reservation_ledger()) {
    ledger->UnassignFromReservation(pod.uid());
  }
  d->chosen.clear();
  if (BindingAnnotations* ann = state.Mutable(kBindingAnnotationsKey)) {
    std::erase_if(ann->items,
                  [](const auto& kv) { return kv.first == api::kAnnotationReservationAllocated; });
  }
}

// --- Bind (reserve pods) ------------------------------------------------------------------------

void Reservation::Bind(CycleState& state, const PodInfo& pod, const std::string& node,
                       BindCallback done) {
  if (!pod.IsReservePod()) {
    done(Status::Skip());
    return;
  }
  client::Client* c = handle_.client();
  if (!c) {
    done(Status::Error("Reservation has no API client"));
    return;
  }
  const api::Reservation& current = *pod.reservation()->object;
  if (current.status.phase == api::kReservationFailed ||
      current.status.phase == api::kReservationSucceeded) {
    done(Status::Error("reservation is not active"));
    return;
  }
  // The whole object with its resourceVersion: a reservation changed meanwhile (expired,
  // deleted) makes this a 409 and the reserve pod is retried with the new object.
  auto r = std::make_unique<api::Reservation>(current);
  Time now = handle_.clock().Now();
  api::Pod templ;
  if (r->spec.template_) templ.spec = r->spec.template_->spec;
  const CycleData* d = state.Read(kStateKey);
  const bool waiting = d && d->waiting;
  r->status.phase = std::string(waiting ? api::kReservationWaiting : api::kReservationAvailable);
  r->status.nodeName = node;
  r->status.allocatable = api::PodRequests(templ, false);
  r->status.allocated.clear();
  r->status.currentOwners.clear();
  const ReservedDevices* devices = state.Read(kReservedDevicesKey);
  r->status.allocatedDevices = devices ? devices->devices : std::vector<api::ReservationDevice>{};
  api::SetReservationCondition(r->status, api::kReservationConditionScheduled, "True",
                               api::kReasonReservationScheduled, "", now);
  api::SetReservationCondition(
      r->status, api::kReservationConditionReady, waiting ? "False" : "True",
      waiting ? api::kReservationWaiting : api::kReasonReservationAvailable,
      waiting ? "waiting for node " + node + " to free what it reserves" : "", now);
  c->UpdateStatusAsync(api::ResourceFor<api::Reservation>(), std::move(r),
                       [done = std::move(done)](Result<api::ObjectPtr> res) {
                         done(res.ok() ? Status::Success() : Status::FromError(res.status()));
                       });
}

std::vector<ClusterEventWithHint> Reservation::EventsToRegister() const {
  // A pod this plugin rejected waits for a reservation to appear or change (placed, resized,
  // released by an owner), or an owner to leave one.
  return {{.event = {EventResource::kReservation, kAll}},
          {.event = {EventResource::kAssignedPod, kDelete}}};
}

}  // namespace allot::scheduler
