// NodeSimulator: many simulated kubelets (KWOK-like) in one object, driven by events and a timer
// queue on an injectable Clock. No thread per node and no thread per pod.
//
//   NodeSimulatorOptions opts;
//   opts.name_prefix = "sim";  opts.node_count = 2000;
//   opts.shape.node_template = *ParseNodeTemplate(yaml);
//   NodeSimulator sim(client, RealClock::Instance(), std::move(opts));
//   ALLOT_RETURN_IF_ERROR(sim.Run());   // register, watch pods, tick on a background thread
//   ...
//   sim.Stop();
//
// What it does, per node `<prefix>-<i>` (i in [first_index, first_index + node_count)):
//   - registers the Node from the template (node/node_objects.h) or adopts an existing one;
//   - keeps a Lease in kube-node-lease renewed every lease_renew_interval and the Ready
//     condition's heartbeat every node_status_interval. Each node has a fixed offset of whole
//     seconds within the interval, so the writes of one round leave in one burst per second
//     (one group commit in the store) instead of one timer per node firing at random instants;
//   - re-registers a node that was deleted behind its back.
// And for each pod bound to one of its nodes (one shared pod informer, field selector
// spec.nodeName!=""; pods on other nodes are ignored):
//   - Pending -> Running after pod_startup_delay, once every PodStartRule allows it and the
//     ClaimPreparer prepared it (node/hooks.h); pod IPs come from the node's podCIDR;
//   - Running -> Succeeded after the pod's allot.dev/run-duration annotation, if any;
//   - deletion: when the pod gets a deletionTimestamp, its containers are marked terminated
//     (phase Succeeded) and, after min(grace period, max_grace_period), it is deleted with
//     gracePeriodSeconds=0. Pods the server removes at once (no finalizers) are simply
//     forgotten, their IP and claims released.
// Status writes use compare-and-swap on the pod's resourceVersion; a conflict is retried from
// the newer pod the informer delivers.
//
// Two ways to drive it:
//   - Run(): Register + Watch + a background thread that calls Tick whenever a timer is due or
//     an event arrived (waking at least every max_idle). For real processes.
//   - Register(), Watch(), then Tick() by hand after moving a FakeClock. For tests: nothing
//     happens between Ticks except that the informer's events are recorded.
//
// Thread safety: all public methods are thread-safe. Tick() runs one at a time (concurrent
// calls serialize); do not call it yourself while Run()'s thread is active. Hooks run on the
// thread calling Tick().
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/client.h"
#include "common/status.h"
#include "common/time.h"
#include "node/hooks.h"
#include "node/node_objects.h"

namespace allot::node {

struct NodeSimulatorOptions {
  std::string name_prefix = "allot-node";
  int64_t node_count = 0;
  // Index of the first node: names and addresses (node/addresses.h) derive from it, so several
  // simulators can share a cluster with disjoint ranges.
  int64_t first_index = 0;
  NodeShape shape{DefaultNodeTemplate()};

  std::chrono::seconds lease_renew_interval{10};
  int32_t lease_duration_seconds = 40;
  std::chrono::seconds node_status_interval{40};
  // From the pod being seen bound to its node to it being marked Running.
  std::chrono::microseconds pod_startup_delay{0};
  // The most a pod being deleted waits before it is removed (its grace period is honoured up
  // to this).
  std::chrono::microseconds max_grace_period{std::chrono::seconds(1)};

  // Writes outstanding at once (node/write_pipeline.h).
  size_t max_in_flight_writes = 256;
  // Run()'s thread wakes at least this often even with nothing due.
  std::chrono::milliseconds max_idle{1000};
  // Progress and problems ("registered 2000/2000 nodes"); null: silent. Called from any of
  // the simulator's threads, never under its locks.
  std::function<void(std::string_view)> log;
};

class NodeSimulator {
 public:
  // `client` and `clock` must outlive the simulator. Options are validated by Register().
  NodeSimulator(client::Client& client, Clock& clock, NodeSimulatorOptions options);
  ~NodeSimulator();  // Stop()s.
  NodeSimulator(const NodeSimulator&) = delete;
  NodeSimulator& operator=(const NodeSimulator&) = delete;

  // Hooks; set before Watch() / Run(). The default preparer does nothing and there are no rules.
  void SetClaimPreparer(std::unique_ptr<ClaimPreparer> preparer);
  void AddStartRule(std::unique_ptr<PodStartRule> rule);

  // Creates every node and its lease (adopting those that already exist), waits until all are
  // written, and schedules their heartbeats. Returns the first error (with how many nodes
  // failed) if any node could not be registered; the others keep working.
  Status Register();
  // Starts the shared pod informer and waits (up to `sync_timeout`) for its initial list.
  Status Watch(std::chrono::milliseconds sync_timeout = std::chrono::seconds(30));
  // Register() + Watch() + the background ticking thread.
  Status Run();
  // Stops the thread and the informer, and waits for writes in flight. Idempotent.
  void Stop();

  // Runs every timer due at clock.Now() (and those that become due at the same instant as a
  // consequence, e.g. a delete after a zero grace period) and submits their writes.
  void Tick();
  // Waits until every submitted write has been answered (tests, and the CLI's progress).
  bool WaitForWrites(std::chrono::milliseconds timeout);

  // The pod event entry points the informer's handlers call; public so another event source
  // (a test, a shared informer of the embedding process) can drive the simulator.
  void OnPodChanged(const api::ObjectPtr& pod);
  void OnPodDeleted(const api::ObjectPtr& pod);
  // Retries a pod that a start rule or the preparer refused now, instead of after its backoff:
  // for a hook whose condition changed (the DRA rule, when a claim gets reserved for the pod).
  // A no-op unless the pod is ours and Pending with no write of ours in flight for it (that
  // write's answer reschedules it anyway). A start that is being decided when this is called
  // is, if refused, retried at once instead of after its backoff (the refusal may have read
  // what changed).
  void Recheck(std::string_view ns, std::string_view name);

  std::vector<std::string> NodeNames() const;
  bool OwnsNode(std::string_view name) const;
  // When the earliest timer is due; nullopt when none is scheduled.
  std::optional<Time> NextTimer() const;

  struct Stats {
    int64_t nodes = 0;             // registered (created or adopted)
    int64_t nodes_adopted = 0;     // of which already existed
    uint64_t lease_renewals = 0;   // successful
    uint64_t node_heartbeats = 0;  // successful
    int64_t pods_tracked = 0;      // bound to our nodes, not yet gone
    int64_t pods_running = 0;
    uint64_t pods_started = 0;
    uint64_t pods_succeeded = 0;
    uint64_t pods_deleted = 0;
    uint64_t start_refusals = 0;  // a rule or the preparer said "not yet"
    uint64_t write_conflicts = 0;
    uint64_t write_errors = 0;  // other than conflicts
    uint64_t writes_started = 0;
    std::string last_error;
  };
  Stats GetStats() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace allot::node
