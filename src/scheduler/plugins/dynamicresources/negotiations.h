// Negotiations: the pods whose claims wait for control-plane DRA drivers (KEP-3063), remembered
// between their scheduling rounds — for the per-driver answer deadline and the negotiation
// metrics. The objects (claims, PodSchedulingContext) hold the negotiation's state; this holds
// only time — when a pod began waiting, since when it waits for the current request, when its
// selectedNode went out, how many rounds it took — and the nodes the drivers ruled out so far:
// a driver's answer replaces its previous one (each lists at most 128 nodes), so without this
// memory a pod with more feasible nodes than that would be offered the first ones again.
//
// A round that ends waiting calls Waiting; the round that finds every controller claim allocated
// calls Finish, which returns the figures to observe. Every entry has a deadline (the earliest of
// its awaited drivers' answer timeouts, counted from when the published request last changed),
// and Expire hands back and forgets the entries past it, so a pod deleted while it waited leaves
// nothing behind for longer than its deadline.
//
// A pod that also has structured claims holds the devices chosen for them on the selected node
// while its drivers allocate (Hold): the DeviceTracker counts them as in use, so no other pod
// takes them meanwhile. The pod's next round takes the hold back first (TakeHeld) and chooses
// afresh; a pod that never comes back (deleted) loses the hold at its deadline (Expire).
//
// Thread safety: thread-safe (binding workers call Waiting and Finish, the housekeeping thread
// calls Expire).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource/pod_scheduling_context.h"

namespace allot::scheduler {

class Negotiations {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  using TimeoutFor = std::function<std::chrono::seconds(std::string_view driver)>;

  explicit Negotiations(TimeoutFor timeout_for);

  // A round of the pod ended with `published` in its context, waiting for `drivers` (sorted).
  // The wait is timed from the first round that asked for exactly `published`. True when this
  // starts the pod's negotiation.
  bool Waiting(const std::string& pod_uid, const std::string& ns, const std::string& name,
               const api::PodSchedulingContextSpec& published, std::vector<std::string> drivers,
               TimePoint now);

  struct Finished {
    int rounds = 0;
    std::optional<std::chrono::duration<double>> to_selected;   // first round -> selectedNode out
    std::optional<std::chrono::duration<double>> to_allocated;  // selectedNode out -> now
    std::vector<std::string> held;  // still held (see Hold): to be released
  };
  // Every controller claim of the pod is allocated: its figures (nullopt if it never waited).
  std::optional<Finished> Finish(const std::string& pod_uid, TimePoint now);

  struct Expired {
    std::string pod_uid, ns, name;
    std::vector<std::string> drivers;  // those whose own deadline passed
    std::string selected_node;         // as published ("" while asking for information)
    std::chrono::seconds waited{0};
    std::vector<std::string> held;  // claim uids whose assumed devices are to be released
  };
  // The waits whose deadline passed, forgotten.
  std::vector<Expired> Expire(TimePoint now);

  // The nodes drivers reported unsuitable for the pod's claim `claim` in this negotiation,
  // `reported` (the context's current answer) included; sorted. Only `reported` when the pod is
  // not negotiating.
  std::vector<std::string> Unsuitable(const std::string& pod_uid, const std::string& claim,
                                      std::vector<std::string> reported);
  // Ends the pod's negotiation without figures: no node is left for it (every one ruled out),
  // so the next round asks the drivers afresh. Returns what it held (see Hold).
  std::vector<std::string> Forget(const std::string& pod_uid);

  // The pod (negotiating: after Waiting) holds the devices assumed for these structured claims
  // (claim uids) until TakeHeld, Forget or Expire hands them back; replaces an earlier hold.
  // False, holding nothing, when the pod is not negotiating.
  bool Hold(const std::string& pod_uid, std::vector<std::string> claim_uids);
  // The claim uids the pod held, no longer held.
  std::vector<std::string> TakeHeld(const std::string& pod_uid);

  // How many negotiating pods have each node as their published selectedNode, the pod
  // `except` left out: the nodes drivers are being asked to allocate on right now.
  std::map<std::string, int, std::less<>> SelectedNodes(const std::string& except) const;

  size_t size() const;

 private:
  struct Entry {
    std::string ns, name;
    api::PodSchedulingContextSpec published;
    std::vector<std::string> drivers;
    TimePoint first, since;
    std::optional<TimePoint> selected_at;
    int rounds = 0;
    TimePoint deadline;
    std::map<std::string, std::vector<std::string>> unsuitable;  // by pod claim name, sorted
    std::vector<std::string> held;                               // claim uids
  };
  TimePoint DeadlineOf(const Entry& e) const;

  const TimeoutFor timeout_for_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;  // by pod uid; guarded by mu_
};

}  // namespace allot::scheduler
