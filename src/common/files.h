// Reading whole files (configuration, manifests, profiles named on the command line).
#pragma once

#include <string>

#include "common/status.h"

namespace allot {

// The whole file. 400 BadRequest "cannot read <path>" when it cannot be opened or read.
Result<std::string> ReadFile(const std::string& path);

}  // namespace allot
