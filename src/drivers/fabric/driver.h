// FabricDriver: a composable-infrastructure ("fabric") DRA controller. GPUs on a PCIe/CXL switch
// are attached to no node until a pod needs one; the scheduler allocates such a device, waits
// in PreBind for the device's binding conditions, and the driver attaches it (KEP-5007, seed
// 003, docs/architecture.md §5.4). The design, config and conditions are in docs/fabric.md.
//
// Publishing: one ResourceSlice per configured model (drivers/fabric/devices.h has the names and
// device shapes), created at start, updated on every change of state and every refreshInterval
// (re-creating a slice someone deleted, correcting drift; other slices of the same pool are
// deleted). The pool generation is bumped whenever a slice's content changes. No owner: the
// slices belong to the cluster, not to a node. Slices of other pools are never touched (the
// node-local driver may publish under the same driver name).
//
// Attach: a claim whose allocation names one of our devices, with the allocation pinned to a
// node (drivers/device_status.h PinnedNode), has it attached after attachLatency (or a time
// drawn uniformly up to attachLatencyMax, when that is set). The outcome
// is drawn from a RNG seeded with `seed` (probability failureRate of failure) and reported in
// the claim's status.devices entry for the device:
//   success  every binding condition of the result True, reason "Attached", message "attached
//            to node <node>"; the device is re-published attached (nodeName: <node>);
//   failure  every binding failure condition of the result True, reason "AttachFailed", message
//            "attaching <device> to node <node> failed (simulated)"; for failureCooldown the
//            device carries the NoSchedule taint fabric.allot.dev/attach-failed (onFailure
//            Taint) or is left out of its slice (onFailure Remove). The scheduler clears the
//            allocation and tries again elsewhere.
// (The result's own condition lists are used; the configured ones when the result has none.)
// A claim with several of our devices gets each attached independently. Status writes re-read
// the claim, merge our entry into status.devices (other drivers' entries stay), and retry on
// 409 Conflict; a write that fails otherwise is retried on the next Tick.
//
// WHY the attached device keeps its pool and name: its ID (driver/pool/device) is what the
// claim's allocation names and what the scheduler counts as in use. Publishing the attached
// device under a new ID (say in a pool of the node, as seed 003's vendor plugin would after a
// hotplug) would show the scheduler a free device that is in fact allocated, and it would
// allocate it twice. So hotplug is modelled in place: same slice, same name, node scoping
// switched from the fabric's selector to nodeName. The node-local driver's kubelet side
// accepts such a device on the node once the claim's status shows it ready
// (NodeLocalDriver::PrepareResources).
//
// Detach: when the device's allocation goes away (cleared, or the claim deleted), a pending
// attach is cancelled at once; an attached device is detached after detachLatency and is then
// free again. Until then it is still published attached to its node, so a pod on that node may
// be allocated it (the "attached fabric device" tier): the detach is then cancelled and the
// new claim gets the success entry at once.
//
// Restart: all state is rebuilt from the claims. A claim allocated one of our devices whose
// entry shows every binding condition True is attached to its pinned node; one with a failure
// condition True is failed (and the device cools down until the condition's
// lastTransitionTime + failureCooldown); one without either is attached after attachLatency.
//
// How it runs: reconciliation is level-based. Tick() compares every device's state with the
// claims that hold it (a claims informer, indexed by our devices) and the clock, starts and
// completes attaches and detaches, writes claim statuses and publishes the slices. Deadlines
// (attach done, detach done, cooldown over, next refresh) are per device, so cancelling is
// clearing a field and no timer queue is needed; NextDue() is the earliest. Tests call Start()
// and then Tick() after moving a FakeClock; Run() adds a thread that ticks whenever a claim of
// ours changes or something is due (waking at least every max_idle).
//
// Thread safety: all public methods are thread-safe. Tick() calls run one at a time (do not
// call it while Run()'s thread is active). Lock order: tick_mu_, then mu_; the client is never
// called under mu_.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "client/client.h"
#include "client/informer.h"
#include "common/metrics.h"
#include "common/status.h"
#include "common/time.h"
#include "drivers/fabric/config.h"

namespace allot::drivers {

struct FabricDriverOptions {
  // A resourceclaims informer shared with the rest of the process (its owner starts it); null:
  // our own, started by Start(). Either way the driver adds an index and a handler to it.
  client::Informer* shared_claims = nullptr;
  // Where allot_fabric_attach_total{driver,result} and allot_fabric_detach_total{driver} are
  // counted; null: a registry of our own.
  metrics::Registry* metrics = nullptr;
  // Run()'s thread wakes at least this often.
  std::chrono::milliseconds max_idle{1000};
  // Attaches, failures, detaches and problems; null: silent. Called from the ticking thread,
  // never under the driver's locks.
  std::function<void(std::string_view)> log;
};

class FabricDriver {
 public:
  // `client`, `clock` and a shared informer must outlive the driver. The configuration is
  // checked by Start().
  FabricDriver(client::Client& client, Clock& clock, FabricConfig config,
               FabricDriverOptions options = {});
  ~FabricDriver();  // Stop()s
  FabricDriver(const FabricDriver&) = delete;
  FabricDriver& operator=(const FabricDriver&) = delete;

  // Validates the configuration, starts the claims informer (ours) and waits for it to sync,
  // then Tick()s once: the state is rebuilt from the claims and the slices are published.
  // Errors: an invalid configuration (400), the informer not syncing in time. Publishing
  // problems are logged and retried, not returned. Idempotent.
  Status Start(std::chrono::milliseconds sync_timeout = std::chrono::seconds(30));
  // Start() and the background thread.
  Status Run();
  // Stops the thread and our informer; the driver does not run again. Idempotent.
  void Stop();

  // Reconciles every device with the claims as the informer has them and the clock: see above.
  void Tick();
  // The earliest deadline (an attach or detach to complete, a cooldown to end, the refresh).
  std::optional<Time> NextDue() const;

  const FabricConfig& config() const { return config_; }

  enum class DevicePhase {
    kFree,       // on the fabric, not allocated
    kAttaching,  // allocated; the attach completes at its deadline
    kAttached,   // attached to `node` for `claim`
    kDetaching,  // attached to `node`, no longer allocated; free at its deadline
    kFailed,     // its attach failed; waits for the claim to be deallocated
  };
  struct DeviceInfo {
    std::string pool;
    std::string name;
    DevicePhase phase = DevicePhase::kFree;
    std::string node;   // kAttaching: the target; kAttached, kDetaching: where it is
    std::string claim;  // "namespace/name" for kAttaching, kAttached, kFailed
    bool cooling_down = false;
  };
  // Every device, by pool then index.
  std::vector<DeviceInfo> Devices() const;

  struct Stats {
    uint64_t attaches = 0;        // succeeded
    uint64_t failures = 0;        // attaches that failed
    uint64_t cancelled = 0;       // attaches cancelled before they completed
    uint64_t detaches = 0;        // completed
    uint64_t status_writes = 0;   // claim status updates made
    uint64_t status_errors = 0;   // claim status writes that failed (retried later)
    uint64_t slice_writes = 0;    // slices created, updated or deleted
    uint64_t publish_errors = 0;  // publishing attempts that failed (retried later)
  };
  Stats GetStats() const;

 private:
  // drivers/fabric/internal.h.
  struct Device;
  struct Holder;
  struct Effects;
  struct StatusWrite;
  struct WriteOutcome;
  struct Wakeup;
  void RunLoop();
  // --- drivers/fabric/reconcile.cc (under mu_) ---
  std::vector<Holder> HoldersLocked(const Device& d) const;
  void ReconcileLocked(Device& d, Time now, Effects& fx);
  void StepLocked(Device& d, const Holder* h, Time now, Effects& fx);
  void AdoptLocked(Device& d, const Holder* h, Time now, Effects& fx);
  void CompleteAttachLocked(Device& d, const Holder& h, Time now, Effects& fx);
  // attachLatency, or a draw from [attachLatency, attachLatencyMax] (from rng_).
  std::chrono::microseconds AttachLatencyLocked();
  void ServeAttachedLocked(Device& d, const Holder& h, Time now, Effects& fx);
  void ServeFailedLocked(Device& d, const Holder& h, Effects& fx);
  void StartCooldownLocked(Device& d, const std::string& node, Time failed_at);
  void ReportLocked(Device& d, const Holder& h, Effects& fx);
  // --- drivers/fabric/status.cc (no lock held) ---
  WriteOutcome WriteStatus(const StatusWrite& w);
  // Records the outcomes of a Tick's writes in the devices (under mu_).
  void ApplyWritesLocked(const std::vector<StatusWrite>& writes,
                         const std::vector<WriteOutcome>& outcomes, Time now,
                         std::vector<std::string>& logs);
  // --- drivers/fabric/publish.cc ---
  std::vector<std::vector<api::Device>> DesiredDevicesLocked() const;
  // Brings the slices in the store in line with `desired` (one entry per pool), counting the
  // writes made in `writes`. Under tick_mu_ only.
  Status Publish(const std::vector<std::vector<api::Device>>& desired, uint64_t& writes);
  Status PublishOnce(const std::vector<api::ObjectPtr>& slices,
                     const std::vector<std::vector<api::Device>>& desired, uint64_t& writes);
  void Log(const std::string& line) const;

  client::Client& client_;
  Clock& clock_;
  const FabricConfig config_;
  const FabricDriverOptions options_;
  const api::ResourceInfo& claims_res_;
  const api::ResourceInfo& slices_res_;
  const std::string index_name_;  // our index in the claims informer
  const Status config_status_;    // ValidateFabricConfig(config_)

  std::unique_ptr<client::Informer> own_claims_;
  client::Informer* claims_ = nullptr;  // guarded by mu_: own_claims_ or the shared one
  std::shared_ptr<Wakeup> wakeup_;      // shared with the informer's handler

  std::unique_ptr<metrics::Registry> own_registry_;
  metrics::Counter* attach_success_;
  metrics::Counter* attach_failure_;
  metrics::Counter* attach_cancelled_;
  metrics::Counter* detach_total_;

  std::mutex start_mu_;   // serializes Start / Run / Stop
  bool started_ = false;  // guarded by start_mu_
  bool wired_ = false;    // guarded by start_mu_: our index and handler are in claims_
  std::thread runner_;    // guarded by start_mu_

  std::mutex tick_mu_;  // serializes Tick(); taken before mu_
  mutable std::mutex mu_;
  std::vector<Device> devices_;  // guarded by mu_; by pool, then index
  std::mt19937_64 rng_;          // guarded by mu_
  // What the last successful Publish() wrote, per pool; nullopt: publish at the next Tick.
  std::optional<std::vector<std::vector<api::Device>>> published_;  // guarded by mu_
  std::vector<int64_t> generations_;  // guarded by tick_mu_: highest pool generation seen
  Time next_refresh_;                 // guarded by mu_
  std::optional<Time> retry_at_;      // guarded by mu_: after a failed write or publish
  std::vector<std::string> warned_;   // guarded by mu_: claims already logged as unpinned
  Stats stats_;                       // guarded by mu_
};

// A started FabricDriver over `client` (Run()), after making sure the DeviceClass named after
// the driver exists (EnsureDeviceClass, drivers/nodelocal/driver.h). For `allot driver fabric` and
// for embedding in the in-process server.
Result<std::unique_ptr<FabricDriver>> StartFabricDriver(client::Client& client, Clock& clock,
                                                        FabricConfig config,
                                                        FabricDriverOptions options = {});

}  // namespace allot::drivers
