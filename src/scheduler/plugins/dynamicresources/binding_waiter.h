// BindingWaiter: pods whose DRA PreBind waits for the binding conditions of their devices
// (KEP-5007, docs/architecture.md §5.4).
//
// A wait covers one pod and those of its claims whose allocation results carry binding
// conditions. It ends as soon as the claims' state decides it:
//   kReady     every binding condition of every such result is True in the claim's
//              status.devices entry for that device;
//   kFailed    some result's binding failure condition is True; or the claim is gone, was
//              replaced (another uid) or lost its allocation (someone deallocated it);
//   kTimedOut  a claim still not ready at its allocationTimestamp + timeout. A claim shared by
//              several pods is timed from its allocationTimestamp, not from when each pod
//              began to wait; a claim without a timestamp from when the wait began.
//   kAbandoned by AbandonAll (the scheduler is stopping), or by a second Add for the same pod.
// Failure (of any of the pod's claims) is checked before readiness, and readiness before the
// deadline.
//
// Stale copies: PreBind writes the allocation and starts the wait at once, before the claim
// informer has delivered that write. A ClaimRef may therefore carry the resourceVersion PreBind
// wrote (or read); an informer copy older than it is no evidence either way (it would look
// "deallocated"), so the claim counts as pending, timed from when the wait began, until the
// informer catches up.
//
// No thread and no polling: Add evaluates at once; OnClaim (the claim informer's handler)
// re-evaluates the waits that name the claim; CheckDeadlines (the scheduler's housekeeping)
// ends the waits whose deadline passed, in deadline order. Time comes from the Clock.
//
// Thread safety: thread-safe. `done` callbacks run without the waiter's lock held, on the
// thread that decided the wait (the one calling Add, OnClaim, CheckDeadlines or Abandon).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource/types.h"
#include "common/time.h"

namespace allot::scheduler {

// What one claim's binding conditions say right now.
struct BindingVerdict {
  enum class State { kPending, kReady, kFailed };
  State state = State::kPending;
  // kFailed: why ("device gpu.example.com/fabric-a100/a100-0: binding failure condition
  // kubernetes.io/attach-failed is True: AttachFailed: ..."); kPending: what is still awaited
  // ("device gpu.example.com/fabric-a100/a100-0: kubernetes.io/is-attached").
  std::string message;
  // The driver of the first result with binding conditions (metrics label); "" if none.
  std::string driver;
};

// Whether `allocation`'s results with binding conditions are bound, failed or pending, per
// `claim`'s status.devices. Results without binding conditions are ignored.
BindingVerdict EvaluateBindingConditions(const api::ResourceClaim& claim,
                                         const api::AllocationResult& allocation);

// Whether any result of the allocation carries binding conditions.
bool HasBindingConditions(const api::AllocationResult& allocation);

class BindingWaiter {
 public:
  enum class Outcome { kReady, kFailed, kTimedOut, kAbandoned };
  // Wait outcome name for metrics: "success", "failure", "timeout", "abandoned".
  static std::string_view OutcomeName(Outcome outcome);

  struct ClaimRef {
    std::string ns, name, uid;
    // The claim's resourceVersion as PreBind last wrote or read it; 0: unknown (every copy the
    // lookup returns is taken as current).
    uint64_t resource_version = 0;
  };
  // The claim as the informer has it now; null when it does not exist.
  using ClaimLookup = std::function<std::shared_ptr<const api::ResourceClaim>(
      const std::string& ns, const std::string& name)>;
  // `message`: for kFailed / kTimedOut, why (names the claim); `driver`: the metrics label.
  using Done = std::function<void(Outcome outcome, std::string message, std::string driver)>;

  BindingWaiter(Clock& clock, std::chrono::seconds timeout, ClaimLookup lookup);
  ~BindingWaiter();

  // Starts the pod's wait (a pod waits at most once at a time: a second Add for the same uid
  // abandons the first). `done` may run before Add returns when the claims already decide it,
  // and does (with kAbandoned) after AbandonAll.
  void Add(const std::string& pod_uid, std::vector<ClaimRef> claims, Done done);
  // The claim ns/name changed (added, updated or deleted): re-evaluates the waits naming it.
  void OnClaim(const std::string& ns, const std::string& name);
  // Ends the waits whose deadline has passed (and re-checks them first).
  void CheckDeadlines();
  // Ends every wait with kAbandoned (the scheduler is stopping; the claims keep their state so
  // the next scheduler resumes from it). Final: a later Add is abandoned at once, so a binding
  // worker that reaches its wait while the scheduler stops cannot hold the stop's drain.
  void AbandonAll();

  size_t size() const;
  // Whether the pod's wait is still open (not yet decided).
  bool IsWaiting(const std::string& pod_uid) const;
  std::chrono::seconds timeout() const { return timeout_; }

 private:
  struct Wait {
    std::vector<ClaimRef> claims;
    Done done;
    Time started;
    Time deadline;
    uint64_t token = 0;  // tells this wait from a later one of the same pod
  };
  struct Decision {
    Outcome outcome;
    std::string message, driver;
    Done done;
  };
  // Registers a new wait (the pod has none).
  void StartLocked(const std::string& pod_uid, std::vector<ClaimRef> claims, Done done);
  // Evaluates the pod's wait; when decided, removes it and returns what to report.
  std::optional<Decision> DecideLocked(const std::string& pod_uid, Time now);
  void RemoveLocked(const std::string& pod_uid);
  static void Report(std::vector<Decision>& decisions);

  Clock& clock_;
  const std::chrono::seconds timeout_;
  const ClaimLookup lookup_;

  mutable std::mutex mu_;
  std::map<std::string, Wait> waits_;                      // by pod uid; guarded by mu_
  std::map<std::string, std::set<std::string>> by_claim_;  // "ns/name" -> pod uids; guarded by mu_
  // -> (pod uid, token); guarded by mu_. Entries of ended waits stay until they come due.
  std::multimap<Time, std::pair<std::string, uint64_t>> deadlines_;
  uint64_t next_token_ = 1;  // guarded by mu_
  bool abandoned_ = false;   // guarded by mu_
};

}  // namespace allot::scheduler
