// AcceleratorPool: the example control-plane DRA driver running against an API server — its
// DeviceClass (created when missing, with suitableNodes = nodeSelector), a node informer for the
// driver's node lookups, the slots of claims allocated before it started (Restore), and the
// controlplane::Controller that does the rest. `allot driver controller` and `allot serve
// --demo` run one (docs/controller.md).
//
// Thread safety: Start and Stop from one thread.
#pragma once

#include <chrono>
#include <memory>

#include "client/client.h"
#include "client/informer.h"
#include "common/status.h"
#include "common/time.h"
#include "drivers/acceleratorpool/config.h"
#include "drivers/acceleratorpool/driver.h"
#include "drivers/acceleratorpool/node_plugin.h"
#include "drivers/controlplane/controller.h"

namespace allot::drivers {

struct AcceleratorPoolOptions {
  // The controller's queue backoff and resync, the driver's latencies; null: RealClock.
  // (A simulator's clock needs the latencies 0: driver.h says why.)
  Clock* clock = nullptr;
  std::chrono::seconds resync{300};
};

class AcceleratorPool {
 public:
  // `client` (and the clock) must outlive the pool.
  AcceleratorPool(client::Client& client, AcceleratorPoolConfig config,
                  AcceleratorPoolOptions options = {});
  ~AcceleratorPool();  // Stop()s

  Status Start(std::chrono::milliseconds sync_timeout = std::chrono::seconds(30));
  void Stop();

  AcceleratorPoolDriver& driver() { return *driver_; }
  // The kubelet side, for simulated nodes to register.
  AcceleratorPoolNodePlugin& node_plugin() { return node_plugin_; }
  controlplane::Controller::Stats stats() const;

 private:
  client::Client& client_;
  const AcceleratorPoolConfig config_;
  const AcceleratorPoolOptions options_;
  std::unique_ptr<client::Informer> nodes_;
  std::unique_ptr<AcceleratorPoolDriver> driver_;
  std::unique_ptr<controlplane::Controller> controller_;
  AcceleratorPoolNodePlugin node_plugin_{config_.driver};
};

}  // namespace allot::drivers
