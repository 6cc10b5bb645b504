#include "scheduler/plugins/dynamicresources/binding_waiter.h"

#include <algorithm>
#include <charconv>

namespace allot::scheduler {

namespace {

const api::AllocatedDeviceStatus* FindDeviceStatus(const api::ResourceClaim& claim,
                                                   const api::DeviceRequestAllocationResult& r) {
  for (const api::AllocatedDeviceStatus& d : claim.status.devices) {
    if (d.driver == r.driver && d.pool == r.pool && d.device == r.device &&
        (!r.rare->shareID || d.shareID == r.rare->shareID)) {
      return &d;
    }
  }
  return nullptr;
}

const api::Condition* FindCondition(const api::AllocatedDeviceStatus* d, std::string_view type) {
  if (!d) return nullptr;
  for (const api::Condition& c : d->conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

std::string DeviceName(const api::DeviceRequestAllocationResult& r) {
  return r.driver + "/" + r.pool + "/" + r.device;
}

std::string Key(const std::string& ns, const std::string& name) { return ns + "/" + name; }

// Whether `claim` is an informer copy older than what PreBind wrote (see the header).
bool Stale(const api::ResourceClaim& claim, const BindingWaiter::ClaimRef& ref) {
  if (ref.resource_version == 0) return false;
  const std::string& rv = claim.metadata.resourceVersion;
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), v);
  if (ec != std::errc() || end != rv.data() + rv.size()) return false;  // not ours to compare
  return v < ref.resource_version;
}

Time Plus(Time t, std::chrono::seconds d) {
  return Time{t.unix_micros + std::chrono::duration_cast<std::chrono::microseconds>(d).count()};
}

}  // namespace

bool HasBindingConditions(const api::AllocationResult& allocation) {
  for (const auto& r : allocation.devices.results) {
    if (!r.rare->bindingConditions.empty()) return true;
  }
  return false;
}

BindingVerdict EvaluateBindingConditions(const api::ResourceClaim& claim,
                                         const api::AllocationResult& allocation) {
  BindingVerdict v;
  std::string pending;
  bool all_ready = true;
  for (const api::DeviceRequestAllocationResult& r : allocation.devices.results) {
    if (r.rare->bindingConditions.empty()) continue;
    if (v.driver.empty()) v.driver = r.driver;
    const api::AllocatedDeviceStatus* d = FindDeviceStatus(claim, r);
    for (const std::string& type : r.rare->bindingFailureConditions) {
      const api::Condition* c = FindCondition(d, type);
      if (c && c->status == "True") {
        v.state = BindingVerdict::State::kFailed;
        v.driver = r.driver;
        v.message = "device " + DeviceName(r) + ": binding failure condition " + type + " is True";
        if (!c->reason.empty()) v.message += ": " + c->reason;
        if (!c->message.empty()) v.message += ": " + c->message;
        return v;
      }
    }
    std::string missing;
    for (const std::string& type : r.rare->bindingConditions) {
      const api::Condition* c = FindCondition(d, type);
      if (c && c->status == "True") continue;
      missing += missing.empty() ? type : ", " + type;
    }
    if (missing.empty()) continue;
    all_ready = false;
    if (!pending.empty()) pending += "; ";
    pending += "device " + DeviceName(r) + ": " + missing;
  }
  v.state = all_ready ? BindingVerdict::State::kReady : BindingVerdict::State::kPending;
  v.message = std::move(pending);
  return v;
}

std::string_view BindingWaiter::OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kReady:
      return "success";
    case Outcome::kFailed:
      return "failure";
    case Outcome::kTimedOut:
      return "timeout";
    case Outcome::kAbandoned:
      return "abandoned";
  }
  return "unknown";
}

BindingWaiter::BindingWaiter(Clock& clock, std::chrono::seconds timeout, ClaimLookup lookup)
    : clock_(clock), timeout_(timeout), lookup_(std::move(lookup)) {}

BindingWaiter::~BindingWaiter() = default;

size_t BindingWaiter::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waits_.size();
}

bool BindingWaiter::IsWaiting(const std::string& pod_uid) const {
  std::lock_guard<std::mutex> lock(mu_);
  return waits_.contains(pod_uid);
}

void BindingWaiter::Add(const std::string& pod_uid, std::vector<ClaimRef> claims, Done done) {
  std::vector<Decision> decisions;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (abandoned_) {
      decisions.push_back({Outcome::kAbandoned, "the scheduler is stopping", "", std::move(done)});
    } else {
      if (auto it = waits_.find(pod_uid); it != waits_.end()) {
        decisions.push_back({Outcome::kAbandoned, "replaced by a new wait", "", it->second.done});
        RemoveLocked(pod_uid);
      }
      StartLocked(pod_uid, std::move(claims), std::move(done));
      if (auto d = DecideLocked(pod_uid, clock_.Now())) decisions.push_back(std::move(*d));
    }
  }
  Report(decisions);
}

void BindingWaiter::StartLocked(const std::string& pod_uid, std::vector<ClaimRef> claims,
                                Done done) {
  const Time now = clock_.Now();
  Wait w;
  w.claims = std::move(claims);
  w.done = std::move(done);
  w.started = now;
  w.token = next_token_++;
  // The deadline: the earliest allocationTimestamp + timeout among the claims (re-checked per
  // claim when it passes).
  std::optional<Time> deadline;
  for (const ClaimRef& ref : w.claims) {
    by_claim_[Key(ref.ns, ref.name)].insert(pod_uid);
    auto claim = lookup_(ref.ns, ref.name);
    Time start = now;
    if (claim && !Stale(*claim, ref) && claim->status.allocation &&
        claim->status.allocation->allocationTimestamp) {
      start = *claim->status.allocation->allocationTimestamp;
    }
    Time d = Plus(start, timeout_);
    if (!deadline || d < *deadline) deadline = d;
  }
  w.deadline = deadline.value_or(now);
  deadlines_.emplace(w.deadline, std::make_pair(pod_uid, w.token));
  waits_.emplace(pod_uid, std::move(w));
}

void BindingWaiter::OnClaim(const std::string& ns, const std::string& name) {
  std::vector<Decision> decisions;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_claim_.find(Key(ns, name));
    if (it == by_claim_.end()) return;
    std::vector<std::string> pods(it->second.begin(), it->second.end());
    const Time now = clock_.Now();
    for (const std::string& uid : pods) {
      if (auto d = DecideLocked(uid, now)) decisions.push_back(std::move(*d));
    }
  }
  Report(decisions);
}

void BindingWaiter::CheckDeadlines() {
  std::vector<Decision> decisions;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const Time now = clock_.Now();
    while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
      auto [uid, token] = deadlines_.begin()->second;
      deadlines_.erase(deadlines_.begin());
      auto it = waits_.find(uid);
      if (it == waits_.end() || it->second.token != token) continue;  // already ended
      if (auto d = DecideLocked(uid, now)) {
        decisions.push_back(std::move(*d));
        continue;
      }
      // Not decided: a claim re-timed (another allocation); wait for its own deadline.
    }
  }
  Report(decisions);
}

void BindingWaiter::AbandonAll() {
  std::vector<Decision> decisions;
  {
    std::lock_guard<std::mutex> lock(mu_);
    abandoned_ = true;
    while (!waits_.empty()) {
      std::string uid = waits_.begin()->first;
      decisions.push_back(
          {Outcome::kAbandoned, "the scheduler is stopping", "", waits_.begin()->second.done});
      RemoveLocked(uid);
    }
  }
  Report(decisions);
}

std::optional<BindingWaiter::Decision> BindingWaiter::DecideLocked(const std::string& pod_uid,
                                                                   Time now) {
  auto it = waits_.find(pod_uid);
  if (it == waits_.end()) return std::nullopt;
  Wait& w = it->second;
  auto finish = [&](Outcome outcome, std::string message, std::string driver) {
    Decision d{outcome, std::move(message), std::move(driver), w.done};
    RemoveLocked(pod_uid);  // `w` is gone from here on
    return std::optional<Decision>(std::move(d));
  };
  std::string driver;  // of the first claim with binding conditions
  std::optional<Time> next_deadline;
  // The first claim past its deadline. Reported only when no later claim failed: failure is
  // checked before the deadline for all of the pod's claims, not claim by claim.
  std::optional<std::pair<std::string, std::string>> timed_out;  // (message, driver)
  bool ready = true;
  for (const ClaimRef& ref : w.claims) {
    const std::string label = "claim " + ref.ns + "/" + ref.name;
    auto claim = lookup_(ref.ns, ref.name);
    Time start = w.started;
    std::string awaited;
    std::string claim_driver;
    if (claim && Stale(*claim, ref)) {
      // The informer has not delivered PreBind's write yet: no evidence either way.
      awaited = "the claim's allocation to reach the scheduler's cache";
    } else {
      if (!claim) {
        return finish(Outcome::kFailed,
                      label + ": was deleted while the pod waited for binding conditions", driver);
      }
      if (claim->metadata.uid != ref.uid) {
        return finish(Outcome::kFailed, label + ": was replaced", driver);
      }
      if (!claim->status.allocation) {
        return finish(Outcome::kFailed,
                      label + ": was deallocated while the pod waited for binding conditions",
                      driver);
      }
      BindingVerdict v = EvaluateBindingConditions(*claim, *claim->status.allocation);
      if (driver.empty()) driver = v.driver;
      if (v.state == BindingVerdict::State::kFailed) {
        return finish(Outcome::kFailed, label + ": " + v.message, v.driver);
      }
      if (v.state == BindingVerdict::State::kReady) continue;
      start = claim->status.allocation->allocationTimestamp.value_or(w.started);
      awaited = std::move(v.message);
      claim_driver = std::move(v.driver);
    }
    ready = false;
    Time deadline = Plus(start, timeout_);
    if (deadline <= now) {
      if (!timed_out) {
        timed_out.emplace(label + ": binding conditions not met within " +
                              std::to_string(timeout_.count()) +
                              "s of allocation (still waiting for " + awaited + ")",
                          claim_driver);
      }
      continue;
    }
    if (!next_deadline || deadline < *next_deadline) next_deadline = deadline;
  }
  if (timed_out) return finish(Outcome::kTimedOut, timed_out->first, timed_out->second);
  if (ready) return finish(Outcome::kReady, "", driver);
  if (next_deadline && *next_deadline != w.deadline) {
    w.deadline = *next_deadline;
    deadlines_.emplace(w.deadline, std::make_pair(pod_uid, w.token));
  }
  return std::nullopt;
}

void BindingWaiter::RemoveLocked(const std::string& pod_uid) {
  auto it = waits_.find(pod_uid);
  if (it == waits_.end()) return;
  for (const ClaimRef& ref : it->second.claims) {
    auto c = by_claim_.find(Key(ref.ns, ref.name));
    if (c == by_claim_.end()) continue;
    c->second.erase(pod_uid);
    if (c->second.empty()) by_claim_.erase(c);
  }
  // Its deadline entries stay; CheckDeadlines skips them by token.
  waits_.erase(it);
}

void BindingWaiter::Report(std::vector<Decision>& decisions) {
  for (Decision& d : decisions) {
    if (d.done) d.done(d.outcome, std::move(d.message), std::move(d.driver));
  }
}

}  // namespace allot::scheduler
