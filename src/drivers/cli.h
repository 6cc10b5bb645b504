// `allot driver <name>`: DRA drivers as processes of their own, against any Kubernetes-compatible
// API server.
//
//   allot driver fabric --server http://127.0.0.1:6443 --config examples/fabric.yaml
//       [--token TOKEN]
//
// `fabric` runs a FabricDriver (drivers/fabric/driver.h) with the configuration file
// (drivers/fabric/config.h): ensures the DeviceClass named after the driver, publishes the
// fabric's slices, attaches and detaches devices as claims are allocated and released, until
// SIGINT or SIGTERM, logging each attach / failure / detach and a one-line summary every 10 s.
//
//   allot driver controller --server http://127.0.0.1:6443 --config examples/controller/pool.yaml
//
// `controller` runs the example control-plane driver (drivers/acceleratorpool/, KEP-3063,
// docs/controller.md): network-attached accelerators allocated by its controller in
// negotiation with the scheduler, with a one-line summary of the racks every 10 s.
#pragma once

namespace allot::drivers {

// argv[1] is "driver", argv[2] the driver's name; its flags start at argv[3]. Returns the
// process exit code: 0 after a clean shutdown, 1 when the driver could not start (server
// unreachable), 2 for bad flags, an unknown driver or an invalid configuration file.
int RunDriverCommand(int argc, char** argv);

}  // namespace allot::drivers
