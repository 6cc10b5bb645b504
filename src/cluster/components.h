// Starting the control-plane components over a client, the same way for every assembly: `allot
// serve` (cluster.h), the role subcommands (`allot scheduler`, `allot controllers`), `allot
// bench` and the integration tests.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "client/client.h"
#include "client/informer_factory.h"
#include "common/metrics.h"
#include "common/status.h"
#include "common/time.h"
#include "controllers/clusterroleaggregation/controller.h"
#include "controllers/disruption/controller.h"
#include "controllers/reservation/controller.h"
#include "controllers/resourceclaim/controller.h"
#include "dra/features.h"
#include "drivers/nodelocal/simulated_devices.h"
#include "node/simulator.h"
#include "scheduler/scheduler.h"
#include "store/store.h"

namespace allot::cluster {

// The store's options with everything validation needs from above api/: CEL selector compilation
// (cel::SelectorValidators()). Every store this system serves is built with them.
store::StoreOptions DefaultStoreOptions();

// Informers shared by the components of one process.
//
// The scheduler and the controllers watch the same pods, nodes, claims and reservations. Given
// one InformerFactory, they share one list + watch and one cache per resource instead of two:
// every pod and claim is held once less, and each write is delivered to one informer thread
// instead of two (docs/performance.md, "One informer per resource"). The factory's owner stops
// it (StopAll) after both components stopped and before destroying them, since its informers
// call their handlers until then. Components that come and go on their own (leader election,
// cluster/elected_role.h) keep factories of their own (null).

// A started scheduler over `client`; `config_path` empty means the default configuration.
// `metrics` (optional) is shared with the API server so /metrics shows both. `informers`
// (optional): a factory shared with the controllers (above); null: the scheduler's own.
Result<std::unique_ptr<scheduler::Scheduler>> StartScheduler(
    client::Client& client, const std::string& config_path, metrics::Registry* metrics = nullptr,
    const dra::Features& features = {}, client::InformerFactory* informers = nullptr);

// The controllers (resourceclaim, reservation, disruption, clusterrole-aggregation), with the
// informers they share.
class Controllers {
 public:
  ~Controllers();  // Stop()s
  void Stop();
  client::InformerFactory& informers() { return *informers_; }

 private:
  friend Result<std::unique_ptr<Controllers>> StartControllers(client::Client&, metrics::Registry*,
                                                               const dra::Features&, Clock*, bool,
                                                               client::InformerFactory*);
  std::unique_ptr<client::InformerFactory> owned_informers_;  // null when shared
  client::InformerFactory* informers_ = nullptr;
  std::unique_ptr<controllers::ResourceClaimController> resource_claims_;
  std::unique_ptr<controllers::ReservationController> reservations_;
  std::unique_ptr<controllers::DisruptionController> disruptions_;
  std::unique_ptr<controllers::ClusterRoleAggregationController> role_aggregation_;
};

// Starts the controllers over `client`. `metrics` (optional) is shared
// with the API server so /metrics shows them; `clock` null means RealClock. `one_worker_each`:
// each controller syncs one key at a time, in the order the keys came (the simulator, whose runs
// must repeat exactly), instead of several workers for throughput. `informers` (optional): a
// factory shared with the scheduler (above); null: the controllers' own, stopped by Stop().
Result<std::unique_ptr<Controllers>> StartControllers(client::Client& client,
                                                      metrics::Registry* metrics,
                                                      const dra::Features& features,
                                                      Clock* clock = nullptr,
                                                      bool one_worker_each = false,
                                                      client::InformerFactory* informers = nullptr);

// `count` simulated nodes named allot-node-<i> from `template_path` (empty: the built-in
// template), registered and running. With `devices`, the nodes get its devices: its DRA hooks
// are installed before the nodes run, and it is started once they are registered (it must then
// be stopped before the simulator is destroyed).
Result<std::unique_ptr<node::NodeSimulator>> StartNodeSimulator(
    client::Client& client, Clock& clock, int64_t count, const std::string& template_path,
    drivers::SimulatedDevices* devices = nullptr);

}  // namespace allot::cluster
