// Reading whole files (configuration, manifests, profiles named on the command line).
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace allot {

// The whole file. 400 BadRequest "cannot read <path>" when it cannot be opened or read.
Result<std::string> ReadFile(const std::string& path);

// Replaces `path` with `contents` atomically (a temporary file in the same directory, synced,
// then renamed), created with permission bits `mode` (e.g. 0600 for private keys). A path that
// exists and is not a regular file (/dev/null, /dev/stdout, a FIFO) is written in place: there
// is no file to replace, and renaming over it would replace the device. Errors: 500 naming the
// path and the system's reason.
Status WriteFileAtomically(const std::string& path, std::string_view contents, unsigned mode);

}  // namespace allot
