// A component of `allot serve` that acts only while this replica holds its role's Lease.
//
// With several API server replicas on one etcd (`--store etcd`, docs/ha.md) each replica's
// embedded scheduler and controllers are candidates for the same Leases that `allot scheduler`
// and `allot controllers` take (kube-system/allot-scheduler, allot-controller-manager), so one
// of each acts in the whole cluster. A replica that loses the lease stops the component and
// stands as a candidate again.
//
// Thread safety: constructed and stopped by the owner; the component runs on a thread of its own.
#pragma once

#include <atomic>
#include <functional>
#include <string_view>
#include <thread>

#include "client/client.h"
#include "client/leader_election.h"
#include "common/status.h"
#include "common/time.h"

namespace allot::cluster {

class ElectedRole {
 public:
  // Starts the component; returns what stops it.
  using StartFn = std::function<Result<std::function<void()>>()>;
  ElectedRole(client::Client& client, Clock& clock, client::LeaderElectionConfig config,
              StartFn start, std::function<void(std::string_view)> log);
  ~ElectedRole() { Stop(); }
  ElectedRole(const ElectedRole&) = delete;
  ElectedRole& operator=(const ElectedRole&) = delete;

  bool leading() const { return leading_.load(); }
  // Stops the component if it runs and gives up candidacy. Idempotent.
  void Stop();

 private:
  void Loop();

  client::Client& client_;
  Clock& clock_;
  const client::LeaderElectionConfig config_;
  const StartFn start_;
  const std::function<void(std::string_view)> log_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> leading_{false};
  std::thread thread_;
};

}  // namespace allot::cluster
