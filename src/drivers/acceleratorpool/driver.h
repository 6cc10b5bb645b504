// AcceleratorPoolDriver: the decisions of the example control-plane DRA driver (config.h says
// what it models): which nodes can get accelerators for a pod's claims, and which accelerator
// slot each claim holds. The controlplane::Controller runs it against the API server (pool.h).
//
//   UnsuitableNodes  a node is unsuitable when it is unknown, does not match nodeSelector, has
//                    no known rack, would exceed perNodeLimit, or its rack has too few free
//                    accelerators for all of the pod's claims of this driver together.
//   Allocate         for a node: the lowest free slots of its rack, the allocation pinned to
//                    the node. Immediate (no node): the rack with the most free slots, the
//                    allocation usable from every node of that rack that matches nodeSelector
//                    (Immediate claims count against the rack only, not against a node).
//                    failureRate makes allocations fail at random (seeded).
//   Deallocate       frees the claim's slots (idempotent).
//   Restore          takes over the slots of claims allocated earlier (a restarted driver).
//
// Each request of a claim takes `count` accelerators (1 unless exactly.count says otherwise);
// devices are "acc-<slot>" in pool "<rack>".
//
// Latency: UnsuitableNodes waits answerLatency and Allocate allocateLatency first, on the
// clock. Interrupt() ends waits in progress and skips later ones, so that the controller can
// stop at once. (Not on a simulator's clock, sim/clock.h: the waiting worker would leave the
// queue's other items in flight, and time, which moves only when nothing is, would stand
// still; scenarios refuse non-zero latencies.)
//
// Thread safety: thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "api/core/node.h"
#include "common/time.h"
#include "drivers/acceleratorpool/config.h"
#include "drivers/controlplane/driver.h"

namespace allot::drivers {

class AcceleratorPoolDriver final : public controlplane::Driver {
 public:
  // The node as the driver's informer has it; null when unknown.
  using NodeLookup = std::function<std::shared_ptr<const api::Node>(const std::string& name)>;

  // `clock` (null: RealClock) must outlive the driver.
  AcceleratorPoolDriver(AcceleratorPoolConfig config, NodeLookup nodes, Clock* clock = nullptr);

  Status UnsuitableNodes(const api::Pod& pod, std::span<controlplane::ClaimAllocation> claims,
                         const std::vector<std::string>& nodes) override;
  void Allocate(std::span<controlplane::ClaimAllocation> claims, const std::string& node) override;
  Status Deallocate(const api::ResourceClaim& claim) override;
  void Restore(const api::ResourceClaim& claim);
  // Ends latency waits in progress and skips later ones (before stopping the controller).
  void Interrupt();

  struct Usage {
    std::map<std::string, int64_t> by_rack;  // accelerators in use
    std::map<std::string, int64_t> by_node;
  };
  Usage usage() const;
  const AcceleratorPoolConfig& config() const { return config_; }

 private:
  struct Holding {
    std::string rack, node;  // node "" for Immediate claims
    std::vector<int64_t> slots;
  };
  // The rack of a node that may use the pool; "" when it may not.
  std::string RackOf(const api::Node& node) const;
  int64_t FreeInRackLocked(const std::string& rack) const;
  // Why `need` accelerators cannot be had on `node` ("" when they can).
  std::string UnsuitableLocked(const std::string& node, int64_t need) const;
  void ReleaseLocked(const std::string& claim_uid);
  // Waits `d` on the clock unless interrupted.
  void Pause(std::chrono::microseconds d);

  const AcceleratorPoolConfig config_;
  const NodeLookup nodes_;
  Clock& clock_;
  std::mutex pause_mu_;
  std::condition_variable pause_cv_;
  bool interrupted_ = false;  // guarded by pause_mu_
  mutable std::mutex mu_;
  std::map<std::string, std::set<int64_t>> used_slots_;  // rack -> slots; guarded by mu_
  std::map<std::string, int64_t> node_use_;              // guarded by mu_
  std::map<std::string, Holding> held_;                  // claim uid -> holding; guarded by mu_
  std::mt19937_64 rng_;                                  // guarded by mu_
};

}  // namespace allot::drivers
