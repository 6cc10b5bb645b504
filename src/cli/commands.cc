#include "cli/commands.h"

#include <cstdio>
#include <cstring>

#include "cli/controllers.h"
#include "cli/roles.h"
#include "drivers/cli.h"
#include "node/cli.h"

namespace allot::cli {

int Serve(int argc, char** argv);
int RunBench(int argc, char** argv);
int RunKubeconfig(int argc, char** argv);
int RunBackup(int argc, char** argv);
int RunRestore(int argc, char** argv);
int RunSim(int argc, char** argv);

namespace {
constexpr char kUsage[] =
    "usage: allot <command> [flags]\n\n"
    "commands:\n"
    "  serve     run the embedded control plane (API server, store, scheduler, simulated nodes)\n"
    "  scheduler run the scheduler against an API server (--kubeconfig F)\n"
    "  controllers run the controllers (resourceclaim) against an API server (--kubeconfig F)\n"
    "  node-sim  run simulated kubelets against an API server (--kubeconfig F --nodes N)\n"
    "  driver    run a DRA driver against an API server (driver fabric --kubeconfig F "
    "--config C)\n"
    "  kubeconfig write a kubeconfig with a client certificate from the cluster CA (--user U)\n"
    "  backup    copy the embedded store to a file while it serves (--data-dir D --out F)\n"
    "  restore   replace a stopped server's store with a backup (--data-dir D --from F)\n"
    "  bench     measure scheduling throughput (e.g. SchedulingBasic/500Nodes_1000Pods)\n"
    "  sim       run a what-if scenario on a virtual clock; write an HTML report (--report F)\n"
    "  version   print the version\n\n"
    "Run `allot <command> --help` for a command's flags.\n";
}  // namespace

int Main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  if (std::strcmp(argv[1], "serve") == 0) return Serve(argc, argv);
  if (std::strcmp(argv[1], "scheduler") == 0) return RunScheduler(argc, argv);
  if (std::strcmp(argv[1], "bench") == 0) return RunBench(argc, argv);
  if (std::strcmp(argv[1], "kubeconfig") == 0) return RunKubeconfig(argc, argv);
  if (std::strcmp(argv[1], "backup") == 0) return RunBackup(argc, argv);
  if (std::strcmp(argv[1], "restore") == 0) return RunRestore(argc, argv);
  if (std::strcmp(argv[1], "sim") == 0) return RunSim(argc, argv);
  if (std::strcmp(argv[1], "controllers") == 0) return RunControllers(argc, argv);
  if (std::strcmp(argv[1], "node-sim") == 0) {
    std::unique_ptr<node::NodeSimExtension> devices = NewSimDevicesExtension();
    return node::RunNodeSim(argc, argv, devices.get());
  }
  if (std::strcmp(argv[1], "driver") == 0) return drivers::RunDriverCommand(argc, argv);
  if (std::strcmp(argv[1], "version") == 0) {
    std::printf("allot v0.1.0 (Kubernetes API v1.37)\n");
    return 0;
  }
  if (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "help") == 0) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  std::fprintf(stderr, "allot: unknown command \"%s\"\n\n%s", argv[1], kUsage);
  return 2;
}

}  // namespace allot::cli
