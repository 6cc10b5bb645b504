// Semantic versions (semver 2.0.0) as the Kubernetes CEL Semver library sees them: parsed
// strictly like github.com/blang/semver/v4 Parse, or with `normalize` (strip a leading "v", fill
// in a missing minor/patch, drop leading zeros) like the library's normalizeAndParse.
//
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace allot::cel {

struct Semver {
  uint64_t major = 0;
  uint64_t minor = 0;
  uint64_t patch = 0;
  // Dot-separated pre-release identifiers ("rc", "1"); build metadata is ignored by Compare.
  std::vector<std::string> pre;
  std::vector<std::string> build;
};

// Errors carry blang/semver's messages ("No Major.Minor.Patch elements found", ...).
Result<Semver> ParseSemver(std::string_view text, bool normalize = false);

// -1, 0, 1 by semver precedence (build metadata ignored).
int CompareSemver(const Semver& a, const Semver& b);

}  // namespace allot::cel
