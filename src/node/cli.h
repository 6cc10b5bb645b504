// `allot node-sim`: simulated kubelets against any Kubernetes-compatible API server.
//
//   allot node-sim --server http://127.0.0.1:6443 --nodes 1000 --node-template node.yaml
//       [--name-prefix sim] [--first-index 0] [--startup-delay 0s] [--max-grace 1s]
//
// Registers the nodes, prints progress, then keeps them alive and runs their pods until SIGINT
// or SIGTERM, printing a one-line summary every 10 seconds.
#pragma once

namespace allot::node {

// argv[1] is "node-sim"; flags start at argv[2]. Returns the process exit code: 0 after a clean
// shutdown, 1 when the server or the template is unusable, 2 for bad flags.
int RunNodeSim(int argc, char** argv);

}  // namespace allot::node
