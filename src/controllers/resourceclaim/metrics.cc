#include "controllers/resourceclaim/metrics.h"

#include "controllers/resourceclaim/rules.h"

namespace allot::controllers {

namespace {

metrics::Counter& Unlabelled(metrics::Registry& r, std::string_view name, std::string_view help) {
  return r.AddCounter(name, help, metrics::Stability::kAlpha).With({});
}

}  // namespace

ResourceClaimMetrics::ResourceClaimMetrics(metrics::Registry& registry)
    : creates_(registry.AddCounter("resourceclaim_controller_creates_total",
                                   "Number of ResourceClaims creation requests, categorized by "
                                   "creation status and admin access",
                                   metrics::Stability::kAlpha, {"status", "admin_access"})),
      attempts_(Unlabelled(registry, "resourceclaim_controller_create_attempts_total",
                           "Number of ResourceClaims creation requests")),
      failures_(Unlabelled(registry, "resourceclaim_controller_create_failures_total",
                           "Number of ResourceClaims creation request failures")),
      kep_creates_(Unlabelled(registry, "resource_controller_create_total",
                              "Number of ResourceClaims creation requests (KEP-3063 name)")),
      kep_failures_(Unlabelled(registry, "resource_controller_create_failures_total",
                               "Number of ResourceClaims creation request failures (KEP-3063 "
                               "name)")) {
  metrics::GaugeFamily& claims = registry.AddGauge(
      "resourceclaim_controller_resource_claims",
      "Number of ResourceClaims, categorized by allocation status and admin access",
      metrics::Stability::kAlpha, {"allocated", "admin_access"});
  for (size_t slot = 0; slot < claims_.size(); ++slot) {
    claims_[slot] = &claims.With({slot / 2 ? "true" : "false", slot % 2 ? "true" : "false"});
    contributed_[slot] = 0;
  }
}

void ResourceClaimMetrics::RecordCreate(bool admin_access, bool succeeded) {
  creates_.With({succeeded ? "success" : "failure", admin_access ? "true" : "false"}).Inc();
  attempts_.Inc();
  kep_creates_.Inc();
  if (!succeeded) {
    failures_.Inc();
    kep_failures_.Inc();
  }
}

size_t ResourceClaimMetrics::Slot(const api::ResourceClaim& claim) {
  return (claim.status.allocation ? 2 : 0) + (NeedsAdminAccess(claim.spec) ? 1 : 0);
}

void ResourceClaimMetrics::CountClaim(const api::ResourceClaim& claim, int delta) {
  size_t slot = Slot(claim);
  contributed_[slot] += delta;
  claims_[slot]->Inc(delta);
}

void ResourceClaimMetrics::Withdraw() {
  for (size_t slot = 0; slot < claims_.size(); ++slot) {
    claims_[slot]->Dec(static_cast<double>(contributed_[slot].exchange(0)));
  }
}

}  // namespace allot::controllers
