#include "cluster/elected_role.h"

#include <chrono>
#include <string>

namespace allot::cluster {

ElectedRole::ElectedRole(client::Client& client, Clock& clock, client::LeaderElectionConfig config,
                         StartFn start, std::function<void(std::string_view)> log)
    : client_(client),
      clock_(clock),
      config_(std::move(config)),
      start_(std::move(start)),
      log_(std::move(log)) {
  thread_ = std::thread([this] { Loop(); });
}

void ElectedRole::Loop() {
  const std::string lease = config_.lock_namespace + "/" + config_.lock_name;
  while (!stop_) {
    client::LeaderElector elector(client_, clock_, config_);
    std::function<void()> stop_component;
    elector.Run(
        stop_,
        [&] {
          auto started = start_();
          if (!started.ok()) {
            if (log_)
              log_("leads (lease " + lease +
                   ") but could not start: " + started.status().ToString());
            return;
          }
          stop_component = std::move(started).value();
          leading_ = true;
          if (log_) log_("leads (lease " + lease + ")");
        },
        [&] {
          leading_ = false;
          if (stop_component) stop_component();
          stop_component = nullptr;
          if (!stop_ && log_) log_("lost the lease " + lease + "; a candidate again");
        });
    // Run returns when leadership ended (on_stopped has stopped the component); stand again
    // after a retry period.
    for (auto waited = std::chrono::milliseconds(0); !stop_ && waited < config_.retry_period;
         waited += std::chrono::milliseconds(50)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
}

void ElectedRole::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

}  // namespace allot::cluster
