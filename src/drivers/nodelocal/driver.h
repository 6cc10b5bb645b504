// NodeLocalDriver: a node-local DRA driver, what a vendor's kubelet plugin does for the nodes
// it runs on (kubernetes-sigs/dra-example-driver's kubelet plugin, for many nodes at once).
//
// Publishing (Publish()): for each node it serves, one ResourceSlice
//   metadata.name     SliceName(node, driver): "<node>-<driver with '.' -> '-'>"
//   ownerReferences   the Node (controller: true), so the garbage collector deletes the slice
//                     with its node, as slices published by kubelet plugins are
//   spec.driver       profile.driver;     spec.nodeName  the node
//   spec.pool         {name: node, generation: 1, resourceSliceCount: 1}
//   spec.devices      DevicesForNode(profile, node) (drivers/nodelocal/device_profile.h)
// created when missing, updated when it differs (the pool generation is bumped when the
// devices change, so consumers drop the old view), and deleted for nodes it no longer serves.
// Only slices of this driver are touched, and only for nodes this object served: several
// drivers or processes serving disjoint nodes can share a cluster.
//
// Kubelet side (node::DraKubeletPlugin): PrepareResources checks that every allocation result
// of this driver names a device of the node's published slice (pool = the node), or a device of
// another pool of this driver that was hot-plugged into the node (a fabric device,
// drivers/fabric/driver.h: the allocation is pinned to the node and the claim's status.devices
// entry shows every binding condition of the result True, drivers/device_status.h ReportedReady),
// and records the claim as prepared on that node; UnprepareResources forgets it. Both are
// idempotent.
//
// Thread safety: thread-safe. Publish() calls run one at a time; Prepare / Unprepare never
// wait for a Publish in progress. `client` must outlive the driver.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "client/client.h"
#include "drivers/nodelocal/device_profile.h"
#include "node/dra/plugin.h"

namespace allot::drivers {

class NodeLocalDriver final : public node::DraKubeletPlugin {
 public:
  NodeLocalDriver(client::Client& client, DeviceProfile profile);

  // The nodes to serve from the next Publish() on.
  void SetNodes(std::vector<std::string> nodes);
  // The device profile from the next Publish() on (the driver name must stay the same).
  Status SetProfile(DeviceProfile profile);
  // Brings the slices in line with the nodes and the profile (see above). Waits for every write.
  // Errors: the first failure, with how many nodes failed (e.g. a served node that does not
  // exist: its slice needs the Node's uid); the other nodes are published regardless, and the
  // next Publish() retries the failed ones.
  Status Publish();

  // "<node>-<driver with '.' replaced by '-'>", shortened with a hash suffix to fit 253 bytes.
  static std::string SliceName(std::string_view node, std::string_view driver);

  // node::DraKubeletPlugin.
  std::string_view driver_name() const override { return driver_; }
  Status PrepareResources(const api::ResourceClaim& claim, std::string_view node) override;
  Status UnprepareResources(const node::ClaimRef& claim, std::string_view node) override;

  struct Stats {
    uint64_t slices_created = 0;
    uint64_t slices_updated = 0;
    uint64_t slices_deleted = 0;
    int64_t prepared_claims = 0;  // (node, claim) pairs prepared now
  };
  Stats GetStats() const;
  // Devices held by prepared claims on `node`, sorted: the device name for the node's own
  // devices, "<pool>/<device>" for hot-plugged ones.
  std::vector<std::string> PreparedDevices(std::string_view node) const;
  // Nodes whose slice is published as the current profile describes it.
  std::vector<std::string> PublishedNodes() const;

 private:
  struct Prepared {
    node::ClaimRef ref;
    std::vector<std::string> devices;
  };
  struct Plan;

  void MakePlan(const std::vector<api::ObjectPtr>& slices,
                const std::map<std::string, std::string>& node_uids, Plan& plan) const;
  Status Execute(Plan& plan);

  client::Client& client_;
  const std::string driver_;
  const api::ResourceInfo& slices_res_;
  const api::ResourceInfo& nodes_res_;

  std::mutex publish_mu_;  // serializes Publish(); taken before mu_
  mutable std::mutex mu_;
  DeviceProfile profile_;                                                // guarded by mu_
  std::set<std::string> nodes_;                                          // guarded by mu_: to serve
  std::map<std::string, std::set<std::string>, std::less<>> published_;  // guarded by mu_
  // node -> claim uid -> what it holds.
  std::map<std::string, std::map<std::string, Prepared>, std::less<>> prepared_;  // guarded by mu_
  Stats stats_;                                                                   // guarded by mu_
};

// Creates the DeviceClass named after the driver, selecting its devices
// (`device.driver == '<driver>'`), unless a DeviceClass of that name exists (then it is left as
// the administrator made it; drivers/device_class.h).
Status EnsureDeviceClass(client::Client& client, std::string_view driver);

}  // namespace allot::drivers
