// Internal to node/: the state and machinery behind NodeSimulator. Split over
//   simulator.cc        lifecycle, Tick, the background thread, pod events, stats
//   simulator_nodes.cc  registration, leases, status heartbeats, re-registration
//   simulator_pods.cc   the per-pod state machine (start, finish, terminate, delete)
//
// Locking: one mutex, mu_, guards every member marked "guarded by mu_". It is never held while
// calling the Client, a hook, or the log function; work is snapshotted under it, done outside,
// and its results applied under it again (checking, via the pod's token, that nothing changed
// meanwhile). tick_mu_ serializes Tick() and is taken before mu_, never after.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "api/core/types.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "node/addresses.h"
#include "node/simulator.h"
#include "node/timer_queue.h"
#include "node/write_pipeline.h"

namespace allot::node {

// Where a pod is in our simulated kubelet's life cycle.
enum class PodStage : uint8_t {
  kPending,      // waiting for its start step (delay, rules, preparer, IP)
  kStarting,     // the Running status write is in flight
  kRunning,      // running; a finish step is scheduled if it has a run duration
  kFinishing,    // the Succeeded status write is in flight
  kDone,         // terminal (Succeeded/Failed); nothing more to do until deletion
  kTerminating,  // deletionTimestamp seen; the terminate step is scheduled
  kDeleting,     // containers stopped; the delete step is scheduled or in flight
};

struct SimNode {
  SimNode(std::string n, int64_t i) : name(std::move(n)), index(i), ips(i) {}
  std::string name;
  int64_t index;             // global index (addresses)
  uint32_t slot;             // local index, position in nodes_
  PodIpPool ips;             // guarded by mu_
  std::string uid;           // guarded by mu_; "" until registered
  bool registered = false;   // guarded by mu_
  bool registering = false;  // guarded by mu_: a re-registration is in flight
  api::ObjectPtr lease;      // guarded by mu_: as last written; null: fetch or create first
  bool lease_busy = false;   // guarded by mu_: a lease write is in flight
};

struct SimPod {
  uint32_t node = 0;
  std::string uid;
  api::ObjectPtr latest;  // the newest version seen (informer or our own write)
  uint64_t latest_rv = 0;
  PodStage stage = PodStage::kPending;
  // Bumped whenever the pod's next step changes; a timer or a write completion carrying an
  // older token is stale and ignored.
  uint64_t token = 0;
  int attempts = 0;       // failed attempts of the current step (backoff)
  bool retrying = false;  // the current step failed and waits for its backoff
  // Recheck() came while the start was being decided: if it is refused, retry at once (what it
  // depended on changed meanwhile) rather than after the backoff.
  bool recheck = false;
  bool busy = false;      // a write for this pod is in flight
  bool deferred = false;  // a step fired while busy; the write's completion reschedules it
  bool started = false;   // we marked it Running (or adopted it Running)
  bool prepared = false;  // ClaimPreparer::Prepare succeeded and Unprepare is owed
  Time first_seen;
  std::string ip;  // allocated from the node's pool; "" when none
};

// One timer's payload.
struct Due {
  enum class Kind : uint8_t {
    kLease,       // periodic lease renewal (reschedules itself)
    kLeaseRetry,  // one-off renewal after a failed one
    kNodeStatus,  // periodic Ready heartbeat (reschedules itself)
    kRegister,    // re-create a node that disappeared
    kPod,         // the pod's next step, by its stage
  };
  Kind kind = Kind::kPod;
  uint32_t node = 0;
  std::string pod;     // "namespace/name" for kPod
  uint64_t token = 0;  // kPod
  Time at;             // kLease, kNodeStatus: when it was due (keeps the node's phase)
};

// A claim release owed to the ClaimPreparer, run on the tick thread.
struct Unprepare {
  api::ObjectPtr pod;
  uint32_t node;
};

class NodeSimulator::Impl {
 public:
  Impl(client::Client& client, Clock& clock, NodeSimulatorOptions options);
  ~Impl();

  // --- simulator.cc ---
  Status Watch(std::chrono::milliseconds sync_timeout);
  Status Run();
  void Stop();
  void Tick();
  void OnPodChanged(const api::ObjectPtr& obj);
  void OnPodDeleted(const api::ObjectPtr& obj);
  void Recheck(std::string_view ns, std::string_view name);
  NodeSimulator::Stats GetStats() const;
  std::optional<Time> NextTimer() const;
  const SimNode* FindNode(std::string_view name) const;

  // --- simulator_nodes.cc ---
  Status Register();

  client::Client& client_;
  Clock& clock_;
  const NodeSimulatorOptions options_;
  const api::ResourceInfo* pods_res_;
  const api::ResourceInfo* nodes_res_;
  const api::ResourceInfo* leases_res_;
  std::unique_ptr<ClaimPreparer> preparer_;
  std::vector<std::unique_ptr<PodStartRule>> rules_;
  // The kubelets' events (FailedPrepareDynamicResources), as component "kubelet".
  client::ClientEventRecorder events_;

  // Built in the constructor, then only SimNode's guarded members change; node_by_name_ is
  // read without the lock.
  std::vector<std::unique_ptr<SimNode>> nodes_;
  std::unordered_map<std::string_view, uint32_t> node_by_name_;

  WritePipeline pipeline_;
  std::unique_ptr<client::Informer> informer_;

  std::mutex tick_mu_;
  mutable std::mutex mu_;
  std::condition_variable wake_cv_;
  TimerQueue<Due> timers_;                        // guarded by mu_
  std::unordered_map<std::string, SimPod> pods_;  // guarded by mu_; key "namespace/name"
  std::vector<Unprepare> owed_unprepares_;        // guarded by mu_
  bool work_pending_ = false;                     // guarded by mu_: wake Run()'s thread
  Time planned_wake_;                             // guarded by mu_
  bool stopping_ = false;                         // guarded by mu_
  bool registered_once_ = false;                  // guarded by mu_
  NodeSimulator::Stats stats_;                    // guarded by mu_
  std::thread runner_;

 private:
  // --- simulator.cc ---
  void RunLoop();
  void RunDue(Due& due, Time now);
  void Log(const std::string& message) const;
  // Schedules under mu_ and wakes Run()'s thread when `due` is earlier than it planned.
  void ScheduleLocked(Time due, Due payload);
  // Makes Run()'s thread tick soon (e.g. to run owed Unprepares).
  void WakeLocked();
  void RecordErrorLocked(const Status& status, const std::string& what);

  // --- simulator_nodes.cc ---
  Status ValidateOptions() const;
  std::unordered_map<uint32_t, api::ObjectPtr> ListOurs(const api::ResourceInfo& res,
                                                        const std::string& ns);
  void WriteNodes(const std::unordered_map<uint32_t, api::ObjectPtr>& existing,
                  std::vector<uint32_t>& raced, int& failed, Status& first_error);
  void AdoptNodes(const std::vector<uint32_t>& raced, int& failed, Status& first_error);
  void WriteLeases(const std::unordered_map<uint32_t, api::ObjectPtr>& existing);
  void ScheduleHeartbeats(Time now);
  void RenewLease(uint32_t slot, Time now);
  void OnLeaseWritten(uint32_t slot, Result<api::ObjectPtr> result);
  void SendHeartbeat(uint32_t slot, Time now);
  void Reregister(uint32_t slot, Time now);
  void OnNodeRegistered(uint32_t slot, const api::ObjectPtr& node);
  void CompleteStatusIfDropped(uint32_t slot, const api::ObjectPtr& created, Time now);
  Time NextPeriod(Time due, std::chrono::seconds interval, Time now) const;

  // --- simulator_pods.cc ---
  void FirstSightLocked(SimPod& p, const api::Pod& pod, Time now);
  void ReconcileLocked(const std::string& key, SimPod& p, Time now);
  void SchedulePodLocked(const std::string& key, SimPod& p, Time due);
  void RetryLocked(const std::string& key, SimPod& p, Time now);
  void RunDeferredLocked(const std::string& key, SimPod& p, Time now);
  void SetStageLocked(SimPod& p, PodStage stage);
  void ScheduleFinishLocked(const std::string& key, SimPod& p, Time started);
  void ForgetLocked(const std::string& key);
  void RunPodStep(const std::string& key, uint64_t token, Time now);
  void TryStart(const std::string& key, const SimPod& snap, Time now);
  bool Admit(const std::string& key, const SimPod& snap, Time now);
  void OnStarted(const std::string& key, const std::string& uid, uint64_t token,
                 Result<api::ObjectPtr> result);
  void Finish(const std::string& key, const SimPod& snap, Time now);
  void OnFinished(const std::string& key, const std::string& uid, uint64_t token,
                  Result<api::ObjectPtr> result);
  void Terminate(const std::string& key, const SimPod& snap, Time now);
  void DeletePod(const std::string& key, const SimPod& snap);
  void OnDeleted(const std::string& key, const std::string& uid, uint64_t token,
                 Result<api::DeleteResult> result);
  void UpdateLatestLocked(SimPod& p, const api::ObjectPtr& obj);

  // Submits one write through the pipeline; `on_done` runs on the client's thread.
  template <class T, class Start>
  void Write(Start start, std::function<void(Result<T>)> on_done);

  // The object writes the simulator makes: create, update, or status update of `obj`.
  enum class WriteKind { kCreate, kUpdate, kUpdateStatus };
  void WriteObject(WriteKind kind, const api::ResourceInfo& res, std::unique_ptr<api::Object> obj,
                   std::function<void(Result<api::ObjectPtr>)> on_done);
};

template <class T, class Start>
void NodeSimulator::Impl::Write(Start start, std::function<void(Result<T>)> on_done) {
  pipeline_.Submit(
      [start = std::move(start), on_done = std::move(on_done)](WritePipeline::Done done) mutable {
        start([on_done, done](Result<T> r) {
          on_done(std::move(r));
          done();
        });
      });
}

// "namespace/name".
std::string PodKey(const api::ObjectMeta& meta);
// The numeric resourceVersion, or 0 when it is not a number.
uint64_t ParseResourceVersion(const std::string& rv);
Time AddDuration(Time t, std::chrono::microseconds d);
// 1 s, 2 s, 4 s, ... capped at 30 s, for the n-th failed attempt (n >= 1).
std::chrono::microseconds Backoff(int attempts);

}  // namespace allot::node
