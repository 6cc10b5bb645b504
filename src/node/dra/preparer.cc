#include "node/dra/preparer.h"

#include <algorithm>
#include <utility>

namespace allot::node {

namespace {

// The distinct drivers of the claim's allocation results, sorted.
std::vector<std::string> DriversOf(const api::ResourceClaim& claim) {
  std::vector<std::string> drivers;
  for (const auto& r : claim.status.allocation->devices.results) drivers.push_back(r.driver);
  std::sort(drivers.begin(), drivers.end());
  drivers.erase(std::unique(drivers.begin(), drivers.end()), drivers.end());
  return drivers;
}

ClaimRef RefOf(const api::ResourceClaim& claim) {
  return {claim.metadata.namespace_, claim.metadata.name, claim.metadata.uid};
}

}  // namespace

Result<std::vector<DraClaimPreparer::Pending>> DraClaimPreparer::Validate(
    const api::Pod& pod) const {
  std::vector<Pending> out;
  for (const PodClaimUse& use : PodClaims(pod)) {
    api::ObjectPtr obj =
        use.not_ready ? nullptr : claims_.GetClaim(pod.metadata.namespace_, use.claim_name);
    const api::ResourceClaim* claim = obj ? api::As<api::ResourceClaim>(*obj) : nullptr;
    if (std::string why = WhyClaimBlocksPod(pod, use, claim); !why.empty()) {
      return Status(StatusCode::kServiceUnavailable, why);
    }
    Pending p{.claim = obj};
    for (const std::string& driver : DriversOf(*claim)) {
      DraKubeletPlugin* plugin = plugins_.Find(driver);
      if (plugin == nullptr) {
        return Status(StatusCode::kServiceUnavailable, "driver " + driver + " is not registered");
      }
      p.plugins.push_back(plugin);
    }
    out.push_back(std::move(p));
  }
  return out;
}

Status DraClaimPreparer::Prepare(const api::Pod& pod, std::string_view node) {
  Result<std::vector<Pending>> pending = Validate(pod);
  if (!pending.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.failures;
    return pending.status();
  }
  std::vector<const Pending*> to_prepare;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const Pending& p : *pending) {
      if (!prepared_.contains({std::string(node), p.claim->metadata.uid})) to_prepare.push_back(&p);
    }
  }
  // Claims this call prepared, with the drivers that succeeded, for the rollback.
  std::vector<std::pair<ClaimRef, std::vector<std::string>>> done;
  uint64_t calls = 0;
  for (const Pending* p : to_prepare) {
    const auto& claim = *api::As<api::ResourceClaim>(*p->claim);
    done.push_back({RefOf(claim), {}});
    for (DraKubeletPlugin* plugin : p->plugins) {
      Status st = plugin->PrepareResources(claim, node);
      if (!st.ok()) {
        for (const auto& [ref, drivers] : done) Release(ref, drivers, node);
        std::lock_guard<std::mutex> lock(mu_);
        stats_.prepare_calls += calls;
        ++stats_.failures;
        return Status(st.code(), "NodePrepareResources failed for " + claim.metadata.namespace_ +
                                     "/" + claim.metadata.name + ": " + st.message());
      }
      ++calls;
      done.back().second.push_back(std::string(plugin->driver_name()));
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  stats_.prepare_calls += calls;
  std::vector<Key>& keys = claims_of_pod_[pod.metadata.uid];
  for (const Pending& p : *pending) {
    const auto& claim = *api::As<api::ResourceClaim>(*p.claim);
    Key key{std::string(node), claim.metadata.uid};
    auto [it, inserted] = prepared_.try_emplace(key);
    if (inserted) {
      it->second.ref = RefOf(claim);
      it->second.drivers = DriversOf(claim);
      ++stats_.prepared_claims;
    }
    if (it->second.pods.insert(pod.metadata.uid).second) keys.push_back(key);
  }
  if (keys.empty()) claims_of_pod_.erase(pod.metadata.uid);
  return Status::Ok();
}

void DraClaimPreparer::Unprepare(const api::Pod& pod, std::string_view node) {
  std::vector<PreparedClaim> released;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = claims_of_pod_.find(pod.metadata.uid);
    if (it == claims_of_pod_.end()) return;
    for (const Key& key : it->second) {
      auto claim = prepared_.find(key);
      if (claim == prepared_.end()) continue;
      claim->second.pods.erase(pod.metadata.uid);
      if (!claim->second.pods.empty()) continue;
      released.push_back(std::move(claim->second));
      prepared_.erase(claim);
      --stats_.prepared_claims;
    }
    claims_of_pod_.erase(it);
  }
  for (const PreparedClaim& c : released) Release(c.ref, c.drivers, node);
}

void DraClaimPreparer::Release(const ClaimRef& ref, const std::vector<std::string>& drivers,
                               std::string_view node) {
  uint64_t calls = 0;
  for (const std::string& driver : drivers) {
    DraKubeletPlugin* plugin = plugins_.Find(driver);
    if (plugin == nullptr) continue;              // unregistered meanwhile: nothing left to call
    (void)plugin->UnprepareResources(ref, node);  // best effort, as the hook's contract says
    ++calls;
  }
  std::lock_guard<std::mutex> lock(mu_);
  stats_.unprepare_calls += calls;
}

DraClaimPreparer::Stats DraClaimPreparer::GetStats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

}  // namespace allot::node
