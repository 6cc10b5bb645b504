// An exclusive advisory lock on a file (flock), held for the object's lifetime: how a store
// keeps a second process (another `allot serve`, `allot restore`) off a data directory in use.
#pragma once

#include <string>

#include "common/status.h"

namespace allot {

class FileLock {
 public:
  // Takes the lock on `path` (created if missing) without waiting. Errors: 409 Conflict "<what>
  // is in use by another process" when someone holds it; 500 when the file cannot be opened.
  static Result<FileLock> TryAcquire(const std::string& path, const std::string& what);

  FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace allot
