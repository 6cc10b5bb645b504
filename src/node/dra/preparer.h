// The simulated kubelet's ClaimPreparer for DRA: prepares a pod's claims through the kubelet
// plugins of the drivers that allocated them, and releases them when the last pod on the node
// using a claim is gone (pkg/kubelet/cm/dra/manager.go: prepareResources /
// unprepareResources, with its claim-info cache reduced to a map).
//
// Prepare(pod, node), called after the DraStartRule allowed the pod:
//   1. validation pass, changing nothing: every claim of the pod (node/dra/claims.h) is found,
//      allocated and reserved for the pod, and every driver in its allocation results has a
//      registered plugin ("driver X is not registered");
//   2. for each claim not yet prepared on the node, PrepareResources on each of its drivers'
//      plugins. A failure unprepares what this call prepared and returns the error (the
//      simulator retries with backoff);
//   3. records the pod as a user of each claim.
// Unprepare(pod, node) drops the pod from its claims' users and calls UnprepareResources for
// each claim that has no user left on the node.
//
// Thread safety: thread-safe (the simulator calls it from its tick thread; tests read Stats from
// others). Plugins are called without the lock held. `claims` and `plugins` must outlive this.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "node/dra/claims.h"
#include "node/dra/plugin.h"
#include "node/hooks.h"

namespace allot::node {

class DraClaimPreparer final : public ClaimPreparer {
 public:
  DraClaimPreparer(const ClaimSource& claims, const DraPluginRegistry& plugins)
      : claims_(claims), plugins_(plugins) {}

  Status Prepare(const api::Pod& pod, std::string_view node) override;
  void Unprepare(const api::Pod& pod, std::string_view node) override;

  struct Stats {
    int64_t prepared_claims = 0;  // (node, claim) pairs prepared now
    uint64_t prepare_calls = 0;   // PrepareResources calls that succeeded
    uint64_t unprepare_calls = 0;
    uint64_t failures = 0;  // Prepare() calls that returned an error
  };
  Stats GetStats() const;

 private:
  struct PreparedClaim {
    ClaimRef ref;
    std::vector<std::string> drivers;
    std::set<std::string> pods;  // uids of the pods on the node using it
  };
  // What Prepare needs for one claim, gathered by the validation pass.
  struct Pending {
    api::ObjectPtr claim;
    std::vector<DraKubeletPlugin*> plugins;
  };
  using Key = std::pair<std::string, std::string>;  // (node, claim uid)

  Result<std::vector<Pending>> Validate(const api::Pod& pod) const;
  void Release(const ClaimRef& ref, const std::vector<std::string>& drivers, std::string_view node);

  const ClaimSource& claims_;
  const DraPluginRegistry& plugins_;
  mutable std::mutex mu_;
  std::map<Key, PreparedClaim> prepared_;                  // guarded by mu_
  std::map<std::string, std::vector<Key>> claims_of_pod_;  // guarded by mu_; by pod uid
  Stats stats_;                                            // guarded by mu_
};

}  // namespace allot::node
