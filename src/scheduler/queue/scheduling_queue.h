// SchedulingQueue: the pods waiting to be scheduled (kube-scheduler's PriorityQueue).
//
//  - activeQ: pods ready to be tried, ordered by the profiles' QueueSort (PrioritySort:
//    higher priority first, then older first). Pop takes the head.
//  - backoffQ: pods that failed recently and wait out their backoff, ordered by when it ends:
//    initial * 2^(attempts-1), capped (defaults 1 s and 10 s). FlushBackoffQCompleted (and
//    Pop) move the expired ones to activeQ.
//  - unschedulable pods: pods a plugin rejected. A cluster event moves a pod back (to backoffQ
//    if it is still backing off, else to activeQ) only when a plugin that rejected it
//    registered for the event and its queueing hint answers Queue. A pod rejected for no
//    plugin-specific reason moves on any event. FlushUnschedulablePodsLeftover moves pods that
//    waited longer than max_in_unschedulable (default 5 min) regardless.
//  - gated pods: a PreEnqueue plugin rejected them; they wait among the unschedulable pods,
//    never backed off, until an update or an event their gating plugin registered for lets
//    PreEnqueue pass.
//
// In-flight pods: between Pop and Done the pod is in none of the queues. Events that arrive in
// that window are remembered; if the attempt then fails, they are replayed against the pod's
// rejecting plugins so an event that raced with the attempt is not lost (the pod goes to
// backoffQ instead of waiting among the unschedulable pods for nothing).
//
// Time comes from the Clock (steady time), so tests drive backoff and flushes with FakeClock.
//
// Thread safety: all methods are thread-safe. Informer handlers, the scheduling thread and
// binding completions call in concurrently. Queueing hints run under the queue's lock and must
// not call back into the queue.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/time.h"
#include "scheduler/framework/runtime/framework.h"
#include "scheduler/metrics/metrics.h"
#include "scheduler/queue/heap.h"

namespace allot::scheduler {

struct QueueOptions {
  std::chrono::milliseconds initial_backoff{1000};
  std::chrono::milliseconds max_backoff{10000};
  std::chrono::milliseconds max_in_unschedulable{5 * 60 * 1000};
};

class SchedulingQueue {
 public:
  using Duration = std::chrono::steady_clock::duration;
  using TimePoint = std::chrono::steady_clock::time_point;

  // `profiles` by scheduler name; all must share the same QueueSort (the first one's is used).
  SchedulingQueue(Clock& clock, QueueOptions options, std::map<std::string, Framework*> profiles,
                  SchedulerMetrics* metrics);
  ~SchedulingQueue();

  // --- pods from the informer ---
  // A new pending pod: to activeQ, or gated if PreEnqueue rejects it.
  void Add(PodInfoPtr pod);
  // A pending pod changed. A gated pod is re-checked; a pod among the unschedulable ones moves
  // if the update may help (queueing hints with an UnscheduledPod/Update event); a queued pod
  // is just refreshed.
  void Update(const api::ObjectPtr& old_pod, PodInfoPtr new_pod);
  // The pod is gone (deleted, or bound by someone else).
  void Delete(const api::Pod& pod);

  // A cluster event (node added, assigned pod deleted, ...): moves the unschedulable pods it
  // may help. old_obj / new_obj: the changed object before and after (null for add / delete).
  void OnEvent(const ClusterEvent& event, const api::ObjectPtr& old_obj,
               const api::ObjectPtr& new_obj);
  // Moves every unschedulable (not gated) pod, e.g. after a long-lasting change of state.
  void MoveAllToActiveOrBackoff(const ClusterEvent& event);
  // Moves one pod from the unschedulable pods to activeQ, skipping its backoff (a plugin's own
  // deadline for it passed: Handle::Activate). False when it is not among them.
  bool Activate(const std::string& uid);

  // --- the scheduling loop ---
  // The next pod to schedule, waiting up to `timeout` (also moves completed backoffs first).
  // nullptr on timeout or after Close. The pod is in flight until Done.
  std::unique_ptr<QueuedPodInfo> Pop(std::chrono::milliseconds timeout);
  // The attempt failed: requeue the pod (backoffQ if an in-flight event may help it or it failed
  // with an error, else the unschedulable pods). `error`: the attempt ended in an error rather
  // than a plugin rejection. Also ends the pod's in-flight state.
  void AddUnschedulableIfNotPresent(std::unique_ptr<QueuedPodInfo> pod, bool error);
  // The pod's attempt is over (bound, or dropped): it leaves the in-flight set.
  void Done(const std::string& uid);
  // The in-flight pod waits outside the scheduler, possibly for minutes (PreBind waiting for
  // binding conditions). Cluster events are no longer kept for it: if its attempt fails,
  // AddUnschedulableIfNotPresent sends it to backoffQ (as if an event had helped), so a thousand
  // waiting pods cost the queue nothing; its deletion and updates are still remembered.
  void Park(const std::string& uid);
  // Wakes Pop callers; Pop returns nullptr from now on.
  void Close();

  // --- housekeeping (called periodically by the scheduler; tests call them directly) ---
  void FlushBackoffQCompleted();
  // When the pod at the head of backoffQ is due; nullopt when backoffQ is empty.
  std::optional<TimePoint> NextBackoffExpiry();
  void FlushUnschedulablePodsLeftover();

  // --- introspection ---
  size_t ActiveSize() const;
  size_t BackoffSize() const;
  size_t UnschedulableSize() const;  // not gated
  size_t InFlightSize() const;
  // Where a pod is: "active", "backoff", "unschedulable", "gated", "inflight" or "".
  std::string Where(const std::string& uid) const;
  // The backoff a pod with `attempts` failed attempts gets.
  Duration BackoffDuration(int attempts) const;

 private:
  struct InFlightEvent {
    uint64_t seq;
    ClusterEvent event;
    api::ObjectPtr old_obj, new_obj;
  };
  using Lock = std::unique_lock<std::mutex>;
  // Every registration of every profile's plugins, by id, with the waiting pods it may move.
  // A waiting pod is indexed under the registrations of the plugins that rejected (or gated)
  // it: by target key for targeted registrations, else in `pods`. An event then looks only at
  // the pods indexed under registrations that match it (see MoveUnschedulable).
  struct Registration {
    ClusterEventWithHint reg;
    std::unordered_set<std::string> pods;                                             // uids
    std::unordered_map<std::string, std::unordered_set<std::string>> pods_by_target;  // key -> uids
  };
  // Where a waiting pod is indexed, so it can be taken out again.
  struct IndexEntry {
    std::vector<size_t> regs;                             // untargeted registrations
    std::vector<std::pair<size_t, std::string>> targets;  // (targeted registration, key)
    bool any = false;                                     // no rejecting plugin: any event
  };

  Framework* ProfileFor(const api::Pod& pod) const;
  // Into / out of the unschedulable map, keeping the gated count and per-plugin gauges.
  void PutUnschedulable(std::unique_ptr<QueuedPodInfo> p);
  std::unique_ptr<QueuedPodInfo> TakeUnschedulable(const std::string& uid);
  std::unique_ptr<QueuedPodInfo> NewQueuedPodInfo(PodInfoPtr pod) const;
  // PreEnqueue, then activeQ; gated into the unschedulable map on a rejection.
  void MoveToActiveQ(Lock& lock, std::unique_ptr<QueuedPodInfo> p, std::string_view event);
  void MoveToActiveOrBackoff(Lock& lock, std::unique_ptr<QueuedPodInfo> p, std::string_view event);
  bool IsBackingOff(const QueuedPodInfo& p) const;
  TimePoint BackoffExpiry(const QueuedPodInfo& p) const;
  // The registrations of the plugins that rejected (or gated) `p`, in its profile.
  template <class Fn>
  void ForEachRejectorRegistration(const QueuedPodInfo& p, Fn fn) const;
  void Index(const QueuedPodInfo& p);
  void Unindex(const std::string& uid);
  // Whether registration `r` covers this change for `pod` (match, filter, target, hint).
  bool RegistrationMoves(const Registration& r, const api::Pod& pod, const api::Object* old_obj,
                         const api::Object* new_obj) const;
  // Whether `event` may make `p` schedulable, per its rejecting plugins' registrations.
  bool EventMayHelp(const QueuedPodInfo& p, const ClusterEvent& event, const api::Object* old_obj,
                    const api::Object* new_obj) const;
  // Whether some registration matches the event and its filter does not rule the change out.
  bool EventOfInterest(const ClusterEvent& event, const api::Object* old_obj,
                       const api::Object* new_obj) const;
  void MoveUnschedulable(Lock& lock, const ClusterEvent& event, const api::Object* old_obj,
                         const api::Object* new_obj, bool all);
  void FlushBackoffLocked(Lock& lock);
  void PruneInFlightEvents();
  void EraseInFlightSeq(uint64_t seq);
  void UpdateGauges();
  void CountIncoming(std::string_view queue, std::string_view event);

  Clock& clock_;
  const QueueOptions options_;
  const std::map<std::string, Framework*> profiles_;
  Framework* sort_profile_;
  std::vector<Registration> regs_;
  // Per scheduler name: plugin -> ids of its registrations in regs_.
  std::map<std::string, std::map<std::string, std::vector<size_t>, std::less<>>, std::less<>>
      events_;
  SchedulerMetrics* metrics_;
  metrics::Gauge* gauges_[4] = {nullptr, nullptr, nullptr, nullptr};
  struct IncomingCounter {
    std::string queue, event;
    metrics::Counter* counter;
  };
  std::vector<IncomingCounter> incoming_;  // guarded by mu_

  mutable std::mutex mu_;
  std::condition_variable cv_;
  PodHeap active_;                                                       // guarded by mu_
  PodHeap backoff_;                                                      // guarded by mu_
  std::map<std::string, std::unique_ptr<QueuedPodInfo>> unschedulable_;  // guarded by mu_
  std::unordered_map<std::string, IndexEntry> index_;  // uid -> entry; guarded by mu_
  std::unordered_set<std::string> any_event_pods_;     // uids; guarded by mu_
  size_t gated_count_ = 0;                             // guarded by mu_
  // uid -> event seq at Pop (kParked once parked); guarded by mu_
  std::map<std::string, uint64_t> in_flight_;
  static constexpr uint64_t kParked = UINT64_MAX;
  // The seqs of in_flight_ that are not parked: the oldest bounds in_flight_events_.
  std::multiset<uint64_t> in_flight_seqs_;               // guarded by mu_
  std::map<std::string, PodInfoPtr> in_flight_updates_;  // newest object seen while in flight
  std::map<std::string, bool> in_flight_deleted_;        // deleted while in flight
  std::deque<InFlightEvent> in_flight_events_;           // guarded by mu_
  uint64_t event_seq_ = 0;                               // guarded by mu_
  bool closed_ = false;                                  // guarded by mu_
};

}  // namespace allot::scheduler
