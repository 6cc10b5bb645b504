// The resourceclaim controller's metrics, registered in a shared metrics::Registry under the
// names kube-controller-manager's resourceclaim controller uses, so existing dashboards work:
//
//   resourceclaim_controller_creates_total{status, admin_access}   counter  1.32+ (1.34 name)
//   resourceclaim_controller_resource_claims{allocated, admin_access} gauge  1.32+ (1.34 name)
//   resourceclaim_controller_create_attempts_total                 counter  1.26-1.31
//   resourceclaim_controller_create_failures_total                 counter  1.26-1.31
//   resource_controller_create_total                               counter  KEP-3063 name
//   resource_controller_create_failures_total                      counter  KEP-3063 name
//
// All ALPHA. status is "success" | "failure"; admin_access and allocated are "true" | "false".
// Master renamed the first two to dynamic_resource_allocation_resourceclaim_* and added a
// `source` label to the gauge (1.35); not exported here.
//
// The gauge is kept from informer events (ClaimSeen / ClaimGone with +1 / -1); this object
// remembers its own contribution so Withdraw() can take it back when the controller stops
// (another controller sharing the registry then starts from a correct total).
//
// Thread-safe.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "api/resource/types.h"
#include "common/metrics.h"

namespace allot::controllers {

class ResourceClaimMetrics {
 public:
  explicit ResourceClaimMetrics(metrics::Registry& registry);

  // One Create call for a claim from a template; `admin_access`: the template asks for it.
  void RecordCreate(bool admin_access, bool succeeded);

  // A claim now in the informer cache (+1) or no longer in this state (-1).
  void CountClaim(const api::ResourceClaim& claim, int delta);
  // Subtracts everything CountClaim added (at Stop).
  void Withdraw();

 private:
  static size_t Slot(const api::ResourceClaim& claim);  // allocated * 2 + admin_access

  metrics::CounterFamily& creates_;
  metrics::Counter& attempts_;
  metrics::Counter& failures_;
  metrics::Counter& kep_creates_;
  metrics::Counter& kep_failures_;
  std::array<metrics::Gauge*, 4> claims_;            // by Slot
  std::array<std::atomic<int64_t>, 4> contributed_;  // by Slot
};

}  // namespace allot::controllers
