#include "client/leader_election.h"

#include <unistd.h>

#include <random>
#include <thread>

#include "api/core/types.h"
#include "common/log.h"

namespace allot::client {

std::string DefaultIdentity() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return std::string(host) + "_" + std::to_string(std::random_device{}());
}

LeaderElector::LeaderElector(Client& client, Clock& clock, LeaderElectionConfig config)
    : client_(client),
      clock_(clock),
      config_(std::move(config)),
      leases_(&api::ResourceFor<api::Lease>()) {}

bool LeaderElector::TryAcquireOrRenew() {
  const Time now = clock_.Now();
  const int32_t duration = static_cast<int32_t>(config_.lease_duration.count());
  auto current = client_.Get(*leases_, config_.lock_namespace, config_.lock_name);
  if (!current.ok()) {
    if (current.status().code() != StatusCode::kNotFound) return Failed(current.status());
    auto lease = std::make_unique<api::Lease>();
    lease->metadata.name = config_.lock_name;
    lease->metadata.namespace_ = config_.lock_namespace;
    lease->spec.holderIdentity = config_.identity;
    lease->spec.leaseDurationSeconds = duration;
    lease->spec.acquireTime = api::MicroTime{now};
    lease->spec.renewTime = api::MicroTime{now};
    lease->spec.leaseTransitions = 0;
    auto created = client_.Create(*leases_, std::move(lease));
    return created.ok() ? (leader_ = true) : Failed(created.status());
  }
  const auto* held = api::As<api::Lease>(**current);
  if (!held) return leader_ = false;
  auto next = std::make_unique<api::Lease>(*held);
  const bool mine = held->spec.holderIdentity.value_or("") == config_.identity;
  if (!mine) {
    const int64_t held_for = held->spec.leaseDurationSeconds.value_or(duration);
    const bool expired =
        !held->spec.holderIdentity || held->spec.holderIdentity->empty() || !held->spec.renewTime ||
        now.unix_micros >= held->spec.renewTime->time.unix_micros + held_for * 1000000;
    if (!expired) return leader_ = false;
    next->spec.holderIdentity = config_.identity;
    next->spec.acquireTime = api::MicroTime{now};
    next->spec.leaseTransitions = held->spec.leaseTransitions.value_or(0) + 1;
  }
  next->spec.renewTime = api::MicroTime{now};
  next->spec.leaseDurationSeconds = duration;
  // The resourceVersion we read makes this a compare-and-swap: a rival's write in between
  // turns ours into a 409.
  auto updated = client_.Update(*leases_, std::move(next));
  return updated.ok() ? (leader_ = true) : Failed(updated.status());
}

bool LeaderElector::Failed(const Status& st) {
  leader_ = false;
  const StatusCode code = st.code();
  if (code != StatusCode::kConflict && code != StatusCode::kAlreadyExists &&
      st.message() != last_error_) {
    last_error_ = st.message();
    log::Error("leader-election",
               "lease " + config_.lock_namespace + "/" + config_.lock_name + ": " + st.message());
  }
  return false;
}

void LeaderElector::Run(const std::atomic<bool>& stop, const std::function<void()>& on_started,
                        const std::function<void()>& on_stopped) {
  while (!stop && !TryAcquireOrRenew()) std::this_thread::sleep_for(config_.retry_period);
  if (stop) return;
  on_started();
  auto last_renewal = clock_.Steady();
  while (!stop) {
    std::this_thread::sleep_for(config_.retry_period);
    if (TryAcquireOrRenew()) {
      last_renewal = clock_.Steady();
    } else if (clock_.Steady() - last_renewal >= config_.renew_deadline) {
      break;
    }
  }
  leader_ = false;
  on_stopped();
  if (stop) Release();
}

void LeaderElector::Release() {
  auto current = client_.Get(*leases_, config_.lock_namespace, config_.lock_name);
  if (!current.ok()) return;
  const auto* held = api::As<api::Lease>(**current);
  if (!held || held->spec.holderIdentity.value_or("") != config_.identity) return;
  auto next = std::make_unique<api::Lease>(*held);
  next->spec.holderIdentity = "";
  next->spec.leaseDurationSeconds = 1;
  next->spec.renewTime = api::MicroTime{clock_.Now()};
  leader_ = false;
  auto updated = client_.Update(*leases_, std::move(next));  // a 409: someone else has it now
  if (!updated.ok() && updated.status().code() != StatusCode::kConflict) {
    log::Warning("leader-election", "releasing lease " + config_.lock_namespace + "/" +
                                        config_.lock_name + ": " + updated.status().message());
  }
}

}  // namespace allot::client
