// `allot controllers`: the controllers (cluster::StartControllers) as a process of their own.
#pragma once

namespace allot::cli {

// `allot controllers --server URL [--feature-gates ...]`.
int RunControllers(int argc, char** argv);

}  // namespace allot::cli
