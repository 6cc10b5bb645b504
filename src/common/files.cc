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

namespace {

// Writes all of `contents` to `fd`; false with errno set on failure.
bool WriteAll(int fd, std::string_view contents) {
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

Status WriteFileAtomically(const std::string& path, std::string_view contents, unsigned mode) {
  struct stat existing;
  if (::stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode)) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0 || !WriteAll(fd, contents)) {
      std::string why = std::strerror(errno);
      if (fd >= 0) ::close(fd);
      return InternalError("cannot write " + path + ": " + why);
    }
    ::close(fd);
    return Status::Ok();
  }
  const std::string tmp = path + ".tmp";
  auto fail = [&](const std::string& what) {
    std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return InternalError("cannot " + what + " " + path + ": " + why);
  };
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return fail("create");
  ::fchmod(fd, mode);  // whatever the umask left
  if (!WriteAll(fd, contents)) {
    ::close(fd);
    return fail("write");
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
