// DraKubelet: the DRA part of the simulated kubelets, wired into a NodeSimulator.
//
//   DraKubelet dra(client);                       // or DraKubelet(client, &shared_claims)
//   ALLOT_RETURN_IF_ERROR(dra.plugins().Register(gpu_driver));
//   dra.Install(sim);                             // before sim.Watch() / sim.Run()
//   ALLOT_RETURN_IF_ERROR(dra.Start());           // the claim informer
//   ALLOT_RETURN_IF_ERROR(sim.Run());
//   ...
//   sim.Stop(); dra.Stop();
//
// It owns (or borrows) a ResourceClaim informer, and installs in the simulator
//   - the DraStartRule (node/dra/claims.h): a pod starts only once its claims are allocated and
//     reserved for it;
//   - the DraClaimPreparer (node/dra/preparer.h): NodePrepareResources through the registered
//     plugins before the pod runs, NodeUnprepareResources when it is gone.
// Why the recheck: the simulator retries a refused pod with backoff (1 s doubling to 30 s) and
// whenever the pod changes, but a claim getting reserved does not change the pod. So on every
// claim event whose allocation or reservedFor changed, the pods in its reservedFor are handed
// to NodeSimulator::Recheck and start without waiting out their backoff.
//
// Lifetime: the hooks installed in the simulator share this object's state, so they stay valid
// whichever of the two is destroyed first; but Stop() (or destroy) this before destroying the
// simulator, since claim events call into it until then. Plugins must outlive both.
// Thread safety: all methods are thread-safe.
#pragma once

#include <chrono>
#include <memory>

#include "client/client.h"
#include "client/informer.h"
#include "node/dra/plugin.h"
#include "node/dra/preparer.h"
#include "node/simulator.h"

namespace allot::node {

class DraKubelet {
 public:
  // `shared_claims`: a resourceclaims informer shared with other components of the process
  // (client/informer_factory.h; its owner starts it); null: an informer of our own over
  // `client`, started by Start(). Either must outlive this object.
  explicit DraKubelet(client::Client& client, client::Informer* shared_claims = nullptr);
  ~DraKubelet();  // Stop()s
  DraKubelet(const DraKubelet&) = delete;
  DraKubelet& operator=(const DraKubelet&) = delete;

  DraPluginRegistry& plugins();

  // Adds the start rule and sets the claim preparer of `sim`, and rechecks its refused pods on
  // claim changes. Once, before sim.Watch() / sim.Run().
  void Install(NodeSimulator& sim);
  // Starts our own informer (if we have one) and waits for its initial list.
  Status Start(std::chrono::milliseconds sync_timeout = std::chrono::seconds(30));
  // Stops our informer and detaches from the simulator. Idempotent.
  void Stop();

  DraClaimPreparer::Stats PreparerStats() const;
  // NodeSimulator::Recheck calls made because a claim changed.
  uint64_t rechecks() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace allot::node
