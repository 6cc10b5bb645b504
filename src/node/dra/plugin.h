// The node-side DRA driver interface (what a vendor's kubelet plugin serves over gRPC as
// NodePrepareResources / NodeUnprepareResources), and the registry the simulated kubelet looks
// plugins up in by driver name.
//
// The kubelet calls a plugin only for claims that are allocated and reserved for the pod being
// started (node/dra/claims.h checks that first), once per driver named in the claim's
// allocation results, and unprepares a claim when the last pod on the node using it is gone.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource/types.h"
#include "common/status.h"

namespace allot::node {

// Identifies a prepared claim when it is released (the claim object may be gone by then).
struct ClaimRef {
  std::string namespace_;
  std::string name;
  std::string uid;
  bool operator==(const ClaimRef&) const = default;
};

// Implementations must be thread-safe: the simulator calls them on its tick thread while other
// threads (slice publishing, tests) use the same object.
class DraKubeletPlugin {
 public:
  virtual ~DraKubeletPlugin() = default;
  // The driver this plugin serves ("gpu.example.com"); constant for the plugin's life.
  virtual std::string_view driver_name() const = 0;
  // Makes the claim's devices of this driver usable on `node`. Idempotent: preparing a claim
  // that is already prepared on the node succeeds without doing anything. An error keeps the
  // pod from starting (the kubelet retries).
  virtual Status PrepareResources(const api::ResourceClaim& claim, std::string_view node) = 0;
  // Releases what PrepareResources did. Idempotent: an unknown claim is not an error.
  virtual Status UnprepareResources(const ClaimRef& claim, std::string_view node) = 0;
};

// Plugins by driver name, as the kubelet's plugin manager keeps them. Does not own the plugins:
// a registered plugin must stay alive until it is unregistered or the registry is destroyed.
// Thread-safe.
class DraPluginRegistry {
 public:
  // 409 AlreadyExists when another plugin serves the same driver.
  Status Register(DraKubeletPlugin& plugin);
  void Unregister(std::string_view driver);
  // The plugin for `driver`, or null.
  DraKubeletPlugin* Find(std::string_view driver) const;
  std::vector<std::string> Drivers() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, DraKubeletPlugin*, std::less<>> plugins_;  // guarded by mu_
};

}  // namespace allot::node
