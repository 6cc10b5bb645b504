// Controller: runs a control-plane DRA driver (driver.h) against any Kubernetes-compatible API
// server, the way k8s.io/dynamic-resource-allocation/controller ran KEP-3063 drivers — but driven
// by events only: no 30-second poll while a pod negotiates (a resync every `resync` is only a
// safety net).
//
// What it does, for claims whose spec.controllerName is the driver's name:
//  - Immediate claims: allocated as soon as they exist (Allocate with node ""), without a pod.
//  - WaitForFirstConsumer claims, through the pod's PodSchedulingContext (same name as the
//    pod): for spec.potentialNodes ∪ {spec.selectedNode} the driver's UnsuitableNodes answer is
//    written to status.resourceClaims[], one entry per pod claim of this driver — entries of
//    other drivers are left alone; lists are cut to 128 nodes, keeping the selected node. When
//    the selected node suits every pending claim, they are allocated for it and the pod is
//    added to each claim's reservedFor (and no answer is written: the claims say it all).
//  - Before allocating, the finalizer "<driver>/deletion-protection" is added; a claim being
//    deleted or with status.deallocationRequested, and no longer reserved, is deallocated
//    (Deallocate), its allocation and deallocationRequested cleared, the finalizer removed.
//    Every context is then answered afresh: the released capacity may suit pods told no.
//  - A claim that was allocated but whose allocation could not be written is deallocated again,
//    so nothing stays half allocated. Writes are retried on 409 (client/retry.h); failures are
//    retried with backoff (client/work_queue.h) and reported as Events on the claim or pod.
//
// Thread safety: Start and Stop from one thread; GetStats from any.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "client/client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "client/informer_factory.h"
#include "client/work_queue.h"
#include "common/status.h"
#include "common/time.h"
#include "drivers/controlplane/driver.h"

namespace allot::drivers::controlplane {

// PodSchedulingContext lists hold at most this many nodes (api/resource/pod_scheduling_context.h).
inline constexpr size_t kMaxNodes = 128;

// "<driver>/deletion-protection".
std::string FinalizerFor(std::string_view driver);

struct ControllerOptions {
  std::string driver_name;  // claims with spec.controllerName == driver_name are ours
  int workers = 8;          // each waits on the API writes it makes: more hide the write latency
  // A full re-sync of every context and claim, as a safety net only (events drive the work).
  std::chrono::seconds resync{300};
  Clock* clock = nullptr;  // null: RealClock
  client::WorkQueueOptions queue;
};

class Controller {
 public:
  // `client` and `driver` must outlive the controller.
  Controller(client::Client& client, Driver& driver, ControllerOptions options);
  ~Controller();  // Stop()s
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // Starts the informers and waits for their caches (up to `sync_timeout`), then the workers.
  Status Start(std::chrono::milliseconds sync_timeout = std::chrono::seconds(30));
  // Stops the workers and informers. Idempotent.
  void Stop();

  struct Stats {
    uint64_t allocated = 0;           // claims allocated (written)
    uint64_t deallocated = 0;         // claims deallocated (written)
    uint64_t unsuitable_written = 0;  // context status writes
    uint64_t failures = 0;            // syncs that failed and were retried
  };
  Stats GetStats() const;

 private:
  Status Sync(const std::string& key);
  Status SyncClaim(const std::string& ns, const std::string& name);
  Status SyncContext(const std::string& ns, const std::string& name);
  // Adds the finalizer, calls Allocate, writes each allocation (with `pod` in reservedFor when
  // given); deallocates what could not be written. The first error, if any.
  Status AllocateClaims(std::span<ClaimAllocation> claims, const std::string& node,
                        const api::Pod* pod);
  Status WriteUnsuitableNodes(const api::PodSchedulingContext& ctx,
                              std::span<const ClaimAllocation> claims);
  bool IsOurs(const api::ResourceClaim& claim) const;
  void EnqueueContextsOfClaim(const api::ResourceClaim& claim);
  void Worker();
  void ResyncLoop();

  client::Client& client_;
  Driver& driver_;
  const ControllerOptions options_;
  Clock& clock_;
  const std::string finalizer_;
  client::InformerFactory informers_;
  client::Informer* claims_ = nullptr;
  client::Informer* contexts_ = nullptr;
  client::Informer* pods_ = nullptr;
  client::WorkQueue queue_;
  client::ClientEventRecorder events_;
  std::vector<std::thread> workers_;
  std::thread resync_thread_;

  mutable std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;  // guarded by mu_
  bool started_ = false;   // guarded by mu_
  Stats stats_;            // guarded by mu_
};

}  // namespace allot::drivers::controlplane
