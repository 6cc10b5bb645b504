// What the kernel counts for a process, read from Linux's /proc: its resident memory and how
// often its threads blocked and were woken again, per thread name. `allot bench` reports these
// as RSS per pod and thread wake-ups per pod (docs/performance.md).
//
// A voluntary context switch is a thread giving up its core to wait (a condition variable, a
// futex, a socket, a sleep); each is followed by one wake-up, so the counts are the hand-offs
// between threads plus the waits on the kernel. Counts of threads that have exited are lost,
// so compare two readings of long-lived threads.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "common/status.h"

namespace allot {

struct ProcessStats {
  int64_t rss_bytes = 0;
  // Voluntary context switches of every live thread.
  uint64_t wakeups = 0;
  // The same per thread name (NameThisThread), threads of one name summed.
  std::map<std::string, uint64_t> wakeups_by_thread;
};

// `pid` 0 is this process. Errors: 404 when the process is gone, 500 when /proc is unreadable.
Result<ProcessStats> ReadProcessStats(pid_t pid = 0);

// Names the calling thread as `ps -L`, `top -H`, perf and ReadProcessStats show it; names longer
// than the kernel's 15 bytes are cut.
void NameThisThread(std::string_view name);

}  // namespace allot
