#include "cli/leader_election_flags.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "client/leader_election.h"
#include "common/log.h"

namespace allot::cli {

void LeaderElectionFlags::Register(Flags& flags, const std::string& lease_name) {
  flags.Bool("leader-elect", &leader_elect,
             "take the kube-system/" + lease_name +
                 " Lease before acting, so that only one of several processes of this role acts");
  flags.Int("leader-elect-lease-duration-seconds", &lease_duration_seconds, "lease duration");
  flags.Int("leader-elect-renew-deadline-seconds", &renew_deadline_seconds,
            "the leader gives up after failing to renew for this long");
  flags.Int("leader-elect-retry-period-ms", &retry_period_ms, "time between attempts");
  flags.String("identity", &identity, "holder identity (default: hostname_random)");
}

int LeaderElectionFlags::Run(client::Client& client, const std::string& role,
                             const std::string& lease_name, const std::function<bool()>& start,
                             const volatile std::sig_atomic_t& stop_requested) {
  auto wait_for_stop = [&] {
    while (!stop_requested) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  };
  if (!leader_elect) {
    if (!start()) return 1;
    wait_for_stop();
    return 0;
  }
  const std::string id = identity.empty() ? client::DefaultIdentity() : identity;
  client::LeaderElectionConfig le;
  le.lock_name = lease_name;
  le.identity = id;
  le.lease_duration = std::chrono::seconds(lease_duration_seconds);
  le.renew_deadline = std::chrono::seconds(renew_deadline_seconds);
  le.retry_period = std::chrono::milliseconds(retry_period_ms);
  client::LeaderElector elector(client, RealClock::Instance(), le);
  std::atomic<bool> stop{false};
  std::thread watch_signal([&] {
    while (!stop_requested && !stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stop = true;
  });
  std::printf("%s: %s waiting for the lease kube-system/%s\n", role.c_str(), id.c_str(),
              lease_name.c_str());
  std::fflush(stdout);
  int exit_code = 0;
  bool started = false;
  elector.Run(
      stop,
      [&] {
        std::printf("%s: %s leads (lease kube-system/%s)\n", role.c_str(), id.c_str(),
                    lease_name.c_str());
        std::fflush(stdout);
        started = start();
        if (!started) {
          exit_code = 1;
          stop = true;
        }
      },
      [&] {
        if (!stop && started) {
          log::Error(role, "leader election lost");
          exit_code = 1;
        }
      });
  stop = true;
  watch_signal.join();
  return exit_code;
}

}  // namespace allot::cli
