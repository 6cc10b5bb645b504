// `allot node-sim`: simulated kubelets against any Kubernetes-compatible API server.
//
//   allot node-sim --server http://127.0.0.1:6443 --nodes 1000 --node-template node.yaml
//       [--name-prefix sim] [--first-index 0] [--startup-delay 0s] [--max-grace 1s]
//
// Registers the nodes, prints progress, then keeps them alive and runs their pods until SIGINT
// or SIGTERM, printing a one-line summary every 10 seconds.
#pragma once

#include "client/client.h"
#include "common/flags.h"
#include "common/status.h"
#include "node/simulator.h"

namespace allot::node {

// Behaviour the embedding binary layers on `allot node-sim` from libraries node/ cannot depend
// on (the DRA driver of `--sim-gpus-per-node`, in drivers/). All calls come from RunNodeSim's
// thread, in this order.
class NodeSimExtension {
 public:
  virtual ~NodeSimExtension() = default;
  // Adds the extension's flags (shown by --help).
  virtual void AddFlags(Flags& flags) = 0;
  // After the flags parsed and the client is built, before the simulator runs: checks the
  // extension's flags (an error is reported as a flag error, exit code 2) and installs hooks.
  virtual Status Configure(client::Client& client, NodeSimulator& sim) = 0;
  // Once the simulator registered its nodes. An error ends the run (exit code 1).
  virtual Status Start(NodeSimulator& sim) = 0;
  // At shutdown, after the simulator stopped.
  virtual void Stop() = 0;
};

// argv[1] is "node-sim"; flags start at argv[2]. Returns the process exit code: 0 after a clean
// shutdown, 1 when the server or the template is unusable, 2 for bad flags. `extension`
// (optional) must outlive the call.
int RunNodeSim(int argc, char** argv, NodeSimExtension* extension = nullptr);

}  // namespace allot::node
