// SimulatedDevices: node-local devices for the nodes of a NodeSimulator, end to end: the
// DeviceClass, a NodeLocalDriver publishing one ResourceSlice per simulated node, and the
// simulated kubelets' DRA behaviour (node::DraKubelet) with that driver as its plugin.
//
//   SimulatedDevices devices(client, {.profile = profile});
//   devices.Install(sim);                          // before sim.Run(): start rule + preparer
//   ALLOT_RETURN_IF_ERROR(sim.Run());              // registers the nodes
//   ALLOT_RETURN_IF_ERROR(devices.Start(sim));     // DeviceClass, slices, claim informer
//   ...
//   devices.Stop();  sim.Stop();                   // or destroy `devices` before `sim`
//
// After Start, a background thread republishes every resync_period, which restores the slice
// of a node that was deleted and re-registered (the garbage collector removed its slice with
// the old Node) and retries nodes that failed.
//
// Thread safety: Install, Start and Stop from one thread; the rest is thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string_view>
#include <thread>

#include "client/client.h"
#include "drivers/nodelocal/device_profile.h"
#include "drivers/nodelocal/driver.h"
#include "node/dra/kubelet.h"
#include "node/simulator.h"

namespace allot::drivers {

struct SimulatedDevicesOptions {
  DeviceProfile profile;
  // 0: no background republishing.
  std::chrono::milliseconds resync_period{std::chrono::seconds(60)};
  // A resourceclaims informer shared with the rest of the process (its owner starts it); null:
  // our own.
  client::Informer* shared_claims = nullptr;
  // Publishing problems; null: silent. Called from Start()'s thread or the republishing one.
  std::function<void(std::string_view)> log;
};

class SimulatedDevices {
 public:
  // `client` must outlive this object.
  SimulatedDevices(client::Client& client, SimulatedDevicesOptions options);
  ~SimulatedDevices();  // Stop()s
  SimulatedDevices(const SimulatedDevices&) = delete;
  SimulatedDevices& operator=(const SimulatedDevices&) = delete;

  // Installs the DRA start rule and claim preparer in `sim`; before sim.Watch() / sim.Run().
  void Install(node::NodeSimulator& sim);
  // Once the simulator registered its nodes: ensures the DeviceClass, publishes the nodes'
  // slices, starts the claim informer and the background republishing. Errors: the DeviceClass
  // could not be created, or the informer did not sync. Nodes whose slice could not be
  // published are logged and retried by the background republishing.
  Status Start(const node::NodeSimulator& sim);
  // Stops republishing and claim events. Idempotent.
  void Stop();

  NodeLocalDriver& driver() { return driver_; }
  node::DraKubelet& kubelet() { return kubelet_; }

 private:
  void ResyncLoop();

  client::Client& client_;
  const SimulatedDevicesOptions options_;
  NodeLocalDriver driver_;
  node::DraKubelet kubelet_;  // after driver_: destroyed (stopped) before the plugin it calls

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // guarded by mu_
  std::thread resync_;
};

}  // namespace allot::drivers
