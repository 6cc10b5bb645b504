#include "drivers/controlplane/controller.h"

#include <algorithm>
#include <set>

#include "api/machinery/owners.h"
#include "api/resource/pod_claims.h"
#include "api/resource/pod_scheduling_context.h"
#include "client/retry.h"
#include "common/log.h"
#include "common/process_stats.h"

namespace allot::drivers::controlplane {

namespace {

constexpr std::string_view kClaimPrefix = "claim:";
constexpr std::string_view kContextPrefix = "ctx:";
constexpr char kClaimIndex[] = "claim";  // pods by "ns/claim" they use

std::string Key(std::string_view ns, std::string_view name) {
  return std::string(ns) + "/" + std::string(name);
}

bool HasFinalizer(const api::ObjectMeta& meta, const std::string& finalizer) {
  return std::find(meta.finalizers.begin(), meta.finalizers.end(), finalizer) !=
         meta.finalizers.end();
}

bool ReservedFor(const api::ResourceClaim& claim, const std::string& uid) {
  for (const auto& r : claim.status.reservedFor) {
    if (r.uid == uid) return true;
  }
  return false;
}

const api::ResourceClaim* AsClaim(const api::Object& o) { return api::As<api::ResourceClaim>(o); }

// `nodes` cut to kMaxNodes, keeping `keep` (the selected node) when it is in the list.
std::vector<std::string> Truncated(std::vector<std::string> nodes, const std::string& keep) {
  if (nodes.size() <= kMaxNodes) return nodes;
  const bool has_keep = !keep.empty() && std::find(nodes.begin(), nodes.end(), keep) != nodes.end();
  nodes.resize(kMaxNodes);
  if (has_keep && std::find(nodes.begin(), nodes.end(), keep) == nodes.end()) {
    nodes.back() = keep;
  }
  return nodes;
}

}  // namespace

std::string FinalizerFor(std::string_view driver) {
  return std::string(driver) + "/deletion-protection";
}

Controller::Controller(client::Client& client, Driver& driver, ControllerOptions options)
    : client_(client),
      driver_(driver),
      options_(std::move(options)),
      clock_(options_.clock ? *options_.clock : RealClock::Instance()),
      finalizer_(FinalizerFor(options_.driver_name)),
      informers_(client),
      queue_(clock_, options_.queue),
      events_(client, clock_, {.component = options_.driver_name}) {}

Controller::~Controller() { Stop(); }

bool Controller::IsOurs(const api::ResourceClaim& claim) const {
  return claim.spec.controllerName == options_.driver_name;
}

Status Controller::Start(std::chrono::milliseconds sync_timeout) {
  claims_ = &informers_.For(api::ResourceFor<api::ResourceClaim>());
  contexts_ = &informers_.For(api::ResourceFor<api::PodSchedulingContext>());
  pods_ = &informers_.For(api::ResourceFor<api::Pod>());
  pods_->AddIndex(kClaimIndex, [](const api::Object& o) {
    std::vector<std::string> out;
    if (const auto* pod = api::As<api::Pod>(o)) {
      for (const api::PodClaimUse& use : api::PodClaims(*pod)) {
        if (!use.claim_name.empty()) out.push_back(Key(pod->metadata.namespace_, use.claim_name));
      }
    }
    return out;
  });
  auto on_claim = [this](const api::ObjectPtr& obj) {
    const api::ResourceClaim* claim = AsClaim(*obj);
    if (claim == nullptr || !IsOurs(*claim)) return;
    queue_.Add(std::string(kClaimPrefix) + Key(claim->metadata.namespace_, claim->metadata.name));
    EnqueueContextsOfClaim(*claim);
  };
  claims_->AddHandler(
      {.on_add = on_claim,
       .on_update = [on_claim](const api::ObjectPtr&, const api::ObjectPtr& obj) { on_claim(obj); },
       .on_delete = on_claim});
  auto on_context = [this](const api::ObjectPtr& obj) {
    queue_.Add(std::string(kContextPrefix) + Key(obj->metadata.namespace_, obj->metadata.name));
  };
  contexts_->AddHandler(
      {.on_add = on_context,
       .on_update = [on_context](const api::ObjectPtr&, const api::ObjectPtr& obj) {
         on_context(obj);
       }});
  // The pod may reach this informer after its context and claims reached theirs, and its
  // generated claims appear in its status later still: a pod event re-syncs its context. (Each
  // informer updates its cache before it calls handlers, so of a context and its pod arriving
  // in either order, the second one's handler sees the first.)
  auto on_pod = [this](const api::ObjectPtr& obj) {
    if (contexts_->Get(obj->metadata.namespace_, obj->metadata.name)) {
      queue_.Add(std::string(kContextPrefix) + Key(obj->metadata.namespace_, obj->metadata.name));
    }
  };
  pods_->AddHandler(
      {.on_add = on_pod,
       .on_update = [on_pod](const api::ObjectPtr&, const api::ObjectPtr& obj) { on_pod(obj); }});
  // One informer after another, each in sync before the next starts: every initial list then
  // reaches the queue whole and in the list's order, so a controller that starts with a
  // backlog (restarted mid-run) works through it in the same order every time, as the
  // simulator's exact repeats need (sim/clock.h). It costs three list round trips in a row
  // instead of side by side, once.
  const auto deadline = std::chrono::steady_clock::now() + sync_timeout;
  for (client::Informer* informer : {claims_, contexts_, pods_}) {
    ALLOT_RETURN_IF_ERROR(informer->Start());
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (!informer->WaitForSync(std::max(left, std::chrono::milliseconds(0)))) {
      informers_.StopAll();
      return Status(StatusCode::kTimeout,
                    "the informers of driver " + options_.driver_name + " did not sync");
    }
  }
  ALLOT_RETURN_IF_ERROR(informers_.StartAll());  // records them as started; all are running
  {
    std::lock_guard<std::mutex> lock(mu_);
    started_ = true;
  }
  for (int i = 0; i < std::max(1, options_.workers); ++i) {
    workers_.emplace_back([this] {
      NameThisThread("ctl-driver");
      Worker();
    });
  }
  resync_thread_ = std::thread([this] { ResyncLoop(); });
  return Status::Ok();
}

void Controller::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  stop_cv_.notify_all();
  queue_.ShutDown();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
  if (resync_thread_.joinable()) resync_thread_.join();
  informers_.StopAll();
}

Controller::Stats Controller::GetStats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void Controller::EnqueueContextsOfClaim(const api::ResourceClaim& claim) {
  for (const api::ObjectPtr& pod :
       pods_->ByIndex(kClaimIndex, Key(claim.metadata.namespace_, claim.metadata.name))) {
    queue_.Add(std::string(kContextPrefix) + Key(pod->metadata.namespace_, pod->metadata.name));
  }
}

void Controller::ResyncLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!clock_.WaitFor(stop_cv_, lock, options_.resync, [&] { return stopping_; })) {
    lock.unlock();
    for (const api::ObjectPtr& o : contexts_->List()) {
      queue_.Add(std::string(kContextPrefix) + Key(o->metadata.namespace_, o->metadata.name));
    }
    for (const api::ObjectPtr& o : claims_->List()) {
      const api::ResourceClaim* claim = AsClaim(*o);
      if (claim && IsOurs(*claim)) {
        queue_.Add(std::string(kClaimPrefix) + Key(o->metadata.namespace_, o->metadata.name));
      }
    }
    lock.lock();
  }
}

void Controller::Worker() {
  while (std::optional<std::string> key = queue_.Get()) {
    Status st = Sync(*key);
    if (st.ok()) {
      queue_.Forget(*key);
    } else {
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++stats_.failures;
      }
      log::Detail(2, options_.driver_name,
                  "syncing " + *key + " failed, retrying: " + st.message());
      queue_.AddRateLimited(*key);
    }
    queue_.Done(*key);
  }
}

Status Controller::Sync(const std::string& key) {
  const bool claim = key.rfind(kClaimPrefix, 0) == 0;
  const std::string rest = key.substr(claim ? kClaimPrefix.size() : kContextPrefix.size());
  const size_t slash = rest.find('/');
  const std::string ns = rest.substr(0, slash);
  const std::string name = rest.substr(slash + 1);
  return claim ? SyncClaim(ns, name) : SyncContext(ns, name);
}

// --- claims -------------------------------------------------------------------------------------

Status Controller::SyncClaim(const std::string& ns, const std::string& name) {
  api::ObjectPtr obj = claims_->Get(ns, name);
  const api::ResourceClaim* claim = obj ? AsClaim(*obj) : nullptr;
  if (claim == nullptr || !IsOurs(*claim)) return Status::Ok();
  const bool deleting = claim->metadata.rare->deletionTimestamp.has_value();
  if (deleting || claim->status.deallocationRequested) {
    if (!claim->status.reservedFor.empty() || !HasFinalizer(claim->metadata, finalizer_)) {
      return Status::Ok();  // still in use, or not ours to release
    }
    // Releasing is decided on the claim as the server has it now: the informer may still show
    // a request this controller already carried out (the driver would be asked twice).
    Result<api::ObjectPtr> fresh = client_.Get(api::ResourceFor<api::ResourceClaim>(), ns, name);
    if (!fresh.ok()) {
      return fresh.status().code() == StatusCode::kNotFound ? Status::Ok() : fresh.status();
    }
    obj = *fresh;
    claim = AsClaim(*obj);
    if (claim == nullptr || !claim->status.reservedFor.empty() ||
        !HasFinalizer(claim->metadata, finalizer_) ||
        !(claim->metadata.rare->deletionTimestamp || claim->status.deallocationRequested)) {
      return Status::Ok();
    }
    if (claim->status.allocation) ALLOT_RETURN_IF_ERROR(driver_.Deallocate(*claim));
    const std::string uid = claim->metadata.uid;
    auto cleared = client::UpdateWithRetry(
        client_, api::ResourceFor<api::ResourceClaim>(), ns, name, client::Write::kStatus,
        [&](const api::Object& o) -> Result<client::Desired> {
          const api::ResourceClaim* cur = AsClaim(o);
          if (cur == nullptr || cur->metadata.uid != uid) return client::Desired();
          if (!cur->status.allocation && !cur->status.deallocationRequested) {
            return client::Desired();
          }
          auto copy = std::make_unique<api::ResourceClaim>(*cur);
          copy->status.allocation.reset();
          copy->status.deallocationRequested = false;
          copy->status.devices.clear();
          return client::Desired(std::move(copy));
        });
    if (!cleared.ok() && cleared.status().code() != StatusCode::kNotFound) {
      return cleared.status();
    }
    auto unprotected = client::UpdateWithRetry(
        client_, api::ResourceFor<api::ResourceClaim>(), ns, name, client::Write::kUpdate,
        [&](const api::Object& o) -> Result<client::Desired> {
          if (o.metadata.uid != uid || !HasFinalizer(o.metadata, finalizer_)) {
            return client::Desired();
          }
          auto copy = o.Clone();
          std::erase(copy->metadata.finalizers, finalizer_);
          return client::Desired(std::move(copy));
        });
    if (!unprotected.ok() && unprotected.status().code() != StatusCode::kNotFound) {
      return unprotected.status();
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.deallocated;
    }
    // What was released may suit pods that were told no: their contexts are answered afresh
    // (the only other way a stale "unsuitable" would end is a poll, which this library avoids).
    for (const api::ObjectPtr& o : contexts_->List()) {
      queue_.Add(std::string(kContextPrefix) + Key(o->metadata.namespace_, o->metadata.name));
    }
    return Status::Ok();
  }
  if (!claim->status.reservedFor.empty() || claim->status.allocation) return Status::Ok();
  if (claim->spec.allocationMode != api::kClaimAllocationImmediate) return Status::Ok();
  // Decided again on the claim as the server has it: the informer may still show it before this
  // controller's own last writes (say, unallocated while a deallocation was just requested).
  Result<api::ObjectPtr> fresh = client_.Get(api::ResourceFor<api::ResourceClaim>(), ns, name);
  if (!fresh.ok()) {
    return fresh.status().code() == StatusCode::kNotFound ? Status::Ok() : fresh.status();
  }
  claim = AsClaim(**fresh);
  if (claim == nullptr || claim->metadata.rare->deletionTimestamp || claim->status.allocation ||
      claim->status.deallocationRequested || !claim->status.reservedFor.empty()) {
    return Status::Ok();
  }
  ClaimAllocation one{.claim = std::static_pointer_cast<const api::ResourceClaim>(*fresh)};
  return AllocateClaims(std::span<ClaimAllocation>(&one, 1), "", nullptr);
}

Status Controller::AllocateClaims(std::span<ClaimAllocation> claims, const std::string& node,
                                  const api::Pod* pod) {
  const api::ResourceInfo& res = api::ResourceFor<api::ResourceClaim>();
  // 1. The finalizer first: nobody may delete an allocated claim without our deallocation.
  for (ClaimAllocation& c : claims) {
    const std::string uid = c.claim->metadata.uid;
    auto protected_claim = client::UpdateWithRetry(
        client_, res, c.claim->metadata.namespace_, c.claim->metadata.name, client::Write::kUpdate,
        [&](const api::Object& o) -> Result<client::Desired> {
          if (o.metadata.uid != uid) {
            return ConflictError(res.QualifiedResource(), o.metadata.name,
                                 "the claim was replaced");
          }
          if (o.metadata.rare->deletionTimestamp) {
            return ConflictError(res.QualifiedResource(), o.metadata.name,
                                 "the claim is being deleted");
          }
          if (HasFinalizer(o.metadata, finalizer_)) return client::Desired();
          auto copy = o.Clone();
          copy->metadata.finalizers.push_back(finalizer_);
          return client::Desired(std::move(copy));
        },
        /*first=*/nullptr);  // fresh: a cached copy may show a finalizer already removed
    if (!protected_claim.ok()) return protected_claim.status();
    c.claim = std::static_pointer_cast<const api::ResourceClaim>(*protected_claim);
  }
  // 2. The driver allocates.
  driver_.Allocate(claims, node);
  // 3. Each allocation is written (with the pod reserved); what cannot be is released again.
  Status first_error;
  for (ClaimAllocation& c : claims) {
    if (!c.allocation) {
      if (c.error.ok()) c.error = InternalError("the driver returned no allocation");
      if (first_error.ok()) first_error = c.error;
      events_.Record(*c.claim, client::kEventTypeWarning, "Failed", "",
                     "allocation by " + options_.driver_name + " failed: " + c.error.message());
      continue;
    }
    api::AllocationResult allocation = *c.allocation;
    allocation.controllerName = options_.driver_name;
    const std::string uid = c.claim->metadata.uid;
    auto written = client::UpdateWithRetry(
        client_, res, c.claim->metadata.namespace_, c.claim->metadata.name, client::Write::kStatus,
        [&](const api::Object& o) -> Result<client::Desired> {
          const api::ResourceClaim* cur = AsClaim(o);
          if (cur == nullptr || cur->metadata.uid != uid) {
            return ConflictError(res.QualifiedResource(), o.metadata.name,
                                 "the claim was replaced");
          }
          if (cur->status.deallocationRequested) {
            return ConflictError(res.QualifiedResource(), o.metadata.name,
                                 "deallocation was requested");
          }
          if (cur->status.allocation && !(*cur->status.allocation == allocation)) {
            return ConflictError(res.QualifiedResource(), o.metadata.name,
                                 "allocated by someone else in the meantime");
          }
          auto copy = std::make_unique<api::ResourceClaim>(*cur);
          copy->status.allocation = allocation;
          if (pod != nullptr && !ReservedFor(*copy, pod->metadata.uid)) {
            copy->status.reservedFor.push_back({"", "pods", pod->metadata.name, pod->metadata.uid});
          }
          return client::Desired(std::move(copy));
        },
        c.claim);
    if (!written.ok()) {
      (void)driver_.Deallocate(*c.claim);  // nothing stays half allocated
      if (first_error.ok()) first_error = written.status();
      continue;
    }
    c.claim = std::static_pointer_cast<const api::ResourceClaim>(*written);
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.allocated;
  }
  return first_error;
}

// --- PodSchedulingContexts ----------------------------------------------------------------------

Status Controller::SyncContext(const std::string& ns, const std::string& name) {
  api::ObjectPtr ctx_obj = contexts_->Get(ns, name);
  const auto* ctx = ctx_obj ? api::As<api::PodSchedulingContext>(*ctx_obj) : nullptr;
  if (ctx == nullptr || ctx->metadata.rare->deletionTimestamp) return Status::Ok();
  if (ctx->spec.selectedNode.empty() && ctx->spec.potentialNodes.empty()) return Status::Ok();
  api::ObjectPtr pod_obj = pods_->Get(ns, name);
  const auto* pod = pod_obj ? api::As<api::Pod>(*pod_obj) : nullptr;
  if (pod == nullptr || pod->metadata.rare->deletionTimestamp) return Status::Ok();
  // Only the pod's own context (the scheduler makes it controlled by the pod): one left by an
  // earlier pod of the same name, or written by anyone else, is not acted on.
  if (!api::IsControlledBy(ctx->metadata, pod->metadata.uid)) return Status::Ok();
  // The pod's claims of this driver that still need an allocation.
  std::vector<ClaimAllocation> pending;
  for (const api::PodClaimUse& use : api::PodClaims(*pod)) {
    if (use.claim_name.empty()) continue;
    api::ObjectPtr obj = claims_->Get(ns, use.claim_name);
    const api::ResourceClaim* claim = obj ? AsClaim(*obj) : nullptr;
    if (claim == nullptr || !IsOurs(*claim)) continue;
    if (use.generated && !api::IsControlledBy(claim->metadata, pod->metadata.uid)) continue;
    if (claim->metadata.rare->deletionTimestamp || claim->status.deallocationRequested) continue;
    if (claim->status.allocation) continue;
    pending.push_back({.pod_claim_name = use.entry,
                       .claim = std::static_pointer_cast<const api::ResourceClaim>(obj)});
  }
  if (pending.empty()) return Status::Ok();
  std::vector<std::string> nodes = ctx->spec.potentialNodes;
  const std::string& selected = ctx->spec.selectedNode;
  if (!selected.empty() && std::find(nodes.begin(), nodes.end(), selected) == nodes.end()) {
    nodes.push_back(selected);
  }
  ALLOT_RETURN_IF_ERROR(driver_.UnsuitableNodes(*pod, pending, nodes));
  Status allocated;
  if (!selected.empty()) {
    bool suitable = true;
    for (const ClaimAllocation& c : pending) {
      suitable = suitable && std::find(c.unsuitable_nodes.begin(), c.unsuitable_nodes.end(),
                                       selected) == c.unsuitable_nodes.end();
    }
    if (suitable) {
      allocated = AllocateClaims(pending, selected, pod);
      // Allocated and reserved: the scheduler binds from the claims, and deletes the context
      // after that, so an answer about other nodes would be a write nobody reads.
      if (allocated.ok()) return allocated;
    }
  }
  ALLOT_RETURN_IF_ERROR(WriteUnsuitableNodes(*ctx, pending));
  if (!allocated.ok()) {
    events_.Record(*pod, client::kEventTypeWarning, "Failed", "",
                   "allocating for node " + selected + " failed: " + allocated.message());
  }
  return allocated;
}

Status Controller::WriteUnsuitableNodes(const api::PodSchedulingContext& ctx,
                                        std::span<const ClaimAllocation> claims) {
  const std::string uid = ctx.metadata.uid;
  auto written = client::UpdateWithRetry(
      client_, api::ResourceFor<api::PodSchedulingContext>(), ctx.metadata.namespace_,
      ctx.metadata.name, client::Write::kStatus,
      [&](const api::Object& o) -> Result<client::Desired> {
        const auto* cur = api::As<api::PodSchedulingContext>(o);
        if (cur == nullptr || cur->metadata.uid != uid) return client::Desired();
        auto copy = std::make_unique<api::PodSchedulingContext>(*cur);
        bool changed = false;
        for (const ClaimAllocation& c : claims) {
          std::vector<std::string> unsuitable =
              Truncated(c.unsuitable_nodes, cur->spec.selectedNode);
          auto& entries = copy->status.resourceClaims;
          auto it = std::find_if(entries.begin(), entries.end(),
                                 [&](const auto& e) { return e.name == c.pod_claim_name; });
          if (it == entries.end()) {
            entries.push_back({c.pod_claim_name, std::move(unsuitable)});
            changed = true;
          } else if (it->unsuitableNodes != unsuitable) {
            it->unsuitableNodes = std::move(unsuitable);
            changed = true;
          }
        }
        if (!changed) return client::Desired();
        return client::Desired(std::move(copy));
      });
  if (!written.ok()) {
    return written.status().code() == StatusCode::kNotFound ? Status::Ok() : written.status();
  }
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.unsuitable_written;
  return Status::Ok();
}

}  // namespace allot::drivers::controlplane
