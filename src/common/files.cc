#include "common/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
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

Status WriteFileAtomically(const std::string& path, std::string_view contents, unsigned mode) {
  const std::string tmp = path + ".tmp";
  auto fail = [&](const std::string& what) {
    std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return InternalError("cannot " + what + " " + path + ": " + why);
  };
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return fail("create");
  ::fchmod(fd, mode);  // whatever the umask left
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return fail("write");
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    return fail("sync");
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail("rename");
  return Status::Ok();
}

}  // namespace allot
