// Internal to drivers/fabric*.cc: the state FabricDriver keeps per device and the work one
// Tick collects. Split over
//   drivers/fabric/driver.cc            lifecycle, Tick, the background thread, stats
//   drivers/fabric/reconcile.cc  the per-device state machine
//   drivers/fabric/status.cc     claim status writes
//   drivers/fabric/publish.cc    the slices
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/resource/types.h"
#include "drivers/fabric/driver.h"

namespace allot::drivers {

struct FabricDriver::Device {
  size_t pool = 0;  // index into config_.pools
  int64_t index = 0;
  std::string pool_name;  // fabric-<model>
  std::string name;       // <model>-<index>
  DevicePhase phase = DevicePhase::kFree;
  // The claim served (kAttaching, kAttached, kFailed).
  std::string claim_uid;
  std::string claim_key;  // namespace/name
  std::string node;       // kAttaching: the target; kAttached, kDetaching: where it is
  Time due;               // kAttaching, kDetaching: when the attach / detach completes
  Time outcome_at;        // kAttached, kFailed: when it happened (lastTransitionTime)
  // Whether the served claim's status.devices shows our outcome (kAttached, kFailed), and the
  // claim's resourceVersion that did: an older version in the informer is not evidence that
  // our entry went missing.
  bool reported = false;
  uint64_t reported_rv = 0;
  // After a failed attach, until cooldown_until: tainted or unpublished (onFailure).
  std::optional<Time> cooldown_until;
  std::optional<api::DeviceTaint> taint;

  // Forgets the claim served (and our report to it).
  void Release() {
    claim_uid.clear();
    claim_key.clear();
    reported = false;
    reported_rv = 0;
  }
};

// A claim whose allocation names a device, as the informer has it.
struct FabricDriver::Holder {
  api::ObjectPtr object;  // keeps the pointers below alive
  const api::ResourceClaim* claim = nullptr;
  const api::DeviceRequestAllocationResult* result = nullptr;  // the device's
  std::string key;                                             // namespace/name
  std::string node;  // the node the allocation pins; "" when none
  uint64_t rv = 0;
};

// One status.devices entry to write.
struct FabricDriver::StatusWrite {
  size_t device = 0;  // index into devices_
  std::string ns, name, uid;
  std::string node;  // the allocation must still pin it
  api::DeviceRequestAllocationResult result;
  std::vector<api::Condition> conditions;
};

struct FabricDriver::WriteOutcome {
  enum class Kind {
    kWritten,  // the claim shows the entry (written now, or already)
    kGone,     // the claim or its allocation of the device on that node is gone
    kError,    // retried on a later Tick
  } kind = Kind::kError;
  bool changed = false;  // kWritten: an update was made
  uint64_t rv = 0;       // kWritten: the claim's resourceVersion showing the entry
  Status error;
};

// What reconciling asks for besides state changes; carried out without mu_.
struct FabricDriver::Effects {
  std::vector<StatusWrite> writes;
  std::vector<std::string> logs;
};

// Wakes Run()'s thread. Shared with the informer's handler, which may outlive the driver when
// the informer is shared.
struct FabricDriver::Wakeup {
  explicit Wakeup(Clock& c) : clock(c) {}
  Clock& clock;  // counts a raised wakeup as work until the tick that takes it
  std::mutex mu;
  std::condition_variable cv;
  bool pending = false;   // guarded by mu
  bool stopping = false;  // guarded by mu

  void Raise() {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!pending) clock.BeginWork();
      pending = true;
    }
    cv.notify_all();
  }
};

// The values a claim is indexed under in the claims informer: "<pool>/<device>" for each
// allocation result of `driver` from one of `pools`.
std::vector<std::string> FabricClaimIndexValues(const api::Object& obj, const std::string& driver,
                                                const std::vector<std::string>& pools);

// The conditions a result asks for, or the configured ones when it carries none.
const std::vector<std::string>& BindingTypes(const FabricConfig& config,
                                             const api::DeviceRequestAllocationResult& r);
const std::vector<std::string>& FailureTypes(const FabricConfig& config,
                                             const api::DeviceRequestAllocationResult& r);

// A resourceVersion as a number (0 when it is not one).
uint64_t ResourceVersionNumber(const std::string& rv);

// `t` + `d`.
Time TimeAfter(Time t, std::chrono::microseconds d);

}  // namespace allot::drivers
