// Building the control-plane roles for `allot serve` and the role subcommands.
#pragma once

#include <memory>
#include <string>

#include "client/client.h"
#include "common/status.h"
#include "common/time.h"
#include "node/simulator.h"
#include "scheduler/scheduler.h"

namespace allot::cli {

// A started scheduler over `client`; `config_path` empty means the default configuration.
// `metrics` (optional) is shared with the API server so /metrics shows both.
Result<std::unique_ptr<scheduler::Scheduler>> StartScheduler(client::Client& client,
                                                             const std::string& config_path,
                                                             metrics::Registry* metrics = nullptr);

// `count` simulated nodes named allot-node-<i> from `template_path` (empty: the built-in
// template), registered and running.
Result<std::unique_ptr<node::NodeSimulator>> StartNodeSimulator(client::Client& client,
                                                                Clock& clock, int64_t count,
                                                                const std::string& template_path);

// `allot scheduler --server URL [--config FILE]`.
int RunScheduler(int argc, char** argv);

// Reads a whole file.
Result<std::string> ReadFile(const std::string& path);

}  // namespace allot::cli
