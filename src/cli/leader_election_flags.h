// kube-scheduler's and kube-controller-manager's leader election flags, and running a role
// only while this process holds its Lease (kube-system/<lease name>), so that of several
// processes of one role — on one or several API server replicas — exactly one acts.
#pragma once

#include <csignal>
#include <cstdint>
#include <functional>
#include <string>

#include "client/client.h"
#include "common/flags.h"

namespace allot::cli {

struct LeaderElectionFlags {
  bool leader_elect = true;
  int64_t lease_duration_seconds = 15;
  int64_t renew_deadline_seconds = 10;
  int64_t retry_period_ms = 2000;
  std::string identity;  // default: hostname_random

  void Register(Flags& flags, const std::string& lease_name);

  // Calls `start` once this process leads (at once with --leader-elect=false) and blocks until
  // `stop_requested` is set or the lease is lost. `start` returns false when the role could
  // not start. Returns the exit code: 0 when stopped by request, 1 when `start` failed or the
  // lease was lost (as kube-scheduler: a process that lost its lease must not go on acting; its
  // supervisor starts it again as a candidate). `role` names the process in messages.
  int Run(client::Client& client, const std::string& role, const std::string& lease_name,
          const std::function<bool()>& start, const volatile std::sig_atomic_t& stop_requested);
};

}  // namespace allot::cli
