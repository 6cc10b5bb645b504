// Leader election through a coordination.k8s.io/v1 Lease, so that of several processes running
// the same role (two schedulers) only one acts at a time.
//
//   LeaderElector elector(client, clock, {.lock_name = "allot-scheduler", .identity = id});
//   elector.Run(stop, on_started_leading, on_stopped_leading);
//
// The lease records holderIdentity, acquireTime, renewTime, leaseDurationSeconds and
// leaseTransitions, as client-go's resource lock does. A candidate takes the lease when it does
// not exist or its holder has not renewed it for leaseDurationSeconds (judged on this process's
// Clock); the holder renews every retry_period and gives up leadership when it could not renew
// for renew_deadline. Every write is a compare-and-swap on the lease's resourceVersion, so two
// candidates can never both believe they won the same term.
//
// Thread safety: TryAcquireOrRenew and Run are for one thread; IsLeader is safe anywhere.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>

#include "client/client.h"
#include "common/time.h"

namespace allot::client {

struct LeaderElectionConfig {
  std::string lock_namespace = "kube-system";
  std::string lock_name;
  std::string identity;
  std::chrono::seconds lease_duration{15};
  std::chrono::seconds renew_deadline{10};
  std::chrono::milliseconds retry_period{2000};
};

// A holder identity unique to this process, as client-go makes one: "<hostname>_<random>".
std::string DefaultIdentity();

class LeaderElector {
 public:
  LeaderElector(Client& client, Clock& clock, LeaderElectionConfig config);

  // One attempt: creates, renews or takes over the lease. True when this process holds it
  // afterwards. An error other than a rival's (404 before a create, 409) is logged, once until
  // it changes: a lease the credentials may not read or write (403) says so instead of
  // waiting in silence.
  bool TryAcquireOrRenew();
  bool IsLeader() const { return leader_.load(); }
  // Gives the lease up if this process holds it (holder cleared, as client-go's
  // ReleaseOnCancel), so a candidate takes it at its next attempt rather than after the lease
  // duration. Run calls it when stopped on request, after on_stopped.
  void Release();

  // Blocks: tries every retry_period until it leads, calls on_started, keeps renewing, and when
  // renewal has failed for renew_deadline (or `stop` is set) calls on_stopped and returns;
  // stopped on request, it then releases the lease.
  void Run(const std::atomic<bool>& stop, const std::function<void()>& on_started,
           const std::function<void()>& on_stopped);

 private:
  Client& client_;
  Clock& clock_;
  const LeaderElectionConfig config_;
  const ResourceInfo* leases_;
  bool Failed(const Status& st);

  std::atomic<bool> leader_{false};
  std::string last_error_;  // the error last logged (Run's thread only)
};

}  // namespace allot::client
