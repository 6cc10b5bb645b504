// `allot kubeconfig`: a kubeconfig with a client certificate from the cluster CA of a data
// directory, for a user and its groups — the credentials of a driver, a node, a scheduler.
//
//   allot kubeconfig --data-dir ./data --user system:kube-scheduler --out scheduler.kubeconfig
//   allot kubeconfig --user system:node:n1 --group system:nodes --out n1.kubeconfig
#include <cstdio>
#include <filesystem>

#include "cli/issue_kubeconfig.h"
#include "common/files.h"
#include "common/flags.h"

namespace allot::cli {

int RunKubeconfig(int argc, char** argv) {
  std::string data_dir = "./data";
  std::string user;
  std::string groups;
  std::string server = "https://127.0.0.1:6443";
  std::string out;
  int64_t days = 365;
  Flags flags("allot kubeconfig",
              "Writes a kubeconfig with a client certificate issued by the cluster CA in "
              "<data-dir>/pki (CN = the user, O = the groups).");
  flags.String("data-dir", &data_dir,
               "the data directory of `allot serve` (its pki/ holds the CA)");
  flags.String("user", &user, "the user name, e.g. system:kube-scheduler (required)");
  flags.String("group", &groups, "the user's groups, comma-separated, e.g. system:nodes");
  flags.String("server", &server, "the API server's URL to write into the kubeconfig");
  flags.String("out", &out, "where to write the kubeconfig (default: standard output)");
  flags.Int("days", &days, "how long the certificate is valid");
  if (auto exit_code = flags.ParseOrExit(argc, argv)) return *exit_code;
  if (user.empty()) {
    return flags.UsageError("--user is required");
  }
  if (days <= 0 || days > 3650) {
    std::fprintf(stderr, "allot kubeconfig: --days must be in [1, 3650]\n");
    return 2;
  }
  auto yaml = IssueKubeconfig(data_dir, server, user, SplitCommaList(groups),
                              std::chrono::hours(24 * days));
  if (!yaml.ok()) {
    std::fprintf(stderr, "allot kubeconfig: %s\n", yaml.status().message().c_str());
    return 1;
  }
  if (out.empty()) {
    std::fputs(yaml->c_str(), stdout);
    return 0;
  }
  if (Status st = WriteFileAtomically(out, *yaml, 0600); !st.ok()) {
    std::fprintf(stderr, "allot kubeconfig: %s\n", st.message().c_str());
    return 1;
  }
  std::printf("allot kubeconfig: wrote %s for user %s\n", out.c_str(), user.c_str());
  return 0;
}

}  // namespace allot::cli
