// The `allot` binary's subcommands.
#pragma once

namespace allot::cli {

// Dispatches argv[1] to a subcommand; returns the process exit code.
int Main(int argc, char** argv);

}  // namespace allot::cli
