#include "scheduler/plugins/dynamicresources/dynamic_resources.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "api/core/types.h"
#include "api/koordinator/reservation.h"
#include "api/machinery/owners.h"
#include "api/machinery/resources.h"
#include "api/machinery/selector.h"
#include "api/resource/pod_claims.h"
#include "api/resource/types.h"
#include "client/client.h"
#include "client/informer.h"
#include "client/informer_factory.h"
#include "client/retry.h"
#include "common/go_duration.h"
#include "common/time.h"
#include "dra/allocator.h"
#include "rapidjson/document.h"
#include "scheduler/framework/node_ranking.h"
#include "scheduler/framework/reservation_info.h"
#include "scheduler/plugins/dynamicresources/state.h"

namespace allot::scheduler {

using namespace dra_plugin;  // NOLINT: the plugin's own internals

namespace {

// The name of the claim behind pod.spec.resourceClaims[i]: the claim it names, or the one the
// resourceclaim controller generated (pod.status.resourceClaimStatuses); "" when the controller
// decided no claim is needed; null when it has not created it yet. `from_template` says which.
const std::string* ClaimName(const api::Pod& pod, const api::PodResourceClaim& ref,
                             bool& from_template) {
  static const std::string kNone;
  from_template = false;
  if (ref.resourceClaimName) return &*ref.resourceClaimName;
  from_template = true;
  for (const auto& s : pod.status.resourceClaimStatuses) {
    if (s.name == ref.name) return s.resourceClaimName ? &*s.resourceClaimName : &kNone;
  }
  return nullptr;
}

// The keys ("namespace/name") of the claims the pod references: by name, or generated from a
// template and recorded in its status. A claim generated for a template the pod still waits
// on is not listed: the pod itself is updated when the controller records the claim, and that
// update requeues it.
void PodClaimKeys(const api::Pod& pod, std::vector<std::string>& out) {
  auto add = [&](const std::string& name) { out.push_back(pod.metadata.namespace_ + "/" + name); };
  for (const auto& ref : pod.spec.resourceClaims) {
    if (ref.resourceClaimName) {
      add(*ref.resourceClaimName);
      continue;
    }
    for (const auto& s : pod.status.resourceClaimStatuses) {
      if (s.name == ref.name && s.resourceClaimName) add(*s.resourceClaimName);
    }
  }
}

// A Go duration string of at least 1s.
Result<std::chrono::seconds> ParseTimeout(std::string_view field, const rapidjson::Value& value) {
  const std::string prefix = "DynamicResources args: " + std::string(field) + ": ";
  if (!value.IsString()) {
    return allot::BadRequestError(prefix + "must be a duration string such as \"10m0s\"");
  }
  auto d = ParseGoDuration(std::string_view(value.GetString(), value.GetStringLength()));
  if (!d.ok()) return allot::BadRequestError(prefix + d.status().message());
  if (*d < std::chrono::seconds(1)) return allot::BadRequestError(prefix + "must be at least 1s");
  return std::chrono::duration_cast<std::chrono::seconds>(*d);
}

// The devices the pod's reservations on `node` hold (kOwnerReservationsKey, written by the
// Reservation plugin's PreFilter): usable by the pod when no other claim has them yet (in use
// exactly once, for the reservation's claim). Null when the pod draws from no reservation with
// devices there.
std::optional<dra::HeldDevices> HeldFor(const CycleState& state, const DraState& s,
                                        std::string_view node) {
  const OwnerReservations* owners = state.Read(kOwnerReservationsKey);
  const OwnerReservations::OnNode* on = owners ? owners->For(node) : nullptr;
  dra::HeldDevices h;
  if (on && s.view.held && s.view.inventory) {
    h.restricted = on->restricted;
    for (const std::string& uid : on->uids) {
      auto it = s.view.held->find(uid);
      if (it == s.view.held->end()) continue;
      for (const DeviceTracker::HeldDevice& d : it->second) {
        std::optional<dra::DeviceIndex> i = s.view.inventory->Find(d.driver, d.pool, d.device);
        if (!i) continue;
        h.reserved.push_back(*i);
        if (s.view.in_use->ExclusiveUses(*i) == 1) h.devices.push_back(*i);
      }
    }
  }
  if (h.reserved.empty()) h.restricted = false;
  h.taken = s.nominated_taken;  // sorted
  // Preemption's dry run: the victims' devices are this pod's to take (within the reservation
  // only, for a Restricted one).
  for (dra::DeviceIndex i : s.freed) {
    if (!h.restricted || std::find(h.reserved.begin(), h.reserved.end(), i) != h.reserved.end()) {
      h.devices.push_back(i);
    }
  }
  if (h.reserved.empty() && h.devices.empty() && h.taken.empty()) return std::nullopt;
  for (auto* v : {&h.devices, &h.reserved}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  return h;
}

}  // namespace

Result<DynamicResourcesArgs> ParseDynamicResourcesArgs(std::string_view json) {
  DynamicResourcesArgs args;
  if (json.empty()) return args;
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return allot::BadRequestError("DynamicResources args: expected a JSON object");
  }
  for (auto it = doc.MemberBegin(); it != doc.MemberEnd(); ++it) {
    std::string_view key(it->name.GetString(), it->name.GetStringLength());
    if (key == "apiVersion" || key == "kind") continue;
    if (key == "maxAllocationSteps") {
      if (!it->value.IsUint64() || it->value.GetUint64() == 0) {
        return allot::BadRequestError(
            "DynamicResources args: maxAllocationSteps: must be a positive integer");
      }
      args.max_allocation_steps = it->value.GetUint64();
      continue;
    }
    if (key == "filterTimeout") continue;  // accepted, see header
    if (key == "bindingTimeout") {
      ALLOT_ASSIGN_OR_RETURN(args.binding_timeout, ParseTimeout(key, it->value));
      continue;
    }
    if (key == "controllerAnswerTimeout") {
      ALLOT_ASSIGN_OR_RETURN(args.controller_answer_timeout, ParseTimeout(key, it->value));
      continue;
    }
    if (key == "controllerAnswerTimeouts") {
      if (!it->value.IsObject()) {
        return allot::BadRequestError(
            "DynamicResources args: controllerAnswerTimeouts: must be an object of driver "
            "names to durations");
      }
      for (auto d = it->value.MemberBegin(); d != it->value.MemberEnd(); ++d) {
        std::string driver(d->name.GetString(), d->name.GetStringLength());
        ALLOT_ASSIGN_OR_RETURN(std::chrono::seconds t,
                               ParseTimeout("controllerAnswerTimeouts." + driver, d->value));
        args.controller_answer_timeouts[driver] = t;
      }
      continue;
    }
    return allot::BadRequestError("DynamicResources args: unknown field \"" + std::string(key) +
                                  "\"");
  }
  return args;
}

DynamicResources::DynamicResources(Handle& handle, dra::Features features,
                                   DynamicResourcesArgs args)
    : handle_(handle),
      features_(features),
      args_(std::move(args)),
      negotiations_([this](std::string_view driver) { return AnswerTimeout(driver); }) {
  client::InformerFactory* f = handle_.informers();
  if (f) {
    claims_ = &f->For(api::ResourceFor<api::ResourceClaim>());
    slices_ = &f->For(api::ResourceFor<api::ResourceSlice>());
    classes_ = &f->For(api::ResourceFor<api::DeviceClass>());
    namespaces_ = &f->For(api::ResourceFor<api::Namespace>());
    // Only with KEP-3063 on: a cluster without it (DRAControlPlaneController=false) may not
    // serve PodSchedulingContexts at all, nor grant the scheduler access to them.
    if (features_.control_plane_controller) {
      contexts_ = &f->For(api::ResourceFor<api::PodSchedulingContext>());
    }
  }
  tracker_ = std::make_unique<DeviceTracker>([this] {
    std::vector<std::shared_ptr<const api::ResourceSlice>> out;
    if (!slices_) return out;
    for (const api::ObjectPtr& o : slices_->List()) {
      if (api::As<api::ResourceSlice>(*o)) {
        out.push_back(std::static_pointer_cast<const api::ResourceSlice>(o));
      }
    }
    return out;
  });
  waiter_ =
      std::make_unique<BindingWaiter>(handle_.clock(), args_.binding_timeout,
                                      [this](const std::string& ns, const std::string& name) {
                                        return claims_ ? AsClaim(claims_->Get(ns, name)) : nullptr;
                                      });
  if (f) {
    // Registered before the scheduler's queue handlers (the scheduler adds those after the
    // plugins are built), so the tracker is current when a waiting pod is retried. The
    // binding waiter hears every claim change at once: no polling interval.
    DeviceTracker* t = tracker_.get();
    BindingWaiter* w = waiter_.get();
    claims_->AddHandler({.on_add =
                             [this, t, w](const api::ObjectPtr& o) {
                               if (auto c = AsClaim(o)) t->ClaimChanged(nullptr, c);
                               w->OnClaim(o->metadata.namespace_, o->metadata.name);
                               ClaimChangedForNominated(*o);
                             },
                         .on_update =
                             [this, t, w](const api::ObjectPtr& o, const api::ObjectPtr& n) {
                               auto oc = AsClaim(o), nc = AsClaim(n);
                               if (nc) t->ClaimChanged(oc, nc);
                               w->OnClaim(n->metadata.namespace_, n->metadata.name);
                               ClaimChangedForNominated(*n);
                             },
                         .on_delete =
                             [this, t, w](const api::ObjectPtr& o) {
                               if (auto c = AsClaim(o)) t->ClaimChanged(c, nullptr);
                               w->OnClaim(o->metadata.namespace_, o->metadata.name);
                               ClaimChangedForNominated(*o);
                             }});
    std::atomic<uint64_t>* classes_gen = &classes_generation_;
    classes_->AddHandler({.on_add = [classes_gen](const api::ObjectPtr&) { ++*classes_gen; },
                          .on_update = [classes_gen](const api::ObjectPtr&,
                                                     const api::ObjectPtr&) { ++*classes_gen; },
                          .on_delete = [classes_gen](const api::ObjectPtr&) { ++*classes_gen; }});
    slices_->AddHandler(
        {.on_add = [t](const api::ObjectPtr&) { t->SlicesChanged(); },
         .on_update = [t](const api::ObjectPtr&, const api::ObjectPtr&) { t->SlicesChanged(); },
         .on_delete = [t](const api::ObjectPtr&) { t->SlicesChanged(); }});
  }
}

DynamicResources::~DynamicResources() { writer_.Stop(); }

std::shared_ptr<const api::DeviceClass> DynamicResources::Class(std::string_view name) const {
  api::ObjectPtr o = classes_ ? classes_->Get("", name) : nullptr;
  if (!o || !api::As<api::DeviceClass>(*o)) return nullptr;
  return std::static_pointer_cast<const api::DeviceClass>(o);
}

std::chrono::seconds DynamicResources::AnswerTimeout(std::string_view driver) const {
  auto it = args_.controller_answer_timeouts.find(driver);
  return it != args_.controller_answer_timeouts.end() ? it->second
                                                      : args_.controller_answer_timeout;
}

bool DynamicResources::AdminAccessAllowed(const std::string& ns) const {
  if (!namespaces_) return false;
  api::ObjectPtr o = namespaces_->Get("", ns);
  if (!o) return false;
  auto it = o->metadata.labels.find(std::string(api::kDRAAdminNamespaceLabel));
  return it != o->metadata.labels.end() && it->second == "true";
}

Status DynamicResources::GatherClaims(const api::Pod& pod, ClaimList& out,
                                      std::vector<std::string>* entries) const {
  for (const api::PodResourceClaim& ref : pod.spec.resourceClaims) {
    bool from_template;
    const std::string* name = ClaimName(pod, ref, from_template);
    if (!name) {
      return Unresolvable("pod \"" + pod.metadata.namespace_ + "/" + pod.metadata.name +
                          "\": ResourceClaim not created yet");
    }
    if (name->empty()) continue;  // no claim needed
    if (!claims_) return Unresolvable("resourceclaims are not available to this scheduler");
    auto claim = AsClaim(claims_->Get(pod.metadata.namespace_, *name));
    if (!claim) {
      return Unresolvable("resourceclaim \"" + *name + "\" not found");
    }
    if (claim->metadata.rare->deletionTimestamp) {
      return Unresolvable("resourceclaim \"" + *name + "\" is being deleted");
    }
    if (from_template && !api::IsControlledBy(claim->metadata, pod.metadata.uid)) {
      return Unresolvable("ResourceClaim " + pod.metadata.namespace_ + "/" + *name +
                          " was not created for pod " + pod.metadata.namespace_ + "/" +
                          pod.metadata.name + " (pod is not owner)");
    }
    out.push_back(std::move(claim));
    if (entries) entries->push_back(ref.name);
  }
  return Status::Success();
}

Status DynamicResources::AddPendingControllerClaim(size_t index, const std::string& entry,
                                                   const api::ResourceClaim& c,
                                                   std::vector<PendingControllerClaim>& out) const {
  if (api::EffectiveClaimAllocationMode(c.spec) == api::kClaimAllocationImmediate) {
    // Its driver allocates it without a pod; the claim's update moves the pod.
    return Unschedulable("unallocated immediate resourceclaim " + c.metadata.namespace_ + "/" +
                         c.metadata.name);
  }
  PendingControllerClaim p;
  p.index = index;
  p.pod_claim_name = entry;
  p.driver = c.spec.controllerName;
  for (const api::DeviceRequest& r : c.spec.devices.requests) {
    std::vector<std::string> names;
    if (r.exactly) names.push_back(r.exactly->deviceClassName);
    for (const api::DeviceSubRequest& sub : r.firstAvailable) names.push_back(sub.deviceClassName);
    auto& alternatives = p.classes.emplace_back();
    for (const std::string& name : names) {
      auto cls = Class(name);
      // A class event moves the pod.
      if (!cls) return Unschedulable("resource class " + name + " does not exist");
      alternatives.push_back(std::move(cls));
    }
  }
  out.push_back(std::move(p));
  return Status::Success();
}

void DynamicResources::ReadContext(const api::Pod& pod, DraState& s) {
  auto ctx =
      contexts_ ? AsContext(contexts_->Get(pod.metadata.namespace_, pod.metadata.name)) : nullptr;
  // One left by an earlier pod of the same name is not this pod's: PreBind replaces it.
  if (ctx && !api::IsControlledBy(ctx->metadata, pod.metadata.uid)) ctx = nullptr;
  if (ctx && ctx->metadata.rare->deletionTimestamp) ctx = nullptr;
  s.context = ctx;
  for (PendingControllerClaim& p : s.pending_controller) {
    std::vector<std::string> reported;
    for (size_t k = 0; ctx && k < ctx->status.resourceClaims.size(); ++k) {
      const api::ResourceClaimSchedulingStatus& st = ctx->status.resourceClaims[k];
      if (st.name != p.pod_claim_name) continue;
      p.answered = true;
      reported = st.unsuitableNodes;
    }
    // With what the drivers ruled out in earlier rounds of this negotiation.
    p.unsuitable =
        negotiations_.Unsuitable(pod.metadata.uid, p.pod_claim_name, std::move(reported));
  }
  s.node_in_allocation = NodeInAllocation(ctx.get(), s.pending_controller);
  s.vetted = VettedNodes(ctx.get(), s.pending_controller);
  s.contended = negotiations_.SelectedNodes(pod.metadata.uid);
}

Status DynamicResources::PreEnqueue(const api::Pod& pod) const {
  if (pod.spec.resourceClaims.empty()) return Status::Success();
  ClaimList claims;
  return GatherClaims(pod, claims);
}

Result<std::unique_ptr<dra::Allocator>> DynamicResources::NewAllocator(
    const std::string& ns, std::shared_ptr<const dra::Inventory> inventory,
    std::vector<std::shared_ptr<const api::ResourceClaim>> claims,
    bool* admin_access_allowed) const {
  dra::AllocatorOptions opts;
  opts.features = features_;
  opts.compile = [this](std::string_view expr) { return programs_.Get(expr); };
  opts.admin_access_allowed = AdminAccessAllowed(ns);
  opts.max_steps = args_.max_allocation_steps;
  if (admin_access_allowed) *admin_access_allowed = opts.admin_access_allowed;
  dra::ClassLookup classes = [this](std::string_view name) { return Class(name); };
  return dra::Allocator::Create(opts, std::move(inventory), std::move(claims), classes);
}

Status DynamicResources::PreFilter(CycleState& state, const PodInfo& pod_info,
                                   PreFilterResult& result) {
  if (unrecorded_.verdicts) {
    std::lock_guard<std::mutex> lock(unrecorded_.results->mu);
    VerdictCache::Record(*unrecorded_.verdicts, unrecorded_.results->fresh);
    unrecorded_ = {};
  }
  const api::Pod& pod = *pod_info.pod;
  if (pod.spec.resourceClaims.empty()) return Status::Skip();
  ClaimList claims;
  std::vector<std::string> entries;
  if (Status s = GatherClaims(pod, claims, &entries); !s.IsSuccess()) return s;
  if (claims.empty()) return Status::Skip();

  // Devices the pod held for its structured claims while its drivers allocated (Reserve) are
  // its own again: this round chooses afresh.
  ReleaseHeld(negotiations_.TakeHeld(pod.metadata.uid));
  DraState s;
  s.claims = std::move(claims);
  std::vector<std::shared_ptr<const api::ResourceClaim>> unallocated;
  for (size_t i = 0; i < s.claims.size(); ++i) {
    const api::ResourceClaim& c = *s.claims[i];
    if (c.status.allocation) {
      if (c.status.reservedFor.size() >= kReservedForMaxSize && !ReservedFor(c, pod.metadata.uid)) {
        return Unschedulable(std::string(kErrReasonClaimInUse));
      }
      if (c.status.deallocationRequested) {
        return Unschedulable("resourceclaim " + c.metadata.namespace_ + "/" + c.metadata.name +
                             " is being deallocated");
      }
      continue;
    }
    if (!c.spec.controllerName.empty()) {
      // KEP-3063: allocated by its driver's controller, negotiated through the context.
      if (pod_info.IsReservePod()) {
        return Unresolvable("resourceclaim " + c.metadata.namespace_ + "/" + c.metadata.name +
                            ": a reservation cannot hold a claim its control-plane driver "
                            "allocates");
      }
      if (Status st = AddPendingControllerClaim(i, entries[i], c, s.pending_controller);
          !st.IsSuccess()) {
        return st;
      }
      continue;
    }
    if (tracker_->IsAssumed(c.metadata.uid)) {
      return Unschedulable("resource claim " + c.metadata.namespace_ + "/" + c.metadata.name +
                           " is in the process of being allocated");
    }
    s.to_allocate.push_back(i);
    unallocated.push_back(s.claims[i]);
  }
  if (!s.to_allocate.empty()) {
    // Read before the classes are: a class changing meanwhile only starts a new pod class.
    const uint64_t classes_gen = classes_generation_.load();
    s.view = tracker_->Current();
    bool admin_access_allowed = false;
    auto allocator =
        NewAllocator(pod.metadata.namespace_, s.view.inventory, unallocated, &admin_access_allowed);
    // A missing class or a selector that does not compile: the pod waits for a class or
    // claim event.
    if (!allocator.ok()) return Unschedulable(allocator.status().message());
    s.allocator = std::move(allocator).value();
    std::vector<const api::ResourceClaimSpec*> specs;
    for (const auto& c : unallocated) specs.push_back(&c->spec);
    s.verdicts = verdicts_.Lookup(s.view.inventory, specs, admin_access_allowed, classes_gen);
    for (const auto& c : unallocated) {
      for (const auto& r : c->spec.devices.requests) {
        if (!r.firstAvailable.empty()) s.has_preferences = true;
      }
    }
    // Device tiers (node-local > attached fabric > fabric still to attach) are scored too
    // when the inventory has more than one tier.
    if (s.view.inventory && s.view.inventory->tiered()) s.has_preferences = true;
  }
  if (!s.pending_controller.empty()) {
    ReadContext(pod, s);
    // The drivers may be allocating for the selected node: stay there.
    if (!s.node_in_allocation.empty()) result.node_names = {s.node_in_allocation};
    state.Write(kNodeRankingKey, NodeRanking{});  // for potentialNodes (Reserve)
  }
  s.chosen.resize(s.claims.size());
  s.reserved.resize(s.claims.size());
  s.written_rv.resize(s.claims.size());
  state.Write(kDraStateKey, std::move(s));
  return Status::Success();
}

Status DynamicResources::RemovePod(CycleState& state, const PodInfo& /*pod*/,
                                   const PodInfo& removed, const NodeInfo& /*node*/) const {
  DraState* s = state.Mutable(kDraStateKey);
  if (!s || !s->allocator || !claims_) return Status::Success();  // nothing to allocate here
  std::shared_ptr<const VictimClaims> known = VictimClaimsOf(*removed.pod, s->view.inventory);
  std::vector<RemovedClaim>& claims = s->removed[removed.uid()];
  claims.clear();
  for (const RemovedClaim& c : *known) {
    RemovedClaim& r = claims.emplace_back();
    r.claim = c.claim;
    for (dra::DeviceIndex i : c.devices) {
      if (s->view.in_use && s->view.in_use->ExclusiveUses(i) == 1) r.devices.push_back(i);
    }
  }
  RecomputeFreed(*s);
  return Status::Success();
}

std::shared_ptr<const DynamicResources::VictimClaims> DynamicResources::VictimClaimsOf(
    const api::Pod& pod, const std::shared_ptr<const dra::Inventory>& inventory) const {
  {
    std::lock_guard<std::mutex> lock(nominated_mu_);
    auto it = victims_.find(pod.metadata.uid);
    if (it != victims_.end() && it->second.pod_version == pod.metadata.resourceVersion &&
        it->second.inventory == inventory) {
      return it->second.claims;
    }
  }
  const uint64_t seq = claim_changes_.load();
  auto out = std::make_shared<VictimClaims>();
  std::vector<std::string> keys;
  for (const api::PodClaimUse& use : api::PodClaims(pod)) {
    if (use.not_ready) continue;
    keys.push_back(pod.metadata.namespace_ + "/" + use.claim_name);
    auto c = AsClaim(claims_->Get(pod.metadata.namespace_, use.claim_name));
    if (!c || !c->status.allocation) continue;
    RemovedClaim& r = out->emplace_back();
    if (inventory) {
      for (const auto& d : c->status.allocation->devices.results) {
        if (d.rare->adminAccess.value_or(false) || d.rare->shareID) continue;
        if (std::optional<dra::DeviceIndex> i = inventory->Find(d.driver, d.pool, d.device)) {
          r.devices.push_back(*i);
        }
      }
    }
    r.claim = std::move(c);
  }
  std::lock_guard<std::mutex> lock(nominated_mu_);
  if (claim_changes_.load() != seq) return out;  // a claim changed meanwhile: not kept
  if (victims_.size() >= kMaxVictimEntries) {
    victims_.clear();
    nominated_.clear();
    nominated_by_claim_.clear();
  }
  for (std::string& key : keys) Remember(std::move(key), pod.metadata.uid);
  victims_[pod.metadata.uid] = {pod.metadata.resourceVersion, inventory, out};
  return out;
}

Status DynamicResources::AddPod(CycleState& state, const PodInfo& /*pod*/, const PodInfo& added,
                                const NodeInfo& node) const {
  DraState* s = state.Mutable(kDraStateKey);
  if (!s || !s->allocator) return Status::Success();
  if (s->removed.erase(added.uid()) > 0) {  // a victim reprieved
    RecomputeFreed(*s);
    return Status::Success();
  }
  if (node.node()) TakeForNominated(*s, added, *node.node());
  return Status::Success();
}

void DynamicResources::RecomputeFreed(DraState& s) const {
  s.freed.clear();
  for (const auto& [uid, claims] : s.removed) {
    for (const RemovedClaim& r : claims) {
      // Freed only when every consumer is gone (a shared claim a remaining pod uses stays).
      bool only_removed = true;
      for (const auto& consumer : r.claim->status.reservedFor) {
        only_removed = only_removed && s.removed.count(consumer.uid) > 0;
      }
      if (only_removed) s.freed.insert(s.freed.end(), r.devices.begin(), r.devices.end());
    }
  }
  std::sort(s.freed.begin(), s.freed.end());
  s.freed.erase(std::unique(s.freed.begin(), s.freed.end()), s.freed.end());
}

Status DynamicResources::Filter(const CycleState& state, const PodInfo& /*pod*/,
                                const NodeInfo& node_info) const {
  const DraState* s = state.Read(kDraStateKey);
  if (!s) return Status::Success();
  const api::Node& node = *node_info.node();
  bool unavailable = false;  // every claim that rules the node out is counted (PostFilter)
  for (size_t i = 0; i < s->claims.size(); ++i) {
    const auto& alloc = s->claims[i]->status.allocation;
    if (alloc && alloc->nodeSelector &&
        !api::MatchesNodeSelector(*alloc->nodeSelector, node.metadata.labels, node.metadata.name)) {
      std::lock_guard<std::mutex> lock(s->filter_results->mu);
      ++s->filter_results->unavailable[i];
      unavailable = true;
    }
  }
  if (unavailable) return Unresolvable(std::string(kErrReasonClaimNotOnNode));
  for (const PendingControllerClaim& p : s->pending_controller) {
    if (!ClassesAllow(p, node)) return Unresolvable(std::string(kErrReasonClassNodeFilter));
    if (p.Unsuitable(node.metadata.name)) return Unschedulable(std::string(kErrReasonUnsuitable));
  }
  if (!s->allocator) return Status::Success();
  // Devices held for the pod or from it (reservations, preemption, nominated pods).
  std::optional<dra::HeldDevices> held = HeldFor(state, *s, node.metadata.name);
  const dra::HeldDevices* held_ptr = held ? &*held : nullptr;
  // The verdict of an earlier pod of the same class, if nothing it depends on changed; an owner
  // of reservations holding devices here makes its own search.
  const bool cacheable = s->verdicts && VerdictCache::Cacheable(held_ptr) &&
                         node_info.index() != NodeInfo::kNoIndex;
  // The class was made for this inventory (PreFilter): a node it kept verdicts for knows its
  // slot, which saves a lookup by name on most nodes.
  const VerdictCache::NodeVerdicts* kept =
      cacheable ? s->verdicts->ForNode(node_info.index(), node.metadata.name) : nullptr;
  const uint32_t slot = kept ? kept->slot : s->view.inventory->NodeSlot(node.metadata.name);
  const uint64_t node_gen = s->view.in_use->node_generation(slot);
  const uint64_t shared_gen = s->view.in_use->shared_generation();
  const VerdictCache::Verdict* cached =
      kept ? kept->Find(node.metadata.resourceVersion, node_gen, shared_gen, held_ptr) : nullptr;
  dra::Allocator::Outcome out;
  if (cached) {
    out.result = cached->feasible ? dra::Allocator::Outcome::Result::kAllocated
                                  : dra::Allocator::Outcome::Result::kUnschedulable;
    out.score = cached->score;
    out.reason = cached->reason;
  } else {
    out = s->allocator->Check(node, *s->view.in_use, held_ptr);
    if (cacheable && out.result != dra::Allocator::Outcome::Result::kError) {
      VerdictCache::Verdict v{node.metadata.resourceVersion,
                              node_gen,
                              shared_gen,
                              out.result == dra::Allocator::Outcome::Result::kAllocated,
                              out.score,
                              out.reason,
                              held ? held->devices : std::vector<dra::DeviceIndex>(),
                              held ? held->taken : std::vector<dra::DeviceIndex>(),
                              slot};
      std::lock_guard<std::mutex> lock(s->filter_results->mu);
      s->filter_results->fresh.emplace_back(
          VerdictCache::NodeKey{node_info.index(), node.metadata.name}, std::move(v));
    }
  }
  if (out.result != dra::Allocator::Outcome::Result::kAllocated) {
    return Unschedulable(out.reason.empty() ? std::string(kErrReasonCannotAllocate) : out.reason);
  }
  if (s->has_preferences) {
    std::lock_guard<std::mutex> lock(s->filter_results->mu);
    s->filter_results->score_by_node.insert_or_assign(node.metadata.name, out.score);
  }
  return Status::Success();
}

Status DynamicResources::PostFilter(CycleState& state, const PodInfo& pod,
                                    const NodeToStatus& /*statuses*/,
                                    PostFilterResult& /*result*/) {
  RecordVerdicts(state);
  DraState* s = state.Mutable(kDraStateKey);
  if (s && s->verdicts) unrecorded_ = {s->verdicts, s->filter_results};  // dry run: later
  // Nothing to do for a pod without claims: no reason, so the message stays as Filter made it.
  if (!s) return Status(Code::kUnschedulable, std::vector<std::string>{});
  if (!s->node_in_allocation.empty() && s->context) {
    // The node the drivers were asked to allocate for no longer fits: take it back, so they
    // stop; the context's update moves the pod for another round.
    WithdrawSelectedNode(*s->context);
    return Status(Code::kPending, "selected node " + s->node_in_allocation + " withdrawn");
  }
  // No node is left: what the drivers ruled out is asked afresh in the next round (which an
  // event starts), and nobody is waiting for an answer now.
  if (!s->pending_controller.empty()) ReleaseHeld(negotiations_.Forget(pod.uid()));
  return DeallocateUnavailableClaim(*s, pod);
}

void DynamicResources::RecordVerdicts(CycleState& state) {
  DraState* s = state.Mutable(kDraStateKey);
  if (!s || !s->verdicts) return;
  std::lock_guard<std::mutex> lock(s->filter_results->mu);  // Filter is over; for the record
  VerdictCache::Record(*s->verdicts, s->filter_results->fresh);
}

Status DynamicResources::PreScore(CycleState& state, const PodInfo& /*pod*/,
                                  std::span<const NodeInfo* const> /*nodes*/) {
  RecordVerdicts(state);
  const DraState* s = state.Read(kDraStateKey);
  if (!s || ((!s->allocator || !s->has_preferences) && s->vetted.empty() && s->contended.empty())) {
    return Status::Skip();
  }
  return Status::Success();
}

Status DynamicResources::Score(const CycleState& state, const PodInfo& /*pod*/,
                               const NodeInfo& node, int64_t& score) const {
  score = 0;
  const DraState* s = state.Read(kDraStateKey);
  if (!s) return Status::Success();
  const std::string& name = node.node()->metadata.name;
  // Nodes the control-plane drivers accepted come first, whatever the device preferences.
  constexpr int64_t kVettedBonus = int64_t{1} << 40;
  // Then nodes fewer negotiating pods were selected on.
  constexpr int64_t kContendedPenalty = int64_t{1} << 20;
  if (std::binary_search(s->vetted.begin(), s->vetted.end(), name)) score = kVettedBonus;
  if (auto c = s->contended.find(name); c != s->contended.end()) {
    score -= kContendedPenalty * c->second;
  }
  std::lock_guard<std::mutex> lock(s->filter_results->mu);
  auto it = s->filter_results->score_by_node.find(name);
  if (it != s->filter_results->score_by_node.end()) score += it->second;
  return Status::Success();
}

Status DynamicResources::NormalizeScore(const CycleState& /*state*/, const PodInfo& /*pod*/,
                                        std::span<NodeScore> scores) const {
  // Raw scores may be negative (device tiers); scale [min, max] to [0, 100].
  if (scores.empty()) return Status::Success();
  int64_t lo = scores[0].score, hi = scores[0].score;
  for (const NodeScore& s : scores) {
    lo = std::min(lo, s.score);
    hi = std::max(hi, s.score);
  }
  for (NodeScore& s : scores) s.score = hi > lo ? (s.score - lo) * kMaxNodeScore / (hi - lo) : 0;
  return Status::Success();
}

Status DynamicResources::Reserve(CycleState& state, const PodInfo& /*pod*/,
                                 const std::string& node) {
  RecordVerdicts(state);
  DraState* s = state.Mutable(kDraStateKey);
  if (!s) return Status::Success();
  if (!s->pending_controller.empty()) {
    // The drivers go first; structured claims are allocated in the round that binds.
    const NodeRanking* ranking = state.Read(kNodeRankingKey);
    static const std::vector<NodeRanking::Entry> kNone;
    s->publish = DecideContext(node, ranking ? ranking->nodes : kNone,
                               s->context ? &s->context->spec : nullptr, s->pending_controller);
    if (s->allocator && s->publish->selectedNode == node) HoldStructured(*s, node);
    return Status::Success();
  }
  if (!s->allocator) return Status::Success();
  // The same search Filter ran for this node, now with results.
  const NodeInfo* ni = handle_.snapshot().Get(node);
  if (!ni || !ni->node()) return Status::Error("node " + node + " not in the snapshot");
  std::optional<dra::HeldDevices> held = HeldFor(state, *s, node);
  std::optional<dra::Allocator::Outcome> out =
      s->allocator->Allocate(*ni->node(), *s->view.in_use, held ? &*held : nullptr);
  if (out->result != dra::Allocator::Outcome::Result::kAllocated) {
    return Unschedulable(std::string(kErrReasonCannotAllocate));
  }
  if (out->allocations.size() != s->to_allocate.size()) {
    return Status::Error("allocator returned " + std::to_string(out->allocations.size()) +
                         " allocations for " + std::to_string(s->to_allocate.size()) + " claims");
  }
  for (size_t k = 0; k < s->to_allocate.size(); ++k) {
    size_t i = s->to_allocate[k];
    s->chosen[i] = std::move(out->allocations[k]);
    tracker_->Assume(s->claims[i]->metadata.uid, *s->chosen[i]);
  }
  // The in-use snapshot served Filter and this choice; binding does not read it. Pods waiting
  // to bind would otherwise keep one snapshot each (a counter per device of the cluster).
  s->view.in_use.reset();
  return Status::Success();
}

void DynamicResources::Unreserve(CycleState& state, const PodInfo& pod, const std::string&) {
  DraState* s = state.Mutable(kDraStateKey);
  if (!s) return;
  if (s->binding_failed) ClearFailedAllocations(state, pod);
  if (!s->hold_kept) ReleaseHeld(std::move(s->held));
  for (size_t i = 0; i < s->claims.size(); ++i) {
    if (s->chosen[i]) tracker_->Forget(s->claims[i]->metadata.uid);
    if (!s->reserved[i] || s->abandoned) continue;
    // Take the pod out of reservedFor again (best effort, retried on conflicts).
    client::Client* c = handle_.client();
    if (!c) continue;
    (void)client::UpdateWithRetry(
        *c, api::ResourceFor<api::ResourceClaim>(), s->claims[i]->metadata.namespace_,
        s->claims[i]->metadata.name, client::Write::kStatus,
        [&](const api::Object& current) -> Result<client::Desired> {
          const auto* claim = api::As<api::ResourceClaim>(current);
          if (!claim || !ReservedFor(*claim, pod.uid())) return client::Desired();
          auto copy = std::make_unique<api::ResourceClaim>(*claim);
          std::erase_if(copy->status.reservedFor,
                        [&](const auto& r) { return r.uid == pod.uid(); });
          return client::Desired(std::move(copy));
        });
    s->reserved[i] = false;
  }
}

std::vector<ClusterEventWithHint> DynamicResources::EventsToRegister() const {
  std::vector<ClusterEventWithHint> out;
  // A claim of the pod appeared, changed status or went away. Targeted: the queue looks only at
  // the pods that name the claim (PodClaimKeys), not at every waiting pod.
  ClusterEventWithHint own_claim{{EventResource::kResourceClaim, kAdd | kUpdate | kDelete}};
  own_claim.hint = [](const api::Pod&, const api::Object* old_obj, const api::Object* new_obj) {
    const auto* oc = old_obj ? api::As<api::ResourceClaim>(*old_obj) : nullptr;
    const auto* nc = new_obj ? api::As<api::ResourceClaim>(*new_obj) : nullptr;
    if (!nc) return QueueingHint::kQueue;
    return !oc || oc->status != nc->status ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
  };
  // Changes no waiting pod can care about, ruled out before any pod is looked at: updates
  // that leave the status alone (finalizers, labels). Every new claim counts: a pod may have
  // seen its own status name a generated claim before the claim reached this scheduler's
  // informer.
  own_claim.filter = [](const api::Object* old_obj, const api::Object* new_obj) {
    const auto* oc = old_obj ? api::As<api::ResourceClaim>(*old_obj) : nullptr;
    const auto* nc = new_obj ? api::As<api::ResourceClaim>(*new_obj) : nullptr;
    return !oc || !nc || oc->status != nc->status;
  };
  own_claim.targets = PodClaimKeys;
  out.push_back(std::move(own_claim));
  // Some claim released its devices (its allocation went away): any pod may now fit.
  out.push_back({{EventResource::kResourceClaim, kUpdate | kDelete},
                 nullptr,
                 [](const api::Object* old_obj, const api::Object* new_obj) {
                   const auto* oc = old_obj ? api::As<api::ResourceClaim>(*old_obj) : nullptr;
                   const auto* nc = new_obj ? api::As<api::ResourceClaim>(*new_obj) : nullptr;
                   return oc && oc->status.allocation && !(nc && nc->status.allocation);
                 }});
  // A reservation came to hold a claim's devices (reservedFor names it): its owners, which
  // may have found the reservation placed before this scheduler saw the claim, may now fit.
  out.push_back({{EventResource::kResourceClaim, kUpdate},
                 nullptr,
                 [](const api::Object* old_obj, const api::Object* new_obj) {
                   const auto* oc = old_obj ? api::As<api::ResourceClaim>(*old_obj) : nullptr;
                   const auto* nc = new_obj ? api::As<api::ResourceClaim>(*new_obj) : nullptr;
                   auto held = [](const api::ResourceClaim* c) {
                     return c &&
                            std::any_of(c->status.reservedFor.begin(), c->status.reservedFor.end(),
                                        api::IsReservationConsumer);
                   };
                   return held(nc) && !held(oc);
                 }});
  // The other order: the owner saw the claims first, and the reservation's placement later.
  out.push_back({{EventResource::kReservation, kAdd | kUpdateOther},
                 RequeueOwnersOfAPlacedReservation});
  // The pod's PodSchedulingContext (KEP-3063): a driver answered (status), the scheduler took
  // its selectedNode back, or someone deleted it. The scheduler's own publications (created,
  // nodes named) move nobody: the pod waits for the drivers' answer to them.
  ClusterEventWithHint own_context{{EventResource::kPodSchedulingContext, kUpdate | kDelete}};
  own_context.filter = [](const api::Object* old_obj, const api::Object* new_obj) {
    const auto* oc = old_obj ? api::As<api::PodSchedulingContext>(*old_obj) : nullptr;
    const auto* nc = new_obj ? api::As<api::PodSchedulingContext>(*new_obj) : nullptr;
    if (!oc || !nc) return true;
    return oc->status != nc->status ||
           (!oc->spec.selectedNode.empty() && nc->spec.selectedNode.empty());
  };
  own_context.targets = [](const api::Pod& pod, std::vector<std::string>& keys) {
    keys.push_back(pod.metadata.namespace_ + "/" + pod.metadata.name);
  };
  if (features_.control_plane_controller) out.push_back(std::move(own_context));
  out.push_back({{EventResource::kResourceSlice, kAdd | kUpdate}, nullptr});
  out.push_back({{EventResource::kDeviceClass, kAdd | kUpdate}, nullptr});
  // The resourceclaim controller recorded a generated claim in the pod's status.
  out.push_back({{EventResource::kPod, kUpdatePodGeneratedResourceClaim}, nullptr});
  return out;
}

}  // namespace allot::scheduler
