#include "common/files.h"

#include <fstream>
#include <sstream>

namespace allot {

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return BadRequestError("cannot read " + path);
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return BadRequestError("cannot read " + path);
  return buf.str();
}

}  // namespace allot
