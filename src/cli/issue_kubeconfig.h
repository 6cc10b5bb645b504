// A kubeconfig for a user of the cluster whose CA is in <data-dir>/pki: a client certificate
// (CN = the user, O = the groups) issued by that CA, the CA to trust, and the server's URL.
// Used by `allot kubeconfig` and by the benchmarks, whose roles each run with their own.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "common/status.h"

namespace allot::cli {

// The kubeconfig's YAML. Errors: the CA cannot be read or used.
Result<std::string> IssueKubeconfig(const std::string& data_dir, const std::string& server,
                                    const std::string& user, const std::vector<std::string>& groups,
                                    std::chrono::hours validity);

}  // namespace allot::cli
