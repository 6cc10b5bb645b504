// FabricDriver's per-device state machine (see the phases in drivers/fabric/driver.h). Each Tick
// compares a device with the claim that holds it now (the informer's view) and the clock, and moves
// it on:
//
//   kFree ----(a claim allocated it, pinned to node N)----> kAttaching(N)
//   kAttaching --(deadline; RNG)--> kAttached(N) | kFailed     (allocation gone: kFree)
//   kAttached --(allocation gone, or now pinned elsewhere)--> kDetaching(N)
//   kDetaching --(deadline)--> kFree      (allocated again on N before that: kAttached)
//   kFailed --(the claim's allocation cleared or redone)--> kFree
//
// Restart: from kFree, a holder whose status already shows the outcome is adopted as kAttached
// or kFailed directly. Everything runs under mu_; writes are only collected (Effects).
#include <algorithm>

#include "drivers/device_status.h"
#include "drivers/fabric/devices.h"
#include "drivers/fabric/internal.h"

namespace allot::drivers {

namespace {

// A Step makes at most one transition; a Tick chains them (e.g. kDetaching -> kFree -> adopt by
// a claim on another node -> kAttaching -> attached at once with attachLatency 0).
constexpr int kMaxStepsPerTick = 5;
// Claims remembered as "already warned about" (bounded; forgetting one only repeats a log line).
constexpr size_t kMaxWarned = 1024;

// A uniform draw in [0, 1) from 53 random bits: the same sequence with every standard library.
double Draw(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace

std::vector<FabricDriver::Holder> FabricDriver::HoldersLocked(const Device& d) const {
  std::vector<Holder> out;
  if (claims_ == nullptr) return out;
  for (api::ObjectPtr& obj : claims_->ByIndex(index_name_, d.pool_name + "/" + d.name)) {
    const auto* claim = api::As<api::ResourceClaim>(*obj);
    if (claim == nullptr || !claim->status.allocation) continue;
    for (const api::DeviceRequestAllocationResult& r : claim->status.allocation->devices.results) {
      if (r.driver != config_.driver || r.pool != d.pool_name || r.device != d.name) continue;
      Holder h;
      h.claim = claim;
      h.result = &r;
      h.key = claim->metadata.namespace_ + "/" + claim->metadata.name;
      h.node = PinnedNode(*claim->status.allocation);
      h.rv = ResourceVersionNumber(claim->metadata.resourceVersion);
      h.object = std::move(obj);
      out.push_back(std::move(h));
      break;
    }
  }
  // The claim served so far first (a device allocated twice is a scheduler bug; stay put).
  std::sort(out.begin(), out.end(), [&](const Holder& a, const Holder& b) {
    bool a_ours = a.claim->metadata.uid == d.claim_uid;
    bool b_ours = b.claim->metadata.uid == d.claim_uid;
    return a_ours != b_ours ? a_ours : a.key < b.key;
  });
  return out;
}

void FabricDriver::ReconcileLocked(Device& d, Time now, Effects& fx) {
  if (d.cooldown_until && now >= *d.cooldown_until) {
    d.cooldown_until.reset();
    d.taint.reset();
  }
  std::vector<Holder> holders = HoldersLocked(d);
  if (holders.size() > 1) {
    std::string warning = "device " + d.name + " is allocated to " +
                          std::to_string(holders.size()) + " claims; serving " + holders[0].key;
    if (std::find(warned_.begin(), warned_.end(), warning) == warned_.end()) {
      if (warned_.size() >= kMaxWarned) warned_.clear();
      warned_.push_back(warning);
      fx.logs.push_back(warning);
    }
  }
  const Holder* h = holders.empty() ? nullptr : &holders[0];
  for (int step = 0; step < kMaxStepsPerTick; ++step) {
    const DevicePhase before = d.phase;
    StepLocked(d, h, now, fx);
    if (d.phase == before) break;
  }
}

void FabricDriver::StepLocked(Device& d, const Holder* h, Time now, Effects& fx) {
  const bool same_claim = h != nullptr && h->claim->metadata.uid == d.claim_uid;
  switch (d.phase) {
    case DevicePhase::kFree:
      AdoptLocked(d, h, now, fx);
      return;
    case DevicePhase::kAttaching:
      if (!same_claim || h->node != d.node) {
        fx.logs.push_back("attach of " + d.name + " to node " + d.node + " for claim " +
                          d.claim_key + " cancelled: the claim no longer holds it there");
        ++stats_.cancelled;
        attach_cancelled_->Inc();
        d.phase = DevicePhase::kFree;
        d.node.clear();
        d.Release();
      } else if (now >= d.due) {
        CompleteAttachLocked(d, *h, now, fx);
      }
      return;
    case DevicePhase::kAttached:
      if (h == nullptr || h->node != d.node) {
        fx.logs.push_back("detaching " + d.name + " from node " + d.node + ": claim " +
                          d.claim_key + " no longer holds it");
        d.phase = DevicePhase::kDetaching;
        d.due = TimeAfter(now, config_.detach_latency);
        d.Release();
      } else {
        ServeAttachedLocked(d, *h, now, fx);
      }
      return;
    case DevicePhase::kDetaching:
      if (h != nullptr && h->node == d.node) {
        fx.logs.push_back("detach of " + d.name + " from node " + d.node +
                          " cancelled: allocated to claim " + h->key + " on that node");
        d.phase = DevicePhase::kAttached;
        ServeAttachedLocked(d, *h, now, fx);
      } else if (now >= d.due) {
        fx.logs.push_back("detached " + d.name + " from node " + d.node);
        ++stats_.detaches;
        detach_total_->Inc();
        d.phase = DevicePhase::kFree;
        d.node.clear();
      }
      return;
    case DevicePhase::kFailed:
      if (!same_claim) {
        d.phase = DevicePhase::kFree;
        d.node.clear();
        d.Release();
      } else {
        ServeFailedLocked(d, *h, fx);
      }
      return;
  }
}

// kFailed and still held by its claim: make sure the claim shows the failure, unless the claim
// was allocated anew meanwhile.
void FabricDriver::ServeFailedLocked(Device& d, const Holder& h, Effects& fx) {
  const api::AllocatedDeviceStatus* entry = FindDeviceStatus(h.claim->status, *h.result);
  const bool shows = entry != nullptr && AnyConditionTrue(*entry, FailureTypes(config_, *h.result));
  if (shows) {
    d.reported = true;
    d.reported_rv = std::max(d.reported_rv, h.rv);
  } else if (!d.reported) {
    ReportLocked(d, h, fx);
  } else if (h.rv >= d.reported_rv) {
    // A version of the claim as new as our write lacks the failure: allocated anew (or our
    // entry was removed); start over.
    d.phase = DevicePhase::kFree;
    d.node.clear();
    d.Release();
  }
}

// kFree and held: take the claim on, resuming from what its status shows.
void FabricDriver::AdoptLocked(Device& d, const Holder* h, Time now, Effects& fx) {
  if (h == nullptr) return;
  if (h->node.empty()) {
    std::string warning = "claim " + h->key + " (uid " + h->claim->metadata.uid +
                          "): its allocation of " + d.name +
                          " pins no node (matchFields metadata.name); not attaching it";
    if (std::find(warned_.begin(), warned_.end(), warning) == warned_.end()) {
      if (warned_.size() >= kMaxWarned) warned_.clear();
      warned_.push_back(warning);
      fx.logs.push_back(warning);
    }
    return;
  }
  d.claim_uid = h->claim->metadata.uid;
  d.claim_key = h->key;
  d.node = h->node;
  const api::AllocatedDeviceStatus* entry = FindDeviceStatus(h->claim->status, *h->result);
  const std::vector<std::string>& failures = FailureTypes(config_, *h->result);
  if (entry != nullptr && AnyConditionTrue(*entry, failures)) {
    d.phase = DevicePhase::kFailed;
    d.reported = true;
    d.reported_rv = h->rv;
    d.outcome_at = now;
    for (const api::Condition& c : entry->conditions) {
      bool failure = std::find(failures.begin(), failures.end(), c.type) != failures.end();
      if (failure && c.status == "True" && c.lastTransitionTime)
        d.outcome_at = *c.lastTransitionTime;
    }
    if (TimeAfter(d.outcome_at, config_.failure_cooldown) > now) {
      StartCooldownLocked(d, d.node, d.outcome_at);
    }
    fx.logs.push_back("claim " + h->key + " shows the attach of " + d.name + " to node " + d.node +
                      " failed; waiting for it to be deallocated");
    return;
  }
  if (entry != nullptr && AllConditionsTrue(*entry, BindingTypes(config_, *h->result))) {
    d.phase = DevicePhase::kAttached;
    d.reported = true;
    d.reported_rv = h->rv;
    d.outcome_at = now;
    fx.logs.push_back(d.name + " is attached to node " + d.node + " for claim " + h->key +
                      " (as its status shows)");
    return;
  }
  d.phase = DevicePhase::kAttaching;
  d.due = TimeAfter(now, AttachLatencyLocked());
  d.reported = false;
  d.reported_rv = 0;
  fx.logs.push_back("attaching " + d.name + " to node " + d.node + " for claim " + h->key);
}

std::chrono::microseconds FabricDriver::AttachLatencyLocked() {
  const auto lo = config_.attach_latency, hi = config_.attach_latency_max;
  if (hi <= lo) return lo;  // fixed: no draw, so the failure draws stay as they were
  return std::chrono::microseconds(
      std::uniform_int_distribution<int64_t>(lo.count(), hi.count())(rng_));
}

void FabricDriver::CompleteAttachLocked(Device& d, const Holder& h, Time now, Effects& fx) {
  const bool failed = Draw(rng_) < config_.failure_rate;
  d.outcome_at = now;
  d.reported = false;
  d.reported_rv = 0;
  if (failed) {
    d.phase = DevicePhase::kFailed;
    ++stats_.failures;
    attach_failure_->Inc();
    StartCooldownLocked(d, d.node, now);
    fx.logs.push_back("attaching " + d.name + " to node " + d.node + " for claim " + d.claim_key +
                      " failed (simulated)");
  } else {
    d.phase = DevicePhase::kAttached;
    ++stats_.attaches;
    attach_success_->Inc();
    fx.logs.push_back("attached " + d.name + " to node " + d.node + " for claim " + d.claim_key);
  }
  ReportLocked(d, h, fx);
}

// kAttached and held on its node: by the claim served so far, or by a new one (allocated while
// it was still attached); makes sure the holder's status says so.
void FabricDriver::ServeAttachedLocked(Device& d, const Holder& h, Time now, Effects& fx) {
  if (h.claim->metadata.uid != d.claim_uid) {
    d.claim_uid = h.claim->metadata.uid;
    d.claim_key = h.key;
    d.outcome_at = now;
    d.reported = false;
    d.reported_rv = 0;
    fx.logs.push_back(d.name + " (attached to node " + d.node + ") allocated to claim " + h.key);
  }
  const api::AllocatedDeviceStatus* entry = FindDeviceStatus(h.claim->status, *h.result);
  if (entry != nullptr && AllConditionsTrue(*entry, BindingTypes(config_, *h.result))) {
    d.reported = true;
    d.reported_rv = std::max(d.reported_rv, h.rv);
    return;
  }
  if (d.reported && h.rv < d.reported_rv) return;  // the informer has not seen our write yet
  d.reported = false;
  ReportLocked(d, h, fx);
}

void FabricDriver::StartCooldownLocked(Device& d, const std::string& node, Time failed_at) {
  if (config_.failure_cooldown.count() <= 0) return;
  d.cooldown_until = TimeAfter(failed_at, config_.failure_cooldown);
  d.taint = FabricAttachFailedTaint(node, failed_at);
}

// Queues the status.devices entry for the device's outcome (kAttached or kFailed).
void FabricDriver::ReportLocked(Device& d, const Holder& h, Effects& fx) {
  const bool attached = d.phase == DevicePhase::kAttached;
  StatusWrite w;
  w.device = static_cast<size_t>(&d - devices_.data());
  w.ns = h.claim->metadata.namespace_;
  w.name = h.claim->metadata.name;
  w.uid = h.claim->metadata.uid;
  w.node = d.node;
  w.result = *h.result;
  const std::string message =
      attached ? "attached to node " + d.node
               : "attaching " + d.name + " to node " + d.node + " failed (simulated)";
  for (const std::string& type :
       attached ? BindingTypes(config_, *h.result) : FailureTypes(config_, *h.result)) {
    api::Condition c;
    c.type = type;
    c.status = "True";
    c.observedGeneration = h.claim->metadata.generation;
    c.lastTransitionTime = d.outcome_at.TruncatedToSeconds();
    c.reason = attached ? "Attached" : "AttachFailed";
    c.message = message;
    w.conditions.push_back(std::move(c));
  }
  fx.writes.push_back(std::move(w));
}

}  // namespace allot::drivers
